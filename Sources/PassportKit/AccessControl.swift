import CardIO
import ChipProtocols
import PassportCrypto
import LDS
import MRZ

/// How access to the chip was gained; a lost session is re-opened the same way.
enum AccessGained {
    case bac(MRZAccessKey)
    /// The first PACE's result (its CAM data is checked against EF.CardSecurity) and the password.
    case pace(PACE.Result, PACE.Password)
    /// A chip that offers no access control (no PACE, BAC not supported) and serves its files in
    /// plain: the MRZ key still binds terminal authentication's ID_PICC, as after BAC.
    case unprotected(MRZAccessKey)

    var protocolName: String {
        switch self {
        case .bac: return "BAC"
        case .unprotected: return "none"
        case .pace(let result, _): return result.description
        }
    }
}

/// PACE offered by the chip but not used: the profile EF.CardAccess offered and why it failed,
/// so that a relying party can tell a downgrade to BAC from a chip that has BAC only.
public struct PACEFallback: Sendable, Equatable, Codable {
    public let offered: String
    public let failure: String
}

/// The channels one secure session reads through: secure messaging over the plain channel,
/// and the file reader over that. A new session (after recovery or chip authentication) is a
/// new stack.
struct SecureStack {
    /// Where commands go: the secure-messaging channel, or the plain one on a chip without access control.
    let channel: CardChannel
    let secure: SecureMessagingChannel?
    let reader: ChipFileReader

    /// A chip without access control: files read in plain, up to 256 bytes per short answer.
    init(plain: CardChannel, learned: LearnedReadSize) {
        channel = plain
        secure = nil
        let chip = learned.chipResponseData ?? 65536
        reader = ChipFileReader(channel: plain, maxShortPlaintext: min(learned.readerResponseData, chip, 256),
                                maxExtendedPlaintext: chip > 256 ? chip : nil, learned: learned)
    }

    init(_ secure: SecureMessagingChannel, learned: LearnedReadSize) {
        channel = secure
        self.secure = secure
        // The chip's own bound (EF.ATR/INFO) keeps every read within what it can answer.
        let chip = learned.chipResponseData ?? 65536
        reader = ChipFileReader(channel: secure,
                                maxShortPlaintext: secure.keys.maxShortResponsePlaintext(responseData: min(learned.readerResponseData, chip)),
                                maxExtendedPlaintext: chip > 256 ? secure.keys.maxExtendedResponsePlaintext(responseData: chip) : nil,
                                learned: learned)
    }

    init(over plain: CardChannel, keys: SessionKeys, ssc: [UInt8], learned: LearnedReadSize) {
        self.init(SecureMessagingChannel(over: plain, keys: keys, ssc: ssc), learned: learned)
    }
}

/// The steps before secure messaging, over the plain channel: EF.CardAccess, SELECT of the
/// eMRTD application, and access control (PACE when EF.CardAccess offers a profile we support,
/// else BAC). Also re-opens a lost session.
struct AccessControl {
    let channel: ISO7816Channel
    let access: AccessCredentials
    let events: (ScanEvent) -> Void
    /// RND.IFD and K.IFD of BAC; fixed by tests that script the chip.
    var random: (Int) -> [UInt8] = OpenSSLCrypto.randomBytes
    /// PACE's terminal private keys (mapping, ephemeral); nil outside tests reproducing ICAO's examples.
    var pacePrivateKeys: [[UInt8]]?
    /// The read size the chip accepts, kept across every session of the scan.
    let learned = LearnedReadSize()

    static let applicationID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    /// A session, the access that opened it, ready to read: established with PACE when offered,
    /// else BAC. With the MRZ password a failed PACE falls back to BAC (chips that offer both
    /// accept either); with the CAN it is final.
    func establish(cardAccess: [UInt8]?) throws -> (AccessGained, SecureStack, PACEFallback?) {
        if let info = Self.usablePACEInfo(in: cardAccess), let password = access.pacePassword {
            return try establishByPACE(info, password: password)
        }
        guard let key = access.mrz else { throw ScanError.canNeedsPACE }
        do {
            let (gained, stack) = try establishByBAC(key)
            return (gained, stack, nil)
        } catch let bacError where cardAccess == nil && Self.hasNoBAC(bacError) && (try? servesFilesInPlain()) == true {
            // No PACE, no BAC, and EF.COM readable without either: a chip without access control.
            events(.noAccessControl)
            return (.unprotected(key), SecureStack(plain: channel, learned: learned), nil)
        } catch let bacError where cardAccess != nil && Self.refusesBAC(bacError) {
            // EF.CardAccess is there (a PACE chip) but offers nothing usable, and the chip refuses
            // BAC: say so, rather than only that BAC was refused.
            throw ScanError.secureMessagingFailed(file: .cardAccess, cause: "PACE cannot be used: EF.CardAccess offers no PACE profile this reader can run (it is malformed, or names unsupported parameters), and the chip allows no BAC instead (\(bacError))")
        }
    }

