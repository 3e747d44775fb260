import CardIO
import ChipProtocols
import LDS

/// The steps of a read after access control, in the order `PassportReader.read` runs them.
extension ReadSession {
    // MARK: after PACE

    /// After any PACE, EF.CardSecurity is read from the master file (before the application is
    /// selected): it repeats EF.CardAccess's SecurityInfos under the Document Signer's signature,
    /// which passive authentication compares, and holds the key PACE-CAM proves. Without PACE-CAM
    /// the file is optional: its absence is no finding.
    func readCardSecurityAfterPACE() throws {
        guard case .pace(let result, _) = gained else { return }
        try readFile(.cardSecurity)
        if result.chipAuthenticationMapping == nil && unavailableStatus[.cardSecurity] == .fileNotFound {
            unavailable[.cardSecurity] = nil
            unavailableStatus[.cardSecurity] = nil
        }
    }

    /// PACE-CAM proves the chip genuine with EF.CardSecurity's key: check the chip's mapping data
    /// against it. A chip that chose PACE-CAM answers for it: when the mapping data contradicts the
    /// key, or EF.CardSecurity gives no key to check it with, that failure stands (TR-03105 5.1
    /// ISO7816_G_31, G_40, LDS_J_04).
    func authenticateChipByPACEMapping() throws {
        guard case .pace(let result, _) = gained, result.chipAuthenticationMapping != nil else { return }
        chipAuthenticationMethod = .paceCAM
        chipAuthenticationProtocol = (result.info.protocolOID, nil)
        if checkPACEMapping(result, failure: "PACE-CAM") { chipAuthentication = .passed }
    }

    /// Checks a PACE's chip authentication mapping against EF.CardSecurity's key and binds
    /// terminal authentication to that PACE; a failure is recorded (`failure` starts its text)
    /// and stands for the rest of the read.
    func checkPACEMapping(_ result: PACE.Result, failure: String) -> Bool {
        do {
            let key = try PassportReader.chipAuthenticationKey(inCardSecurity: files[.cardSecurity])
            try PACE.verifyChipAuthenticationMapping(result, chipPublicKey: key)
            terminalBinding = TerminalAuthenticationBinding(
                idPICC: TerminalAuthenticationBinding.compress(result.chipEphemeralKey, isDH: result.info.isDH),
                compressedTerminalKey: TerminalAuthenticationBinding.compress(result.terminalEphemeralKey, isDH: result.info.isDH))
            return true
        } catch {
            paceCAMRefuted = true
            chipAuthentication = .failed("\(failure): \(error)")
            return false
        }
    }

    /// PACE runs in the master file: select the eMRTD application (under secure messaging).
    func selectApplicationAfterPACE() throws {
        guard case .pace = gained else { return }
        try AccessControl.selectApplication(over: stack.channel)
    }

    // MARK: the list of data groups

    /// The data groups the chip holds. EF.COM lists them, but it is not signed and some chips
    /// (ID cards above all) have none or answer with something else: then EF.SOD, which is signed
    /// and hashes every data group, is read first and its list is used; the report says so.
    func readDataGroupList() throws -> [LDSFile] {
        try readFile(.com)
        if let bytes = files[.com] {
            do {
                // An EF.COM with another tag or more than its one object lists nothing reliably.
                if let problem = fileProblems[.com] { throw ScanError.malformedFile(file: .com, cause: problem) }
                return try EFCOM(bytes: bytes).dataGroups
            } catch {
                files[.com] = nil
                statistics[.com] = nil
                fileProblems[.com] = nil
                unavailable[.com] = "not an EF.COM (\(Self.comProblem(error)))"
            }
        }
        try readFile(.sod)
        guard let sod = files[.sod] else {
            throw ScanError.missingRequiredFile(.sod, reason: "nothing lists the data groups: EF.COM \(unavailable[.com] ?? "missing"), EF.SOD \(unavailable[.sod] ?? "missing")")
        }
        do {
            let listed = try SecurityObject(bytes: sod).dataGroupHashes.keys.sorted().map(LDSFile.dataGroup)
            dataGroupList = ChipEvidence.DataGroupList(source: "EF.SOD", comProblem: unavailable[.com] ?? "?")
            return listed
        } catch {
            throw ScanError.malformedFile(file: .sod, cause: "\(error) (EF.COM is missing too, so nothing lists the data groups)")
        }
    }

    private static func comProblem(_ error: Error) -> String {
        if case .malformedFile(_, let cause)? = error as? ScanError { return cause }
        return String(describing: error)
    }

    /// "EF.COM" or "EF.SOD": what the list of data groups came from, for messages.
    var listSource: String { dataGroupList?.source ?? "EF.COM" }

    // MARK: chip authentication

