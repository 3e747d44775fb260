import COpenSSL
import Synchronization

/// A signature scheme as named by an AlgorithmIdentifier (SignerInfo, certificate, DG14).
public enum SignatureScheme: Sendable, Equatable, CustomStringConvertible {
    case rsaPKCS1(DigestAlgorithm)
    case rsaPSS(hash: DigestAlgorithm, mgfHash: DigestAlgorithm, saltLength: Int)
    /// ECDSA; `plain` for BSI TR-03111 r‖s signatures, DER otherwise (both are accepted on verify).
    case ecdsa(DigestAlgorithm, plain: Bool)
    /// DSA (FIPS 186-4), which ICAO 9303-12 allows for EF.SOD; DER Dss-Sig-Value signatures.
    case dsa(DigestAlgorithm)

    /// The scheme an algorithm OID names; `digest` is needed when the OID names only the key
    /// type (rsaEncryption, id-ecPublicKey). RSA-PSS needs its parameters: see `rsaPSS`.
    public init(oid: String, digest: DigestAlgorithm?) throws {
        func need(_ d: DigestAlgorithm?) throws -> DigestAlgorithm {
            guard let d else { throw CryptoError.unsupportedAlgorithm(oid) }
            return d
        }
        switch oid {
        case "1.2.840.113549.1.1.1": self = .rsaPKCS1(try need(digest))
        case "1.2.840.113549.1.1.5": self = .rsaPKCS1(.sha1)
        case "1.2.840.113549.1.1.14": self = .rsaPKCS1(.sha224)
        case "1.2.840.113549.1.1.11": self = .rsaPKCS1(.sha256)
        case "1.2.840.113549.1.1.12": self = .rsaPKCS1(.sha384)
        case "1.2.840.113549.1.1.13": self = .rsaPKCS1(.sha512)
        case "1.2.840.10045.2.1": self = .ecdsa(try need(digest), plain: false)
        case "1.2.840.10045.4.1": self = .ecdsa(.sha1, plain: false)
        case "1.2.840.10045.4.3.1": self = .ecdsa(.sha224, plain: false)
        case "1.2.840.10045.4.3.2": self = .ecdsa(.sha256, plain: false)
        case "1.2.840.10045.4.3.3": self = .ecdsa(.sha384, plain: false)
        case "1.2.840.10045.4.3.4": self = .ecdsa(.sha512, plain: false)
        case "0.4.0.127.0.7.1.1.4.1.1": self = .ecdsa(.sha1, plain: true)
        case "0.4.0.127.0.7.1.1.4.1.2": self = .ecdsa(.sha224, plain: true)
        case "0.4.0.127.0.7.1.1.4.1.3": self = .ecdsa(.sha256, plain: true)
        case "0.4.0.127.0.7.1.1.4.1.4": self = .ecdsa(.sha384, plain: true)
        case "0.4.0.127.0.7.1.1.4.1.5": self = .ecdsa(.sha512, plain: true)
        case "1.2.840.10040.4.3": self = .dsa(.sha1)
        case "2.16.840.1.101.3.4.3.1": self = .dsa(.sha224)
        case "2.16.840.1.101.3.4.3.2": self = .dsa(.sha256)
        case "2.16.840.1.101.3.4.3.3": self = .dsa(.sha384)
        case "2.16.840.1.101.3.4.3.4": self = .dsa(.sha512)
        default: throw CryptoError.unsupportedAlgorithm(oid)
        }
    }

    public var digest: DigestAlgorithm {
        switch self {
        case .rsaPKCS1(let d), .ecdsa(let d, _), .dsa(let d): return d
        case .rsaPSS(let d, _, _): return d
        }
    }

    public var description: String {
        switch self {
        case .rsaPKCS1(let d): return "RSA PKCS#1 v1.5 with \(d.rawValue)"
        case .rsaPSS(let d, let m, let s): return "RSA-PSS with \(d.rawValue), MGF1-\(m.rawValue), salt \(s)"
        case .ecdsa(let d, let plain): return "ECDSA with \(d.rawValue)\(plain ? " (plain r‖s)" : "")"
        case .dsa(let d): return "DSA with \(d.rawValue)"
        }
    }

