import CardIO
import ChipProtocols
import FoundationEssentials
import LDS

/// One read of a chip after access control: the current channel stack, how access was gained,
/// the recoveries left, and everything found so far (files, statistics, files withheld, the
/// outcomes of chip and active authentication). The steps of `PassportReader.read` are its
/// methods (ReadSteps.swift); each leaves the session ready for the next.
final class ReadSession {
    let control: AccessControl
    /// How access was gained in the first session.
    let gained: AccessGained
    /// The PACE of the current session, when it is not the first (its keys bind terminal authentication).
    private(set) var reopenedPACE: PACE.Result?
    /// Replaced whenever a new session starts (recovery, chip authentication).
    private(set) var stack: SecureStack
    /// Sessions that may still be re-established after one is lost.
    private(set) var recoveriesLeft: Int
    var files: [LDSFile: [UInt8]] = [:]
    var statistics: [LDSFile: FileReadStatistics] = [:]
    /// Files the chip did not give, with the reason.
    var unavailable: [LDSFile: String] = [:]
    /// Files read whose contents are not what their identifier holds (kept as read), with why.
    var fileProblems: [LDSFile: String] = [:]
    /// The status word each unavailable file was refused with.
    var unavailableStatus: [LDSFile: StatusWord] = [:]
    var chipAuthentication = AuthenticationOutcome.notSupported("the chip has no DG14")
    /// PACE-CAM failed (its chip authentication data contradicted EF.CardSecurity's key, or there
    /// was no key to check it with): no later chip authentication with DG14 may turn that into a pass.
    var paceCAMRefuted = false
    var chipAuthenticationMethod: ChipAuthenticationMethod?
    /// The protocol OID and key identifier chip authentication used (evidence for later).
    var chipAuthenticationProtocol: (oid: String, keyID: Int?)?
    var activeAuthenticationEvidence: ActiveAuthenticationEvidence?
    var paceFallback: PACEFallback?
    var activeAuthentication = AuthenticationOutcome.notSupported("the chip has no DG15")
    /// What binds terminal authentication to this session, once chip authentication (or
    /// PACE-CAM) has passed in it.
    var terminalBinding: TerminalAuthenticationBinding?
    /// Set when the data groups were listed by EF.SOD because EF.COM was missing or malformed.
    var dataGroupList: ChipEvidence.DataGroupList?
    /// Terminal authentication's outcome, when the chip lists DG3 or DG4.
    var terminalAuthentication: ChipEvidence.TerminalAuthentication?
    /// Seconds to wait for the passport to come back when it leaves the reader mid-file (0: fail).
    var resumeWait: Double = 0
    /// The times the passport left the reader mid-file and came back.
    var interruptions: [ReadInterruption] = []
    /// Sessions opened again because the chip answered a protected command in plain.
    var reopenedSessions: [ChipEvidence.ReopenedSession] = []
    /// The chip authentication that passed, run again in every new session.
    var performedChipAuthentication: ChipAuthentication?
    /// EAC version 2: terminal authentication passed before chip authentication, in this session.
    var terminalAuthenticatedFirst = false

    init(control: AccessControl, gained: AccessGained, stack: SecureStack,
         recoveries: Int = PassportReader.maximumRecoveries) {
        self.control = control
        self.gained = gained
        self.stack = stack
        self.recoveriesLeft = recoveries
    }

    /// Runs access control over `control`'s channel and starts the session it opens.
    convenience init(opening control: AccessControl, cardAccess: [UInt8]?, atrInfo: [UInt8]? = nil) throws {
        let (gained, stack, fallback) = try control.establish(cardAccess: cardAccess)
        self.init(control: control, gained: gained, stack: stack)
        paceFallback = fallback
        if let cardAccess { files[.cardAccess] = cardAccess }
        if let atrInfo { files[.atrInfo] = atrInfo }
    }

    var plain: ISO7816Channel { control.channel }
    var events: (ScanEvent) -> Void { control.events }

    /// Starts a new session over the one just opened by chip authentication.
    func replaceStack(_ secure: SecureMessagingChannel) {
        stack = SecureStack(secure, learned: control.learned)
    }

    /// Replaces a lost session with a new one opened the same way as the first. Chip
    /// authentication that passed is run again in it (the rest is then read under its keys, and
    /// terminal authentication can be bound to it); terminal authentication does not carry over.
    func reopen(selectApplication: Bool = true, resetFirst: Bool = true) throws {
        let (access, stack) = try control.reopen(gained, selectApplication: selectApplication, resetFirst: resetFirst)
        self.stack = stack
        if case .pace(let result, _) = access { reopenedPACE = result }
        terminalBinding = nil
        if selectApplication { try restoreChipAuthentication() }
    }

