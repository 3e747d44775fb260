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

    /// OpenSSL's implementation of the algorithm, fetched once per process: a legacy
    /// `EVP_sha256()` makes OpenSSL 3 look the implementation up again on every use (a lock and a
    /// search of its method store per digest), a cost a batch verification paid eight times a dump.
    package var evp: OpaquePointer? {
        switch self {
        case .sha1: return fetchedSHA1
        case .sha224: return fetchedSHA224
        case .sha256: return fetchedSHA256
        case .sha384: return fetchedSHA384
        case .sha512: return fetchedSHA512
        }
    }
}

// Fetched implementations are immutable and may be shared between threads (OpenSSL 3's
// threading rules); they are kept for the life of the process.
nonisolated(unsafe) private let fetchedSHA1 = EVP_MD_fetch(nil, "SHA1", nil)
nonisolated(unsafe) private let fetchedSHA224 = EVP_MD_fetch(nil, "SHA224", nil)
nonisolated(unsafe) private let fetchedSHA256 = EVP_MD_fetch(nil, "SHA256", nil)
nonisolated(unsafe) private let fetchedSHA384 = EVP_MD_fetch(nil, "SHA384", nil)
nonisolated(unsafe) private let fetchedSHA512 = EVP_MD_fetch(nil, "SHA512", nil)

