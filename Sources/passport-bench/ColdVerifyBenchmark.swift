import ArgumentParser
import Foundation
import LDS
import PassportCLI

/// What a user waits for when verifying one dump from a shell or a CI step: a whole
/// `passport verify` process (start, trust loading, verification), next to one
/// `openssl cms -verify -noverify` process checking the same EF.SOD's signature.
struct ColdVerifyBenchmark {
    let dumps: [String]
    let trustArguments: [String]
    let runs: Int
    let passport: URL

    static var siblingPassport: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("passport")
    }

    func run(json: Bool) throws {
        var rows: [[String: Any]] = []
        for dump in dumps {
            let cms = try extractCMS(dump)
            defer { try? FileManager.default.removeItem(at: cms) }
            let first = try time(passport, ["verify", dump] + trustArguments)
            let ours = try median(passport, ["verify", dump] + trustArguments)
            let openssl = try median(URL(fileURLWithPath: "/usr/bin/openssl"),
                                     ["cms", "-verify", "-inform", "DER", "-in", cms.path, "-noverify", "-out", "/dev/null"])
            rows.append(["dump": dump, "passport_first_run_seconds": first.seconds, "passport_verify_seconds": ours.seconds,
                         "passport_exit": ours.status, "openssl_cms_verify_seconds": openssl.seconds, "openssl_exit": openssl.status,
                         "ratio": ((ours.seconds / openssl.seconds) * 100).rounded() / 100, "runs": runs])
            if !json {
                print("\(dump)  (median of \(runs) runs each)")
                print(String(format: "  passport verify (cold process):  %.3f s  exit %d   (first run: %.3f s)", ours.seconds, ours.status, first.seconds))
                print(String(format: "  openssl cms -verify -noverify:   %.3f s  exit %d", openssl.seconds, openssl.status))
                print(String(format: "  ratio:                           %.2f×", ours.seconds / openssl.seconds))
            }
        }
        if json { printJSON(["cold_verify": rows]) }
    }

    /// EF.SOD's CMS ContentInfo (the content of its tag 77) in a temporary file, for openssl.
    func extractCMS(_ dump: String) throws -> URL {
        let folder = try DumpSource.read(URL(fileURLWithPath: dump))
        guard let sod = folder.files[.sod] else { throw ValidationError("\(dump) has no EF.SOD") }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).p7")
        try Data(SecurityObject(bytes: sod).cms).write(to: url)
        return url
    }

    func median(_ tool: URL, _ arguments: [String]) throws -> (seconds: Double, status: Int32) {
        var samples: [(seconds: Double, status: Int32)] = []
        for _ in 0..<max(runs, 1) { samples.append(try time(tool, arguments)) }
        return samples.sorted { $0.seconds < $1.seconds }[samples.count / 2]
    }

    func time(_ tool: URL, _ arguments: [String]) throws -> (seconds: Double, status: Int32) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, process.terminationStatus)
    }
}