    /// Chip authentication again in a new session, by the method that passed in the first.
    private func restoreChipAuthentication() throws {
        guard chipAuthentication == .passed else { return }
        switch chipAuthenticationMethod {
        case .paceCAM?:
            guard let result = reopenedPACE, result.chipAuthenticationMapping != nil else { return }
            _ = checkPACEMapping(result, failure: "PACE-CAM failed in a session opened again")
        case .chipAuthentication?:
            guard let ca = performedChipAuthentication else { return }
            events(.authenticating(protocol: "Chip Authentication"))
            do {
                let (secure, terminalKey) = try ca.perform(over: stack.channel, raw: plain)
                replaceStack(secure)
                terminalBinding = TerminalAuthenticationBinding(idPICC: idPICC(),
                                                                compressedTerminalKey: TerminalAuthenticationBinding.compress(terminalKey, isDH: ca.info.isDH))
                events(.authenticated(protocol: "Chip Authentication"))
            } catch let error where Self.endsSession(error) {
                // A chip that passed before and refuses now: that stands, and the read goes on
                // in a session without it.
                chipAuthentication = .failed("chip authentication failed in a session opened again: \(error)")
                try reopen()
            }
        case .chipAuthenticationV2?:
            // Version 2 runs after terminal authentication, which a new session has not had.
            terminalAuthenticatedFirst = false
        case nil:
            return
        }
    }

    /// Opens a new session when the chip answered the last protected command in plain: it may
    /// or may not have counted that command, so the old session's counters cannot be trusted.
    func reopenIfEndedByPlainAnswer(selectApplication: Bool = true) throws {
        guard let answer = stack.secure?.endedByPlainAnswer else { return }
        reopenedSessions.append(ChipEvidence.ReopenedSession(after: answer.command, statusWord: hexString([answer.status.sw1, answer.status.sw2])))
        events(.sessionReopened(after: answer.command, status: answer.status))
        try reopen(selectApplication: selectApplication)
    }

    // MARK: reading one file

    /// Reads `file` into the session: its bytes and statistics, or why the chip withheld it. A
    /// lost session (bad MAC, replayed answer, the chip ending secure messaging) is re-established
    /// and the read resumes where it stopped, while recoveries are left and `recover` allows.
    /// `whenDenied` replaces the reason recorded for a 6982 refusal.
    func readFile(_ file: LDSFile, recover: Bool = true, selectFirst: Bool = false, whenDenied: String? = nil) throws {
        let started = Date()
        let before = plain.apduCount
        switch try readRecovering(file, recover: recover, selectFirst: selectFirst) {
        case .read(let bytes):
            files[file] = bytes
            fileProblems[file] = stack.reader.problem
            statistics[file] = FileReadStatistics(apdus: plain.apduCount - before, seconds: Date().timeIntervalSince(started))
            events(.fileRead(file: file, bytes: bytes.count))
        case .unavailable(let status):
            let reason = status == .securityStatusNotSatisfied
                ? whenDenied ?? "access denied (\(status)); this file needs Extended Access Control"
                : "not readable (\(status))"
            unavailable[file] = reason
            unavailableStatus[file] = status
            events(.fileUnavailable(file: file, reason: reason))
        }
    }

    private func readRecovering(_ file: LDSFile, recover: Bool, selectFirst: Bool) throws -> ChipFileReader.Outcome {
        var resume: [UInt8] = []
        var selectFirst = selectFirst
        var plainAnswers = 0
        var lastRead = 0
        var lastAnswer = Date()
        while true {
            do {
                try reopenIfEndedByPlainAnswer(selectApplication: !file.isInMasterFile)
                return try stack.reader.read(file, resumingAfter: resume, selectFirst: selectFirst) { read, total in
                    lastRead = read
                    lastAnswer = Date()
                    events(.reading(file: file, bytesRead: read, totalBytes: total))
                }
            } catch let error as CardIOError where error == .cardRemoved {
                guard resumeWait > 0 else {
                    throw ScanError.interrupted(file: file, bytesRead: lastRead, cause: error.description)
                }
                resume = stack.reader.partial
                try resumeAfterRemoval(file, offset: resume.count, lastAnswer: lastAnswer)
            } catch is ExtendedLengthRefused where plain.supportsExtendedLength {
                // The runtime below the application refused it: the session's counter may be out
                // of step. Short APDUs from now on, for every later session too, in a new session.
                plain.supportsExtendedLength = false
                resume = stack.reader.partial
                events(.extendedLengthRefused(file: file))
                try reopen(selectApplication: !file.isInMasterFile)
            } catch let ended as SessionEndedMidRead where recover {
                // The next read goes out in a new session (reopened at the top of the loop).
                plainAnswers += 1
                guard plainAnswers <= Self.maximumPlainAnswersPerFile else {
                    throw ScanError.secureMessagingFailed(file: file, cause: "the chip answered \(ended.answer.command) without secure messaging (\(ended.answer.status)) in \(plainAnswers) sessions in a row.")
                }
                resume = stack.reader.partial
                selectFirst = ended.selectFirst
            } catch let error as SecurityError {
                guard recover, recoveriesLeft > 0 else {
                    throw ScanError.secureMessagingFailed(file: file, cause: error.description)
                }
                recoveriesLeft -= 1
                resume = stack.reader.partial
                events(.recovering(file: file, reason: error.description))
                try reopen(selectApplication: !file.isInMasterFile)
            }
        }
    }

