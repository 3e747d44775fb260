import CardIO
import PassportCrypto

/// Errors of the chip-security protocols, each with a message a person can act on.
public enum SecurityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The chip refused the access key (BAC MUTUAL AUTHENTICATE or PACE).
    case accessDenied(status: StatusWord)
    /// The chip's authentication answer did not verify: not the chip we are talking to, or an attack.
    case chipAuthenticationFailed(String)
    /// A response's MAC did not verify: corrupted or forged data.
    case badMAC
    case badPadding
    /// The chip ended secure messaging (it answered without protection).
    case secureMessagingEnded(status: StatusWord)
    /// Under secure messaging the chip answered a command with a bare status word where a
    /// protected answer was the proof asked for (the first command under chip-authentication keys).
    case unprotectedAnswer(command: String, status: StatusWord)
    case malformedSecureMessaging(String)
    case unexpectedStatus(command: String, status: StatusWord)
    case crypto(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .accessDenied(let status):
            return "The chip refused the access key (\(status)). Check the document number, birth date and expiry date against the passport's MRZ."
        case .chipAuthenticationFailed(let why):
            return "The chip's authentication answer is invalid: \(why)."
        case .badMAC:
            return "A response from the chip failed its MAC check: the data was corrupted or altered in transit. Scan again."
        case .badPadding:
            return "A response from the chip had invalid padding after decryption."
        case .secureMessagingEnded(let status):
            return "The chip ended the secure session (\(status)). Scan again."
        case .unprotectedAnswer(let command, let status):
            return "The chip answered \(command) without secure messaging (\(status)): an unprotected status word proves nothing about the session's keys"
        case .malformedSecureMessaging(let why):
            return "Malformed secure-messaging response: \(why)."
        case .unexpectedStatus(let command, let status):
            return "The chip answered \(command) with \(status)."
        case .crypto(let what):
            return "OpenSSL failed: \(what)."
        case .unsupported(let what):
            return "\(what) is not supported."
        }
    }
}

extension SecurityError {
    /// Runs a key operation of chip or active authentication, where a key that does not fit or a
    /// value out of range means the chip's answer is not genuine.
    static func inChipAuthentication<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CryptoError {
            switch error {
            case .keyMismatch(let why), .outOfRange(let why), .invalidSignature(let why):
                throw SecurityError.chipAuthenticationFailed(why)
            case .openSSL(let what): throw SecurityError.crypto(what)
            case .unsupportedAlgorithm(let what): throw SecurityError.unsupported(what)
            }
        }
    }
}
