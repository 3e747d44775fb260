import FoundationEssentials
import TextSupport
import LDS
import PassiveAuth
import PassportKit

/// One line of the desk's verdicts: green only for what passed, red for what failed, grey for
/// what was not checked or is not offered; `details` and `certificates` are shown when expanded.
public struct DeskVerdict: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case passed, failed, neutral }
    public let check: String
    public let title: String
    public let status: Status
    public let summary: String
    public var details: [String] = []
    public var certificates: [Certificate] = []

    /// A certificate of the chain, with the role it plays and its country.
    public struct Certificate: Codable, Sendable, Equatable {
        public let role: String
        @NullEncoded public var country: String?
        public let report: CertificateReport
    }
}

/// The verdict lines of a chip read (`passport scan`'s report) or of a recorded dump (`passport
/// verify`'s): the same checks and the same reasons as the command line, one line each.
public enum DeskVerdicts {
    public static func forScan(_ scan: ScanReport) -> [DeskVerdict] {
        var verdicts = [access(scan)]
        if let passive = scan.passiveAuthentication {
            verdicts += self.passive(passive)
        } else {
            verdicts.append(DeskVerdict(check: "passive_authentication", title: "Passive authentication", status: .neutral,
                                        summary: "not checked: no trust anchors configured",
                                        details: ["Start the desk with --masterlist/--csca, or import them once with `passport trust import`."]))
        }
        verdicts.append(chipAuthentication(scan))
        verdicts.append(authentication("active_authentication", "Active authentication", scan.activeAuthentication))
        if let terminal = scan.terminalAuthentication { verdicts.append(terminalAuthentication(terminal)) }
        return verdicts
    }

    public static func forDump(_ verify: VerifyReport) -> [DeskVerdict] {
        var verdicts = passive(verify.passiveAuthentication)
        var active = authentication("active_authentication", "Active authentication (recorded answer)", verify.activeAuthentication)
        active.details.append("The answer recorded in evidence.json, checked again against DG15.")
        verdicts.append(active)
        return verdicts
    }

    static func access(_ scan: ScanReport) -> DeskVerdict {
        var verdict = DeskVerdict(check: "access_control", title: "Access control", status: .passed,
                                  summary: "\(scan.accessProtocol), \(scan.apdus) APDUs in \(scan.seconds) s")
        if scan.accessProtocol == "none" {
            verdict = DeskVerdict(check: "access_control", title: "Access control", status: .neutral,
                                  summary: "none: the chip offers no access control; its data travelled unprotected",
                                  details: ["No PACE, and BAC not supported: the files were read in plain."])
        }
        if let fallback = scan.paceFallback {
            verdict = DeskVerdict(check: "access_control", title: "Access control", status: .neutral,
                                  summary: "\(scan.accessProtocol): PACE was offered but failed, BAC was used",
                                  details: ["PACE offered: \(fallback.offered)", "Why it failed: \(fallback.failure)"])
        }
        return verdict
    }

    /// The overall verdict, then hashes, the EF.SOD signature, the chain and EF.CardSecurity.
    static func passive(_ summary: PassiveAuthenticationSummary) -> [DeskVerdict] {
        var verdicts = [DeskVerdict(check: "passive_authentication", title: "Passive authentication",
                                    status: summary.passed ? .passed : .failed,
                                    summary: summary.passed ? "passed" : (summary.failures.first ?? "failed"),
                                    details: summary.failures + summary.warnings.map { "Note: \($0)" })]
        verdicts.append(hashes(summary))
        verdicts.append(DeskVerdict(check: "sod_signature", title: "EF.SOD signature", status: status(summary.signature),
                                    summary: words(summary.signature) + (summary.signatureAlgorithm.map { " (\($0))" } ?? ""),
                                    details: summary.documentSigner.map { ["Signed by \($0.subject)"] } ?? [],
                                    certificates: summary.documentSigner.map { [certificate("Document signer", $0)] } ?? []))
        verdicts.append(chain(summary.chain, revocation: summary.revocation, signer: summary.documentSigner, csca: summary.csca,
                              judgedAt: "\(summary.validityTime) (\(summary.validityTimeSource))"))
        if let card = summary.cardSecurity {
            var details = card.failures
            if let matches = card.matchesDG14 { details.append(matches ? "Its chip-authentication keys are DG14's." : "Its chip-authentication keys DIFFER from DG14's.") }
            if let holds = card.holdsCardAccess { details.append(holds ? "It holds every SecurityInfo of EF.CardAccess." : "It LACKS SecurityInfos of EF.CardAccess.") }
            details.append("Chain: \(words(card.chain)); revocation: \(words(card.revocation))")
            var certificates: [DeskVerdict.Certificate] = []
            if let signer = card.documentSigner { certificates.append(certificate("Signer", signer)) }
            if let csca = card.csca { certificates.append(certificate("CSCA", csca)) }
            verdicts.append(DeskVerdict(check: "card_security", title: "EF.CardSecurity", status: card.passed ? .passed : .failed,
                                        summary: card.passed ? "signature and chain valid" : (card.failures.first ?? "failed"),
                                        details: details, certificates: certificates))
        }
        return verdicts
    }

