/// A failure inside OpenSSL or a key that cannot be used, named by the step that failed.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An OpenSSL call failed (out of memory, an unusable key, input of the wrong size).
    case openSSL(String)
    /// An algorithm or parameter set this toolkit does not implement.
    case unsupportedAlgorithm(String)
    /// The other side's public key does not lie on our domain parameters.
    case keyMismatch(String)
    /// A value lies outside what the key can process (an RSA signature not below the modulus).
    case outOfRange(String)
    /// A signature that does not verify, with what was wrong.
    case invalidSignature(String)

    public var description: String {
        switch self {
        case .openSSL(let what): return "OpenSSL failed: \(what)."
        case .unsupportedAlgorithm(let what): return "Unsupported algorithm \(what)."
        case .keyMismatch(let what), .outOfRange(let what), .invalidSignature(let what):
            return what.prefix(1).uppercased() + what.dropFirst() + "."
        }
    }
}
