/// Why a credential, presentation or key could not be made or accepted.
public enum CredentialError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case invalidSignature(String)
    case rejected(String)
    case keyStore(String)
    /// The system keyring holding the device key is locked, and unlocking was refused or impossible.
    case keyringLocked
    /// The key store (or a key file or export) was written by a newer release in a format this
    /// one does not know; nothing in it was read or changed.
    case newerStoreFormat(path: String, found: Int, supported: Int)
    case crypto(String)

    public var description: String {
        switch self {
        case .malformed(let why): return "Malformed token: \(why)."
        case .invalidSignature(let what): return "Invalid signature: \(what)."
        case .rejected(let why): return "Presentation rejected: \(why)."
        case .keyStore(let why): return "Key store: \(why)"
        case .keyringLocked:
            return "Key store: the login keyring that holds the key store's device key is locked: unlock it (log in to the desktop session, or unlock \"Login\" in Seahorse or KWalletManager) and try again. Nothing was signed."
        case .newerStoreFormat(let path, let found, let supported):
            return "Key store: \(path) was written by a newer version of passport (format \(found); this version reads format \(supported) and older). Upgrade passport to use it; nothing was read or changed."
        case .crypto(let what): return "OpenSSL failed: \(what)."
        }
    }
}

import PassportCrypto

extension CredentialError {
    /// Runs a PassportCrypto operation and reports its failure in credential terms: a key that
    /// is not one is malformed input, an OpenSSL failure stays one.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CryptoError {
            switch error {
            case .keyMismatch(let why), .outOfRange(let why), .invalidSignature(let why): throw CredentialError.malformed(why)
            case .openSSL(let what), .unsupportedAlgorithm(let what): throw CredentialError.crypto(what)
            }
        }
    }
}
