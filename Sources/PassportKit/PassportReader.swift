import CardIO
import ChipProtocols
import PassiveAuth
import PassportCrypto
import FoundationEssentials
import TextSupport
import LDS
import MRZ

/// What happens during a scan, for progress display. Carries no personal data.
public enum ScanEvent: Sendable {
    case waitingForCard(reader: String)
    case connected(reader: String, extendedLength: Bool)
    case authenticating(protocol: String)
    case authenticated(protocol: String)
    case reading(file: LDSFile, bytesRead: Int, totalBytes: Int)
    case fileRead(file: LDSFile, bytes: Int)
    case fileUnavailable(file: LDSFile, reason: String)
    /// The secure session was lost while reading `file`; it is re-established and the read resumed.
    case recovering(file: LDSFile, reason: String)
    /// EF.CardAccess offered PACE and it failed; BAC is tried instead.
    case paceFailed(reason: String)
    /// Chip authentication's answer failed once; the session is opened again and it is retried.
    case retryingChipAuthentication(reason: String)
    /// The card runtime refused an extended-length command while `file` was being read: the
    /// session is opened again and the scan goes on with short APDUs.
    case extendedLengthRefused(file: LDSFile)
    /// The passport left the reader while `file` was being read; the scan waits for it.
    case interrupted(file: LDSFile, bytesRead: Int, waitingSeconds: Double)
    /// It came back (the same document) and the read of `file` goes on at `offset`.
    case resumed(file: LDSFile, offset: Int, afterSeconds: Double)
    /// The chip offers no access control (no PACE, BAC not supported) and serves its files in
    /// plain: they are read unprotected.
    case noAccessControl
    /// The chip answered a protected command (`after`) with a bare status word: a new session is
    /// opened (access control, chip authentication) before the next command.
    case sessionReopened(after: String, status: StatusWord)
    /// The chip refused terminal authentication (or it could not run): DG3/DG4 stay unread.
    case terminalAuthenticationFailed(reason: String)
}

/// A read that the passport's leaving the reader interrupted and that was resumed.
public struct ReadInterruption: Sendable, Equatable {
    public let file: LDSFile
    /// Bytes of the file read before it left (the read went on from there).
    public let offset: Int
    /// From the chip's last answer to the reader reporting the card gone.
    public let secondsToNotice: Double
    /// From the failed exchange to the card being back.
    public let secondsAway: Double
    /// From the card being back to the read going on (access control, same-document check).
    public let secondsToResume: Double
}

/// How one file was read.
public struct FileReadStatistics: Sendable, Equatable {
    public let apdus: Int
    public let seconds: Double
}

/// Everything read from a chip, in memory; `DumpWriter` saves it.
public struct ChipContents: Sendable {
    public let files: [LDSFile: [UInt8]]
    public let statistics: [LDSFile: FileReadStatistics]
    /// Files EF.COM lists that the chip did not give, with the reason.
    public let unavailable: [LDSFile: String]
    public let accessProtocol: String
    public let extendedLength: Bool
    public let readerName: String
    public let apdus: Int
    public let seconds: Double
    public var chipAuthentication: AuthenticationOutcome
    /// How the chip proved its key, when it tried: PACE-CAM (EF.CardSecurity's key) or chip
    /// authentication (DG14's key).
    public let chipAuthenticationMethod: ChipAuthenticationMethod?
    public let activeAuthentication: AuthenticationOutcome
    /// What a later, offline check needs: the Active Authentication challenge and answer, how chip
    /// authentication ran, and the PACE outcome (no keys, no personal data). Saved as evidence.json.
    public let evidence: ChipEvidence
    /// Set when EF.CardAccess offered PACE and BAC was used.
    public let paceFallback: PACEFallback?
    /// Reads the passport's leaving the reader interrupted and that were resumed.
    public var interruptions: [ReadInterruption] = []
    /// Files whose contents are not what their identifier holds (another outer tag, more than
    /// one object), as the report states it; the files are kept as read.
    public var fileProblems: [String] = []
}

/// The challenge and the chip's answer of Active Authentication, as recorded.
struct ActiveAuthenticationEvidence {
    let algorithm: String
    let challenge: [UInt8]
    let signature: [UInt8]
}

