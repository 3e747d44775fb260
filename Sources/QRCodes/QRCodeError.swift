/// Why a QR code could not be made or read. Each names the step and what was seen; decoded text
/// is never shown raw (`QRText.escapedExcerpt`).
public enum QRCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text does not fit one QR code (version 40, level M, byte mode).
    case tooLarge(bytes: Int, limit: Int)
    /// No QR code was found in the image or in any frame read.
    case noCode(source: String, detail: String)
    /// More than one QR code in one image: which one was meant is not guessed.
    case severalCodes(source: String, count: Int)
    /// Something shaped like a QR code (its three finder patterns) that does not decode.
    case damaged(source: String)
    /// The decoded bytes are not UTF-8 text.
    case notText(source: String, bytes: Int)
    /// The decoded text holds control characters or escape codes (never printed raw).
    case controlCharacters(source: String, excerpt: String)
    /// The decoded text is not a verifier's openid4vp:// or haip-vp:// request (`present --request-qr`).
    case notARequest(source: String, excerpt: String)
    /// The decoded text is not a presentation (an SD-JWT or JWT: `verify-vp --qr`).
    case notAPresentation(source: String, excerpt: String)
    /// The decoded text is larger than what the command accepts.
    case tooLong(source: String, bytes: Int, limit: Int)
    /// The image could not be read as an image.
    case unreadableImage(source: String, reason: String)
    /// An image file to write has an extension other than .png or .svg.
    case unsupportedImageType(path: String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            return "The presentation is \(bytes) bytes; one QR code holds at most \(limit) (version 40, error correction M). "
                + "Nothing is split across several codes: disclose fewer claims (--disclose), or hand over the text instead. "
                + "A credential an institution signed carries its certificate chain (x5c, about 1 KB), which fewer claims do not shrink."
        case .noCode(let source, let detail):
            return "No QR code was found in \(source)\(detail.isEmpty ? "" : " (\(detail))"). Hold the code flat, in focus and fully in view, with a margin around it."
        case .severalCodes(let source, let count):
            return "\(source) shows \(count) QR codes; exactly one is read. Crop or cover the others and try again."
        case .damaged(let source):
            return "\(source) shows a QR code that cannot be decoded (damaged, cut off, blurred or too small). Take a sharper, closer picture."
        case .notText(let source, let bytes):
            return "The QR code in \(source) holds \(bytes) bytes that are not UTF-8 text, so it is neither a request nor a presentation."
        case .controlCharacters(let source, let excerpt):
            return "The QR code in \(source) holds control characters or terminal escape codes, refused unused: \(excerpt)"
        case .notARequest(let source, let excerpt):
            return "The QR code in \(source) is not a verifier's request (an openid4vp:// or haip-vp:// link); nothing was sent. It holds \(excerpt)"
        case .notAPresentation(let source, let excerpt):
            return "The QR code in \(source) is not a presentation (an SD-JWT or a JWT). It holds \(excerpt)"
        case .tooLong(let source, let bytes, let limit):
            return "The QR code in \(source) holds \(bytes) bytes, more than the \(limit) read; refused unused."
        case .unreadableImage(let source, let reason):
            return "\(source) cannot be read as an image: \(reason)."
        case .unsupportedImageType(let path):
            return "Cannot write a QR code to \(path): give a file name ending in .png or .svg."
        }
    }

    /// Usage or environment (exit 2) rather than an invalid image or token (exit 1).
    public var isUsage: Bool {
        switch self {
        case .unsupportedImageType: return true
        default: return false
        }
    }
}
