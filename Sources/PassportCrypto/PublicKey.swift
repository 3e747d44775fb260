import COpenSSL

/// A public key from a SubjectPublicKeyInfo (DG14, DG15, EF.CardSecurity), held by OpenSSL.
public final class PublicKey: @unchecked Sendable {
    package let key: OpaquePointer

    public init(subjectPublicKeyInfo der: [UInt8]) throws {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        guard let parsed else {
            ERR_clear_error()
            throw CryptoError.openSSL("cannot read the public key (\(der.count) bytes of SubjectPublicKeyInfo)")
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    public var isRSA: Bool { EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA }
    public var isEC: Bool { EVP_PKEY_get_base_id(key) == EVP_PKEY_EC }
    public var isDH: Bool { [EVP_PKEY_DH, EVP_PKEY_DHX].contains(EVP_PKEY_get_base_id(key)) }
    public var bits: Int { Int(EVP_PKEY_get_bits(key)) }
    /// Signature or shared-secret size in bytes (RSA modulus, EC field).
    public var size: Int { (bits + 7) / 8 }

    /// A fresh key pair on the same domain parameters (for CA and PACE key agreement).
    package func generateEphemeral() throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        var ephemeral: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &ephemeral) == 1, let ephemeral else {
            ERR_clear_error()
            throw CryptoError.openSSL("ephemeral key generation")
        }
        return ephemeral
    }

    /// The public part of `pair` as sent to a chip: the uncompressed point (EC) or the public
    /// value padded to the size of p (DH).
    package static func encodedPublic(_ pair: OpaquePointer) throws -> [UInt8] {
        if EVP_PKEY_get_base_id(pair) == EVP_PKEY_EC {
            var out = [UInt8](repeating: 0, count: 200)
            var length = 0
            guard EVP_PKEY_get_octet_string_param(pair, OSSL_PKEY_PARAM_PUB_KEY, &out, out.count, &length) == 1 else {
                throw CryptoError.openSSL("public point")
            }
            return Array(out[0..<length])
        }
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pair, OSSL_PKEY_PARAM_PUB_KEY, &bn) == 1, let bn else { throw CryptoError.openSSL("DH public value") }
        defer { BN_free(bn) }
        let size = Int((EVP_PKEY_get_bits(pair) + 7) / 8)
        var out = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(bn, &out, Int32(size)) == Int32(size) else { throw CryptoError.openSSL("DH public value size") }
        return out
    }

    /// Key agreement of our `pair` with this (the chip's) public key: the ECDH x-coordinate or
    /// the DH value, at the full field size.
    package func agree(with pair: OpaquePointer) throws -> [UInt8] {
        try PublicKey.derive(pair, peer: key)
    }

    package static func derive(_ pair: OpaquePointer, peer: OpaquePointer) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(pair, nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw CryptoError.openSSL("derive init") }
        if EVP_PKEY_get_base_id(pair) != EVP_PKEY_EC { _ = passport_evp_pkey_ctx_set_dh_pad(context, 1) }
        guard EVP_PKEY_derive_set_peer(context, peer) == 1 else {
            ERR_clear_error()
            throw CryptoError.keyMismatch("the chip's public key does not fit our domain parameters")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1 else { throw CryptoError.openSSL("derive size") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else { throw CryptoError.openSSL("derive") }
        return Array(secret[0..<length])
    }

    /// RSA public operation without padding: s^e mod n (for ISO 9796-2 message recovery).
    package func rsaRecover(_ signature: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_recover_init(context) == 1,
              passport_evp_pkey_ctx_set_rsa_padding(context, passport_rsa_no_padding()) == 1 else {
            throw CryptoError.openSSL("RSA recover init")
        }
        var length = size
        var out = [UInt8](repeating: 0, count: size)
        guard EVP_PKEY_verify_recover(context, &out, &length, signature, signature.count) == 1 else {
            ERR_clear_error()
            throw CryptoError.outOfRange("the RSA signature is out of range for the DG15 key")
        }
        return Array(out[0..<length])
    }

    package func verify(_ scheme: SignatureScheme, signature: [UInt8], message: [UInt8]) -> Bool {
        scheme.verify(signature: signature, message: message, key: key)
    }
}