    /// Verifies `signature` over `message` with `key` (an EVP_PKEY), via OpenSSL.
    package func verify(signature: [UInt8], message: [UInt8], key: OpaquePointer) -> Bool {
        PreparedVerifier(scheme: self, key: key)?.verify(signature: signature, message: message) ?? false
    }

    /// A DER ECDSA-Sig-Value (SEQUENCE { INTEGER r, INTEGER s }) filling the whole buffer.
    static func isDERSignature(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return false
            }
            ECDSA_SIG_free(signature)
            return cursor == buffer.baseAddress.map { $0 + buffer.count }
        }
    }

    /// r‖s (each half the length, BSI TR-03111) → DER, encoded by OpenSSL.
    static func derFromPlain(_ bytes: [UInt8]) -> [UInt8]? {
        guard !bytes.isEmpty, bytes.count % 2 == 0, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let half = bytes.count / 2
        guard let r = BN_bin2bn(bytes, Int32(half), nil) else { return nil }
        guard let s = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r); BN_free(s)
            return nil
        }
        var encoded: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &encoded)
        guard length > 0, let encoded else { return nil }
        defer { passport_openssl_free(encoded) }
        return Array(UnsafeBufferPointer(start: encoded, count: Int(length)))
    }

    /// DER ECDSA-Sig-Value → r‖s (BSI TR-03111), each `size` bytes (the group order's length).
    package static func plainFromDER(_ der: [UInt8], size: Int) throws -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError.openSSL("ECDSA signature") }
        defer { ECDSA_SIG_free(signature) }
        var r = [UInt8](repeating: 0, count: size), s = r
        guard BN_bn2binpad(ECDSA_SIG_get0_r(signature), &r, Int32(size)) == size,
              BN_bn2binpad(ECDSA_SIG_get0_s(signature), &s, Int32(size)) == size else {
            throw CryptoError.openSSL("ECDSA signature values longer than \(size) bytes")
        }
        return r + s
    }
}

/// A signature scheme and key made ready once in OpenSSL (the algorithm fetched, padding and
/// digest set) and copied for each check: a Document Signer verifies thousands of the EF.SODs of
/// a batch, and making the context ready again for each cost a tenth of the signature check.
package final class PreparedVerifier: @unchecked Sendable {
    package let scheme: SignatureScheme
    /// `scheme.description`, spelled once (every report names it).
    package let description: String
    /// An EVP_PKEY_CTX initialised for verification; only ever copied, under `copying`.
    private let ready: OpaquePointer
    private let copying = Mutex(())

    /// Nil when OpenSSL refuses the scheme for this key (e.g. PSS parameters on an EC key).
    package init?(scheme: SignatureScheme, key: OpaquePointer) {
        defer { ERR_clear_error() }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1, scheme.configure(context) else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        self.scheme = scheme
        self.description = scheme.description
        self.ready = context
    }

    deinit { EVP_PKEY_CTX_free(ready) }

    /// Whether `signature` is this key's over `message` (hashed here with the scheme's digest).
    package func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        var signature = signature
        if case .ecdsa = scheme, !SignatureScheme.isDERSignature(signature) {
            guard let der = SignatureScheme.derFromPlain(signature) else { return false }
            signature = der
        }
        guard let context = copying.withLock({ _ in EVP_PKEY_CTX_dup(ready) }) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        return OpenSSLCrypto.withDigest(scheme.digest, message) { digest in
            EVP_PKEY_verify(context, signature, signature.count, digest.baseAddress, digest.count) == 1
        }
    }
}

extension SignatureScheme {
    /// Padding and digests of this scheme set on a context initialised for verification.
    fileprivate func configure(_ context: OpaquePointer) -> Bool {
        switch self {
        case .rsaPKCS1:
            guard passport_evp_pkey_ctx_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 else { return false }
        case .rsaPSS(_, let mgf, let salt):
            guard passport_evp_pkey_ctx_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1,
                  passport_evp_pkey_ctx_set_rsa_mgf1_md(context, mgf.evp) == 1,
                  passport_evp_pkey_ctx_set_rsa_pss_saltlen(context, Int32(salt)) == 1 else { return false }
        case .ecdsa, .dsa:
            break
        }
        // The digest the signature was made over: RSA wraps it in a DigestInfo, and every scheme
        // then refuses a digest of another length.
        return EVP_PKEY_CTX_set_signature_md(context, digest.evp) == 1
    }
}
