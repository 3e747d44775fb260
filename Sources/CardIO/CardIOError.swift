/// Errors of the card-reader layer, each with a message a person can act on.
public enum CardIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The smart-card service is not running.
    case serviceUnavailable
    case noReaders
    case readerNotFound(requested: String, available: [String])
    case noCard(reader: String, seconds: Double)
    case cardRemoved
    case cardUnresponsive(reader: String)
    case readerBusy(reader: String)
    case transmissionFailed(code: UInt32, message: String)
    case extendedLengthUnsupported
    case malformedAPDU(String)
    case malformedResponse(length: Int)
    case protocolViolation(String)
    case libraryMissing(String)
    /// The person stopped the program (Ctrl-C) while the card was being read.
    case stopped
    /// The reader itself went away while it was in use (unplugged, or its driver lost it).
    case readerRemoved(reader: String)

    public var description: String {
        switch self {
        case .serviceUnavailable:
            return "The smart-card service pcscd is not running. Start it (sudo systemctl start pcscd, or sudo pcscd) and try again."
        case .noReaders:
            return "No card reader found. Plug in the reader; if it is plugged in, check that pcscd sees it (pcsc_scan) and that the udev rules are installed (docs/reading.md; the Debian package installs them)."
        case .readerNotFound(let requested, let available):
            return "No reader matches '\(requested)'. Available: \(available.isEmpty ? "none" : available.joined(separator: ", "))."
        case .noCard(let reader, let seconds):
            return "No passport on '\(reader)' within \(formatSeconds(seconds)) s. Place the passport's data page (or its cover with the chip) flat on the reader and keep it still."
        case .cardRemoved:
            return "The passport was taken off the reader (or lost contact) during the read. Hold it still on the reader and scan again."
        case .cardUnresponsive(let reader):
            return "The card on '\(reader)' does not answer. Move it a little on the reader and try again."
        case .readerBusy(let reader):
            return "Another program is using '\(reader)'. Close it and try again."
        case .transmissionFailed(let code, let message):
            return "The reader failed to exchange data with the card (PC/SC 0x\(String(code, radix: 16, uppercase: true)): \(message))."
        case .extendedLengthUnsupported:
            return "This command needs extended-length APDUs, which the reader or card does not support."
        case .malformedAPDU(let why):
            return "Malformed APDU: \(why)."
        case .malformedResponse(let length):
            return "The card sent a malformed response (\(length) bytes, no status word)."
        case .protocolViolation(let why):
            return "The card broke the protocol: \(why)."
        case .libraryMissing(let what):
            return "\(what) is not available on this machine. Install it (docs/reading.md) and try again."
        case .stopped:
            return "Stopped (Ctrl-C) during the read: this document was not saved."
        case .readerRemoved(let reader):
            return "The reader '\(reader)' went away during the read (unplugged, or its driver lost it). Nothing was saved. Plug it back in and scan again."
        }
    }
}

func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? String(Int(s)) : String(s)
}