    /// The passport left the reader while `file` was being read: wait for it, open a session
    /// with the same access key, check it is the same document (EF.COM and DG1, when read, are
    /// unchanged), and let the read go on from `offset`.
    private func resumeAfterRemoval(_ file: LDSFile, offset: Int, lastAnswer: Date) throws {
        let left = Date()
        events(.interrupted(file: file, bytesRead: offset, waitingSeconds: resumeWait))
        do { try plain.transport.reconnectAfterRemoval(timeout: resumeWait) } catch CardIOError.noCard {
            throw ScanError.interrupted(file: file, bytesRead: offset,
                                        cause: "it did not come back within \(Self.seconds(resumeWait)) s")
        }
        let returned = Date()
        try reopen(selectApplication: !file.isInMasterFile, resetFirst: false)
        if !file.isInMasterFile {
            for earlier in [LDSFile.com, .dataGroup(1)] where earlier != file {
                guard let before = files[earlier] else { continue }
                guard case .read(let now) = try stack.reader.read(earlier, progress: { _, _ in }), now == before else {
                    throw ScanError.differentDocument(file: file, changed: earlier)
                }
            }
        }
        interruptions.append(ReadInterruption(file: file, offset: offset, secondsToNotice: left.timeIntervalSince(lastAnswer),
                                              secondsAway: returned.timeIntervalSince(left),
                                              secondsToResume: Date().timeIntervalSince(returned)))
        events(.resumed(file: file, offset: offset, afterSeconds: returned.timeIntervalSince(left)))
    }

    /// Sessions a file's read may open after plain answers: one to select a file the chip does
    /// not read by short identifier, and one per read size a chip refuses in plain.
    static let maximumPlainAnswersPerFile = 12

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: the result

    /// What the scan saw of the chip's authenticity, for evidence.json.
    func evidence() -> ChipEvidence {
        var evidence = ChipEvidence()
        if files[.dataGroup(15)] != nil || unavailable[.dataGroup(15)] != nil {
            evidence.activeAuthentication = ChipEvidence.ActiveAuthentication(
                status: activeAuthentication.status, algorithm: activeAuthenticationEvidence?.algorithm,
                challenge: activeAuthenticationEvidence.map { hexString($0.challenge) },
                signature: activeAuthenticationEvidence.map { hexString($0.signature) }, detail: activeAuthentication.detail)
        }
        if let method = chipAuthenticationMethod {
            evidence.chipAuthentication = ChipEvidence.ChipAuthentication(
                status: chipAuthentication.status, method: method.rawValue, protocol: chipAuthenticationProtocol?.oid,
                keyID: chipAuthenticationProtocol?.keyID, detail: chipAuthentication.detail)
        }
        evidence.terminalAuthentication = terminalAuthentication
        evidence.dataGroupList = dataGroupList
        evidence.reopenedSessions = reopenedSessions.isEmpty ? nil : reopenedSessions
        evidence.accessControl = ChipEvidence.AccessControl(used: gained.protocolName, paceOffered: paceFallback?.offered,
                                                            paceFailure: paceFallback?.failure)
        return evidence
    }

    func contents(readerName: String, apdus: Int, seconds: Double) -> ChipContents {
        ChipContents(files: files, statistics: statistics, unavailable: unavailable,
                     accessProtocol: gained.protocolName, extendedLength: stack.reader.usingExtendedLength,
                     readerName: readerName, apdus: apdus, seconds: seconds,
                     chipAuthentication: chipAuthentication, chipAuthenticationMethod: chipAuthenticationMethod,
                     activeAuthentication: activeAuthentication,
                     evidence: evidence(), paceFallback: paceFallback, interruptions: interruptions,
                     fileProblems: fileProblems.keys.sorted().compactMap { fileProblems[$0] })
    }
}
