import COpenSSL
import FoundationEssentials

/// P-256 keys and ES256 (ECDSA with SHA-256, r‖s) for the credentials, on OpenSSL's EVP_PKEY.
/// Points are SEC1 uncompressed (65 bytes), scalars 32 bytes. A key that is not one throws
/// `CryptoError.keyMismatch`; an OpenSSL failure `CryptoError.openSSL`.
package enum P256 {
    /// A fresh key pair from OpenSSL's random generator (free it with EVP_PKEY_free).
    package static func generateKey() throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated else {
            throw CryptoError.openSSL("P-256 key generation")
        }
        return generated
    }

    package static func freeKey(_ key: OpaquePointer) { EVP_PKEY_free(key) }

    /// Throws unless `publicPoint` (uncompressed) lies on P-256.
    package static func validate(publicPoint: [UInt8]) throws {
        freeKey(try makeKey(publicPoint: publicPoint, privateScalar: nil))
    }

    /// The uncompressed public point of `key`.
    package static func publicPoint(of key: OpaquePointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &out, out.count, &length) == 1 else {
            throw CryptoError.openSSL("public key")
        }
        return try uncompressed(sec1: Array(out[0..<length]))
    }

    /// A SEC1 point (compressed or uncompressed) in uncompressed form, checked to be on the curve.
    package static func uncompressed(sec1 bytes: [UInt8]) throws -> [UInt8] {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw CryptoError.openSSL("P-256 group") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw CryptoError.openSSL("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_oct2point(group, point, bytes, bytes.count, nil) == 1 else {
            ERR_clear_error()
            throw CryptoError.keyMismatch("not a point on P-256")
        }
        var out = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == 65 else {
            throw CryptoError.openSSL("EC_POINT_point2oct")
        }
        return out
    }

    /// d·G, uncompressed.
    package static func multiplyGenerator(_ scalar: [UInt8]) throws -> [UInt8] {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), let point = EC_POINT_new(group),
              let d = BN_bin2bn(scalar, 32, nil) else { throw CryptoError.openSSL("EC setup") }
        defer { EC_GROUP_free(group); EC_POINT_free(point); BN_clear_free(d) }
        guard EC_POINT_mul(group, point, d, nil, nil, nil) == 1 else { throw CryptoError.openSSL("EC_POINT_mul") }
        var out = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, 65, nil) == 65 else {
            throw CryptoError.keyMismatch("invalid private scalar")
        }
        return out
    }

    /// The private scalar d (32 bytes) of `key`. Secret: only for encrypting into a key store.
    package static func privateScalar(of key: OpaquePointer) throws -> [UInt8] {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &bn) == 1, let bn else { throw CryptoError.openSSL("private scalar") }
        defer { BN_clear_free(bn) }
        var out = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(bn, &out, 32) == 32 else { throw CryptoError.openSSL("BN_bn2binpad") }
        return out
    }

    /// An EVP_PKEY for P-256 from an uncompressed point and, optionally, the private scalar; a
    /// public point is checked to lie on the curve (fromdata alone does not check it).
    package static func makeKey(publicPoint: [UInt8], privateScalar: [UInt8]?) throws -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL("OSSL_PARAM_BLD_new") }
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
        else { throw CryptoError.openSSL("key parameters") }
        if let privateScalar {
            scalarBN = BN_bin2bn(privateScalar, Int32(privateScalar.count), nil)
            guard OSSL_PARAM_BLD_push_BN(builder, passport_param_priv_key(), scalarBN) == 1 else { throw CryptoError.openSSL("private parameter") }
        }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.openSSL("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        let key = try fromData(params, selection: privateScalar == nil ? passport_evp_pkey_public_selection() : passport_evp_pkey_keypair_selection())
        if privateScalar == nil { try checkPublic(key) }
        return key
    }

    private static func fromData(_ params: UnsafeMutablePointer<OSSL_PARAM>, selection: Int32) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            ERR_clear_error()
            throw CryptoError.keyMismatch("not a valid P-256 key")
        }
        return key
    }

    private static func checkPublic(_ key: OpaquePointer) throws {
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { EVP_PKEY_free(key); throw CryptoError.openSSL("check") }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check(check) == 1 else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            throw CryptoError.keyMismatch("not a point on P-256")
        }
    }

    /// ES256 (RFC 7518 §3.4): ECDSA P-256 with SHA-256, as r‖s.
    package static func sign(_ message: [UInt8], with key: OpaquePointer) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw CryptoError.openSSL("sign init") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CryptoError.openSSL("sign size") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw CryptoError.openSSL("sign") }
        return try plainSignature(Array(der[0..<length]))
    }

    /// An ES256 signature (r‖s, 64 bytes) over `message` with the public point.
    package static func verify(signature: [UInt8], message: [UInt8], publicPoint: [UInt8]) -> Bool {
        // JOSE signatures are always r‖s: converted to DER here, never guessed from their bytes.
        guard signature.count == 64, let der = SignatureScheme.derFromPlain(signature),
              let key = try? makeKey(publicPoint: publicPoint, privateScalar: nil) else { return false }
        defer { EVP_PKEY_free(key) }
        return SignatureScheme.ecdsa(.sha256, plain: false).verify(signature: der, message: message, key: key)
    }

    /// A DER ECDSA-Sig-Value as r‖s, 32 bytes each.
    static func plainSignature(_ der: [UInt8]) throws -> [UInt8] {
        try SignatureScheme.plainFromDER(der, size: 32)
    }
}
