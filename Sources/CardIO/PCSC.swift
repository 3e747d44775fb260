import CPCSCLite
import FoundationEssentials
import Glibc

/// PC/SC constants, spelled out because pcsc-lite defines them as casting macros Swift cannot import.
enum PCSCConstant {
    static let scopeSystem: DWORD = 2
    static let shareShared: DWORD = 2
    static let protocolT0: DWORD = 1
    static let protocolT1: DWORD = 2
    static let leaveCard: DWORD = 0
    static let resetCard: DWORD = 1
    static let stateUnaware: DWORD = 0x0000
    static let stateChanged: DWORD = 0x0002
    static let stateEmpty: DWORD = 0x0010
    static let statePresent: DWORD = 0x0020
    static let stateMute: DWORD = 0x0200
    static let autoAllocate: DWORD = DWORD.max
}

/// PC/SC return codes this toolkit distinguishes.
enum PCSCCode: UInt32 {
    case success = 0
    case cancelled = 0x8010_0002
    case invalidHandle = 0x8010_0003
    case insufficientBuffer = 0x8010_0008
    case unknownReader = 0x8010_0009
    case timeout = 0x8010_000A
    case sharingViolation = 0x8010_000B
    case noSmartcard = 0x8010_000C
    case protoMismatch = 0x8010_000F
    case communicationError = 0x8010_0013
    case notTransacted = 0x8010_0016
    case readerUnavailable = 0x8010_0017
    case noService = 0x8010_001D
    case noReadersAvailable = 0x8010_002E
    case unresponsiveCard = 0x8010_0066
    case unpoweredCard = 0x8010_0067
    case resetCard = 0x8010_0068
    case removedCard = 0x8010_0069
}

func pcscCode(_ rv: LONG) -> UInt32 { UInt32(truncatingIfNeeded: rv) }

func pcscMessage(_ rv: LONG) -> String {
    // A return code comes from pcsc-lite, so it is open by now.
    guard let text = try? PCSCLibrary.functions().pcsc_stringify_error(rv) else { return "unknown error" }
    return String(cString: text)
}

/// A connection to the PC/SC resource manager (pcscd).
public final class PCSCContext {
    private let pcsc: PassportPCSC
    private let context: SCARDCONTEXT

    /// Opens pcsc-lite on first use: throws `MissingLibrary` naming its package when it is absent.
    public init() throws {
        pcsc = try PCSCLibrary.functions()
        var ctx: SCARDCONTEXT = 0
        let rv = pcsc.SCardEstablishContext(PCSCConstant.scopeSystem, nil, nil, &ctx)
        guard pcscCode(rv) == PCSCCode.success.rawValue else {
            if pcscCode(rv) == PCSCCode.noService.rawValue { throw CardIOError.serviceUnavailable }
            throw CardIOError.transmissionFailed(code: pcscCode(rv), message: pcscMessage(rv))
        }
        context = ctx
    }

    deinit { _ = pcsc.SCardReleaseContext(context) }

