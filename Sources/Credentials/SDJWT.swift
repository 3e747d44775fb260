import PassportCrypto
import FoundationEssentials
import JSONCore

/// SD-JWT (RFC 9901): selectively disclosable claims of a JWT, each released through a
/// Disclosure, with an optional Key Binding JWT.
public enum SDJWT {
    /// A Disclosure: base64url of the JSON array [salt, name, value] (object property) or
    /// [salt, value] (array element).
    public struct Disclosure: Sendable, Equatable {
        public let encoded: String
        public let salt: String
        /// Nil for an array element.
        public let name: String?
        /// The value as JSON text.
        public let valueJSON: String

        /// Builds the disclosure JSON with ", " between the elements, the form RFC 9901's
        /// examples use, so that published examples reproduce byte for byte.
        public init(salt: String, name: String?, value: Any) throws {
            var elements = [try CanonicalJSON.string(salt)]
            if let name { elements.append(try CanonicalJSON.string(name)) }
            elements.append(try CanonicalJSON.string(value))
            self.encoded = Base64URL.encode("[" + elements.joined(separator: ", ") + "]")
            self.salt = salt
            self.name = name
            self.valueJSON = try CanonicalJSON.string(value)
        }

        public init(encoded: String) throws {
            guard let bytes = Base64URL.decode(encoded), let array = try CanonicalJSON.parse(bytes, fragmentsAllowed: true) as? [Any]
            else { throw CredentialError.malformed("a disclosure is not base64url JSON") }
            guard array.count == 2 || array.count == 3, let salt = array[0] as? String else {
                throw CredentialError.malformed("a disclosure is not [salt, name, value] or [salt, value]")
            }
            if array.count == 3 {
                guard let name = array[1] as? String else { throw CredentialError.malformed("a disclosure's claim name is not a string") }
                guard !["_sd", "...", "_sd_alg"].contains(name) else {
                    throw CredentialError.malformed("a disclosure uses the reserved name \(MessageText.bounded(name))")
                }
                self.name = name
            } else {
                self.name = nil
            }
            self.encoded = encoded
            self.salt = salt
            self.valueJSON = try CanonicalJSON.string(array.last!)
        }

        /// The disclosure digest: base64url(SHA-256(ASCII of the encoded disclosure)).
        public var digest: String { SDJWT.digest(encoded) }

        public var value: Any {
            (try? JSON.parse(Array(valueJSON.utf8), fragmentsAllowed: true)) ?? JSON.null
        }
    }

    public static func digest(_ text: String) -> String { Base64URL.encode(OpenSSLCrypto.sha256(Array(text.utf8))) }

    /// 128-bit random salt, base64url (RFC 9901 §9.3 recommends at least 128 bits).
    public static func salt() -> String { Base64URL.encode(OpenSSLCrypto.randomBytes(16)) }

    /// Random digests that hide how many claims the issuer put in (RFC 9901 §4.2.5).
    public static func decoys(_ count: Int) -> [String] {
        (0..<count).map { _ in Base64URL.encode(OpenSSLCrypto.sha256(OpenSSLCrypto.randomBytes(32))) }
    }

    /// Replaces digests in `payload` with the disclosed claims (RFC 9901 §7.1): `_sd` arrays in
    /// objects and `{"...": digest}` array elements, recursively. Every disclosure must be
    /// referenced exactly once and no digest may appear twice. The resolved claims may nest no
    /// deeper than `InputBounds.maxJSONDepth`: each disclosure is bounded on its own, but one can
    /// hide the next, so a chain of them would otherwise recurse as deep as it is long.
    public static func resolve(_ payload: [String: Any], disclosures: [Disclosure]) throws -> [String: Any] {
        var byDigest: [String: Disclosure] = [:]
        for disclosure in disclosures {
            guard byDigest.updateValue(disclosure, forKey: disclosure.digest) == nil else {
                throw CredentialError.rejected("the same disclosure is presented twice")
            }
        }
        var seen = Set<String>()
        func visit(_ value: Any, depth: Int) throws -> Any {
            if let object = value as? [String: Any] { return try visitObject(object, depth: depth + 1) }
            if let array = value as? [Any] {
                try checkDepth(depth + 1)
                var out: [Any] = []
                for element in array {
                    if let marker = element as? [String: Any], marker.count == 1, let digest = marker["..."] as? String {
                        guard seen.insert(digest).inserted else { throw CredentialError.rejected("digest \(MessageText.bounded(digest)) appears twice") }
                        if let disclosure = byDigest[digest] {
                            guard disclosure.name == nil else { throw CredentialError.rejected("an object-property disclosure is used as an array element") }
                            out.append(try visit(disclosure.value, depth: depth + 1))
                        }
                    } else {
                        out.append(try visit(element, depth: depth + 1))
                    }
                }
                return out
            }
            return value
        }
        func checkDepth(_ depth: Int) throws {
            guard depth <= InputBounds.maxJSONDepth else {
                throw CredentialError.malformed("the disclosed claims nest objects and arrays deeper than \(InputBounds.maxJSONDepth) levels")
            }
        }
        func visitObject(_ object: [String: Any], depth: Int) throws -> [String: Any] {
            try checkDepth(depth)
            var out: [String: Any] = [:]
            for (key, value) in object where key != "_sd" && key != "_sd_alg" {
                out[key] = try visit(value, depth: depth)
            }
            if let digests = object["_sd"] {
                guard let list = digests as? [String] else { throw CredentialError.malformed("_sd is not an array of strings") }
                for digest in list {
                    guard seen.insert(digest).inserted else { throw CredentialError.rejected("digest \(MessageText.bounded(digest)) appears twice") }
                    guard let disclosure = byDigest[digest] else { continue } // a decoy or an undisclosed claim
                    guard let name = disclosure.name else { throw CredentialError.rejected("an array-element disclosure is used as a property") }
                    guard out[name] == nil else { throw CredentialError.rejected("claim \(MessageText.bounded(name)) is disclosed but already present") }
                    out[name] = try visit(disclosure.value, depth: depth)
                }
            }
            return out
        }
        let resolved = try visitObject(payload, depth: 1)
        let unused = byDigest.keys.filter { !seen.contains($0) }
        guard unused.isEmpty else { throw CredentialError.rejected("\(unused.count) disclosure(s) are not referenced by the SD-JWT") }
        return resolved
    }

    /// Splits `<issuer-jwt>~<disclosure>~…~[<kb-jwt>]`.
    public static func split(_ token: String) throws -> (jwt: String, disclosures: [String], keyBinding: String?) {
        let parts = token.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty else { throw CredentialError.malformed("not an SD-JWT (no '~')") }
        let last = parts.last!
        let disclosures = Array(parts[1..<(parts.count - 1)])
        guard !disclosures.contains(where: \.isEmpty) else { throw CredentialError.malformed("empty disclosure in SD-JWT") }
        return (parts[0], disclosures, last.isEmpty ? nil : last)
    }

    /// The SD-JWT part a KB-JWT's sd_hash covers: issuer JWT and disclosures, each followed by '~'.
    public static func presentedPart(jwt: String, disclosures: [String]) -> String {
        ([jwt] + disclosures).joined(separator: "~") + "~"
    }
}
