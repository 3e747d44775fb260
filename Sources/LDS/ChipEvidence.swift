import FoundationEssentials
import JSONCore

/// What a scan saw of the chip's authenticity, saved as `evidence.json` beside the files so that
/// a dump can be judged again offline: the Active Authentication challenge and answer (checked
/// again against DG15 by `passport verify`), how chip authentication ran, and whether PACE was
/// offered and used. Holds no keys and no personal data.
public struct ChipEvidence: Codable, Sendable, Equatable {
    public static let fileName = "evidence.json"

    public struct ActiveAuthentication: Codable, Sendable, Equatable {
        /// passed, failed or not_supported, as the scan judged it.
        public var status: String
        public var algorithm: String?
        /// Hex, as sent and as answered.
        public var challenge: String?
        public var signature: String?
        public var detail: String?
        public init(status: String, algorithm: String? = nil, challenge: String? = nil, signature: String? = nil, detail: String? = nil) {
            self.status = status
            self.algorithm = algorithm
            self.challenge = challenge
            self.signature = signature
            self.detail = detail
        }
    }

    public struct ChipAuthentication: Codable, Sendable, Equatable {
        public var status: String
        /// pace_cam, chip_authentication or chip_authentication_v2.
        public var method: String?
        public var `protocol`: String?
        public var keyID: Int?
        public var detail: String?
        public init(status: String, method: String? = nil, protocol oid: String? = nil, keyID: Int? = nil, detail: String? = nil) {
            self.status = status
            self.method = method
            self.protocol = oid
            self.keyID = keyID
            self.detail = detail
        }
        enum CodingKeys: String, CodingKey { case status, method, `protocol`, detail, keyID = "key_id" }
    }

    public struct AccessControl: Codable, Sendable, Equatable {
        /// BAC or the PACE profile used.
        public var used: String
        /// The PACE profile EF.CardAccess offered when BAC was used instead, and why PACE failed.
        public var paceOffered: String?
        public var paceFailure: String?
        public init(used: String, paceOffered: String? = nil, paceFailure: String? = nil) {
            self.used = used
            self.paceOffered = paceOffered
            self.paceFailure = paceFailure
        }
        enum CodingKeys: String, CodingKey { case used, paceOffered = "pace_offered", paceFailure = "pace_failure" }
    }

    /// Terminal authentication (EAC) for DG3/DG4: who the terminal was, what the chip trusts,
    /// and where it stopped when it did. Certificate references only, no keys.
    public struct TerminalAuthentication: Codable, Sendable, Equatable {
        /// passed, failed or not_attempted.
        public var status: String
        /// The terminal certificate's holder reference (CHR), when a chain was given.
        public var terminal: String?
        /// The CVCA references in the chip's EF.CVCA.
        public var chipTrustPoints: [String]?
        /// The certificates sent (PSO:Verify Certificate), in order.
        public var sent: [String]?
        /// The step the chip refused and its status word (hex), on failure.
        public var step: String?
        public var statusWord: String?
        public var detail: String?
        public init(status: String, terminal: String? = nil, chipTrustPoints: [String]? = nil, sent: [String]? = nil,
                    step: String? = nil, statusWord: String? = nil, detail: String? = nil) {
            self.status = status
            self.terminal = terminal
            self.chipTrustPoints = chipTrustPoints
            self.sent = sent
            self.step = step
            self.statusWord = statusWord
            self.detail = detail
        }
        enum CodingKeys: String, CodingKey {
            case status, terminal, sent, step, detail
            case chipTrustPoints = "chip_trust_points", statusWord = "status_word"
        }
    }

    /// Where the list of data groups came from, recorded only when it was not EF.COM: a chip
    /// without a readable EF.COM is read through EF.SOD's list of data-group hashes.
    public struct DataGroupList: Codable, Sendable, Equatable {
        /// "EF.SOD".
        public var source: String
        /// Why EF.COM was not used (absent, refused, or not an EF.COM).
        public var comProblem: String
        public init(source: String, comProblem: String) {
            self.source = source
            self.comProblem = comProblem
        }
        enum CodingKeys: String, CodingKey { case source, comProblem = "com_problem" }
    }

    /// A secure session the reader opened again because the chip answered a protected command
    /// with a bare status word (the chip may or may not have counted it: the counters could be
    /// out of step). Access control and chip authentication ran again in the new session.
    public struct ReopenedSession: Codable, Sendable, Equatable {
        /// The command answered in plain, e.g. "READ BINARY 00 B0 9C 00".
        public var after: String
        /// Its status word (hex).
        public var statusWord: String
        public init(after: String, statusWord: String) {
            self.after = after
            self.statusWord = statusWord
        }
        enum CodingKeys: String, CodingKey { case after, statusWord = "status_word" }
    }

    public var activeAuthentication: ActiveAuthentication?
    public var chipAuthentication: ChipAuthentication?
    public var accessControl: AccessControl?
    public var terminalAuthentication: TerminalAuthentication?
    public var dataGroupList: DataGroupList?
    /// Set when the reader had to open new sessions after plain answers (absent otherwise).
    public var reopenedSessions: [ReopenedSession]?

    public init(activeAuthentication: ActiveAuthentication? = nil, chipAuthentication: ChipAuthentication? = nil,
                accessControl: AccessControl? = nil) {
        self.activeAuthentication = activeAuthentication
        self.chipAuthentication = chipAuthentication
        self.accessControl = accessControl
    }

    enum CodingKeys: String, CodingKey {
        case activeAuthentication = "active_authentication", chipAuthentication = "chip_authentication"
        case accessControl = "access_control", terminalAuthentication = "terminal_authentication"
        case dataGroupList = "data_group_list", reopenedSessions = "reopened_sessions"
    }

    /// Reads evidence.json; a file that is not this shape is an error naming it.
    public init(json bytes: [UInt8]) throws {
        do { self = try JSONDecoder().decode(ChipEvidence.self, from: Data(bytes)) } catch {
            throw DumpError.badEvidence(String(describing: error))
        }
    }

    public var json: [UInt8] {
        (try? JSON.encoded(self, style: [.prettyPrinted, .sortedKeys])) ?? Array("{}".utf8)
    }
}

/// Upper-case hex, no separators (serial numbers in reports, traced APDUs).
public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes { text.append(digits[Int(byte >> 4)]); text.append(digits[Int(byte & 0x0F)]) }
    return String(decoding: text, as: UTF8.self)
}

/// The bytes a hex string spells (either case, no separators), or nil when it is not hex.
public func bytes(fromHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    for i in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
        out.append(byte)
    }
    return out
}