    /// Names of the readers pcscd knows about (empty when none is plugged in).
    public func readers() throws -> [String] {
        var length: DWORD = 0
        var rv = pcsc.SCardListReaders(context, nil, nil, &length)
        if pcscCode(rv) == PCSCCode.noReadersAvailable.rawValue { return [] }
        try check(rv)
        var buffer = [CChar](repeating: 0, count: Int(length))
        rv = pcsc.SCardListReaders(context, nil, &buffer, &length)
        if pcscCode(rv) == PCSCCode.noReadersAvailable.rawValue { return [] }
        try check(rv)
        // A multi-string: names separated by NUL, ended by an empty name.
        return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// The reader to use: the one whose name contains `requested`, or the first one.
    public func resolveReader(_ requested: String?) throws -> String {
        let all = try readers()
        guard !all.isEmpty else { throw CardIOError.noReaders }
        guard let requested else { return all[0] }
        if let exact = all.first(where: { $0 == requested }) { return exact }
        if let match = all.first(where: { $0.lowercased().contains(requested.lowercased()) }) { return match }
        throw CardIOError.readerNotFound(requested: requested, available: all)
    }

    /// Whether a card is in `reader` right now.
    public func isCardPresent(reader: String) throws -> Bool {
        try state(of: reader, current: PCSCConstant.stateUnaware, timeoutMs: 0) & PCSCConstant.statePresent != 0
    }

    /// Blocks until a card is present in `reader`, or throws `noCard` after `timeout` seconds.
    public func waitForCard(reader: String, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var current = PCSCConstant.stateUnaware
        while true {
            let remaining = deadline.timeIntervalSinceNow
            let event = try state(of: reader, current: current,
                                  timeoutMs: DWORD(max(0, min(remaining, 1.0)) * 1000))
            if event & PCSCConstant.statePresent != 0 && event & PCSCConstant.stateMute == 0 { return }
            current = event & ~PCSCConstant.stateChanged
            if remaining <= 0 { throw CardIOError.noCard(reader: reader, seconds: timeout) }
        }
    }

    /// Waits, with no time limit, until a card is in `reader` (`present`) or gone from it;
    /// false when `shouldStop` said so first. Looks at `shouldStop` at least every 250 ms.
    public func waitUntil(cardPresent present: Bool, reader: String, shouldStop: () -> Bool) throws -> Bool {
        var current = PCSCConstant.stateUnaware
        while !shouldStop() {
            let event = try state(of: reader, current: current, timeoutMs: 250)
            let cardThere = event & PCSCConstant.statePresent != 0 && event & PCSCConstant.stateMute == 0
            if cardThere == present && (present || event & PCSCConstant.statePresent == 0) { return true }
            current = event & ~PCSCConstant.stateChanged
        }
        return false
    }

    /// Every reader and whether a card is on it, after waiting up to `timeoutMs` for a change
    /// since `previous` (a card placed or taken away, a reader plugged in or out; pcsc-lite's
    /// `\\?PnP?\\Notification`). Without `previous`, or when the readers differ from it, the
    /// states now, at once. Pass the result back in to wait for the next change.
    public func readerStates(after previous: ReaderStates?, timeoutMs: DWORD) throws -> ReaderStates {
        let names = try readers()
        let sameReaders = previous.map { $0.names == names } ?? false
        let watched = names + [Self.plugAndPlay]
        let cNames = watched.map { $0.withCString { strdup($0) } }
        defer { cNames.forEach { free($0) } }
        var states = [SCARD_READERSTATE](repeating: SCARD_READERSTATE(), count: watched.count)
        for index in watched.indices {
            states[index].szReader = UnsafePointer(cNames[index])
            states[index].dwCurrentState = sameReaders ? previous!.events[index] : PCSCConstant.stateUnaware
        }
        // The notification entry counts the readers in its high word.
        states[names.count].dwCurrentState = DWORD(names.count) << 16
        let rv = pcsc.SCardGetStatusChange(context, sameReaders ? timeoutMs : 0, &states, DWORD(states.count))
        if pcscCode(rv) == PCSCCode.timeout.rawValue, let previous, sameReaders { return previous }
        if pcscCode(rv) == PCSCCode.unknownReader.rawValue || pcscCode(rv) == PCSCCode.readerUnavailable.rawValue {
            return ReaderStates(names: [], events: [])  // a reader left while we asked: look again
        }
        try check(rv)
        return ReaderStates(names: names, events: states.map { $0.dwEventState & ~PCSCConstant.stateChanged })
    }

    static let plugAndPlay = "\\\\?PnP?\\Notification"

    private func state(of reader: String, current: DWORD, timeoutMs: DWORD) throws -> DWORD {
        try reader.withCString { name in
            var state = SCARD_READERSTATE()
            state.szReader = name
            state.dwCurrentState = current
            let rv = pcsc.SCardGetStatusChange(context, timeoutMs, &state, 1)
            if pcscCode(rv) == PCSCCode.timeout.rawValue { return current }
            if pcscCode(rv) == PCSCCode.unknownReader.rawValue || pcscCode(rv) == PCSCCode.readerUnavailable.rawValue {
                throw CardIOError.readerNotFound(requested: reader, available: (try? readers()) ?? [])
            }
            try check(rv)
            return state.dwEventState
        }
    }

    /// Connects to the card in `reader` (T=1 preferred, T=0 accepted), shared with other programs,
    /// and resets it unless `reset` is false (a look that must not end another program's session).
    public func connect(reader: String, reset: Bool = true) throws -> PCSCCard {
        try PCSCCard(pcsc: pcsc, context: context, reader: reader, reset: reset)
    }

    func check(_ rv: LONG) throws {
        try PCSCCard.check(rv, reader: "")
    }
}

/// The readers pcscd knows and the state of each, from `PCSCContext.readerStates(after:timeoutMs:)`.
public struct ReaderStates: Sendable, Equatable {
    public let names: [String]
    /// pcsc-lite's event state per reader, then the notification entry's.
    let events: [DWORD]

