import PassportCrypto
import Foundation

/// The holder's keys: one holder key and one pairwise key per verifier origin, each in its own
/// file (mode 0600, folder 0700) under `$XDG_CONFIG_HOME/passport/keys` (or ~/.config/…).
///
/// Private keys are encrypted at rest with AES-256-GCM (the DID as associated data). The key
/// that encrypts them is derived with scrypt (N=2^15, r=8, p=1) from a passphrase when
/// `PASSPORT_KEYSTORE_PASSPHRASE` is set; otherwise it is a random 256-bit device key in
/// `keys/device.key` (0600). The device key protects copies of the key files made without it
/// (backups, sync folders); only a passphrase protects against someone who can read the whole
/// folder as you. Pairwise key files are named by a hash of the origin, so the folder does not
/// list the verifiers a person has visited.
public final class KeyStore: @unchecked Sendable {
    public let folder: URL
    private let passphrase: String?

    public static var defaultFolder: URL {
        let env = ProcessInfo.processInfo.environment
        let config = env["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: env["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return config.appendingPathComponent("passport/keys")
    }

    public init(folder: URL = KeyStore.defaultFolder,
                passphrase: String? = ProcessInfo.processInfo.environment["PASSPORT_KEYSTORE_PASSPHRASE"]) {
        self.folder = folder
        self.passphrase = passphrase.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The holder key, created on first use.
    public func holderKey() throws -> P256PrivateKey {
        try loadOrCreate(folder.appendingPathComponent("holder.json"))
    }

    /// The key for one verifier origin (scheme://host[:port]), created on first use.
    public func pairwiseKey(for origin: String) throws -> P256PrivateKey {
        let name = Base64URL.encode(OpenSSLCrypto.sha256(Array("passport-pairwise:\(origin.lowercased())".utf8)))
        return try loadOrCreate(folder.appendingPathComponent("pairwise").appendingPathComponent("\(name).json"))
    }

    /// The key for one OpenID4VP client identifier (x509_hash:…, x509_san_dns:…, redirect_uri:…),
    /// exactly as the verifier gives it (hashes are case-sensitive), created on first use.
    public func pairwiseKey(forClientID clientID: String) throws -> P256PrivateKey {
        let name = Base64URL.encode(OpenSSLCrypto.sha256(Array("passport-pairwise-client-id:\(clientID)".utf8)))
        return try loadOrCreate(folder.appendingPathComponent("pairwise").appendingPathComponent("\(name).json"))
    }

    private func loadOrCreate(_ url: URL) throws -> P256PrivateKey {
        if FileManager.default.fileExists(atPath: url.path) { return try load(url) }
        let key = try P256PrivateKey()
        try store(key, at: url)
        return key
    }

    private func load(_ url: URL) throws -> P256PrivateKey {
        let object = try CanonicalJSON.object([UInt8](try Data(contentsOf: url)))
        guard let did = object["did"] as? String, let kdf = object["kdf"] as? String,
              let nonce = (object["nonce"] as? String).flatMap(Base64URL.decode),
              let ciphertext = (object["ciphertext"] as? String).flatMap(Base64URL.decode),
              let tag = (object["tag"] as? String).flatMap(Base64URL.decode) else {
            throw CredentialError.keyStore("\(url.path) is damaged.")
        }
        let kek: [UInt8]
        switch kdf {
        case "scrypt":
            guard let passphrase else {
                throw CredentialError.keyStore("\(url.lastPathComponent) is protected by a passphrase: set PASSPORT_KEYSTORE_PASSPHRASE.")
            }
            guard let salt = (object["salt"] as? String).flatMap(Base64URL.decode) else { throw CredentialError.keyStore("\(url.path) is damaged.") }
            kek = try KeyStore.scrypt(passphrase, salt: salt)
        case "device-key":
            kek = try deviceKey(create: false)
        default:
            throw CredentialError.keyStore("\(url.path) uses an unknown protection '\(kdf)'.")
        }
        guard let scalar = try? AESGCM.open(ciphertext: ciphertext, tag: tag, key: kek, nonce: nonce, aad: Array(did.utf8)) else {
            throw CredentialError.keyStore("cannot decrypt \(url.lastPathComponent): wrong passphrase or device key.")
        }
        let key = try P256PrivateKey(scalar: scalar)
        guard DIDKey.did(for: key.publicKey) == did else { throw CredentialError.keyStore("\(url.path) does not match its DID.") }
        return key
    }

    private func store(_ key: P256PrivateKey, at url: URL) throws {
        let did = DIDKey.did(for: key.publicKey)
        var object: [String: Any] = ["version": 1, "did": did, "public_jwk": key.publicKey.jwk, "cipher": "A256GCM"]
        let kek: [UInt8]
        if let passphrase {
            let salt = OpenSSLCrypto.randomBytes(16)
            kek = try KeyStore.scrypt(passphrase, salt: salt)
            object["kdf"] = "scrypt"
            object["salt"] = Base64URL.encode(salt)
            object["scrypt"] = ["n": KeyStore.scryptN, "r": 8, "p": 1]
        } else {
            kek = try deviceKey(create: true)
            object["kdf"] = "device-key"
        }
        let nonce = OpenSSLCrypto.randomBytes(12)
        var scalar = try key.scalar()
        defer { for i in scalar.indices { scalar[i] = 0 } }
        let sealed = try CredentialError.mapping { try AESGCM.seal(scalar, key: kek, nonce: nonce, aad: Array(did.utf8)) }
        object["nonce"] = Base64URL.encode(nonce)
        object["ciphertext"] = Base64URL.encode(sealed.ciphertext)
        object["tag"] = Base64URL.encode(sealed.tag)
        try writePrivateFile(Array(try CanonicalJSON.data(object)), to: url)
    }

    private func deviceKey(create: Bool) throws -> [UInt8] {
        let url = folder.appendingPathComponent("device.key")
        if let data = FileManager.default.contents(atPath: url.path) {
            guard data.count == 32 else { throw CredentialError.keyStore("\(url.path) is damaged.") }
            return [UInt8](data)
        }
        guard create else { throw CredentialError.keyStore("the device key \(url.path) is missing: the stored keys cannot be opened.") }
        let key = OpenSSLCrypto.randomBytes(32)
        try writePrivateFile(key, to: url)
        return key
    }

    /// Writes with mode 0600 in a 0700 folder, atomically (temporary file, then rename).
    private func writePrivateFile(_ bytes: [UInt8], to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw CredentialError.keyStore("cannot write \(temporary.path): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard written == bytes.count, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw CredentialError.keyStore("cannot write \(url.path)")
        }
    }

    static let scryptN: UInt64 = 1 << 15

    static func scrypt(_ passphrase: String, salt: [UInt8]) throws -> [UInt8] {
        try CredentialError.mapping { try AESGCM.scrypt(passphrase, salt: salt, n: scryptN) }
    }
}
