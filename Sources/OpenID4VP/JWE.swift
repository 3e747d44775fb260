import COpenSSL
import Credentials
import FoundationEssentials
import PassportCrypto

/// Compact JWE (RFC 7516) with key agreement ECDH-ES on P-256 used directly as the content key
/// (RFC 7518 §4.6, Concat KDF with the `enc` value as AlgorithmID) and A128GCM or A256GCM:
/// the encrypted responses (`direct_post.jwt`) HAIP requires.
public enum JWE {
    public enum Encryption: String, Sendable, CaseIterable {
        case a128gcm = "A128GCM"
        case a256gcm = "A256GCM"
        var keyLength: Int { self == .a128gcm ? 16 : 32 }
    }

    /// Encrypts `plaintext` to the recipient's P-256 key. `kid` names that key in the header.
    public static func encrypt(_ plaintext: [UInt8], to recipient: P256PublicKey, enc: Encryption, kid: String?,
                               apu: [UInt8] = [], apv: [UInt8] = []) throws -> String {
        let ephemeral = try wrap { try P256.generateKey() }
        defer { P256.freeKey(ephemeral) }
        let epk = try P256PublicKey(sec1: try wrap { try P256.publicPoint(of: ephemeral) })
        var header: [String: Any] = ["alg": "ECDH-ES", "enc": enc.rawValue, "epk": epk.jwk]
        if let kid { header["kid"] = kid }
        if !apu.isEmpty { header["apu"] = Base64URL.encode(apu) }
        if !apv.isEmpty { header["apv"] = Base64URL.encode(apv) }
        let protected = Base64URL.encode(Array(try CanonicalJSON.data(header)))
        var shared = try agree(ephemeral, with: recipient)
        defer { for i in shared.indices { shared[i] = 0 } }
        let key = concatKDF(shared: shared, enc: enc, apu: apu, apv: apv)
        let iv = OpenSSLCrypto.randomBytes(12)
        let (ciphertext, tag) = try gcm(encrypt: true, plaintext, key: key, iv: iv, aad: Array(protected.utf8), tag: nil)
        return [protected, "", Base64URL.encode(iv), Base64URL.encode(ciphertext), Base64URL.encode(tag)].joined(separator: ".")
    }

