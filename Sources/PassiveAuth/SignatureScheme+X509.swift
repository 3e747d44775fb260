import LDS
import PassportCrypto

extension SignatureScheme {
    /// The scheme for `algorithm` (SignerInfo or certificate); `digest` is the SignerInfo digest
    /// algorithm, used when the OID names only the key type (rsaEncryption, id-ecPublicKey).
    public init(_ algorithm: AlgorithmIdentifier, digest: DigestAlgorithm?) throws {
        if algorithm.oid == "1.2.840.113549.1.1.10" {
            self = try SignatureScheme.pss(parameters: algorithm.parameters)
            return
        }
        do { self = try SignatureScheme(oid: algorithm.oid, digest: digest) } catch {
            throw PassiveAuthenticationError.unsupportedAlgorithm(algorithm.oid)
        }
        // RFC 4055 / RFC 5758: these algorithms take NULL or no parameters. The AlgorithmIdentifier
        // is not itself signed, so anything else there is a changed or malformed object.
        // id-ecPublicKey is left out: real SignerInfos put the curve there.
        if algorithm.parameters != nil && algorithm.oid != "1.2.840.10045.2.1" {
            throw PassiveAuthenticationError.unsupportedAlgorithm("\(algorithm.oid) with parameters")
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

    /// Verifies `signature` over `message` with `certificate`'s public key, via OpenSSL.
    public func verify(signature: [UInt8], message: [UInt8], certificate: Certificate) -> Bool {
        certificate.verifier(for: self)?.verify(signature: signature, message: message) ?? false
    }

}
