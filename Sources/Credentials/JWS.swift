import FoundationEssentials

/// A compact JWS (RFC 7515) signed with ES256.
public struct CompactJWS {
    public let header: [String: Any]
    public let payload: [String: Any]
    /// The encoded header and payload joined by '.', the bytes the signature covers.
    public let signingInput: String
    public let signature: [UInt8]
    public let compact: String

    /// Signs `payload` with `key`; `header` gets `alg: ES256` added.
    public static func sign(header: [String: Any], payload: [String: Any], key: any ES256Signer) throws -> String {
        var protected = header
        protected["alg"] = "ES256"
        let input = Base64URL.encode(Array(try CanonicalJSON.data(protected))) + "." + Base64URL.encode(Array(try CanonicalJSON.data(payload)))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    /// Parses without verifying; see `verify(with:)`.
    public init(_ compact: String) throws {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
            throw CredentialError.malformed("not a compact JWS (three base64url parts)")
        }
        header = try CanonicalJSON.object(headerBytes)
        payload = try CanonicalJSON.object(payloadBytes)
        signingInput = "\(parts[0]).\(parts[1])"
        self.signature = signature
        self.compact = compact
    }

    /// Checks `alg` is ES256, that no header parameter is marked critical, and that the
    /// signature holds under `key`.
    public func verify(with key: P256PublicKey, what: String) throws {
        guard header["alg"] as? String == "ES256" else {
            throw CredentialError.rejected("\(what) uses alg \(MessageText.bounded(header["alg"])), only ES256 is accepted")
        }
        try checkNoCriticalHeader(what: what)
        guard key.verify(signature: signature, message: Array(signingInput.utf8)) else {
            throw CredentialError.invalidSignature(what)
        }
    }

    /// RFC 7515 §4.1.11: a recipient must refuse a JWS whose `crit` names an extension it does
    /// not understand; this toolkit understands none, so any `crit` is refused.
    public func checkNoCriticalHeader(what: String) throws {
        guard let crit = header["crit"] else { return }
        throw CredentialError.rejected("the header of \(what) marks \(MessageText.bounded(crit)) critical (crit), an extension this verifier does not understand (RFC 7515 §4.1.11)")
    }
}
