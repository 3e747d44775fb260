import COpenSSL
import Synchronization

/// An EVP_MD_CTX free for another digest (`OpenSSLCrypto.digest`); used by one thread at a time.
private struct DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer
}
/// At most 16 of them.
private let digestContexts = Mutex<[DigestContext]>([])

/// The symmetric primitives the chip protocols need, all done by OpenSSL's libcrypto.
public enum OpenSSLCrypto {
    /// A message digest of `data`.
    public static func digest(_ algorithm: DigestAlgorithm, _ data: [UInt8]) -> [UInt8] {
        withDigest(algorithm, data) { Array($0) }
    }

    /// Whether `data`'s digest is `expected`, compared where it was computed: passive
    /// authentication checks ten a dump, and each as an array was one more allocation.
    public static func digest(_ algorithm: DigestAlgorithm, of data: [UInt8], is expected: [UInt8]) -> Bool {
        withDigest(algorithm, data) { $0.elementsEqual(expected) }
    }

    /// `body` of the digest of `data`, in a buffer on the stack.
    static func withDigest<R>(_ algorithm: DigestAlgorithm, _ data: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // A context used before is initialised again, which keeps its implementation's state:
        // EVP_Digest made and freed two of them for every hash (ten a dump in a batch).
        guard let context = digestContexts.withLock({ $0.popLast() }) ?? EVP_MD_CTX_new().map(DigestContext.init) else {
            preconditionFailure("OpenSSL could not make a digest context (out of memory)")
        }
        defer {
            digestContexts.withLock { kept in
                if kept.count < 16 { kept.append(context) } else { EVP_MD_CTX_free(context.pointer) }
            }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { buffer in
            var length: UInt32 = 0
            let ok = EVP_DigestInit_ex2(context.pointer, algorithm.evp, nil) == 1
                && data.withUnsafeBytes { EVP_DigestUpdate(context.pointer, $0.baseAddress, $0.count) } == 1
                && EVP_DigestFinal_ex(context.pointer, buffer.baseAddress, &length) == 1
            precondition(ok, "the \(algorithm.rawValue) digest failed")
            return body(UnsafeBufferPointer(rebasing: buffer[..<Int(length)]))
        }
    }

    /// The length of `algorithm`'s digests in bytes.
    public static func digestLength(_ algorithm: DigestAlgorithm) -> Int { Int(EVP_MD_get_size(algorithm.evp)) }

    /// SHA-256 of `data`, the digest JOSE, SD-JWT and the circuits use.
    public static func sha256(_ data: [UInt8]) -> [UInt8] { digest(.sha256, data) }

    /// Cryptographically secure random bytes from OpenSSL's DRBG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&out, Int32(count)) == 1, "RAND_bytes failed")
        return out
    }

    public enum Cipher {
        /// Two-key triple DES (16-byte key), CBC.
        case tripleDESCBC
        /// Two-key triple DES, ECB (one block at a time).
        case tripleDESECB
        case aesCBC
        case aesECB

        fileprivate func evp(keyLength: Int) -> OpaquePointer? {
            switch self {
            case .tripleDESCBC: return EVP_des_ede_cbc()
            case .tripleDESECB: return EVP_des_ede_ecb()
            case .aesCBC:
                return keyLength == 16 ? EVP_aes_128_cbc() : keyLength == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc()
            case .aesECB:
                return keyLength == 16 ? EVP_aes_128_ecb() : keyLength == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb()
            }
        }
    }

    /// Encrypts or decrypts whole blocks without padding (callers pad per ISO 9797-1 method 2).
    public static func crypt(_ cipher: Cipher, encrypt: Bool, key: [UInt8], iv: [UInt8]? = nil,
                             _ input: ArraySlice<UInt8>) throws -> [UInt8] {
        try key.withUnsafeBytes { try crypt(cipher, encrypt: encrypt, key: $0, iv: iv, input) }
    }

    /// The same with a key held in place (SecretBytes).
    public static func crypt(_ cipher: Cipher, encrypt: Bool, key: SecretBytes, iv: [UInt8]? = nil,
                             _ input: ArraySlice<UInt8>) throws -> [UInt8] {
        try key.withUnsafeBytes { try crypt(cipher, encrypt: encrypt, key: $0, iv: iv, input) }
    }

