import CardIO
import COpenSSL
import FoundationEssentials
import Glibc
import LocalFiles
import MRZScanner
import VideoFrames

/// OCR (the MRZ model, Tesseract), cameras and their libraries, and the versions in use.
enum ToolChecks {
    static func ocr() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        do {
            let model = try MRZModel.locate()
            checks.append(DoctorCheck("ocr", "MRZ model", model.isFallback ? .warn : .ok,
                                      "\(model.language).traineddata in \(model.dataPath)",
                                      fix: model.isFallback ? "install the passport package (it puts mrz.traineddata in /usr/share/passport/tessdata); the fallback model reads MRZs less well" : nil))
        } catch {
            checks.append(DoctorCheck("ocr", "MRZ model", .warn, "\(error)", fix: "install the passport package, or set PASSPORT_TESSDATA to a folder holding mrz.traineddata"))
        }
        do {
            checks.append(DoctorCheck("ocr", "Tesseract", .ok, "libtesseract \(try TesseractEngine.version())"))
        } catch {
            checks.append(DoctorCheck("ocr", "Tesseract", .warn, "\(error)", fix: "sudo apt install \(TesseractEngine.debianPackage) (only photos and cameras need it; --mrz works without)"))
        }
        return checks
    }

    static func cameras(_ environment: DoctorEnvironment) -> [DoctorCheck] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: environment.devfs)) ?? [])
            .filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }.sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        var checks: [DoctorCheck] = []
        if names.isEmpty {
            checks.append(DoctorCheck("camera", "cameras", .ok, "none (only scan --camera needs one)"))
        }
        for name in names {
            let path = "\(environment.devfs)/\(name)"
            let shown = "/dev/\(name)"
            if access(path, R_OK | W_OK) == 0 {
                checks.append(DoctorCheck("camera", shown, .ok, "present, this user may open it"))
            } else {
                checks.append(DoctorCheck("camera", shown, .warn, "present, but this user may not open it (\(USBReaderChecks.describeNode(path)))",
                                          fix: "sudo usermod -aG video $USER, then log out and in again"))
            }
        }
        do {
            try VideoFrameSource.requireLibraries()
            checks.append(DoctorCheck("camera", "camera libraries", .ok, "FFmpeg (libavformat, libavcodec, libavdevice, libswscale) loads"))
        } catch let VideoSourceError.librariesMissing(reason, packages) {
            checks.append(DoctorCheck("camera", "camera libraries", .warn, "FFmpeg is missing: \(reason)",
                                      fix: "sudo apt install \(packages) (only scan --camera and ocr of a video need them)"))
        } catch {
            checks.append(DoctorCheck("camera", "camera libraries", .warn, "\(error)", fix: "sudo apt install \(VideoFrameSource.debianPackages)"))
        }
        return checks
    }

    static func versions() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let pcscd = SmartCardChecks.pcscdPaths.first { FileManager.default.isExecutableFile(atPath: $0) }
        checks.append(DoctorCheck("versions", "pcsc-lite", .ok, pcscd.flatMap(pcscdVersion) ?? "not installed"))
        checks.append(DoctorCheck("versions", "libnfc", .ok, (try? NFCContext.libraryVersion()) ?? "not installed"))
        checks.append(DoctorCheck("versions", "OpenSSL", .ok, String(cString: OpenSSL_version(OPENSSL_VERSION))))
        checks.append(DoctorCheck("versions", "Tesseract", .ok, (try? TesseractEngine.version()) ?? "not installed"))
        return checks
    }

    /// "2.0.0", from `pcscd --version` ("pcsc-lite version 2.0.0.").
    /// `binary` is one of the fixed `SmartCardChecks.pcscdPaths`, so the shell line is ours.
    static func pcscdVersion(_ binary: String) -> String? {
        guard let stream = popen("'\(binary)' --version 2>/dev/null", "r") else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = fread(&buffer, 1, buffer.count, stream)
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        pclose(stream)
        let output = String(decoding: bytes, as: UTF8.self)
        guard let line = output.split(separator: "\n").first(where: { $0.contains("version") }),
              let word = line.split(separator: " ").last(where: { $0.first?.isNumber == true }) else { return nil }
        return String(word.hasSuffix(".") ? word.dropLast() : word)
    }
}
