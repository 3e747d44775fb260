import CardIO
import ChipProtocols
import Foundation
import LDS

/// One read of a chip after access control: the current channel stack, how access was gained,
/// the recoveries left, and everything found so far (files, statistics, files withheld, the
/// outcomes of chip and active authentication). The steps of `PassportReader.read` are its
/// methods (ReadSteps.swift); each leaves the session ready for the next.
final class ReadSession {
    let control: AccessControl
    let gained: AccessGained
    /// Replaced whenever a new session starts (recovery, chip authentication).
    private(set) var stack: SecureStack
    /// Sessions that may still be re-established after one is lost.
    private(set) var recoveriesLeft: Int
    var files: [LDSFile: [UInt8]] = [:]
    var statistics: [LDSFile: FileReadStatistics] = [:]
    /// Files the chip did not give, with the reason.
    var unavailable: [LDSFile: String] = [:]
    var chipAuthentication = AuthenticationOutcome.notSupported("the chip has no DG14")
    var chipAuthenticationMethod: ChipAuthenticationMethod?
    /// The protocol OID and key identifier chip authentication used (evidence for later).
    var chipAuthenticationProtocol: (oid: String, keyID: Int?)?
    var activeAuthenticationEvidence: ActiveAuthenticationEvidence?
    var paceFallback: PACEFallback?
    var activeAuthentication = AuthenticationOutcome.notSupported("the chip has no DG15")

    init(control: AccessControl, gained: AccessGained, stack: SecureStack,
         recoveries: Int = PassportReader.maximumRecoveries) {
        self.control = control
        self.gained = gained
        self.stack = stack
        self.recoveriesLeft = recoveries
    }

    /// Runs access control over `control`'s channel and starts the session it opens.
    convenience init(opening control: AccessControl, cardAccess: [UInt8]?) throws {
        let (gained, stack, fallback) = try control.establish(cardAccess: cardAccess)
        self.init(control: control, gained: gained, stack: stack)
        paceFallback = fallback
        if let cardAccess { files[.cardAccess] = cardAccess }
    }

    var plain: ISO7816Channel { control.channel }
    var events: (ScanEvent) -> Void { control.events }

    /// Starts a new session over the one just opened by chip authentication.
    func replaceStack(_ secure: SecureMessagingChannel) {
        stack = SecureStack(secure)
    }

    /// Replaces a lost session with a new one opened the same way as the first.
    func reopen(selectApplication: Bool = true) throws {
        stack = try control.reopen(gained, selectApplication: selectApplication)
    }

    // MARK: reading one file

    /// Reads `file` into the session: its bytes and statistics, or why the chip withheld it. A
    /// lost session (bad MAC, replayed answer, the chip ending secure messaging) is re-established
    /// and the read resumes where it stopped, while recoveries are left and `recover` allows.
    func readFile(_ file: LDSFile, recover: Bool = true) throws {
        let started = Date()
        let before = plain.apduCount
        switch try readRecovering(file, recover: recover) {
        case .read(let bytes):
            files[file] = bytes
            statistics[file] = FileReadStatistics(apdus: plain.apduCount - before, seconds: Date().timeIntervalSince(started))
            events(.fileRead(file: file, bytes: bytes.count))
        case .unavailable(let status):
            let reason = status == .securityStatusNotSatisfied
                ? "access denied (\(status)); this file needs Extended Access Control"
                : "not readable (\(status))"
            unavailable[file] = reason
            events(.fileUnavailable(file: file, reason: reason))
        }
    }

    private func readRecovering(_ file: LDSFile, recover: Bool) throws -> ChipFileReader.Outcome {
        var resume: [UInt8] = []
        var lastRead = 0
        while true {
            do {
                return try stack.reader.read(file, resumingAfter: resume) { read, total in
                    lastRead = read
                    events(.reading(file: file, bytesRead: read, totalBytes: total))
                }
            } catch let error as CardIOError where error == .cardRemoved {
                throw ScanError.interrupted(file: file, bytesRead: lastRead, cause: error.description)
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
                     evidence: evidence(), paceFallback: paceFallback)
    }
}
