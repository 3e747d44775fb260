import PassportCrypto
import COpenSSL
import Foundation

/// A P-256 public key as its affine coordinates (32 bytes each).
public struct P256PublicKey: Sendable, Equatable, Hashable {
    public let x: [UInt8]
    public let y: [UInt8]

    public init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == 32, y.count == 32 else { throw CredentialError.malformed("a P-256 coordinate is not 32 bytes") }
        self.x = x
        self.y = y
        // Reject points that are not on the curve before anyone relies on them.
        EVP_PKEY_free(try evpKey())
    }

    /// From SEC1 compressed (33 bytes) or uncompressed (65 bytes) encoding.
    public init(sec1 bytes: [UInt8]) throws {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw CredentialError.crypto("P-256 group") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw CredentialError.crypto("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_oct2point(group, point, bytes, bytes.count, nil) == 1 else {
            ERR_clear_error()
            throw CredentialError.malformed("not a point on P-256")
        }
        var out = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == 65 else {
            throw CredentialError.crypto("EC_POINT_point2oct")
        }
        try self.init(x: Array(out[1..<33]), y: Array(out[33..<65]))
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

    func evpKey() throws -> OpaquePointer {
        try P256.makeKey(publicPoint: uncompressed, privateScalar: nil)
    }

    /// Verifies an ES256 signature (r‖s, 64 bytes) over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? evpKey() else { return false }
        defer { EVP_PKEY_free(key); ERR_clear_error() }
        guard let der = P256.derSignature(signature), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }
}

/// A P-256 private key held by OpenSSL. The scalar is copied out only to be encrypted for storage.
public final class P256PrivateKey: @unchecked Sendable {
    let key: OpaquePointer
    public let publicKey: P256PublicKey

    /// A fresh key from OpenSSL's random generator.
    public init() throws {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CredentialError.crypto("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated else {
            throw CredentialError.crypto("P-256 key generation")
        }
        key = generated
        publicKey = try P256.publicKey(of: generated)
    }

    /// From the 32-byte private scalar.
    public init(scalar: [UInt8]) throws {
        guard scalar.count == 32 else { throw CredentialError.malformed("a P-256 private key is 32 bytes") }
        let point = try P256.multiplyGenerator(scalar)
        key = try P256.makeKey(publicPoint: point, privateScalar: scalar)
        publicKey = try P256.publicKey(of: key)
    }

    deinit { EVP_PKEY_free(key) }

    /// The private scalar d (32 bytes). Secret: only for encrypting into the key store.
    public func scalar() throws -> [UInt8] {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &bn) == 1, let bn else { throw CredentialError.crypto("private scalar") }
        defer { BN_clear_free(bn) }
        var out = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(bn, &out, 32) == 32 else { throw CredentialError.crypto("BN_bn2binpad") }
        return out
    }

    /// ES256: ECDSA P-256 with SHA-256, as r‖s (RFC 7518 §3.4).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CredentialError.crypto("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw CredentialError.crypto("sign init") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CredentialError.crypto("sign size") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw CredentialError.crypto("sign") }
        return try P256.rawSignature(Array(der[0..<length]))
    }
}

enum P256 {
    static func publicKey(of key: OpaquePointer) throws -> P256PublicKey {
        var out = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &out, out.count, &length) == 1 else {
            throw CredentialError.crypto("public key")
        }
        return try P256PublicKey(sec1: Array(out[0..<length]))
    }

    static func multiplyGenerator(_ scalar: [UInt8]) throws -> [UInt8] {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), let point = EC_POINT_new(group),
              let d = BN_bin2bn(scalar, 32, nil) else { throw CredentialError.crypto("EC setup") }
        defer { EC_GROUP_free(group); EC_POINT_free(point); BN_clear_free(d) }
        guard EC_POINT_mul(group, point, d, nil, nil, nil) == 1 else { throw CredentialError.crypto("EC_POINT_mul") }
        var out = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, 65, nil) == 65 else {
            throw CredentialError.malformed("invalid private scalar")
        }
        return out
    }

    /// An EVP_PKEY for P-256 from an uncompressed point and, optionally, the private scalar.
    static func makeKey(publicPoint: [UInt8], privateScalar: [UInt8]?) throws -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CredentialError.crypto("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        var scalarBN: OpaquePointer? = nil
        defer { if let scalarBN { BN_clear_free(scalarBN) } }
        // The builder keeps pointers to these buffers until OSSL_PARAM_BLD_to_param copies them,
        // so they must outlive single calls: Swift's temporary bridged pointers would not.
        let groupName = strdup("prime256v1")!
        let point = UnsafeMutablePointer<UInt8>.allocate(capacity: publicPoint.count)
        point.initialize(from: publicPoint, count: publicPoint.count)
        defer { free(groupName); point.deallocate() }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, passport_param_group_name(), groupName, 0) == 1,
              OSSL_PARAM_BLD_push_octet_string(builder, passport_param_pub_key(), point, publicPoint.count) == 1
        else { throw CredentialError.crypto("key parameters") }
        if let privateScalar {
            scalarBN = BN_bin2bn(privateScalar, Int32(privateScalar.count), nil)
            guard OSSL_PARAM_BLD_push_BN(builder, passport_param_priv_key(), scalarBN) == 1 else { throw CredentialError.crypto("private parameter") }
        }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw CredentialError.crypto("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CredentialError.crypto("EVP_PKEY_CTX") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let selection = privateScalar == nil ? passport_evp_pkey_public_selection() : passport_evp_pkey_keypair_selection()
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            ERR_clear_error()
            throw CredentialError.malformed("not a valid P-256 key")
        }
        // fromdata does not check that the point lies on the curve: do it explicitly.
        if privateScalar == nil {
            guard let check = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { EVP_PKEY_free(key); throw CredentialError.crypto("check") }
            defer { EVP_PKEY_CTX_free(check) }
            guard EVP_PKEY_public_check(check) == 1 else {
                EVP_PKEY_free(key)
                ERR_clear_error()
                throw CredentialError.malformed("not a point on P-256")
            }
        }
        return key
    }

    static func rawSignature(_ der: [UInt8]) throws -> [UInt8] {
        var pointer: UnsafePointer<UInt8>? = nil
        let sig: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &pointer, buffer.count)
        }
        guard let sig else { throw CredentialError.crypto("ECDSA signature") }
        defer { ECDSA_SIG_free(sig) }
        var out = [UInt8](repeating: 0, count: 64)
        guard BN_bn2binpad(ECDSA_SIG_get0_r(sig), &out, 32) == 32 else { throw CredentialError.crypto("r") }
        let ok = out.withUnsafeMutableBufferPointer { BN_bn2binpad(ECDSA_SIG_get0_s(sig), $0.baseAddress! + 32, 32) }
        guard ok == 32 else { throw CredentialError.crypto("s") }
        return out
    }

    static func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else { BN_free(r); return nil }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { BN_free(r); BN_free(s); return nil }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(sig, &out)
        guard length > 0, let out else { return nil }
        defer { passport_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
