import COpenSSL
import LDS

/// A signature scheme as named by an AlgorithmIdentifier (SignerInfo or certificate).
public enum SignatureScheme: Sendable, Equatable, CustomStringConvertible {
    case rsaPKCS1(DigestAlgorithm)
    case rsaPSS(hash: DigestAlgorithm, mgfHash: DigestAlgorithm, saltLength: Int)
    /// ECDSA; `plain` for BSI TR-03111 r‖s signatures, DER otherwise (both are accepted on verify).
    case ecdsa(DigestAlgorithm, plain: Bool)

    /// The scheme for `algorithm`; `digest` is the SignerInfo digest algorithm, used when the
    /// OID names only the key type (rsaEncryption, id-ecPublicKey).
    public init(_ algorithm: AlgorithmIdentifier, digest: DigestAlgorithm?) throws {
        func need(_ d: DigestAlgorithm?) throws -> DigestAlgorithm {
            guard let d else { throw PassiveAuthenticationError.unsupportedAlgorithm(algorithm.oid) }
            return d
        }
        switch algorithm.oid {
        case "1.2.840.113549.1.1.1": self = .rsaPKCS1(try need(digest))
        case "1.2.840.113549.1.1.5": self = .rsaPKCS1(.sha1)
        case "1.2.840.113549.1.1.14": self = .rsaPKCS1(.sha224)
        case "1.2.840.113549.1.1.11": self = .rsaPKCS1(.sha256)
        case "1.2.840.113549.1.1.12": self = .rsaPKCS1(.sha384)
        case "1.2.840.113549.1.1.13": self = .rsaPKCS1(.sha512)
        case "1.2.840.113549.1.1.10": self = try SignatureScheme.pss(parameters: algorithm.parameters)
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
        default: throw PassiveAuthenticationError.unsupportedAlgorithm(algorithm.oid)
        }
    }

    /// RSASSA-PSS-params (RFC 4055): hash [0] (default SHA-1), mask generation [1] (default
    /// MGF1 with SHA-1), salt length [2] (default 20).
    static func pss(parameters: [UInt8]?) throws -> SignatureScheme {
        var hash = DigestAlgorithm.sha1, mgfHash = DigestAlgorithm.sha1, salt = 20
        if let parameters {
            for field in try TLV.parse(parameters).children() {
                switch field.tag {
                case 0xA0:
                    guard let alg = try field.children().first, let oid = try alg.children().first,
                          let d = DigestAlgorithm(oid: try ObjectIdentifier.dotted(oid.value)) else {
                        throw PassiveAuthenticationError.unsupportedAlgorithm("RSA-PSS hash")
                    }
                    hash = d
                case 0xA1:
                    guard let mgf = try field.children().first, try mgf.children().count >= 2 else {
                        throw PassiveAuthenticationError.unsupportedAlgorithm("RSA-PSS mask generation")
                    }
                    let parts = try mgf.children()
                    guard try ObjectIdentifier.dotted(parts[0].value) == "1.2.840.113549.1.1.8",
                          let inner = try parts[1].children().first,
                          let d = DigestAlgorithm(oid: try ObjectIdentifier.dotted(inner.value)) else {
                        throw PassiveAuthenticationError.unsupportedAlgorithm("RSA-PSS mask generation (only MGF1)")
                    }
                    mgfHash = d
                case 0xA2:
                    guard let value = try field.children().first, value.tag == 0x02, value.value.count <= 4 else {
                        throw PassiveAuthenticationError.unsupportedAlgorithm("RSA-PSS salt length")
                    }
                    salt = value.value.reduce(0) { $0 << 8 | Int($1) }
                default: break
                }
            }
        }
        return .rsaPSS(hash: hash, mgfHash: mgfHash, saltLength: salt)
    }

    public var digest: DigestAlgorithm {
        switch self {
        case .rsaPKCS1(let d), .ecdsa(let d, _): return d
        case .rsaPSS(let d, _, _): return d
        }
    }

    public var description: String {
        switch self {
        case .rsaPKCS1(let d): return "RSA PKCS#1 v1.5 with \(d.rawValue)"
        case .rsaPSS(let d, let m, let s): return "RSA-PSS with \(d.rawValue), MGF1-\(m.rawValue), salt \(s)"
        case .ecdsa(let d, let plain): return "ECDSA with \(d.rawValue)\(plain ? " (plain r‖s)" : "")"
        }
    }

    /// Verifies `signature` over `message` with `certificate`'s public key, via OpenSSL.
    public func verify(signature: [UInt8], message: [UInt8], certificate: Certificate) -> Bool {
        guard let key = certificate.publicKey else { return false }
        return verify(signature: signature, message: message, key: key)
    }

    func verify(signature: [UInt8], message: [UInt8], key: OpaquePointer) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var pkeyContext: OpaquePointer? = nil
        guard EVP_DigestVerifyInit(context, &pkeyContext, SignatureScheme.md(digest), nil, key) == 1 else { return false }
        var sig = signature
        switch self {
        case .rsaPKCS1:
            guard passport_evp_pkey_ctx_set_rsa_padding(pkeyContext, RSA_PKCS1_PADDING) == 1 else { return false }
        case .rsaPSS(_, let mgf, let salt):
            guard passport_evp_pkey_ctx_set_rsa_padding(pkeyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  passport_evp_pkey_ctx_set_rsa_mgf1_md(pkeyContext, SignatureScheme.md(mgf)) == 1,
                  passport_evp_pkey_ctx_set_rsa_pss_saltlen(pkeyContext, Int32(salt)) == 1 else { return false }
        case .ecdsa:
            if !SignatureScheme.isDERSignature(sig) {
                guard let der = SignatureScheme.derFromPlain(sig) else { return false }
                sig = der
            }
        }
        return EVP_DigestVerify(context, sig, sig.count, message, message.count) == 1
    }

    static func md(_ digest: DigestAlgorithm) -> OpaquePointer? {
        switch digest {
        case .sha1: return EVP_sha1()
        case .sha224: return EVP_sha224()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    /// A DER ECDSA-Sig-Value is SEQUENCE { INTEGER r, INTEGER s } filling the whole buffer.
    static func isDERSignature(_ bytes: [UInt8]) -> Bool {
        guard let seq = try? TLV.parse(bytes), seq.tag == 0x30, seq.encoded.count == bytes.count,
              let parts = try? seq.children(), parts.count == 2, parts.allSatisfy({ $0.tag == 0x02 }) else { return false }
        return true
    }

    /// r‖s (each half the length) → DER.
    static func derFromPlain(_ bytes: [UInt8]) -> [UInt8]? {
        guard !bytes.isEmpty, bytes.count % 2 == 0 else { return nil }
        func integer(_ part: ArraySlice<UInt8>) -> [UInt8] {
            var v = Array(part.drop { $0 == 0 })
            if v.isEmpty { v = [0] }
            if v[0] & 0x80 != 0 { v.insert(0, at: 0) }
            return TLV.encode(tag: 0x02, value: v)
        }
        let half = bytes.count / 2
        return TLV.encode(tag: 0x30, value: integer(bytes[0..<half]) + integer(bytes[half...]))
    }
}