public enum ChipAuthenticationMethod: String, Sendable, Codable {
    case paceCAM = "pace_cam"
    case chipAuthentication = "chip_authentication"
    /// Version 2, with EF.CardSecurity's key, after terminal authentication (EAC version 2).
    case chipAuthenticationV2 = "chip_authentication_v2"
}

/// The result of chip or active authentication.
public enum AuthenticationOutcome: Sendable, Equatable {
    case passed
    /// A wrong cryptographic answer: the chip may be a copy.
    case failed(String)
    /// The chip does not offer it (no DG14 / DG15), with the reason.
    case notSupported(String)
    /// The chip answered correctly for a key whose authenticity could not be established (PACE-CAM
    /// with EF.CardSecurity's signature valid but no trust anchors for its chain).
    case unverified(String)

    public var status: String {
        switch self {
        case .passed: return "passed"
        case .failed: return "failed"
        case .notSupported: return "not_supported"
        case .unverified: return "unverified"
        }
    }
    public var detail: String? {
        switch self {
        case .passed: return nil
        case .failed(let why), .notSupported(let why), .unverified(let why): return why
        }
    }
}

/// The passwords a scan may use: the MRZ access key (BAC or PACE) and the CAN (PACE only).
public struct AccessCredentials: Sendable {
    public var mrz: MRZAccessKey?
    public var can: String?
    public init(mrz: MRZAccessKey? = nil, can: String? = nil) {
        self.mrz = mrz
        self.can = can
    }
}

/// Reads a passport chip as a sequence of named steps over one `ReadSession`: EF.CardAccess,
/// access control (PACE or BAC, which selects the application), PACE-CAM, EF.COM, chip
/// authentication, every data group EF.COM lists and EF.SOD, active authentication, then
/// terminal authentication and the data groups it opens (DG3, DG4).
public final class PassportReader {
    private let channel: ISO7816Channel
    private let events: (ScanEvent) -> Void
    /// Terminal randomness (BAC's RND.IFD and K.IFD, the active authentication challenge).
    private let random: (Int) -> [UInt8]
    /// PACE's terminal private keys; only tests that reproduce published exchanges fix them.
    private let pacePrivateKeys: [[UInt8]]?
    /// Seconds to wait for the passport to come back when it leaves mid-read (0: fail at once).
    public var resumeWait: Double = 0
    /// The inspection system's chain and key for terminal authentication (DG3, DG4); nil: none.
    public var terminalCredentials: TerminalCredentials?

    public convenience init(channel: ISO7816Channel, events: @escaping (ScanEvent) -> Void = { _ in }) {
        self.init(channel: channel, events: events, random: OpenSSLCrypto.randomBytes)
    }

    /// For tests that script the chip: fixed randomness makes every APDU predictable.
    init(channel: ISO7816Channel, events: @escaping (ScanEvent) -> Void = { _ in },
         random: @escaping (Int) -> [UInt8], pacePrivateKeys: [[UInt8]]? = nil) {
        self.channel = channel
        self.events = events
        self.random = random
        self.pacePrivateKeys = pacePrivateKeys
    }

    /// Sessions re-established per scan before giving up.
    static let maximumRecoveries = 3

    /// The chip authentication public key (an uncompressed point) of EF.CardSecurity, which is
    /// a CMS SignedData over SecurityInfos.
    static func chipAuthenticationKey(inCardSecurity bytes: [UInt8]?) throws -> [UInt8] {
        guard let bytes else { throw SecurityError.chipAuthenticationFailed("EF.CardSecurity could not be read") }
        let cms = try CMSSignedData(contentInfo: bytes[...])
        guard let content = cms.content, let info = try SecurityInfos(bytes: content).chipAuthenticationPublicKeys.first else {
            throw SecurityError.chipAuthenticationFailed("EF.CardSecurity has no chip authentication public key")
        }
        // SubjectPublicKeyInfo { algorithm, BIT STRING (00 ‖ point) }
        let parts = try TLV.parse(info.subjectPublicKeyInfo).children()
        guard parts.count == 2, parts[1].tag == 0x03, parts[1].value.first == 0 else {
            throw SecurityError.chipAuthenticationFailed("EF.CardSecurity's public key is malformed")
        }
        return Array(parts[1].value.dropFirst())
    }