    private func establishByPACE(_ info: PACEInfo, password: PACE.Password) throws -> (AccessGained, SecureStack, PACEFallback?) {
        do {
            events(.authenticating(protocol: "PACE"))
            let result = try runPACE(info, password: password)
            events(.authenticated(protocol: "PACE"))
            return (.pace(result, password), stack(keys: result.keys, ssc: result.ssc), nil)
        } catch let error as SecurityError {
            guard case .mrz(let key) = password else { throw Self.refusal(error, password: password) }
            events(.paceFailed(reason: error.description))
            // Some chips refuse any new protocol after a failed one until they are reset.
            try channel.transport.reset()
            do {
                let (gained, stack) = try establishByBAC(key)
                return (gained, stack, PACEFallback(offered: info.description, failure: error.description))
            } catch let bacError where Self.refusesBAC(bacError) {
                // A PACE-only chip (it refuses the eMRTD application or BAC itself until PACE has
                // succeeded): the failed PACE is what ended the scan, not BAC.
                throw Self.refusal(error, password: password, bacRefused: "\(bacError)")
            }
        }
    }

    /// GET CHALLENGE or MUTUAL AUTHENTICATE answered "instruction not supported" (6D00).
    static func hasNoBAC(_ error: Error) -> Bool {
        if case SecurityError.unexpectedStatus(_, let status) = error { return status == .insNotSupported }
        return false
    }

