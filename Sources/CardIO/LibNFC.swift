import CNFC
import FoundationEssentials
import Glibc

/// libnfc (PN53x boards, ACR122U used directly): devices by connstring, ISO 14443-4 targets.
public final class NFCContext {
    private let nfc: PassportNFC
    private let context: OpaquePointer

    /// Opens libnfc on first use: throws `MissingLibrary` naming its package when it is absent.
    public init() throws {
        nfc = try NFCLibrary.functions()
        // libnfc logs its own bus-scan errors to stderr ("Unable to find USB busses" in containers);
        // keep them out unless the user asked for libnfc's log level.
        if getenv("LIBNFC_LOG_LEVEL") == nil { setenv("LIBNFC_LOG_LEVEL", "0", 0) }
        var created: OpaquePointer?
        nfc.nfc_init(&created)
        guard let created else { throw CardIOError.libraryMissing("libnfc could not start (nfc_init)") }
        context = created
    }

    deinit { nfc.nfc_exit(context) }

    /// libnfc's version ("1.8.0"), opening it; throws `MissingLibrary` when it is absent.
    public static func libraryVersion() throws -> String { cText(try NFCLibrary.functions().nfc_version()) }

    /// Connstrings of the devices libnfc finds (USB, serial ports it scans, `LIBNFC_DEVICE`).
    public func devices() -> [String] {
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let used = passport_nfc_list(nfc.nfc_list_devices, context, &buffer, buffer.count)
        return buffer[0..<used].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// Opens `connstring`, or the first device found.
    public func open(_ connstring: String?) throws -> NFCDevice {
        let device: OpaquePointer?
        if let connstring {
            device = nfc.nfc_open(context, connstring)
        } else {
            device = nfc.nfc_open(context, nil)
        }
        guard let device else {
            if let connstring { throw CardIOError.readerNotFound(requested: connstring, available: devices()) }
            throw CardIOError.noReaders
        }
        return try NFCDevice(nfc: nfc, device: device)
    }
}

/// An open libnfc device in initiator (reader) mode.
public final class NFCDevice {
    let nfc: PassportNFC
    let device: OpaquePointer
    public let name: String
    /// "pn53x_usb:001:005": the driver's name, then where the device is.
    public let connstring: String

    init(nfc: PassportNFC, device: OpaquePointer) throws {
        self.nfc = nfc
        self.device = device
        name = cText(nfc.nfc_device_get_name(device))
        connstring = cText(nfc.nfc_device_get_connstring(device))
        guard nfc.nfc_initiator_init(device) >= 0 else {
            let message = cText(nfc.nfc_strerror(device))
            nfc.nfc_close(device)
            throw CardIOError.transmissionFailed(code: 0, message: "libnfc could not initialise \(name): \(message)")
        }
        // Return at once when no card is in the field, so that waiting is under our control.
        _ = nfc.nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false)
    }

    deinit { nfc.nfc_close(device) }

    /// Polls for an ISO 14443 type A or B target until `timeout` seconds have passed.
    public func waitForCard(timeout: Double) throws -> NFCCard {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            for typeB in [false, true] {
                let target = UnsafeMutablePointer<nfc_target>.allocate(capacity: 1)
                if passport_nfc_select(nfc.nfc_initiator_select_passive_target, device, typeB ? 1 : 0, target) > 0 {
                    return NFCCard(device: self, target: target)
                }
                target.deallocate()
            }
            usleep(100_000)
        } while Date() < deadline
        throw CardIOError.noCard(reader: name, seconds: timeout)
    }
}

/// A card selected through libnfc. APDUs travel in raw PN53x InDataExchange frames so that
/// extended-length commands and answers fit (libnfc's own call stops at 264 bytes).
public final class NFCCard: CardTransport {
    private let device: NFCDevice
    private let target: UnsafeMutablePointer<nfc_target>
    public let atr: [UInt8]
    public var readerName: String { device.name }
    /// Milliseconds to wait for one answer.
    public var timeoutMilliseconds: Int32 = 5000
    private var receive = [UInt8](repeating: 0, count: 65_536 + 64)

