import ArgumentParser
import PassportCLI
import PassiveAuth
import PassportCrypto
import Foundation
import LDS
import PassportKit

/// Benchmark (not a test): passive authentication throughput against the raw OpenSSL work it
/// cannot avoid (hashing every data group, checking the SOD's signature and the DSC's).
struct VerifyBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Benchmark: verified dumps per second next to the raw OpenSSL cost.")

    @Argument(help: "Dump folders (or EF.SOD files) to verify in a loop.") var dumps: [String]
    @OptionGroup var trustOptions: TrustOptions
    @Option(help: "Loops over all dumps.") var iterations = 200
    @Flag(help: "Print one JSON object on stdout.") var json = false
    @Flag(help: "Cold runs instead: one `passport verify` process per run next to one `openssl cms -verify` process on the same EF.SOD.")
    var cold = false
    @Option(help: "Runs per command with --cold (the median is printed).") var runs = 15
    @Option(help: "The passport executable for --cold (default: the one next to passport-bench).") var passport: String?
    @Flag(help: "Phases instead: CPU per dump (user, system) of finding and reading the dumps under each folder given, verifying them, and writing their JSON lines, as `passport verify --json --recursive` does.")
    var phases = false
    @Option(help: "With --phases: only this one (find+read, verify or report), e.g. to profile it.") var phase: String?

    static let phaseNames = ["find+read", "verify", "report"]

    func validate() throws {
        if let phase, !Self.phaseNames.contains(phase) || !phases {
            throw ValidationError("--phase goes with --phases and is one of \(Self.phaseNames.joined(separator: ", ")), not \(phase).")
        }
    }

    func run() throws {
        if cold {
            try ColdVerifyBenchmark(dumps: dumps, trustArguments: trustOptions.arguments, runs: runs,
                                    passport: passport.map(URL.init(fileURLWithPath:)) ?? ColdVerifyBenchmark.siblingPassport).run(json: json)
            return
        }
        let trust = try trustOptions.sources.load()
        if phases { try runPhases(trust: trust); return }
        let folders = try dumps.map { try DumpFolder(reading: URL(fileURLWithPath: $0)) }
        // The raw work, prepared outside the timed loop: digest algorithm, data groups, the
        // signer's certificate, scheme, signed bytes and signature.
        let raw = try folders.map { folder -> () -> Bool in
            let sod = try SecurityObject(bytes: folder.files[.sod] ?? [])
            let cms = try CMSSignedData(contentInfo: sod.cms[...])
            let signer = cms.signers[0]
            let dsc = try cms.certificates.map { try Certificate(der: Array($0)) }.first(where: signer.identifies)!
            let scheme = try SignatureScheme(signer.signatureAlgorithm, digest: DigestAlgorithm(oid: signer.digestAlgorithmOID))
            let message = signer.signedAttributesForSignature ?? cms.content!
            let algorithm = sod.hashAlgorithm!
            let groups = folder.files.filter { if case .dataGroup = $0.key { return true } else { return false } }.map(\.value)
            let csca = trust.cscas.first { dsc.isSigned(by: $0) }
            return {
                for bytes in groups { _ = OpenSSLCrypto.digest(algorithm, bytes) }
                let chained = csca.map { dsc.isSigned(by: $0) } ?? false
                return scheme.verify(signature: signer.signature, message: message, certificate: dsc) && chained
            }
        }
        for folder in folders where !PassiveAuthentication.verify(files: folder.files, trust: trust).passed {
            printError("warning: \(folder.url.path) does not verify; timing it anyway")
        }

        func measure(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let count = Double(iterations * folders.count)
        let full = measure {
            for _ in 0..<iterations { for folder in folders { _ = PassiveAuthentication.verify(files: folder.files, trust: trust) } }
        }
        let openssl = measure {
            for _ in 0..<iterations { for check in raw { _ = check() } }
        }
        let result: [String: Any] = [
            "dumps": folders.count, "iterations": iterations,
            "verified_dumps_per_second": (count / full).rounded(),
            "raw_openssl_dumps_per_second": (count / openssl).rounded(),
            "overhead_ratio": ((full / openssl) * 100).rounded() / 100,
        ]
        if json { printJSON(result); return }
        print(String(format: "passport verify:     %8.0f dumps/s (%.3f ms each)", count / full, full / count * 1000))
        print(String(format: "raw OpenSSL work:    %8.0f dumps/s (%.3f ms each: hash every DG, SOD and DSC signature checks)", count / openssl, openssl / count * 1000))
        print(String(format: "overhead ratio:      %8.2f×", full / openssl))
    }

    /// CPU per dump (user and system, this process) of each step of a batch, one after the other.
    func runPhases(trust: TrustStore) throws {
        let folders = dumps.map { URL(fileURLWithPath: $0) }
        func find() throws -> [DumpFolder?] {
            try folders.flatMap { folder in
                try DumpDiscovery.search(under: folder) { found in
                    if case .folder(let open) = found { return try? DumpFolder(folder: open) } else { return nil }
                }
            }
        }
        let read = try find().compactMap { $0 }
        guard !read.isEmpty else { throw ValidationError("No dump folder under \(dumps)") }
        func cpu() -> (user: Double, system: Double) {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                    Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
        }
        func measure(_ name: String, _ body: () throws -> Void) rethrows {
            if let phase, phase != name { return }
            let before = cpu()
            for _ in 0..<iterations { try body() }
            let after = cpu()
            let count = Double(iterations * read.count)
            print(String(format: "%@ user %7.2f µs  system %7.2f µs per dump", name as NSString,
                         (after.user - before.user) / count * 1e6, (after.system - before.system) / count * 1e6))
        }
        try measure("find+read") { _ = try find() }
        measure("verify") { for dump in read { _ = PassiveAuthentication.verify(files: dump.files, trust: trust) } }
        let reports = read.map { PassiveAuthentication.verify(files: $0.files, trust: trust) }
        measure("report") {
            var lines: [UInt8] = []
            for (dump, report) in zip(read, reports) {
                ReportEncoding.append(VerifyReport(dump: dump.path, trust: trust, report: report), to: &lines)
                lines.removeAll(keepingCapacity: true)
            }
        }
    }
}