    public func read(accessKey: MRZAccessKey) throws -> ChipContents {
        try read(access: AccessCredentials(mrz: accessKey))
    }

    public func read(access: AccessCredentials) throws -> ChipContents {
        let started = Date()
        let startCount = channel.apduCount
        let control = AccessControl(channel: channel, access: access, events: events,
                                    random: random, pacePrivateKeys: pacePrivateKeys)
        control.learned.readerResponseData = channel.transport.readerMaxResponseData ?? 256
        let cardAccess = try control.readCardAccess()
        let session = try ReadSession(opening: control, cardAccess: cardAccess, atrInfo: try control.readATRInfo())
        session.resumeWait = resumeWait
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        try session.selectApplicationAfterPACE()
        let listed = try session.readDataGroupList()
        // DG14 first: chip authentication replaces the session keys before the rest is read.
        try session.authenticateChip(listed: listed)
        // EAC version 2 (no DG14; EF.CardAccess announces it): TA, EF.CardSecurity, CA version 2.
        try session.authenticateByEACVersion2(listed: listed, credentials: terminalCredentials)
        try session.readRemainingFiles(listed: listed)
        session.authenticateActively()
        try session.readProtectedFiles(listed: listed, credentials: terminalCredentials)
        return session.contents(readerName: channel.transport.readerName, apdus: channel.apduCount - startCount,
                                seconds: Date().timeIntervalSince(started))
    }
}

/// Why a scan did not produce a dump.
public enum ScanError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAPassport(status: StatusWord)
    case accessDenied(status: StatusWord)
    case interrupted(file: LDSFile, bytesRead: Int, cause: String)
    case secureMessagingFailed(file: LDSFile, cause: String)
    case missingRequiredFile(LDSFile, reason: String? = nil)
    case passwordRefused(password: String, status: StatusWord)
    case canNeedsPACE
    case malformedFile(file: LDSFile, cause: String)
    /// After an interrupted read, the chip that came back holds another document.
    case differentDocument(file: LDSFile, changed: LDSFile)

    static func isSecureMessagingFailure(_ error: ScanError) -> Bool {
        if case .secureMessagingFailed = error { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notAPassport(let status):
            return "The card is not an ICAO passport (it refused the eMRTD application: \(status))."
        case .accessDenied(let status):
            return "The chip refused the access key (\(status)): the document number, birth date or expiry date does not match this passport. Check them against the MRZ and try again."
        case .interrupted(let file, let bytesRead, let cause):
            let waited = cause.hasPrefix("it did not come back") ? " and \(cause)" : ""
            return "The passport left the reader while \(file) was being read (after \(bytesRead) bytes)\(waited). Nothing was saved. Hold the passport still on the reader and scan again."
        case .differentDocument(let file, let changed):
            return "Read interrupted while \(file) was being read, and the chip that came back holds another document (its \(changed) differs). Nothing was saved. Scan the passport again, holding it still."
        case .secureMessagingFailed(let file, let cause):
            return "Secure messaging failed while reading \(file): \(cause) Nothing was saved."
        case .passwordRefused(let password, let status):
            if status.value == 0x6983 {
                return "The chip has blocked the \(password) password after too many wrong attempts (6983)."
            }
            let code = status.value.hex(4)
            let tries = status.sw1 == 0x63 && status.sw2 & 0xF0 == 0xC0 ? " \(status.sw2 & 0x0F) tries left before it is blocked." : ""
            return "The chip refused the \(password) (\(code)): check it and try again.\(tries)"
        case .canNeedsPACE:
            return "This chip does not offer PACE, so the CAN cannot be used. Give the MRZ (--mrz, or --document-number/--birth/--expiry) instead."
        case .missingRequiredFile(let file, let reason):
            return "The chip did not provide \(file), which every passport has\(reason.map { " (\($0))" } ?? ""). Nothing was saved."
        case .malformedFile(let file, let cause):
            return "\(file) on the chip is malformed: \(cause)"
        }
    }
}
