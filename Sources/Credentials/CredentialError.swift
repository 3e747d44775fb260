/// Why a credential, presentation or key could not be made or accepted.
public enum CredentialError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case invalidSignature(String)
    case rejected(String)
    case keyStore(String)
    case crypto(String)

    public var description: String {
        switch self {
        case .malformed(let why): return "Malformed token: \(why)."
        case .invalidSignature(let what): return "Invalid signature: \(what)."
        case .rejected(let why): return "Presentation rejected: \(why)."
        case .keyStore(let why): return "Key store: \(why)"
        case .crypto(let what): return "OpenSSL failed: \(what)."
        }
    }
}
