import ArgumentParser
import PassportCLI
import PassiveAuth
import Foundation
import LDS
import PassportKit

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Passive authentication of a dump: data-group hashes, the SOD signature, DSC → CSCA.",
        discussion: """
        Trust anchors: --masterlist, --csca and --crl, plus everything in \(TrustStore.defaultFolder.path)
        (master lists *.ml, certificates *.der/*.cer/*.crt/*.pem, CRLs *.crl). Certificate validity
        is judged at the SOD's signing time, or now when it has none; --at DATE overrides both.
        """)

    @Argument(help: "The dump folder (plain, BSI or FID file names), or an EF.SOD file.") var dump: String
    @OptionGroup var trustOptions: TrustOptions
    @Option(name: .customLong("dsc"), help: "A Document Signer certificate not embedded in the SOD; repeatable.") var dscs: [String] = []
    @Option(help: "Judge certificate validity at this date (YYYY-MM-DD) instead of the signing time.") var at: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if let at, parseDay(at) == nil { throw ValidationError("--at must be a date YYYY-MM-DD, e.g. 2025-06-30.") }
    }

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let trust = try trustOptions.sources.load()
            let report = try DumpVerifier.verify(dump: folder, trust: trust, at: at.flatMap(parseDay),
                                                 documentSigners: dscs.map(URL.init(fileURLWithPath:)))
            if json {
                printJSON(VerifyReport(dump: folder.url.path, trust: trust, report: report))
            } else {
                printReport(report, trust: trust)
            }
            if !report.passed { throw Exit.invalidDocument }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// `recorded`: whether to show the recorded Active Authentication answer's re-check (`verify`;
/// a scan shows the live outcome instead).
func printReport(_ report: PassiveAuthenticationReport, trust: TrustStore, recorded: Bool = true) {
    print("Passive authentication: \(report.passed ? "PASSED" : "FAILED")")
    if !report.dataGroups.isEmpty {
        let groups = report.dataGroups.map { check -> String in
            switch check.status {
            case .valid: return "DG\(check.number) ok"
            case .mismatch: return "DG\(check.number) MISMATCH"
            case .missing: return "DG\(check.number) not in dump"
            case .notListed: return "DG\(check.number) not in SOD"
            case .notChecked: return "DG\(check.number) not checked"
            }
        }
        print("  Hashes (\(report.hashAlgorithm ?? "?"))  \(groups.joined(separator: ", "))")
    }
    if !report.hashesChecked { print("  Hashes       not checked (no data groups in the dump)") }
    print("  Signature    \(report.signature.rawValue)\(report.signatureScheme.map { " (\($0))" } ?? "")")
    if let dsc = report.documentSigner { print("  Signer       \(dsc.subject) [\(dsc.key)]") }
    if let csca = report.csca { print("  CSCA         \(csca.subject) [\(csca.key), from \(csca.source)]") }
    print("  Chain        \(report.chain.rawValue)")
    print("  Revocation   \(report.revocation == .notChecked ? "not checked (no CRL for this CSCA)" : report.revocation.rawValue)")
    print("  Judged at    \(isoTime(report.validityTime)) (\(report.validitySource))")
    if let cardSecurity = report.cardSecurity {
        let keys = cardSecurity.matchesDG14.map { $0 ? ", keys as in DG14" : ", keys DIFFER from DG14" } ?? ""
        print("  CardSecurity signature \(cardSecurity.signature.rawValue), chain \(cardSecurity.chain.rawValue)\(keys)")
    }
    if recorded {
        let check = report.activeAuthentication
        print("  Active auth. \(check.status.replacingOccurrences(of: "_", with: " "))\(check.detail.map { ": \($0)" } ?? "") (recorded answer checked against DG15)")
    }
    for note in trust.notes { print("  Trust        \(note)") }
    for warning in report.warnings { print("  Note         \(warning)") }
    if !report.failures.isEmpty {
        print("Failures:")
        for failure in report.failures { print("  - \(failure)") }
    }
}