    init(device: NFCDevice, target: UnsafeMutablePointer<nfc_target>) {
        self.device = device
        self.target = target
        // The ATR PC/SC builds for contactless cards: 3B 8n 80 01, the ATS historical bytes, TCK.
        var historical = [UInt8](repeating: 0, count: 15)
        let count = passport_nfc_historical_bytes(target, &historical, 15)
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(count), 0x80, 0x01] + historical.prefix(count)
        atr.append(atr.dropFirst().reduce(0, ^))
        self.atr = atr
    }

    deinit { target.deallocate() }

    /// libnfc's ACR122 drivers (acr122_usb, acr122_pcsc) wrap PN532 frames in the reader's pseudo
    /// APDUs, whose length fields are one byte: no frame beyond 255 bytes passes, so neither does
    /// an extended-length APDU (found with the emulated ACR122U under acr122_usb: the answer came
    /// back cut). Other drivers (pn532_uart, pn53x_usb) carry the PN53x's extended frames.
    public var readerTakesExtendedAPDUs: Bool? {
        device.connstring.hasPrefix("acr122_") ? false : nil
    }

    /// Through those drivers an answer is at most 255 bytes, less the pseudo APDU's status word,
    /// the PN532's D5 41 and its status byte, and the card's own status word: 248 bytes of data
    /// (libnfc's acr122_usb reads into 255 bytes after the CCID header; found with the emulated
    /// ACR122U, where a 3DES-protected 231-byte read came back cut).
    public var readerMaxResponseData: Int? {
        device.connstring.hasPrefix("acr122_") ? 248 : nil
    }

    /// Releases the target and selects it again: the card goes through activation, which resets it.
    public func reset() throws {
        _ = device.nfc.nfc_initiator_deselect_target(device.device)
        guard select(within: 1.0) else { throw CardIOError.cardRemoved }
    }

    /// Polls the field until the card (or another) is back and selects it.
    public func reconnectAfterRemoval(timeout: Double) throws {
        _ = device.nfc.nfc_initiator_deselect_target(device.device)
        guard select(within: timeout) else { throw CardIOError.noCard(reader: readerName, seconds: timeout) }
    }

    /// Selects a target of the same type as before until `seconds` have passed.
    private func select(within seconds: Double) -> Bool {
        let typeB = passport_nfc_is_type_b(target) != 0
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if passport_nfc_select(device.nfc.nfc_initiator_select_passive_target, device.device, typeB ? 1 : 0, target) > 0 { return true }
            usleep(100_000)
        } while Date() < deadline
        return false
    }

    static let maxFrameData = 262

    public func transmit(raw: [UInt8]) throws -> [UInt8] {
        var offset = 0
        while true {
            let piece = min(NFCCard.maxFrameData, raw.count - offset)
            let more = offset + piece < raw.count
            // InDataExchange, target 1, MI (0x40) on every piece but the last.
            let frame: [UInt8] = [0x40, more ? 0x41 : 0x01] + raw[offset..<(offset + piece)]
            let result = device.nfc.pn53x_transceive(device.device, frame, frame.count, &receive, receive.count, Int32(timeoutMilliseconds))
            guard result >= 1 else { throw lost(result) }
            offset += piece
            if more { continue }
            // The first byte is the PN53x status (0 = success); the rest is the response APDU.
            return Array(receive[1..<Int(result)])
        }
    }

    /// A failed exchange: the card left the field, or the reader failed.
    private func lost(_ code: Int32) -> CardIOError {
        // The USB drivers pass the bus's own error on (-ENODEV when the device left the bus), or
        // NFC_EIO / NFC_ENOTSUCHDEV: the reader is gone, not only the card.
        if code == -Int32(ENODEV) || code == NFC_EIO || code == NFC_ENOTSUCHDEV { return .readerRemoved(reader: readerName) }
        if device.nfc.nfc_initiator_target_is_present(device.device, target) < 0 { return .cardRemoved }
        return .transmissionFailed(code: UInt32(bitPattern: code), message: "libnfc: \(cText(device.nfc.nfc_strerror(device.device)))")
    }
}

/// A string libnfc returned (its table's functions give optional pointers; "" for none).
private func cText(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