    static func hashes(_ summary: PassiveAuthenticationSummary) -> DeskVerdict {
        guard summary.hashesChecked, !summary.dataGroups.isEmpty else {
            return DeskVerdict(check: "hashes", title: "Data-group hashes", status: .neutral, summary: "not checked: no data groups")
        }
        let bad: Set<DataGroupCheck.Status> = [.mismatch, .missing, .notListed]
        let failed = summary.dataGroups.filter { bad.contains($0.status) }
        let lines = summary.dataGroups.map { "DG\($0.number): \(words($0.status))" }
        let algorithm = summary.hashAlgorithm.map { " (\($0))" } ?? ""
        if !failed.isEmpty {
            return DeskVerdict(check: "hashes", title: "Data-group hashes", status: .failed,
                               summary: failed.map { "DG\($0.number) \(words($0.status))" }.joined(separator: ", ") + algorithm, details: lines)
        }
        let valid = summary.dataGroups.filter { $0.status == .valid }.count
        return DeskVerdict(check: "hashes", title: "Data-group hashes", status: valid > 0 ? .passed : .neutral,
                           summary: "\(valid) of \(summary.dataGroups.count) data groups match EF.SOD\(algorithm)", details: lines)
    }

    static func chain(_ chain: PassiveAuthenticationReport.Status, revocation: PassiveAuthenticationReport.Status,
                      signer: CertificateReport?, csca: CertificateReport?, judgedAt: String) -> DeskVerdict {
        var certificates: [DeskVerdict.Certificate] = []
        if let signer { certificates.append(certificate("Document signer", signer)) }
        if let csca { certificates.append(certificate("CSCA", csca)) }
        let country = csca.flatMap { countryCode($0.subject) }
        let summary: String
        switch chain {
        case .passed: summary = "to the CSCA of \(country ?? "an unnamed country")" + (revocation == .passed ? ", not revoked" : "")
        case .failed: summary = "no valid path to a trusted CSCA"
        case .notChecked: summary = "not checked"
        }
        var details = ["Validity judged at \(judgedAt)",
                       "Revocation: " + (revocation == .notChecked ? "not checked (no CRL for this CSCA)" : words(revocation))]
        if let csca { details.append("CSCA: \(csca.subject), valid \(csca.notBefore) to \(csca.notAfter), from \(csca.source)") }
        let status: DeskVerdict.Status = revocation == .failed ? .failed : self.status(chain)
        return DeskVerdict(check: "chain", title: "Document signer → CSCA", status: status, summary: summary,
                           details: details, certificates: certificates)
    }

    static func chipAuthentication(_ scan: ScanReport) -> DeskVerdict {
        let title = scan.chipAuthenticationMethod == .paceCAM ? "Chip authentication (PACE-CAM)" : "Chip authentication"
        return authentication("chip_authentication", title, scan.chipAuthentication)
    }

    static func authentication(_ check: String, _ title: String, _ report: AuthenticationReport) -> DeskVerdict {
        let status: DeskVerdict.Status = report.status == "passed" ? .passed : report.status == "failed" ? .failed : .neutral
        let summary = report.status.replacing("_", with: " ") + (report.detail.map { ": \($0)" } ?? "")
        return DeskVerdict(check: check, title: title, status: status, summary: summary,
                           details: status == .failed ? ["The chip may be a copy: its key did not prove itself."] : [])
    }

    static func terminalAuthentication(_ terminal: ChipEvidence.TerminalAuthentication) -> DeskVerdict {
        let status: DeskVerdict.Status = terminal.status == "passed" ? .passed : terminal.status == "failed" ? .failed : .neutral
        var details: [String] = []
        if let terminal = terminal.terminal { details.append("Terminal: \(terminal)") }
        if let sent = terminal.sent { details.append("Sent: \(sent.joined(separator: " → "))") }
        if let points = terminal.chipTrustPoints { details.append("The chip's trust points: \(points.joined(separator: ", "))") }
        if let step = terminal.step, let word = terminal.statusWord { details.append("The chip answered \(step) with \(word)") }
        return DeskVerdict(check: "terminal_authentication", title: "Terminal authentication (DG3, DG4)", status: status,
                           summary: terminal.status.replacing("_", with: " ") + (terminal.detail.map { ": \($0)" } ?? ""),
                           details: details)
    }

    static func certificate(_ role: String, _ report: CertificateReport) -> DeskVerdict.Certificate {
        DeskVerdict.Certificate(role: role, country: countryCode(report.subject), report: report)
    }

    /// The C= attribute of a distinguished name as reports print it ("C=DE, O=…").
    static func countryCode(_ name: String) -> String? {
        for part in name.split(separator: ",") {
            let attribute = part.trimmed()
            if attribute.uppercased().hasPrefix("C=") { return String(attribute.dropFirst(2)) }
        }
        return nil
    }

    static func status(_ status: PassiveAuthenticationReport.Status) -> DeskVerdict.Status {
        switch status {
        case .passed: return .passed
        case .failed: return .failed
        case .notChecked: return .neutral
        }
    }

    static func words(_ status: PassiveAuthenticationReport.Status) -> String { status.rawValue.replacing("_", with: " ") }
    static func words(_ status: DataGroupCheck.Status) -> String {
        switch status {
        case .valid: return "ok"
        case .mismatch: return "MISMATCH"
        case .missing: return "listed in EF.SOD, not read"
        case .notListed: return "not in EF.SOD"
        case .notChecked: return "not checked"
        }
    }
}
