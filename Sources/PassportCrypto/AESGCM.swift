import COpenSSL

/// AES-256-GCM and scrypt, for keys encrypted at rest (the credential key store).
package enum AESGCM {
    package static func seal(_ plain: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              passport_gcm_set_iv_length(ctx, Int32(nonce.count)) == 1,
              EVP_EncryptInit_ex(ctx, nil, nil, key, nonce) == 1,
              EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
              EVP_EncryptUpdate(ctx, &out, &length, plain, Int32(plain.count)) == 1 else { throw CryptoError.openSSL("AES-GCM seal") }
        let produced = Int(length)
        var final: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(ctx, &scratch, &final) == 1, passport_gcm_get_tag(ctx, &tag, 16) == 1 else {
            throw CryptoError.openSSL("AES-GCM tag")
        }
        return (Array(out[0..<produced]), tag)
    }

    /// Throws `CryptoError.invalidSignature` when the tag does not authenticate the ciphertext.
    package static func open(ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var tagCopy = tag
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              passport_gcm_set_iv_length(ctx, Int32(nonce.count)) == 1,
              EVP_DecryptInit_ex(ctx, nil, nil, key, nonce) == 1,
              EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
              EVP_DecryptUpdate(ctx, &out, &length, ciphertext, Int32(ciphertext.count)) == 1,
              passport_gcm_set_tag(ctx, &tagCopy, 16) == 1 else { throw CryptoError.openSSL("AES-GCM open") }
        let produced = Int(length)
        var final: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(ctx, &scratch, &final) == 1 else { throw CryptoError.invalidSignature("AES-GCM authentication tag mismatch") }
        return Array(out[0..<produced])
    }

    /// scrypt (RFC 7914) with r = 8, p = 1 and `n`, to a 32-byte key.
    package static func scrypt(_ passphrase: String, salt: [UInt8], n: UInt64) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let pass = Array(passphrase.utf8)
        guard EVP_PBE_scrypt(pass, pass.count, salt, salt.count, n, 8, 1, 64 << 20, &out, 32) == 1 else {
            throw CryptoError.openSSL("scrypt")
        }
        return out
    }
}
