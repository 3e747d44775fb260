import CardIO
import ChipProtocols
import LDS

/// EAC version 2's order (BSI TR-03110-2), as eID-style documents need it: PACE, then terminal
/// authentication version 2 (the ephemeral key chip authentication will use, compressed, in MSE:Set
/// AT and signed), then EF.CardSecurity (which such a chip withholds until then), then chip
/// authentication version 2 with the key it holds. Runs when EF.CardAccess announces terminal and
/// chip authentication version 2 and there is no DG14 to run version 1 with.
extension ReadSession {
    /// What EF.CardAccess announces for EAC version 2: chip authentication's protocol and the
    /// standardized domain parameters of its key; nil when it does not announce both protocols.
    func eacVersion2Announced() -> (info: ChipAuthenticationInfo, parameterID: Int)? {
        guard let bytes = files[.cardAccess], let infos = try? SecurityInfos(bytes: bytes) else { return nil }
        let terminalV2 = infos.infos.contains { if case .terminalAuthentication(let version, _, _) = $0 { return version == 2 } else { return false } }
        guard terminalV2, let info = infos.chipAuthenticationInfos.first(where: { $0.version >= 2 && $0.cipher != nil }) else { return nil }
        let domain = infos.infos.lazy.compactMap { info -> Int? in
            guard case .other(let oid, let der) = info, oid == "0.4.0.127.0.7.2.2.3.2" || oid == "0.4.0.127.0.7.2.2.3.1" else { return nil }
            return Self.standardizedParameterID(der)
        }.first
        guard let parameterID = domain else { return nil }
        return (info, parameterID)
    }

    /// ChipAuthenticationDomainParameterInfo ::= SEQUENCE { protocol, AlgorithmIdentifier
    /// { id-standardizedDomainParameters, INTEGER }, keyId OPTIONAL }: the INTEGER.
    static func standardizedParameterID(_ der: [UInt8]) -> Int? {
        guard let fields = try? TLV.parse(der).children(), fields.count >= 2,
              let algorithm = try? fields[1].children(), algorithm.count == 2, algorithm[0].tag == 0x06,
              (try? ObjectIdentifier.dotted(algorithm[0].value)) == "0.4.0.127.0.7.1.2",
              algorithm[1].tag == 0x02, algorithm[1].value.count <= 2 else { return nil }
        return algorithm[1].value.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Terminal authentication version 2, EF.CardSecurity, chip authentication version 2; DG3 and
    /// DG4 are then read by `readProtectedFiles` without running terminal authentication again.
    func authenticateByEACVersion2(listed: [LDSFile], credentials: TerminalCredentials?) throws {
        guard chipAuthentication != .passed, !paceCAMRefuted, case .pace = gained, files[.dataGroup(14)] == nil,
              let (info, parameterID) = eacVersion2Announced() else { return }
        // Without certificates the outcome stays what authenticateChip said: what EF.CardAccess
        // announces, and that --eac DIR runs it.
        guard let credentials else { return }
        let ca: ChipAuthenticationV2
        do { ca = try ChipAuthenticationV2(info: info, standardizedParameter: parameterID) } catch {
            chipAuthentication = .notSupported("EF.CardAccess announces chip authentication version 2 that this reader cannot run: \(error)")
            return
        }
        chipAuthenticationMethod = .chipAuthenticationV2
        chipAuthenticationProtocol = (info.protocolOID, info.keyID)
        guard try authenticateTerminalVersion2(credentials, listed: listed, ephemeral: ca) else {
            chipAuthentication = .notSupported("chip authentication version 2 runs after terminal authentication, which did not pass")
            return
        }
        try readCardSecurityAfterTerminalAuthentication()
        try authenticateChipVersion2(ca)
    }

    /// Terminal authentication version 2, right after PACE; its outcome is recorded either way.
    /// Returns whether it passed.
    private func authenticateTerminalVersion2(_ credentials: TerminalCredentials, listed: [LDSFile], ephemeral ca: ChipAuthenticationV2) throws -> Bool {
        var outcome = ChipEvidence.TerminalAuthentication(status: "failed", terminal: credentials.terminal.holderReference)
        defer { terminalAuthentication = outcome }
        events(.authenticating(protocol: "Terminal Authentication (version 2)"))
        do {
            let trustPoints = TerminalAuthentication.trustPoints(efCVCA: try readEFCVCA())
            outcome.chipTrustPoints = trustPoints
            let binding = TerminalAuthenticationBinding(idPICC: idPICC(), compressedTerminalKey: ca.compressedEphemeralKey)
            let result = try TerminalAuthentication(credentials: credentials)
                .perform(over: stack.channel, chipTrustPoints: trustPoints, binding: binding,
                         extendedLength: plain.supportsExtendedLength, version2: true)
            outcome.status = "passed"
            outcome.sent = result.sent
            terminalAuthenticatedFirst = true
            events(.authenticated(protocol: "Terminal Authentication (version 2)"))
            return true
        } catch let error as TerminalAuthenticationError {
            if case .refused(let step, let status, let explanation) = error {
                outcome.step = step
                outcome.statusWord = hexString([status.sw1, status.sw2])
                outcome.detail = explanation
            } else {
                outcome.detail = error.description
            }
        } catch let error where Self.endsSession(error) {
            outcome.detail = "the secure channel failed during terminal authentication: \(error)"
            try reopen()
        }
        events(.terminalAuthenticationFailed(reason: outcome.detail ?? ""))
        return false
    }

    /// EF.CardSecurity lies in the master file: selected there (under secure messaging), read.
    private func readCardSecurityAfterTerminalAuthentication() throws {
        unavailable[.cardSecurity] = nil
        unavailableStatus[.cardSecurity] = nil
        let select = try stack.channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00]))
        guard select.status.isSuccess else {
            throw ScanError.secureMessagingFailed(file: .cardSecurity, cause: "the chip refused SELECT of the master file (\(select.status)) after terminal authentication.")
        }
        try readFile(.cardSecurity, whenDenied: "access denied (6982) after terminal authentication")
    }

    /// Chip authentication version 2 with EF.CardSecurity's key; the application is then selected
    /// under its keys, whose MAC is the first answer of the new session.
    private func authenticateChipVersion2(_ ca: ChipAuthenticationV2) throws {
        events(.authenticating(protocol: "Chip Authentication (version 2)"))
        do {
            let key = try PassportReader.chipAuthenticationKey(inCardSecurity: files[.cardSecurity])
            let secure = try ca.perform(over: stack.channel, raw: plain, chipPublicKey: key, keyID: ca.info.keyID)
            replaceStack(secure)
            try AccessControl.selectApplication(over: stack.channel)
            chipAuthentication = .passed
            events(.authenticated(protocol: "Chip Authentication (version 2)"))
        } catch let error where Self.endsSession(error) {
            chipAuthentication = .failed("chip authentication version 2: \(error)")
            terminalAuthenticatedFirst = false
            try reopen()
        }
    }
}