    /// Decrypts a compact JWE made as above with the recipient's private key; gives the header too.
    public static func decrypt(_ compact: String, with recipient: P256PrivateKeyHandle) throws -> (header: [String: Any], plaintext: [UInt8]) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, let headerBytes = Base64URL.decode(parts[0]), let iv = Base64URL.decode(parts[2]),
              let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4]) else {
            throw OpenID4VPError.invalidResponse("the response is not a compact JWE (five base64url parts)")
        }
        guard parts[1].isEmpty else { throw OpenID4VPError.invalidResponse("the JWE carries an encrypted key; ECDH-ES (direct) has none") }
        let header = try CanonicalJSON.object(headerBytes)
        guard header["alg"] as? String == "ECDH-ES" else { throw OpenID4VPError.invalidResponse("JWE alg is \(header["alg"] ?? "missing"), not ECDH-ES") }
        guard let enc = (header["enc"] as? String).flatMap(Encryption.init(rawValue:)) else {
            throw OpenID4VPError.invalidResponse("JWE enc is \(header["enc"] ?? "missing"), not A128GCM or A256GCM")
        }
        guard header["zip"] == nil else { throw OpenID4VPError.invalidResponse("compressed JWE (zip) is not accepted") }
        guard let epkJWK = header["epk"] as? [String: Any], let epk = try? P256PublicKey(jwk: epkJWK) else {
            throw OpenID4VPError.invalidResponse("JWE epk is not a P-256 public key")
        }
        guard iv.count == 12, tag.count == 16 else { throw OpenID4VPError.invalidResponse("JWE iv or tag has the wrong length") }
        let apu = (header["apu"] as? String).flatMap(Base64URL.decode) ?? []
        let apv = (header["apv"] as? String).flatMap(Base64URL.decode) ?? []
        var shared = try agree(recipient.key, with: epk)
        defer { for i in shared.indices { shared[i] = 0 } }
        let key = concatKDF(shared: shared, enc: enc, apu: apu, apv: apv)
        do {
            let (plain, _) = try gcm(encrypt: false, ciphertext, key: key, iv: iv, aad: Array(parts[0].utf8), tag: tag)
            return (header, plain)
        } catch {
            throw OpenID4VPError.invalidResponse("the JWE does not decrypt under this key (altered, or encrypted to another key)")
        }
    }

    /// RFC 7518 §4.6.2: Concat KDF (NIST SP 800-56A) with SHA-256; one round covers 128 and 256 bits.
    static func concatKDF(shared: [UInt8], enc: Encryption, apu: [UInt8], apv: [UInt8]) -> [UInt8] {
        func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] { bigEndian32(bytes.count) + bytes }
        let input = bigEndian32(1) + shared + lengthPrefixed(Array(enc.rawValue.utf8)) + lengthPrefixed(apu)
            + lengthPrefixed(apv) + bigEndian32(enc.keyLength * 8)
        return Array(OpenSSLCrypto.sha256(input).prefix(enc.keyLength))
    }

    static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw OpenID4VPError.transport(step: "Encrypting the response", "OpenSSL: \(error)") }
    }

    /// ECDH on P-256: the x coordinate of the shared point (32 bytes).
    static func agree(_ privateKey: OpaquePointer, with peer: P256PublicKey) throws -> [UInt8] {
        let peerKey = try wrap { try P256.makeKey(publicPoint: peer.uncompressed, privateScalar: nil) }
        defer { P256.freeKey(peerKey) }
        guard let context = EVP_PKEY_CTX_new(privateKey, nil) else { throw OpenID4VPError.transport(step: "ECDH", "EVP_PKEY_CTX_new failed") }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1,
              EVP_PKEY_derive(context, nil, &length) == 1 else { throw OpenID4VPError.transport(step: "ECDH", "EVP_PKEY_derive failed") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else { throw OpenID4VPError.transport(step: "ECDH", "EVP_PKEY_derive failed") }
        return Array(secret.prefix(length))
    }

    /// AES-GCM with a 128- or 256-bit key, 96-bit IV, 128-bit tag.
    static func gcm(encrypt: Bool, _ input: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8], tag: [UInt8]?) throws -> ([UInt8], [UInt8]) {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenID4VPError.transport(step: "AES-GCM", "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = key.count == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm()
        var length: Int32 = 0
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var scratch = [UInt8](repeating: 0, count: 16)
        var final: Int32 = 0
        if encrypt {
            var produced = [UInt8](repeating: 0, count: 16)
            guard EVP_EncryptInit_ex(context, cipher, nil, key, iv) == 1,
                  EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1,
                  EVP_EncryptUpdate(context, &out, &length, input, Int32(input.count)) == 1 else { throw OpenID4VPError.transport(step: "AES-GCM", "seal failed") }
            let count = Int(length)
            guard EVP_EncryptFinal_ex(context, &scratch, &final) == 1, passport_gcm_get_tag(context, &produced, 16) == 1 else {
                throw OpenID4VPError.transport(step: "AES-GCM", "tag failed")
            }
            return (Array(out[0..<count]), produced)
        }
        var expected = tag ?? []
        guard EVP_DecryptInit_ex(context, cipher, nil, key, iv) == 1,
              EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1,
              EVP_DecryptUpdate(context, &out, &length, input, Int32(input.count)) == 1,
              passport_gcm_set_tag(context, &expected, 16) == 1 else { throw OpenID4VPError.invalidResponse("AES-GCM open failed") }
        let count = Int(length)
        guard EVP_DecryptFinal_ex(context, &scratch, &final) == 1 else { throw OpenID4VPError.invalidResponse("AES-GCM tag mismatch") }
        return (Array(out[0..<count]), [])
    }
}

/// A P-256 private key for decrypting responses (the verifier side of `direct_post.jwt`).
public final class P256PrivateKeyHandle: @unchecked Sendable {
    let key: OpaquePointer
    public let publicKey: P256PublicKey

    public init() throws {
        let made = try JWE.wrap { try P256.generateKey() }
        key = made
        publicKey = try P256PublicKey(sec1: try JWE.wrap { try P256.publicPoint(of: made) })
    }

    /// From a private JWK (`d` with `x`, `y`).
    public init(jwk: [String: Any]) throws {
        let publicKey = try P256PublicKey(jwk: jwk)
        guard let d = (jwk["d"] as? String).flatMap(Base64URL.decode), d.count == 32 else {
            throw OpenID4VPError.usage("the decryption key is not a private P-256 JWK (no d)")
        }
        key = try JWE.wrap { try P256.makeKey(publicPoint: publicKey.uncompressed, privateScalar: d) }
        self.publicKey = publicKey
    }

    deinit { P256.freeKey(key) }
}