    /// Chip authentication with DG14's key, unless PACE-CAM has authenticated the chip already.
    /// DG14 is looked for even when the list omits it (some chips list it only in EF.SOD, or
    /// nowhere); a chip that lists DG14 and withholds it must not escape chip authentication.
    func authenticateChip(listed: [LDSFile]) throws {
        guard chipAuthentication != .passed, !paceCAMRefuted else { return }
        try readFile(.dataGroup(14))
        if !listed.contains(.dataGroup(14)) { unavailable[.dataGroup(14)] = nil }
        if let dg14 = files[.dataGroup(14)] {
            chipAuthenticationMethod = .chipAuthentication
            try runChipAuthentication(dg14: dg14, provenBy: listed.sorted().first { $0 != .dataGroup(14) && files[$0] == nil } ?? .sod)
        } else if let reason = unavailable[.dataGroup(14)] {
            chipAuthentication = .failed("\(listSource) lists DG14 but the chip did not give it: \(reason)")
        } else if let announced = chipAuthenticationInCardAccess() {
            chipAuthentication = .notSupported(announced)
        }
    }

    /// Without DG14, EF.CardAccess may still announce chip authentication (version 2 or 3, as on
    /// eID-style documents) whose keys are in EF.CardSecurity: say that, rather than "no DG14".
    private func chipAuthenticationInCardAccess() -> String? {
        guard let bytes = files[.cardAccess], let infos = try? SecurityInfos(bytes: bytes) else { return nil }
        let versions = infos.infos.compactMap { info -> Int? in
            if case .chipAuthentication(let ca) = info { return ca.version }
            return nil
        }
        guard let version = versions.first else { return nil }
        let cardSecurity = unavailableStatus[.cardSecurity] == .securityStatusNotSatisfied
            ? "in EF.CardSecurity, which the chip gives only after terminal authentication"
            : "in EF.CardSecurity, not in a DG14"
        return "EF.CardAccess announces chip authentication version \(version) with its keys \(cardSecurity) "
            + "(EAC version 2: PACE, terminal authentication, EF.CardSecurity, then chip authentication); it runs with "
            + "an inspection system's certificates (--eac DIR)"
    }

    /// CA replaces the session keys; `next` is then read under the new keys: a chip without the
    /// private key (a copy) cannot answer it with a valid MAC, which is the proof CA gives. One
    /// corrupted answer must not brand a genuine chip a copy: a failure is retried once.
    private func runChipAuthentication(dg14: [UInt8], provenBy next: LDSFile) throws {
        let ca: ChipAuthentication
        do { ca = try ChipAuthentication(dg14: try SecurityInfos(bytes: dg14)) } catch SecurityError.unsupported(let what) {
            chipAuthentication = .notSupported("not supported by this reader: \(what)")
            return
        } catch {
            chipAuthentication = .failed("DG14 cannot be used: \(error)")
            return
        }
        chipAuthenticationProtocol = (ca.info.protocolOID, ca.publicKeyInfo.keyID)
        var selectFirst = false
        for attempt in 1...2 {
            do {
                try attemptChipAuthentication(ca, provenBy: next, selectFirst: &selectFirst)
                return
            } catch let error where Self.endsSession(error) {
                files[next] = nil
                chipAuthentication = .failed(Self.chipAuthenticationFailure(error, times: attempt == 1 ? "once" : "twice"))
                // The session is gone either way: open a new one with the access key and go on.
                try reopen()
                if attempt == 1 { events(.retryingChipAuthentication(reason: Self.cause(of: error))) }
            }
        }
    }

    /// `selectFirst`: the file is selected before it is read; set when the chip answered its read
    /// by short identifier in plain, for the next attempt (a genuine chip that takes no short
    /// identifiers then proves its keys with the protected answers to SELECT and READ BINARY).
    private func attemptChipAuthentication(_ ca: ChipAuthentication, provenBy next: LDSFile, selectFirst: inout Bool) throws {
        events(.authenticating(protocol: "Chip Authentication"))
        let (secure, terminalKey) = try ca.perform(over: stack.channel, raw: plain)
        replaceStack(secure)
        // Only an answer with a valid MAC proves the chip holds the key. A chip that derived
        // other keys may answer with a bare status word (6985, 6A82, …): that says it has left
        // secure messaging, not that the file is absent, nor that short identifiers are refused.
        let unprotected = { (status: StatusWord?) in
            SecurityError.unprotectedAnswer(command: "the first command under the new keys (reading \(next.fileName))",
                                            status: secure.firstAnswerPlainStatus ?? status ?? StatusWord(0x6F00))
        }
        do { try readFile(next, recover: false, selectFirst: selectFirst) } catch where secure.authenticatedAnswers == 0 && secure.firstAnswerPlainStatus != nil {
            if let ended = error as? SessionEndedMidRead { selectFirst = ended.selectFirst }
            throw unprotected(nil)
        }
        if secure.authenticatedAnswers == 0 {
            let status = unavailableStatus[next]
            files[next] = nil
            unavailable[next] = nil
            unavailableStatus[next] = nil
            throw unprotected(status)
        }
        chipAuthentication = .passed
        performedChipAuthentication = ca
        terminalBinding = TerminalAuthenticationBinding(idPICC: idPICC(),
                                                        compressedTerminalKey: TerminalAuthenticationBinding.compress(terminalKey, isDH: ca.info.isDH))
        events(.authenticated(protocol: "Chip Authentication"))
    }

