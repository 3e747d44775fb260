import TextSupport
import Dispatch
/// Something that sends command APDUs to a card and returns its responses: a reader transport,
/// or secure messaging layered over another channel.
public protocol CardChannel: AnyObject {
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU
    /// True when the path to the card carries extended-length APDUs (reader and card both).
    var supportsExtendedLength: Bool { get }
}

/// The raw byte exchange a reader driver offers (PC/SC, libnfc, a recorded trace).
public protocol CardTransport: AnyObject {
    /// Sends one encoded command and returns the encoded response (data + SW1 SW2).
    func transmit(raw: [UInt8]) throws -> [UInt8]
    /// The card's answer to reset (or ATS-derived equivalent), used to learn its capabilities.
    var atr: [UInt8] { get }
    /// A name for reports ("ACS ACR122U 00 00", "pn532_uart:/dev/ttyUSB0").
    var readerName: String { get }
    /// Resets the card, so that no security state of an earlier session is left: some chips
    /// refuse a new access control after a failed one until they are reset.
    func reset() throws
    /// After the card left the reader: waits up to `timeout` seconds for a card to be back and
    /// connects to it (reset, nothing selected). Throws `CardIOError.noCard` when none came.
    func reconnectAfterRemoval(timeout: Double) throws
    /// Whether the reader passes extended-length APDUs on, when its driver says (PC/SC part 10's
    /// dwMaxAPDUDataSize: 0 for a short-APDU reader); nil when it does not say.
    var readerTakesExtendedAPDUs: Bool? { get }
    /// The most response data (without the status word) one answer can bring through the
    /// reader, when it is less than a short response's 256 bytes; nil otherwise.
    var readerMaxResponseData: Int? { get }
}

extension CardTransport {
    public var readerTakesExtendedAPDUs: Bool? { nil }
    public var readerMaxResponseData: Int? { nil }
}

/// An ISO 7816-4 channel over a transport: encodes APDUs, fetches the rest of a response on
/// 61xx with GET RESPONSE, repeats a command with the corrected Le on 6Cxx, counts exchanges.
public final class ISO7816Channel: CardChannel {
    public let transport: CardTransport
    /// Exchanges with the card so far (each GET RESPONSE and retry counts).
    public private(set) var apduCount = 0
    public var supportsExtendedLength: Bool
    /// Called with every raw exchange, for an explicit APDU trace (holds secrets: off by default).
    public var trace: ((_ command: [UInt8], _ response: [UInt8]) -> Void)?
    /// Called with a one-line description of every exchange: instruction, parameters, lengths
    /// and status, never the data (safe for verbose logs).
    public var summary: ((String) -> Void)?
    /// Bounds the time one exchange may take (see ExchangeWatchdog).
    public var watchdog: ExchangeWatchdog?
    /// Asked before every exchange: true stops the read with `CardIOError.stopped` (Ctrl-C at a
    /// desk), between two APDUs, never in the middle of one.
    public var shouldStop: (@Sendable () -> Bool)?
    /// Repeat a command with the Le a 6Cxx names. Must be off under secure messaging, where a
    /// repeated command would carry a stale send-sequence counter.
    public var retriesWrongLength = true

    public init(transport: CardTransport, allowExtendedLength: Bool = true) {
        self.transport = transport
        // The card's ATR says what the chip takes; a short-APDU reader (libccid says so for an
        // ACR122U) passes no extended-length APDU to it anyway.
        self.supportsExtendedLength = allowExtendedLength && AnswerToReset(transport.atr).supportsExtendedLength
            && transport.readerTakesExtendedAPDUs != false
    }

    public func transmit(_ command: CommandAPDU) throws -> ResponseAPDU {
        if command.needsExtendedLength && !supportsExtendedLength {
            throw CardIOError.extendedLengthUnsupported
        }
        var response = try exchange(command.encoded())
        // 6Cxx: the card names the exact Le it can serve; repeat once with it.
        if retriesWrongLength && response.status.sw1 == 0x6C {
            var retry = command
            retry.ne = response.status.sw2 == 0 ? 256 : Int(response.status.sw2)
            response = try exchange(retry.encoded())
        }
        // 61xx: more data waits; collect it with GET RESPONSE (T=0 cards and some readers).
        var data = response.data
        var rounds = 0
        while response.status.sw1 == 0x61 {
            rounds += 1
            guard rounds <= 256 else { throw CardIOError.protocolViolation("endless GET RESPONSE chain") }
            let le = response.status.sw2 == 0 ? 256 : Int(response.status.sw2)
            response = try exchange(CommandAPDU(cla: command.cla & 0x03, ins: 0xC0, p1: 0, p2: 0, ne: le).encoded())
            data += response.data
        }
        return ResponseAPDU(data: data, status: response.status)
    }

    private func exchange(_ bytes: [UInt8]) throws -> ResponseAPDU {
        if shouldStop?() == true { throw CardIOError.stopped }
        apduCount += 1
        let started = DispatchTime.now().uptimeNanoseconds
        watchdog?.begin()
        defer { watchdog?.end() }
        let raw = try transport.transmit(raw: bytes)
        trace?(bytes, raw)
        let response = try ResponseAPDU(encoded: raw)
        if let summary {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            summary(ISO7816Channel.describe(bytes, response: response, milliseconds: ms, number: apduCount))
        }
        return response
    }

    static let instructionNames: [UInt8: String] = [
        0xA4: "SELECT", 0xB0: "READ BINARY", 0xB1: "READ BINARY (odd)", 0x84: "GET CHALLENGE",
        0x82: "MUTUAL AUTHENTICATE", 0x88: "INTERNAL AUTHENTICATE", 0x22: "MSE", 0x86: "GENERAL AUTHENTICATE",
        0xC0: "GET RESPONSE", 0x2A: "PSO",
    ]

    /// "READ BINARY", "SELECT", … for messages; INS 82 is BAC's MUTUAL AUTHENTICATE in plain and
    /// terminal authentication's EXTERNAL AUTHENTICATE under secure messaging.
    public static func instructionName(_ ins: UInt8, secure: Bool) -> String {
        ins == 0x82 && secure ? "EXTERNAL AUTHENTICATE" : instructionNames[ins] ?? "INS \(ins.hex(2))"
    }

    /// "APDU 12: READ BINARY 0C B0 00 E7, 19 bytes in, 256 expected → 9000, 248 bytes (3.1 ms)"
    static func describe(_ command: [UInt8], response: ResponseAPDU, milliseconds: Double, number: Int) -> String {
        guard command.count >= 4 else { return "APDU \(number): malformed" }
        let header = command.prefix(4).map { $0.hex(2) }.joined(separator: " ")
        let secure = command[0] & 0x0C == 0x0C ? " (secure messaging)" : ""
        let name = instructionName(command[1], secure: !secure.isEmpty)
        return "APDU \(number): \(name)\(secure) \(header), \(command.count) bytes → \(response.status.value.hex(4)), "
            + "\(response.data.count) bytes (\(milliseconds.fixed(1)) ms)"
    }
}
