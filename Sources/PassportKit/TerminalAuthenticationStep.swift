import CardIO
import FoundationEssentials
import TextSupport
import ChipProtocols
import LDS

/// The last step of a read: the data groups Extended Access Control protects (DG3 fingerprints,
/// DG4 irises; ICAO 9303-11 §7.1) after terminal authentication with the inspection system's
/// chain. Whatever happens here, the files read before stay read: a refusal is an outcome in
/// evidence.json, not a failed scan.
extension ReadSession {
    static let extendedAccessControl: Set<LDSFile> = [.dataGroup(3), .dataGroup(4)]

    func readProtectedFiles(listed: [LDSFile], credentials: TerminalCredentials?) throws {
        let protected = listed.sorted().filter(Self.extendedAccessControl.contains)
        guard !protected.isEmpty else { return }
        guard let credentials else {
            terminalAuthentication = .init(status: "not_attempted", detail: "no inspection system certificate given (--eac DIR)")
            try readOrExplain(protected, denied: "protected by EAC: needs an inspection system certificate (not given)")
            return
        }
        if terminalAuthenticatedFirst {
            // EAC version 2: terminal authentication ran right after PACE, before chip authentication.
            try readAfterTerminalAuthentication(protected, credentials: credentials)
            return
        }
        var outcome = ChipEvidence.TerminalAuthentication(status: "failed", terminal: credentials.terminal.holderReference)
        defer { terminalAuthentication = outcome }
        try reopenIfEndedByPlainAnswer()
        guard chipAuthentication == .passed, terminalBinding != nil else {
            outcome.status = "not_attempted"
            outcome.detail = "terminal authentication runs after chip authentication, which did not pass: \(chipAuthentication.detail ?? chipAuthentication.status)"
            for file in protected { markUnavailable(file, "protected by EAC: terminal authentication not run (chip authentication did not pass)") }
            return
        }
        events(.authenticating(protocol: "Terminal Authentication"))
        do {
            if let contradiction = TerminalAuthentication.efCVCAElsewhere(dg14: files[.dataGroup(14)]) { throw contradiction }
            let trustPoints = TerminalAuthentication.trustPoints(efCVCA: try readEFCVCA())
            outcome.chipTrustPoints = trustPoints
            // A session opened again for EF.CVCA has its own binding; one without chip authentication none.
            guard let binding = terminalBinding else { throw SecurityError.chipAuthenticationFailed(chipAuthentication.detail ?? "chip authentication did not pass again") }
            let result = try TerminalAuthentication(credentials: credentials)
                .perform(over: stack.channel, chipTrustPoints: trustPoints, binding: binding, extendedLength: plain.supportsExtendedLength)
            outcome.status = "passed"
            outcome.sent = result.sent
            events(.authenticated(protocol: "Terminal Authentication"))
        } catch let error as TerminalAuthenticationError {
            if case .refused(let step, let status, let explanation) = error {
                outcome.step = step
                outcome.statusWord = status.value.hex(4)
                outcome.detail = explanation
            } else {
                outcome.detail = error.description
            }
            events(.terminalAuthenticationFailed(reason: error.description))
            let why: String
            if case .noChainToChipTrustPoint = error {
                outcome.step = "EF.CVCA"
                why = "no chain from the chip's trust point (EF.CVCA)"
            } else if case .efCVCAElsewhere = error {
                outcome.step = "TerminalAuthenticationInfo"
                why = "DG14's TerminalAuthenticationInfo names another file than EF.CVCA"
            } else {
                why = "\(outcome.step ?? "") \(outcome.statusWord ?? "")"
            }
            for file in protected { markUnavailable(file, "protected by EAC: terminal authentication failed (\(why))") }
            return
        } catch let error where Self.endsSession(error) {
            // The chip ended secure messaging on a refusal: the rest is read already.
            outcome.detail = "the secure channel failed during terminal authentication: \(error)"
            events(.terminalAuthenticationFailed(reason: outcome.detail ?? ""))
            for file in protected { markUnavailable(file, "protected by EAC: terminal authentication failed (secure messaging ended)") }
            return
        }
        try readAfterTerminalAuthentication(protected, credentials: credentials)
    }

    /// The protected files terminal authentication opened (the refusals explained by the
    /// terminal's rights), and files the chip refused with 6982 before, asked again.
    private func readAfterTerminalAuthentication(_ protected: [LDSFile], credentials: TerminalCredentials) throws {
        let granted = credentials.terminal.readableDataGroups
        for file in protected {
            guard case .dataGroup(let number) = file else { continue }
            let why = granted.contains(number)
                ? "protected by EAC: refused after terminal authentication; the effective authorization (the terminal's CHAT as limited by its DV's and CVCA's) does not include \(file)"
                : "protected by EAC: \(credentials.terminal.holderReference)'s CHAT does not grant reading \(file) (it grants \(granted.isEmpty ? "no biometric data group" : granted.map { "DG\($0)" }.joined(separator: " ")))"
            try readOrExplain([file], denied: why)
        }
        // Other files the chip refused with 6982 before: a chip may put more than DG3 and DG4
        // behind EAC (TR-03105 5.1 ISO7816_E_26: DG11 and DG12); asked again now.
        let refusedBefore = unavailableStatus.filter { $0.value == .securityStatusNotSatisfied && !protected.contains($0.key) }.keys.sorted()
        for file in refusedBefore {
            unavailable[file] = nil
            unavailableStatus[file] = nil
            try readFile(file, whenDenied: "access denied (6982) before and after terminal authentication")
        }
    }

    /// EF.CVCA, by short identifier; selected in a new session when the chip answers that read in plain.
    func readEFCVCA() throws -> [UInt8] {
        do { return try TerminalAuthentication.readEFCVCA(over: stack.channel) } catch SecurityError.secureMessagingEnded where stack.secure?.endedByPlainAnswer != nil {
            try reopenIfEndedByPlainAnswer()
            return try TerminalAuthentication.readEFCVCA(over: stack.channel, selectFirst: true)
        }
    }

    /// ID_PICC after BAC: the document number with its check digit, as in the MRZ; after PACE,
    /// the chip's compressed ephemeral PACE key.
    func idPICC() -> [UInt8] {
        switch gained {
        case .bac(let key), .unprotected(let key):
            let information = key.mrzInformation
            let number = max(9, key.documentNumber.count)
            return TerminalAuthenticationBinding.idPICC(documentNumberWithCheckDigit: String(information.prefix(number + 1)))
        case .pace(let first, _):
            let result = reopenedPACE ?? first
            return TerminalAuthenticationBinding.compress(result.chipEphemeralKey, isDH: result.info.isDH)
        }
    }

    /// Reads each file; a 6982 refusal is recorded with `denied` as its reason.
    private func readOrExplain(_ protected: [LDSFile], denied: String) throws {
        for file in protected { try readFile(file, whenDenied: denied) }
    }

    private func markUnavailable(_ file: LDSFile, _ reason: String) {
        unavailable[file] = reason
        events(.fileUnavailable(file: file, reason: reason))
    }
}
