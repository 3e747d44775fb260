import COpenSSL

/// Digest algorithms that appear in EF.SOD, certificates and signatures.
public enum DigestAlgorithm: String, Sendable, Codable, CaseIterable {
    case sha1 = "SHA-1", sha224 = "SHA-224", sha256 = "SHA-256", sha384 = "SHA-384", sha512 = "SHA-512"

    public init?(oid: String) {
        switch oid {
        case "1.3.14.3.2.26": self = .sha1
        case "2.16.840.1.101.3.4.2.4": self = .sha224
        case "2.16.840.1.101.3.4.2.1": self = .sha256
        case "2.16.840.1.101.3.4.2.2": self = .sha384
        case "2.16.840.1.101.3.4.2.3": self = .sha512
        default: return nil
        }
    }

    /// OpenSSL's implementation of the algorithm.
    package var evp: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha224: return EVP_sha224()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }
}