    /// Whether a card (that answers) is on the reader.
    public func cardPresent(_ reader: String) -> Bool {
        guard let index = names.firstIndex(of: reader) else { return false }
        return events[index] & PCSCConstant.statePresent != 0 && events[index] & PCSCConstant.stateMute == 0
    }
}

/// A card connected through PC/SC.
public final class PCSCCard: CardTransport {
    private let pcsc: PassportPCSC
    private var handle: SCARDHANDLE = 0
    private var activeProtocol: DWORD = 0
    private let context: SCARDCONTEXT
    public let readerName: String
    public private(set) var atr: [UInt8] = []
    /// Asked while waiting for the card to come back: true ends the wait with `stopped`.
    public var shouldStop: (@Sendable () -> Bool)?

    init(pcsc: PassportPCSC, context: SCARDCONTEXT, reader: String, reset: Bool = true) throws {
        self.pcsc = pcsc
        self.context = context
        self.readerName = reader
        let rv = pcsc.SCardConnect(context, reader, PCSCConstant.shareShared,
                              PCSCConstant.protocolT1 | PCSCConstant.protocolT0, &handle, &activeProtocol)
        try PCSCCard.check(rv, reader: reader)
        // Start from a fresh chip state (master file selected, no session left by another program).
        if reset {
            let rv = pcsc.SCardReconnect(handle, PCSCConstant.shareShared, PCSCConstant.protocolT1 | PCSCConstant.protocolT0,
                                         PCSCConstant.resetCard, &activeProtocol)
            try PCSCCard.check(rv, reader: reader)
        }
        resetOnDisconnect = reset
        atr = try readATR()
        readerTakesExtendedAPDUs = readMaxAPDUDataSize().map { $0 > 0 }
    }

    public private(set) var readerTakesExtendedAPDUs: Bool?

    /// PC/SC part 10: the reader's features (CM_IOCTL_GET_FEATURE_REQUEST), then its TLV
    /// properties (FEATURE_GET_TLV_PROPERTIES, 0x12) and in them dwMaxAPDUDataSize (tag 0x0A):
    /// 0 for a short-APDU reader. Drivers without part 10 (vpcd) refuse the request: nil.
    private func readMaxAPDUDataSize() -> Int? {
        guard let features = control(0x4200_0D48, 6 * 32) else { return nil }
        var properties: [UInt8]?
        for at in stride(from: 0, to: features.count - 5, by: 6) where features[at] == 0x12 && features[at + 1] == 4 {
            let code = features[(at + 2)..<(at + 6)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            properties = control(DWORD(code), 256)
        }
        guard let properties else { return nil }
        var at = 0
        while at + 2 <= properties.count {
            let tag = properties[at], length = Int(properties[at + 1])
            guard at + 2 + length <= properties.count else { return nil }
            if tag == 0x0A { return properties[(at + 2)..<(at + 2 + length)].reversed().reduce(0) { $0 << 8 | Int($1) } }
            at += 2 + length
        }
        return nil
    }

    private func control(_ code: DWORD, _ size: Int) -> [UInt8]? {
        var answer = [UInt8](repeating: 0, count: size)
        var length: DWORD = 0
        let rv = pcsc.SCardControl(handle, code, nil, 0, &answer, DWORD(size), &length)
        return pcscCode(rv) == PCSCCode.success.rawValue ? Array(answer.prefix(Int(length))) : nil
    }

    /// Whether `disconnect` resets the card (not after a look that must leave it as it was).
    private var resetOnDisconnect = true

    deinit { disconnect() }

    /// The protocol negotiated: 1 for T=1, 0 for T=0.
    public var protocolNumber: Int { activeProtocol == PCSCConstant.protocolT1 ? 1 : 0 }

    public func transmit(raw: [UInt8]) throws -> [UInt8] {
        guard handle != 0 else { throw CardIOError.cardRemoved }
        // Room for the largest extended response: 65536 data bytes plus the status word.
        var response = [UInt8](repeating: 0, count: 65538)
        var length = DWORD(response.count)
        var pci = activeProtocol == PCSCConstant.protocolT1 ? pcsc.g_rgSCardT1Pci : pcsc.g_rgSCardT0Pci
        let rv = pcsc.SCardTransmit(handle, &pci, raw, DWORD(raw.count), nil, &response, &length)
        let code = pcscCode(rv)
        if code == PCSCCode.notTransacted.rawValue || code == PCSCCode.communicationError.rawValue {
            // Readers report a card leaving the field mid-exchange this way; the removal itself
            // is announced a moment later. Tell the two apart before blaming the reader.
            if cardLeft(within: 1.0) { throw CardIOError.cardRemoved }
        }
        try PCSCCard.check(rv, reader: readerName)
        return Array(response[0..<Int(length)])
    }

    /// Resets the card and renegotiates (before access control is established again).
    public func reset() throws {
        guard handle != 0 else { throw CardIOError.cardRemoved }
        let rv = pcsc.SCardReconnect(handle, PCSCConstant.shareShared,
                                     PCSCConstant.protocolT1 | PCSCConstant.protocolT0, PCSCConstant.resetCard, &activeProtocol)
        try PCSCCard.check(rv, reader: readerName)
        atr = try readATR()
    }

    /// Waits for a card to be back in the reader, then connects to it afresh (and resets it).
    public func reconnectAfterRemoval(timeout: Double) throws {
        if handle != 0 {
            _ = pcsc.SCardDisconnect(handle, PCSCConstant.leaveCard)
            handle = 0
        }
        try waitForPresence(timeout: timeout)
        var fresh: SCARDHANDLE = 0
        let rv = pcsc.SCardConnect(context, readerName, PCSCConstant.shareShared,
                              PCSCConstant.protocolT1 | PCSCConstant.protocolT0, &fresh, &activeProtocol)
        try PCSCCard.check(rv, reader: readerName)
        handle = fresh
        try reset()
    }

    /// Polls the reader's state until a (powered, answering) card is present.
    private func waitForPresence(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var current = PCSCConstant.stateUnaware
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw CardIOError.noCard(reader: readerName, seconds: timeout) }
            if shouldStop?() == true { throw CardIOError.stopped }
            let event: DWORD = try readerName.withCString { name in
                var state = SCARD_READERSTATE()
                state.szReader = name
                state.dwCurrentState = current
                let rv = pcsc.SCardGetStatusChange(context, DWORD(min(remaining, 0.5) * 1000), &state, 1)
                if pcscCode(rv) == PCSCCode.timeout.rawValue { return current }
                try PCSCCard.check(rv, reader: readerName)
                return state.dwEventState
            }
            if event & PCSCConstant.statePresent != 0 && event & PCSCConstant.stateMute == 0 { return }
            current = event & ~PCSCConstant.stateChanged
        }
    }