    /// A failure that leaves the session unusable: a protocol error, or a file that could not be
    /// read under the new keys.
    static func endsSession(_ error: Error) -> Bool {
        error is SecurityError || (error as? ScanError).map(ScanError.isSecureMessagingFailure) == true
    }

    private static func cause(of error: Error) -> String {
        if case .unexpectedStatus(let command, let status)? = error as? SecurityError {
            return "the chip answered \(status) to \(command)"
        }
        if case .unprotectedAnswer(_, let status)? = error as? SecurityError {
            return "the chip answered the first command under the new keys without secure messaging (\(status))"
        }
        if case .secureMessagingFailed(_, let why)? = error as? ScanError { return why }
        return String(describing: error)
    }

    /// A refusal (a chip whose DG14 offers chip authentication must perform it: a copy without
    /// the private key could otherwise refuse its way out) or an answer that failed.
    private static func chipAuthenticationFailure(_ error: Error, times: String) -> String {
        if case .unprotectedAnswer? = error as? SecurityError {
            return "chip authentication failed: \(cause(of: error)) (\(times))"
        }
        if case .unexpectedStatus? = error as? SecurityError {
            return "Chip authentication: \(cause(of: error)) (\(times)); a chip whose DG14 offers chip authentication must perform it"
        }
        return "under the chip-authentication keys the chip's answer failed (\(times)): \(cause(of: error))"
    }

    // MARK: the other files

    /// Every data group listed and not read yet, DG15 even when unlisted (it decides active
    /// authentication), then EF.SOD; fails when a file every passport has is missing.
    func readRemainingFiles(listed: [LDSFile]) throws {
        for file in listed.sorted() where files[file] == nil && unavailable[file] == nil && !Self.extendedAccessControl.contains(file) {
            try readFile(file)
        }
        if !listed.contains(.dataGroup(15)) {
            try readFile(.dataGroup(15))
            unavailable[.dataGroup(15)] = nil // an unlisted file that is absent is no finding
        }
        if files[.sod] == nil { try readFile(.sod) }
        try requireMandatoryFiles(listed: listed)
    }

    /// ICAO 9303-10: every eMRTD holds DG1 (the MRZ) and DG2 (the face); a dump without them is
    /// not a passport's contents, whatever the chip says (DG2 only when it is listed).
    private func requireMandatoryFiles(listed: [LDSFile]) throws {
        for required in [LDSFile.sod, .dataGroup(1), .dataGroup(2)] where files[required] == nil {
            if required == .dataGroup(2) && !listed.contains(.dataGroup(2)) { continue }
            throw ScanError.missingRequiredFile(required, reason: unavailable[required])
        }
    }

    // MARK: active authentication

    /// The chip signs a challenge with DG15's key. Never fails the read: the outcome says how it
    /// went, and the challenge and answer are kept as evidence whatever it was. A protocol this
    /// reader cannot run is "not supported", not a failure of the chip.
    func authenticateActively() {
        if let reason = unavailable[.dataGroup(15)] {
            activeAuthentication = .failed("\(listSource) lists DG15 but the chip did not give it: \(reason)")
        }
        guard let dg15 = files[.dataGroup(15)] else { return }
        do {
            try reopenIfEndedByPlainAnswer()
            events(.authenticating(protocol: "Active Authentication"))
            let aa = try ActiveAuthentication(dg15: try DataGroup15(bytes: dg15),
                                              dg14: files[.dataGroup(14)].flatMap { try? SecurityInfos(bytes: $0) },
                                              random: control.random)
            let answer = try aa.exchange(over: stack.channel)
            activeAuthenticationEvidence = ActiveAuthenticationEvidence(algorithm: aa.signature.algorithm,
                                                                        challenge: answer.challenge, signature: answer.signature)
            try aa.verify(answer)
            activeAuthentication = .passed
            events(.authenticated(protocol: "Active Authentication"))
        } catch SecurityError.unsupported(let what) {
            activeAuthentication = .notSupported("not supported by this reader: \(what)")
        } catch {
            activeAuthentication = .failed(String(describing: error))
        }
    }
}
