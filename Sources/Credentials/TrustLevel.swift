import PassportCrypto

/// How much a verified presentation proves, as the verifier establishes it (never as the
/// credential claims it).
public enum TrustLevel: String, Sendable, Comparable, CaseIterable {
    /// Self-issued: signed by the holder's own key (did:key). Holder-asserted, bound to no
    /// passport; the holder could have written any claim.
    case L1
    /// Issued by an institution the verifier trusts: the issuer JWT's x5c chain verifies to one
    /// of the verifier's issuer anchors. Proves what that institution attests.
    case L2
    /// A zero-knowledge proof verified against the CSCA registry. `verify-vp` cannot reach it:
    /// this toolkit has no proof verifier on the relying party's side.
    case L3

    public var name: String {
        switch self {
        case .L1: return "self-issued"
        case .L2: return "trusted issuer"
        case .L3: return "zero-knowledge proof"
        }
    }

    public static func < (a: TrustLevel, b: TrustLevel) -> Bool { a.rawValue < b.rawValue }
}

/// HMAC-SHA-256 (RFC 2104) on OpenSSL's SHA-256: key-store file names keyed by a per-store secret.
public enum HMACSHA256 {
    public static func mac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var k = key.count > 64 ? OpenSSLCrypto.sha256(key) : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = OpenSSLCrypto.sha256(k.map { $0 ^ 0x36 } + message)
        return OpenSSLCrypto.sha256(k.map { $0 ^ 0x5c } + inner)
    }
}
