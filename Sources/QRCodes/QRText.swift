/// Checks on text decoded from a QR code before anything uses or prints it.
public enum QRText {
    /// The decoded bytes as text, refused when they are not UTF-8 or hold a control character
    /// (C0 including tab and line breaks, DEL, C1), a line or paragraph separator or a
    /// bidirectional override: a request or a presentation holds none of them.
    public static func checked(_ bytes: [UInt8], source: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw QRCodeError.notText(source: source, bytes: bytes.count)
        }
        if text.unicodeScalars.contains(where: isUnsafe) {
            throw QRCodeError.controlCharacters(source: source, excerpt: escapedExcerpt(text))
        }
        return text
    }

    /// The first `limit` characters with every unsafe scalar spelled `\u{XX}`, and the length.
    public static func escapedExcerpt(_ text: String, limit: Int = 60) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            shown += isUnsafe(scalar) ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }
        let count = text.unicodeScalars.count
        return "\"\(shown)\"" + (count > limit ? "… (\(count) characters)" : "")
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
