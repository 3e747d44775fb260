import ArgumentParser
import LocalFiles
import PassportCLI
import PassiveAuth
import FoundationEssentials
import TextSupport
import LDS
import PassportKit

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Passive authentication of dumps: data-group hashes, the SOD signature, DSC → CSCA.",
        discussion: """
        Trust anchors: the trust store (`passport trust import`, in \(TrustStore.defaultFolder.path),
        with its Document Signer certificates), --masterlist, --csca and --crl. Certificate validity
        is judged at the SOD's signing time, or now when it has none; --at DATE overrides both.
        A dump is a folder (plain, BSI or FID file names), an EF.SOD file or an NFCPassportReader
        JSON export. Several dumps (or --recursive DIR) are verified in one process, in parallel;
        --json then prints one JSON object per line, --junit writes a JUnit XML report, and the
        exit status is 0 only when every dump passes.
        """)

    @Argument(help: "Dump folders, EF.SOD files or NFCPassportReader JSON exports.") var dumps: [String] = []
    @Option(help: "Verify every dump found under this folder; repeatable.") var recursive: [String] = []
    @OptionGroup var trustOptions: TrustOptions
    @Option(name: .customLong("dsc"), help: "A Document Signer certificate not embedded in the SOD; repeatable.") var dscs: [String] = []
    @Option(help: "Judge certificate validity at this date (YYYY-MM-DD) instead of the signing time.") var at: String?
    @Option(help: "Write a JUnit XML report (one test case per dump) to this file.") var junit: String?
    @Flag(help: "Print JSON on stdout: one object, or one object per line for several dumps.") var json = false

    func validate() throws {
        if let at, parseDay(at) == nil { throw ValidationError("--at must be a date YYYY-MM-DD, e.g. 2025-06-30.") }
        if dumps.isEmpty && recursive.isEmpty { throw ValidationError("Give a dump to verify (or --recursive DIR).") }
    }

    /// One dump and no folder to search: the single-dump report, as before batches existed.
    var isSingle: Bool { dumps.count == 1 && recursive.isEmpty && junit == nil }

    func run() throws {
        if isSingle { try runSingle(); return }
        do {
            let trust = try trustOptions.sources.load()
            let documentSigners = try dscs.flatMap { try Certificate.load(file: URL(fileURLWithPath: $0)) }
            let batch = BatchVerifier(trust: trust, at: at.flatMap(parseDay), documentSigners: documentSigners)
            var outcomes = batch.verify(dumps)
            for folder in recursive { outcomes += try batch.verify(under: URL(fileURLWithPath: folder)) }
            guard !outcomes.isEmpty else { throw ValidationError("No dumps found under \(recursive.joined(separator: ", ")).") }
            try render(outcomes, trust: trust, seconds: batch.seconds)
            if let status = outcomes.map(\.exitStatus).max(), status != 0 { throw ExitCode(status) }
        } catch let exit as ExitCode {
            throw exit
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error, json: json)
        }
    }

    func runSingle() throws {
        do {
            let folder = try DumpSource.read(URL(fileURLWithPath: dumps[0]))
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

    func render(_ outcomes: [BatchOutcome], trust: TrustStore, seconds: Double) throws {
        var lines: [UInt8] = []   // written 64 KiB at a time: a write per line was a syscall per dump
        for outcome in outcomes {
            if json {
                switch outcome.result {
                case .verified(let report): ReportEncoding.append(VerifyReport(dump: outcome.path, trust: trust, report: report), to: &lines)
                case .unreadable(let error):
                    let (_, code) = classify(error)
                    ReportEncoding.append(VerifyLineError(dump: outcome.path, code: code, message: userMessage(error)), to: &lines)
                }
                lines.append(0x0A)
                if lines.count >= 65536 { StandardStreams.writeOutput(lines); lines.removeAll(keepingCapacity: true) }
            } else {
                print("\(outcome.passed ? "PASS" : "FAIL")  \(outcome.path)\(outcome.passed ? "" : ": \(outcome.failureMessage)")")
            }
        }
        StandardStreams.writeOutput(lines)
        let failed = outcomes.filter { !$0.passed }.count
        printError("\(outcomes.count) dump(s): \(outcomes.count - failed) passed, \(failed) failed (\(seconds.fixed(2)) s)")
        if let junit {
            let xml = JUnitReport.xml(outcomes, seconds: seconds)
            do { try Data(xml.utf8).write(to: URL(fileURLWithPath: junit), options: .atomic) } catch {
                throw OutputFileError(path: junit, reason: PrivateFiles.reasonText(error))
            }
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
    if let dsc = report.documentSigner {
        // Where the DSC came from when the EF.SOD did not carry it (--dsc, the trust store).
        let origin = dsc.source == "EF.SOD" ? "" : ", from \(dsc.source)"
        print("  Signer       \(dsc.subject) [\(dsc.key)\(origin)]")
    }
    if let csca = report.csca { print("  CSCA         \(csca.subject) [\(csca.key), from \(csca.source)]") }
    print("  Chain        \(report.chain.rawValue)")
    print("  Revocation   \(report.revocation == .notChecked ? "not checked (no CRL for this CSCA)" : report.revocation.rawValue)")
    print("  Judged at    \(isoTime(report.validityTime)) (\(report.validitySource))")
    if let cardSecurity = report.cardSecurity {
        let keys = cardSecurity.matchesDG14.map { $0 ? ", keys as in DG14" : ", keys DIFFER from DG14" } ?? ""
        let infos = cardSecurity.holdsCardAccess.map { $0 ? ", holds EF.CardAccess's SecurityInfos" : ", LACKS SecurityInfos of EF.CardAccess" } ?? ""
        print("  CardSecurity signature \(cardSecurity.signature.rawValue), chain \(cardSecurity.chain.rawValue)\(keys)\(infos)")
    }
    if recorded {
        let check = report.activeAuthentication
        print("  Active auth. \(check.status.replacing("_", with: " "))\(check.detail.map { ": \($0)" } ?? "") (recorded answer checked against DG15)")
    }
    for note in trust.notes { print("  Trust        \(note)") }
    for warning in report.warnings { print("  Note         \(warning)") }
    if !report.failures.isEmpty {
        print("Failures:")
        for failure in report.failures { print("  - \(failure)") }
    }
}
