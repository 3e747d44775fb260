import PassportCrypto
import FoundationEssentials

/// A P-256 public key as its affine coordinates (32 bytes each).
public struct P256PublicKey: Sendable, Equatable, Hashable {
    public let x: [UInt8]
    public let y: [UInt8]

    public init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == 32, y.count == 32 else { throw CredentialError.malformed("a P-256 coordinate is not 32 bytes") }
        self.x = x
        self.y = y
        // Reject points that are not on the curve before anyone relies on them.
        try CredentialError.mapping { try P256.validate(publicPoint: [0x04] + x + y) }
    }

    /// From SEC1 compressed (33 bytes) or uncompressed (65 bytes) encoding.
    public init(sec1 bytes: [UInt8]) throws {
        let point = try CredentialError.mapping { try P256.uncompressed(sec1: bytes) }
        try self.init(x: Array(point[1..<33]), y: Array(point[33..<65]))
    }

    public var uncompressed: [UInt8] { [0x04] + x + y }
    /// SEC1 compressed form: 02 or 03 (parity of y) followed by x.
    public var compressed: [UInt8] { [y.last! & 1 == 0 ? 0x02 : 0x03] + x }

    /// The public JWK (RFC 7517/7518) with members in the order RFC 7638 hashes them.
    public var jwk: [String: String] {
        ["crv": "P-256", "kty": "EC", "x": Base64URL.encode(x), "y": Base64URL.encode(y)]
    }

    public init(jwk: [String: Any]) throws {
        guard jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256",
              let x = (jwk["x"] as? String).flatMap(Base64URL.decode), let y = (jwk["y"] as? String).flatMap(Base64URL.decode)
        else { throw CredentialError.malformed("not a P-256 public JWK") }
        try self.init(x: x, y: y)
    }

    /// RFC 7638 JWK thumbprint (SHA-256, base64url).
    public var thumbprint: String {
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(Base64URL.encode(x))\",\"y\":\"\(Base64URL.encode(y))\"}"
        return Base64URL.encode(OpenSSLCrypto.sha256(Array(canonical.utf8)))
    }

    /// Verifies an ES256 signature (r‖s, 64 bytes) over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        P256.verify(signature: signature, message: message, publicPoint: uncompressed)
    }
}

/// Whatever makes ES256 signatures for a key: a key in memory (`P256PrivateKey`) or a key that
/// never leaves a hardware token (PKCS#11).
public protocol ES256Signer: AnyObject {
    var publicKey: P256PublicKey { get }
    /// ES256: ECDSA P-256 over SHA-256(message), as r‖s (64 bytes, RFC 7518 §3.4).
    func sign(_ message: [UInt8]) throws -> [UInt8]
}

/// A P-256 private key held by OpenSSL. The scalar is copied out only to be encrypted for storage.
public final class P256PrivateKey: ES256Signer, @unchecked Sendable {
    let key: OpaquePointer
    public let publicKey: P256PublicKey

    /// A fresh key from OpenSSL's random generator.
    public init() throws {
        let generated = try CredentialError.mapping { try P256.generateKey() }
        key = generated
        publicKey = try P256PublicKey(sec1: try CredentialError.mapping { try P256.publicPoint(of: generated) })
    }

    /// From the 32-byte private scalar.
    public init(scalar: [UInt8]) throws {
        guard scalar.count == 32 else { throw CredentialError.malformed("a P-256 private key is 32 bytes") }
        let made = try CredentialError.mapping { try P256.makeKey(publicPoint: try P256.multiplyGenerator(scalar), privateScalar: scalar) }
        key = made
        publicKey = try P256PublicKey(sec1: try CredentialError.mapping { try P256.publicPoint(of: made) })
    }

    deinit { P256.freeKey(key) }

    /// The private scalar d (32 bytes). Secret: only for encrypting into the key store.
    public func scalar() throws -> [UInt8] {
        try CredentialError.mapping { try P256.privateScalar(of: key) }
    }

    /// ES256: ECDSA P-256 with SHA-256, as r‖s (RFC 7518 §3.4).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try CredentialError.mapping { try P256.sign(message, with: key) }
    }
}
