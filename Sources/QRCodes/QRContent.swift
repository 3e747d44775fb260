/// What the commands accept from a QR code, checked before anything is fetched, signed or sent.
public enum QRContent {
    /// A verifier's request: an `openid4vp://` or `haip-vp://` link (OpenID4VP 1.0 §5 cross-device
    /// flow; HAIP), at most `limit` bytes (the wallet's 1 MiB bound on what a verifier sends).
    public static func request(_ text: String, source: String, limit: Int) throws -> String {
        guard text.utf8.count <= limit else { throw QRCodeError.tooLong(source: source, bytes: text.utf8.count, limit: limit) }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("openid4vp://") || lowered.hasPrefix("haip-vp://") else {
            throw QRCodeError.notARequest(source: source, excerpt: QRText.escapedExcerpt(text))
        }
        return text
    }

    /// A presentation: an SD-JWT (`JWS~disclosure~…~key-binding JWT`) or a JWT (three base64url
    /// parts), at most `limit` bytes.
    public static func presentation(_ text: String, source: String, limit: Int) throws -> String {
        guard text.utf8.count <= limit else { throw QRCodeError.tooLong(source: source, bytes: text.utf8.count, limit: limit) }
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
        let issuerJWT = text.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = issuerJWT.split(separator: ".", omittingEmptySubsequences: false)
        guard allowed, parts.count == 3, parts[0].count > 0, parts[1].count > 0 else {
            throw QRCodeError.notAPresentation(source: source, excerpt: QRText.escapedExcerpt(text))
        }
        return text
    }
}