    /// Ends the connection and resets the card, so that no session outlives the scan.
    public func disconnect() {
        if handle != 0 {
            _ = pcsc.SCardDisconnect(handle, resetOnDisconnect ? PCSCConstant.resetCard : PCSCConstant.leaveCard)
            handle = 0
        }
    }

    /// True when PC/SC reports the card gone (now or within `seconds`).
    private func cardLeft(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            do { _ = try readATR() } catch CardIOError.cardRemoved { return true } catch { return false }
            usleep(50_000)
        } while Date() < deadline
        return false
    }

    private func readATR() throws -> [UInt8] {
        var nameLength: DWORD = 0
        var state: DWORD = 0
        var proto: DWORD = 0
        var atrBuffer = [UInt8](repeating: 0, count: 33)
        var atrLength = DWORD(atrBuffer.count)
        let rv = pcsc.SCardStatus(handle, nil, &nameLength, &state, &proto, &atrBuffer, &atrLength)
        try PCSCCard.check(rv, reader: readerName)
        return Array(atrBuffer[0..<Int(atrLength)])
    }

    static func check(_ rv: LONG, reader: String) throws {
        let code = pcscCode(rv)
        guard code != PCSCCode.success.rawValue else { return }
        switch PCSCCode(rawValue: code) {
        case .noService: throw CardIOError.serviceUnavailable
        case .noReadersAvailable: throw CardIOError.noReaders
        case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .invalidHandle:
            throw CardIOError.cardRemoved
        case .unresponsiveCard, .protoMismatch: throw CardIOError.cardUnresponsive(reader: reader)
        case .sharingViolation: throw CardIOError.readerBusy(reader: reader)
        case .readerUnavailable, .unknownReader:
            // On a connected card (a reader name given) the reader was there a moment ago.
            if reader.isEmpty { throw CardIOError.readerNotFound(requested: reader, available: []) }
            throw CardIOError.readerRemoved(reader: reader)
        default: throw CardIOError.transmissionFailed(code: code, message: pcscMessage(rv))
        }
    }
}
