import FoundationEssentials
import JSONCore

/// Base64url without padding (RFC 4648 §5), as JOSE and SD-JWT use it.
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacing("+", with: "-")
            .replacing("/", with: "_")
            .replacing("=", with: "")
    }

    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes strict base64url (no padding, no other characters); nil when malformed.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              text.count % 4 != 1 else { return nil }
        var base64 = String(text).replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}

/// Base58 with the Bitcoin alphabet (multibase prefix 'z'), as did:key uses it.
public enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

    public static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [UInt8] = [] // base-58 digits, least significant first
        for byte in bytes {
            var carry = Int(byte)
            for i in digits.indices {
                carry += Int(digits[i]) << 8
                digits[i] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 { digits.append(UInt8(carry % 58)); carry /= 58 }
        }
        return String(repeating: "1", count: zeros) + String(digits.reversed().map { alphabet[Int($0)] })
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = [] // least significant first
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            var carry = value
            for i in bytes.indices {
                carry += Int(bytes[i]) * 58
                bytes[i] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 { bytes.append(UInt8(carry & 0xFF)); carry >>= 8 }
        }
        let zeros = text.prefix { $0 == "1" }.count
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }
}

/// JSON with stable output: sorted keys, no escaped slashes, UTF-8 kept as is.
public enum CanonicalJSON {
    public static func data(_ object: Any) throws -> Data {
        Data(try JSON.serialize(object))
    }

    public static func string(_ object: Any) throws -> String {
        String(decoding: try data(object), as: UTF8.self)
    }

    public static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try parse(bytes) as? [String: Any] else { throw CredentialError.malformed("a JSON object was expected") }
        return object
    }

    /// Decodes JSON text (nil when it is not JSON), after refusing it when its objects and arrays
    /// nest deeper than `InputBounds.maxJSONDepth`.
    public static func parse(_ bytes: some Collection<UInt8>, fragmentsAllowed: Bool = false) throws -> Any? {
        guard !InputBounds.nestsDeeper(than: InputBounds.maxJSONDepth, bytes) else {
            throw CredentialError.malformed("JSON nests objects and arrays deeper than \(InputBounds.maxJSONDepth) levels")
        }
        return try? JSON.parse(bytes, fragmentsAllowed: fragmentsAllowed)
    }
}

/// What a verifier reads from others, and how much of it (issue 48, item 8): a token is refused
/// on its size before it is parsed, and JSON on its nesting before it is decoded.
public enum InputBounds {
    /// The largest presentation, vp_token, posted form body or encrypted response a verifier
    /// reads: 1 MiB, the bound the wallet puts on what a verifier sends it.
    public static let maxTokenBytes = 1 << 20
    /// The deepest nesting of JSON objects and arrays accepted (the toolkit's deepest, a DCQL
    /// query's claim values, is 8): deeper input is refused before it is decoded, so that no
    /// recursion over it (decoding, disclosure resolution, re-encoding) can go deep.
    public static let maxJSONDepth = 32

    /// Refuses text longer than `maxTokenBytes`, naming what it is.
    public static func checkTokenSize(_ text: String, what: String) throws {
        let count = text.utf8.count
        guard count <= maxTokenBytes else {
            throw CredentialError.rejected("\(what) is \(count) bytes, more than the \(maxTokenBytes) (1 MiB) this verifier reads; it was not parsed")
        }
    }

    /// Whether JSON text nests objects and arrays deeper than `limit`, found by counting
    /// brackets outside strings (without decoding anything).
    static func nestsDeeper(than limit: Int, _ bytes: some Sequence<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}

/// Someone else's value in a message: its text, cut with its length when long, so that a
/// hostile token can neither fill a terminal or log nor hide the message's end.
public enum MessageText {
    public static func bounded(_ value: Any?, limit: Int = 80) -> String {
        guard let value else { return "(none)" }
        let text = value as? String ?? (try? CanonicalJSON.string(value)) ?? "\(value)"
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))… (\(text.utf8.count) bytes)"
    }
}
