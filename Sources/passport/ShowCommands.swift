import ArgumentParser
import PassportCLI
import FoundationEssentials
import TextSupport
import ImageCodecs
import LDS
import PassportKit
import LocalFiles

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show what a dump's files contain (DG1, face, DG11, DG12, DG14, DG15, SOD).")

    @Argument(help: "The dump folder.") var dump: String
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let details = DocumentDetails(files: folder.files)
            if json {
                printJSON(ShowReport(dump: folder, details: details))
            } else {
                for (label, value) in details.lines { print("  \(label.padded(to: 14)) \(value)") }
                print("  Files          " + folder.files.sorted { $0.key < $1.key }.map { "\($0.key.name) (\($0.value.count) B)" }.joined(separator: ", "))
                for problem in details.problems { print("  Problem        \(problem)") }
            }
            if !details.problems.isEmpty { throw Exit.invalidDocument }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }
}

struct PhotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo", abstract: "Extract the face image from DG2 (or the finger images of DG3, the iris images of DG4) and save it as PNG.",
        discussion: """
        JPEG, JPEG 2000 and PNG images are decoded and written as PNG. With --dg3 or --dg4, --out is a
        folder (created) that receives one file per image, named by data group, number and position;
        WSQ fingerprints are saved as .wsq files as stored, because Debian has no WSQ decoder.
        """)

    @Argument(help: "The dump folder.") var dump: String
    @Option(help: "The PNG file to write; with --dg3/--dg4, the folder to create.") var out: String
    @Flag(help: "Save the image as stored (JPEG or JPEG 2000) instead of converting to PNG.") var raw = false
    @Flag(help: "The finger images of DG3 (ISO/IEC 19794-4).") var dg3 = false
    @Flag(help: "The iris images of DG4 (ISO/IEC 19794-6).") var dg4 = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if dg3 && dg4 { throw ValidationError("Give --dg3 or --dg4, not both.") }
    }

    func run() throws {
        if dg3 || dg4 { try runBiometric(); return }
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            guard let bytes = folder.files[.dataGroup(2)] else { throw PhotoError.noDG2 }
            let face = try DataGroup2(bytes: bytes).faces[0]
            let output = raw ? face.image : try ImageConverter.png(from: face.image)
            let size = try ImageConverter.dimensions(of: face.image)
            try writePrivateFile(Data(output), to: out)
            if json {
                printJSON(PhotoReport(out: out, sourceFormat: face.format.rawValue, width: size.width, height: size.height, bytes: output.count))
            } else {
                print("Saved the face image (\(face.format.rawValue), \(size.width)×\(size.height)) to \(out)")
            }
        } catch {
            throw fail(error, json: json)
        }
    }

    /// DG3 or DG4: each image decoded to PNG where Leptonica reads its format, else kept as stored.
    func runBiometric() throws {
        let file = LDSFile.dataGroup(dg3 ? 3 : 4)
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            guard let bytes = folder.files[file] else { throw PhotoError.missing(file) }
            let images = try BiometricImage.all(in: file, bytes)
            guard !images.isEmpty else { throw PhotoError.noImages(file) }
            let destination = URL(fileURLWithPath: out)
            if FileManager.default.fileExists(atPath: destination.path) { throw DumpError.destinationExists(destination.path) }
            try PrivateFiles.createFolder(destination)
            var saved: [BiometricPhotoReport.Image] = []
            for (index, image) in images.enumerated() {
                saved.append(try save(image, number: index + 1, file: file, in: destination))
            }
            if json {
                printJSON(BiometricPhotoReport(out: destination.path, images: saved))
            } else {
                for image in saved {
                    print("Saved \(image.position) (\(image.sourceFormat), \(image.width)×\(image.height)) to \(image.file)" + (image.note.map { "; \($0)" } ?? ""))
                }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }

    private func save(_ image: BiometricImage, number: Int, file: LDSFile, in folder: URL) throws -> BiometricPhotoReport.Image {
        let stem = "\(file.name)-\(number)-" + image.position.replacing(" ", with: "-")
        let decode = !raw && image.decodable
        let output = decode ? try ImageConverter.png(from: image.bytes) : image.bytes
        let path = folder.appendingPathComponent(stem + "." + (decode ? "png" : image.fileExtension)).path
        try writePrivateFile(Data(output), to: path)
        let note: String? = decode || raw ? nil
            : image.fileExtension == "wsq" ? "WSQ saved as stored: Debian has no WSQ decoder (NIST NBIS dwsq reads it)"
            : "\(image.format) saved as stored: not a format this tool decodes"
        return BiometricPhotoReport.Image(file: path, position: image.position, sourceFormat: image.format,
                                          width: image.width, height: image.height, bytes: output.count, converted: decode, note: note)
    }

    enum PhotoError: ReportableError {
        case noDG2
        case missing(LDSFile)
        case noImages(LDSFile)
        var description: String {
            switch self {
            case .noDG2: return "The dump has no DG2 (face image)."
            case .missing(let file):
                return "The dump has no \(file) (\(file == .dataGroup(3) ? "finger" : "iris") images); a scan reads it only with an inspection system certificate (--eac DIR)."
            case .noImages(let file): return "\(file) holds no image that is not enciphered."
            }
        }
        var code: String { "image_error" }
        var exitStatus: Int32 { ExitStatus.invalid }
    }
}
