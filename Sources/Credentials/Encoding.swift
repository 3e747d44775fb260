import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE and SD-JWT use it.
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes strict base64url (no padding, no other characters); nil when malformed.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              text.count % 4 != 1 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
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
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    public static func string(_ object: Any) throws -> String {
        String(decoding: try data(object), as: UTF8.self)
    }

    public static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw CredentialError.malformed("a JSON object was expected")
        }
        return object
    }
}