    static func crypt(_ cipher: Cipher, encrypt: Bool, key: UnsafeRawBufferPointer, iv: [UInt8]?,
                      _ input: ArraySlice<UInt8>) throws -> [UInt8] {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }   // also cleanses the expanded key schedule
        let keyBytes = key.bindMemory(to: UInt8.self).baseAddress
        guard EVP_CipherInit_ex(ctx, cipher.evp(keyLength: key.count), nil, keyBytes, iv, encrypt ? 1 : 0) == 1 else {
            throw CryptoError.openSSL("cipher initialisation")
        }
        EVP_CIPHER_CTX_set_padding(ctx, 0)
        var out = [UInt8](repeating: 0, count: input.count + 32)
        var produced: Int32 = 0
        var total = 0
        let ok = input.withUnsafeBufferPointer { buffer in
            EVP_CipherUpdate(ctx, &out, &produced, buffer.baseAddress, Int32(buffer.count))
        }
        guard ok == 1 else { throw CryptoError.openSSL("cipher update (input not a whole number of blocks?)") }
        total = Int(produced)
        let finalOK = out.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(ctx, buffer.baseAddress! + total, &produced)
        }
        guard finalOK == 1 else { throw CryptoError.openSSL("cipher final") }
        total += Int(produced)
        out.removeLast(out.count - total)
        return out
    }

    /// AES-CMAC (NIST SP 800-38B) of `data` with `key` (16, 24 or 32 bytes).
    public static func aesCMAC(key: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        try key.withUnsafeBytes { try aesCMAC(key: $0, data) }
    }

    public static func aesCMAC(key: SecretBytes, _ data: [UInt8]) throws -> [UInt8] {
        try key.withUnsafeBytes { try aesCMAC(key: $0, data) }
    }

    static func aesCMAC(key: UnsafeRawBufferPointer, _ data: [UInt8]) throws -> [UInt8] {
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { throw CryptoError.openSSL("CMAC unavailable") }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { throw CryptoError.openSSL("EVP_MAC_CTX_new") }
        defer { EVP_MAC_CTX_free(ctx) }
        let cipherName = key.count == 16 ? "AES-128-CBC" : key.count == 24 ? "AES-192-CBC" : "AES-256-CBC"
        var ok: Int32 = 0
        cipherName.withCString { name in
            "cipher".withCString { param in
                var params = [
                    OSSL_PARAM_construct_utf8_string(param, UnsafeMutablePointer(mutating: name), 0),
                    OSSL_PARAM_construct_end(),
                ]
                ok = EVP_MAC_init(ctx, key.bindMemory(to: UInt8.self).baseAddress, key.count, &params)
            }
        }
        guard ok == 1 else { throw CryptoError.openSSL("CMAC initialisation") }
        let updated = data.withUnsafeBytes { buffer in
            EVP_MAC_update(ctx, buffer.baseAddress, buffer.count)
        }
        guard updated == 1 else { throw CryptoError.openSSL("CMAC update") }
        var out = [UInt8](repeating: 0, count: 16)
        var length = 0
        guard EVP_MAC_final(ctx, &out, &length, out.count) == 1 else { throw CryptoError.openSSL("CMAC final") }
        return Array(out[0..<length])
    }

    /// ISO/IEC 9797-1 MAC algorithm 3 with DES ("retail MAC", 8 bytes): single-DES CBC-MAC under
    /// Ka, final block through Ka/Kb/Ka. `data` must already be padded to whole blocks.
    public static func retailMAC(key: [UInt8], _ data: ArraySlice<UInt8>) throws -> [UInt8] {
        try key.withUnsafeBytes { try retailMAC(key: $0, data) }
    }

    public static func retailMAC(key: SecretBytes, _ data: ArraySlice<UInt8>) throws -> [UInt8] {
        try key.withUnsafeBytes { try retailMAC(key: $0, data) }
    }

    static func retailMAC(key: UnsafeRawBufferPointer, _ data: ArraySlice<UInt8>) throws -> [UInt8] {
        precondition(key.count == 16 && data.count % 8 == 0 && !data.isEmpty)
        // Single DES as two-key 3DES with both halves equal (OpenSSL 3 keeps plain DES in the legacy provider).
        var kaka = [UInt8](key[0..<8]) + [UInt8](key[0..<8])
        defer { kaka.wipe() }
        var chain = [UInt8](repeating: 0, count: 8)
        let lastBlockStart = data.endIndex - 8
        if lastBlockStart > data.startIndex {
            let cbc = try kaka.withUnsafeBytes {
                try crypt(.tripleDESCBC, encrypt: true, key: $0, iv: chain, data[data.startIndex..<lastBlockStart])
            }
            chain = Array(cbc.suffix(8))
        }
        var block = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { block[i] = chain[i] ^ data[lastBlockStart + i] }
        return try crypt(.tripleDESECB, encrypt: true, key: key, iv: nil, block[...])
    }
}