    /// Whether the selected application gives EF.COM's header to a plain READ BINARY.
    private func servesFilesInPlain() throws -> Bool {
        let answer = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | LDSFile.com.shortFID, p2: 0, ne: 4))
        return answer.status.isSuccess && answer.data.first == 0x60
    }

    /// BAC refused by the chip as such (the application, or MUTUAL AUTHENTICATE with a status
    /// other than a wrong key's), as a chip that allows PACE only does.
    static func refusesBAC(_ error: Error) -> Bool {
        switch error {
        case ScanError.notAPassport(let status): return status == .securityStatusNotSatisfied || status.value == 0x6985
        case SecurityError.unexpectedStatus(let command, _): return command.contains("BAC")
        default: return false
        }
    }

    private func establishByBAC(_ key: MRZAccessKey) throws -> (AccessGained, SecureStack) {
        let session = try runBAC(key)
        return (.bac(key), stack(keys: session.keys, ssc: session.ssc))
    }

    private func stack(keys: SessionKeys, ssc: [UInt8]) -> SecureStack {
        SecureStack(over: channel, keys: keys, ssc: ssc, learned: learned)
    }

    /// Opens a new session after one was lost (a failed chip authentication ends it) the way the
    /// first was opened, then selects the application, unless the file being read lies in the
    /// master file (EF.CardSecurity after PACE). BAC selects the application before it starts.
    /// The card is reset first (unless it was just reconnected): a chip may keep the state of the
    /// failed session and refuse GET CHALLENGE or MSE:Set AT until then.
    /// Returns the access as gained this time (a new PACE's keys and ephemeral keys).
    func reopen(_ gained: AccessGained, selectApplication: Bool = true, resetFirst: Bool = true) throws -> (AccessGained, SecureStack) {
        if resetFirst { try channel.transport.reset() }
        switch gained {
        case .bac(let key):
            let session = try runBAC(key)
            return (gained, stack(keys: session.keys, ssc: session.ssc))
        case .unprotected:
            try Self.selectApplication(over: channel)
            return (gained, SecureStack(plain: channel, learned: learned))
        case .pace(let first, let password):
            let result = try runPACE(first.info, password: password)
            let stack = stack(keys: result.keys, ssc: result.ssc)
            if selectApplication { try Self.selectApplication(over: stack.channel) }
            return (.pace(result, password), stack)
        }
    }

    private func runPACE(_ info: PACEInfo, password: PACE.Password) throws -> PACE.Result {
        try openingSession {
            try PACE(info: info, password: password, fixedPrivateKeys: pacePrivateKeys).perform(over: channel)
        }
    }

    /// SELECT the eMRTD application (plain), then BAC.
    private func runBAC(_ key: MRZAccessKey) throws -> BAC.Session {
        try openingSession {
            try Self.selectApplication(over: channel)
            events(.authenticating(protocol: "BAC"))
            do {
                let session = try BAC(accessKey: key, random: random).authenticate(over: channel)
                events(.authenticated(protocol: "BAC"))
                return session
            } catch SecurityError.accessDenied(let status) {
                throw ScanError.accessDenied(status: status)
            }
        }
    }

    /// Runs the plain exchanges that open a session with 6Cxx retries on. They are off afterwards:
    /// secure messaging follows, where a repeated command would carry a stale send-sequence
    /// counter (or the scan ends with the error).
    private func openingSession<T>(_ body: () throws -> T) throws -> T {
        channel.retriesWrongLength = true
        defer { channel.retriesWrongLength = false }
        return try body()
    }

    static func selectApplication(over channel: CardChannel) throws {
        let select = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: applicationID))
        guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }
    }

    /// EF.CardAccess from the master file, read plainly before any access control (absent on
    /// BAC-only chips).
    func readCardAccess() throws -> [UInt8]? {
        func refused(_ r: ResponseAPDU) -> Bool { !r.status.isSuccess && r.status != .endOfFileWarning && r.status != .fileNotFound }
        var response = try readByShortIdentifier(.cardAccess)
        if refused(response) {
            // Maybe an application is still selected from an earlier session: select the master file.
            let mf = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00]))
            guard mf.status.isSuccess else { return nil }
            response = try readByShortIdentifier(.cardAccess)
            if refused(response) {
                guard let selected = try selectAndRead(.cardAccess) else { return nil }
                response = selected
            }
        }
        guard response.status.isSuccess || response.status == .endOfFileWarning, !response.data.isEmpty,
              let total = try? TLV.totalLength(ofObjectStartingWith: response.data[...]),
              total <= FileSizeLimits.limit(for: .cardAccess)
        else { return nil }
        // A file longer than one READ BINARY (ID cards with several SecurityInfos and a
        // CardInfoLocator pass 256 bytes): the rest at offsets, in answers of at most 256 bytes
        // so that any reader passes them. The first READ BINARY selected the file.
        var bytes = Array(response.data.prefix(total))
        while bytes.count < total {
            let offset = bytes.count
            guard offset <= 0x7FFF else { return nil }
            let next = try channel.transmit(CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF),
                                                        ne: min(256, total - offset)))
            guard next.status.isSuccess || next.status == .endOfFileWarning, !next.data.isEmpty else { return nil }
            bytes += next.data.prefix(total - offset)
        }
        return bytes
    }

    /// EF.ATR/INFO (master file, short EF identifier 01), in plain before access control: nil
    /// when the chip has none (6A82, or 6982 from chips that show nothing before access
    /// control). The file holds a few data objects: one short READ BINARY reads it. Its extended
    /// length information, when well formed, bounds every later read.
    func readATRInfo() throws -> [UInt8]? {
        var response = try readByShortIdentifier(.atrInfo)
        if response.status == .conditionsNotSatisfied || response.status == StatusWord(0x6986) {
            guard let selected = try selectAndRead(.atrInfo) else { return nil }
            response = selected
        }
        guard response.status.isSuccess || response.status == .endOfFileWarning, !response.data.isEmpty else { return nil }
        if let info = try? ATRInfo(bytes: response.data) {
            learned.chipResponseData = max(1, info.maxResponseBytes - 2)    // the status word is part of the answer
        }
        return response.data
    }

    /// The first READ BINARY of a master-file EF, by its short EF identifier.
    private func readByShortIdentifier(_ file: LDSFile) throws -> ResponseAPDU {
        try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | file.shortFID, p2: 0, ne: 256))
    }

    /// The same on a chip that takes no short EF identifiers (6985/6986): SELECT by the file
    /// identifier, then READ BINARY. Only SELECT's answer says the file is absent: nil then.
    private func selectAndRead(_ file: LDSFile) throws -> ResponseAPDU? {
        let select = try channel.transmit(CommandAPDU.selectFile(file.fid))
        guard select.status.isSuccess else { return nil }
        return try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
    }

    /// The first PACE profile of EF.CardAccess this reader can run.
    static func usablePACEInfo(in cardAccess: [UInt8]?) -> PACEInfo? {
        let offered = cardAccess.flatMap { try? SecurityInfos(bytes: $0) }?.paceInfos ?? []
        return offered.first { (try? PACE(info: $0, password: .can(""))) != nil }
    }

    /// A refused PACE password, or a PACE that broke off, as the scan reports it.
    static func refusal(_ error: SecurityError, password: PACE.Password, bacRefused: String? = nil) -> ScanError {
        if case .accessDenied(let status) = error { return .passwordRefused(password: password.name, status: status) }
        if let bacRefused {
            return .secureMessagingFailed(file: .cardAccess, cause: "PACE failed (\(error.description)), and the chip allows no BAC instead (\(bacRefused))")
        }
        return .secureMessagingFailed(file: .cardAccess, cause: error.description)
    }
}

extension AccessCredentials {
    /// PACE's password: the CAN when given, else the MRZ.
    var pacePassword: PACE.Password? {
        can.map { .can($0) } ?? mrz.map { .mrz($0) }
    }
}
