import LocalFiles
import PassportCrypto
import FoundationEssentials
import JSONCore
import Glibc
import TextSupport

/// The holder's keys: one holder key and one pairwise key per verifier origin, each in its own
/// file (mode 0600, folder 0700) under `$XDG_CONFIG_HOME/passport/keys` (or ~/.config/…).
///
/// Private keys are encrypted at rest with AES-256-GCM (the DID as associated data). The key
/// that encrypts them (kek), in this order:
/// 1. scrypt (N=2^15, r=8, p=1) of `PASSPORT_KEYSTORE_PASSPHRASE` when it is set (kdf "scrypt");
/// 2. a random 256-bit device key kept in the system keyring (`vault`, the Secret Service),
///    which the person's login unlocks (kdf "keyring-device-key");
/// 3. otherwise the same kind of device key in the file `keys/device.key` (0600, kdf
///    "device-key"): weak, since anyone who can read the folder can open the keys.
/// Pairwise key files are named by a hash of the origin, so the folder does not list the
/// verifiers a person has visited.
public final class KeyStore: @unchecked Sendable {
    public let folder: URL
    private let passphrase: String?
    /// Where the device key lives when there is no passphrase; nil: the file `device.key`.
    public let vault: (any DeviceKeyVault)?

    public static var defaultFolder: URL {
        XDGDirectories.configHome().appendingPathComponent("passport/keys")
    }

    public init(folder: URL = KeyStore.defaultFolder,
                passphrase: String? = ProcessInfo.processInfo.environment["PASSPORT_KEYSTORE_PASSPHRASE"],
                vault: (any DeviceKeyVault)? = nil) {
        self.folder = folder
        self.passphrase = passphrase.flatMap { $0.isEmpty ? nil : $0 }
        self.vault = vault
    }

    /// The holder key, created on first use.
    public func holderKey() throws -> P256PrivateKey {
        try loadOrCreate(folder.appendingPathComponent("holder.json"))
    }

    /// The key for one verifier origin (scheme://host[:port]), created on first use.
    public func pairwiseKey(for origin: String) throws -> P256PrivateKey {
        try loadOrCreate(try pairwiseFile("passport-pairwise:\(origin.lowercased())"))
    }

    /// The key for one OpenID4VP client identifier (x509_hash:…, x509_san_dns:…, redirect_uri:…),
    /// exactly as the verifier gives it (hashes are case-sensitive), created on first use.
    public func pairwiseKey(forClientID clientID: String) throws -> P256PrivateKey {
        try loadOrCreate(try pairwiseFile("passport-pairwise-client-id:\(clientID)"))
    }

    /// The holder key of one instance of an institution's batch (`HeldCredential.Instance.keyLabel`).
    /// `create`: make it (at issuance); otherwise it must exist.
    public func instanceKey(label: String, create: Bool) throws -> P256PrivateKey {
        let url = try pairwiseFile(label)
        if !create && !FileManager.default.fileExists(atPath: url.path) {
            throw CredentialError.keyStore("the key this credential is bound to is not in \(folder.path): it was issued to another key store.")
        }
        return try loadOrCreate(url)
    }

    /// A new key for one instance of an institution's batch, stored under its label.
    public func newInstanceKey() throws -> P256PrivateKey {
        let key = try P256PrivateKey()
        try store(key, at: try pairwiseFile(PassportCredential.instanceKeyLabel(key.publicKey)))
        return key
    }

    /// Which instance of a batch goes to `audience`: the one it was shown before, else one no
    /// other verifier has seen. Recorded (by keyed name) in `instances.json`.
    public func instance(for audience: String, among labels: [String]) throws -> String {
        try checkStoreFormat()
        let file = folder.appendingPathComponent("instances.json")
        var map = (FileManager.default.contents(atPath: file.path).flatMap { try? CanonicalJSON.object([UInt8]($0)) } as? [String: String]) ?? [:]
        let key = try keyedName("passport-instance-audience:\(audience)")
        if let chosen = map[key], labels.contains(chosen) { return chosen }
        let used = Set(map.values)
        guard let free = labels.first(where: { !used.contains($0) }) else {
            throw CredentialError.keyStore("every one of this credential's \(labels.count) instances has been shown to another verifier; showing one again would let them link you. Ask the issuer for a new batch.")
        }
        map[key] = free
        try writePrivateFile(Array(try CanonicalJSON.data(map)), to: file)
        return free
    }

    // MARK: Keyed file names

    /// base64url(HMAC-SHA-256(secret, label)) with the store's own random secret (`name.secret`),
    /// so that someone holding the folder cannot test which verifiers a name belongs to.
    public func keyedName(_ label: String) throws -> String {
        Base64URL.encode(HMACSHA256.mac(key: try nameSecret(), Array(label.utf8)))
    }

    private var nameSecretFile: URL { folder.appendingPathComponent("name.secret") }

    private func nameSecret() throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: nameSecretFile.path) {
            guard data.count == 32 else { throw CredentialError.keyStore("\(nameSecretFile.path) is damaged.") }
            return [UInt8](data)
        }
        try checkStoreFormat()
        let secret = OpenSSLCrypto.randomBytes(32)
        try writePrivateFile(secret, to: nameSecretFile)
        try markFormat()
        return secret
    }

    /// The pairwise file for `label`: named by the keyed hash; a file named by the unkeyed
    /// SHA-256 (as 0.2.0 named them) is renamed to it when first used.
    private func pairwiseFile(_ label: String) throws -> URL {
        let pairwise = folder.appendingPathComponent("pairwise")
        let keyed = pairwise.appendingPathComponent("\(try keyedName(label)).json")
        let legacy = pairwise.appendingPathComponent("\(Base64URL.encode(OpenSSLCrypto.sha256(Array(label.utf8)))).json")
        if !FileManager.default.fileExists(atPath: keyed.path) && FileManager.default.fileExists(atPath: legacy.path) {
            guard rename(legacy.path, keyed.path) == 0 else { throw CredentialError.keyStore("cannot rename \(legacy.lastPathComponent) in \(pairwise.path).") }
        }
        return keyed
    }

    private func loadOrCreate(_ url: URL) throws -> P256PrivateKey {
        if FileManager.default.fileExists(atPath: url.path) { return try load(url) }
        let key = try P256PrivateKey()
        try store(key, at: url)
        return key
    }

    private func load(_ url: URL) throws -> P256PrivateKey {
        try checkStoreFormat()
        let object = try CanonicalJSON.object([UInt8](try Data(contentsOf: url)))
        try KeyStore.checkVersion(object["version"], of: url.path, supported: KeyStore.keyFileVersion)
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
            kek = try fileDeviceKey(create: false)
        case "keyring-device-key":
            kek = try keyringDeviceKey(create: false)
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
        try checkStoreFormat()
        let did = DIDKey.did(for: key.publicKey)
        var object: [String: Any] = ["version": KeyStore.keyFileVersion, "did": did, "public_jwk": key.publicKey.jwk, "cipher": "A256GCM"]
        let kek: [UInt8]
        if let passphrase {
            let salt = OpenSSLCrypto.randomBytes(16)
            kek = try KeyStore.scrypt(passphrase, salt: salt)
            object["kdf"] = "scrypt"
            object["salt"] = Base64URL.encode(salt)
            object["scrypt"] = ["n": KeyStore.scryptN, "r": 8, "p": 1]
        } else if vault != nil {
            kek = try keyringDeviceKey(create: true)
            object["kdf"] = "keyring-device-key"
        } else {
            kek = try fileDeviceKey(create: true)
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

    private func keyringDeviceKey(create: Bool) throws -> [UInt8] {
        guard let vault else {
            throw CredentialError.keyStore("the keys are protected by a device key in the system keyring, but no keyring is reachable (no Secret Service on this session's D-Bus, or PASSPORT_KEYRING=off): run this in your desktop session.")
        }
        if let key = try vault.load(for: folder) { return key }
        guard create else { throw CredentialError.keyStore("the device key is missing from \(vault.name): the stored keys cannot be opened.") }
        let key = OpenSSLCrypto.randomBytes(32)
        try vault.store(key, for: folder)
        return key
    }

    private var deviceKeyFile: URL { folder.appendingPathComponent("device.key") }

    private func fileDeviceKey(create: Bool) throws -> [UInt8] {
        let url = deviceKeyFile
        if let data = FileManager.default.contents(atPath: url.path) {
            guard data.count == 32 else { throw CredentialError.keyStore("\(url.path) is damaged.") }
            return [UInt8](data)
        }
        guard create else { throw CredentialError.keyStore("the device key \(url.path) is missing: the stored keys cannot be opened.") }
        let key = OpenSSLCrypto.randomBytes(32)
        try writePrivateFile(key, to: url)
        return key
    }

    // MARK: Format

    /// The key-store format this release writes and the newest it reads. 0.2.0 wrote 1 in each
    /// key file and no `format` file (and cannot refuse anything newer); from 0.3.0 on the
    /// folder's `format` file says it, so that an older release refuses a newer store before it
    /// reads or writes anything in it.
    /// 2 (0.3.0): pairwise files named by HMAC with the store's `name.secret`; a store gets 2
    /// when its secret is made, so that a release that knows only 1 refuses it instead of making
    /// new keys beside the renamed ones. Key files still say 1 (their content did not change).
    public static let formatVersion = 2
    static let keyFileVersion = 1
    private var formatFile: URL { folder.appendingPathComponent("format") }

    private func checkStoreFormat() throws {
        guard let data = FileManager.default.contents(atPath: formatFile.path) else {
            // No marker (a 0.2.0 store, or a new one): the holder key's own version speaks for it.
            let holder = folder.appendingPathComponent("holder.json")
            if let bytes = FileManager.default.contents(atPath: holder.path), let object = try? CanonicalJSON.object([UInt8](bytes)) {
                try KeyStore.checkVersion(object["version"], of: holder.path, supported: KeyStore.keyFileVersion)
            }
            return
        }
        let text = String(decoding: data, as: UTF8.self).trimmed()
        guard let version = Int(text) else { throw CredentialError.keyStore("\(formatFile.path) is damaged (it holds \"\(text.prefix(20))\").") }
        try KeyStore.checkVersion(version, of: folder.path)
    }

    /// Writes this release's format number into `format` (after `checkStoreFormat`).
    private func markFormat() throws {
        let text = (FileManager.default.contents(atPath: formatFile.path)).map { String(decoding: $0, as: UTF8.self).trimmed() }
        guard text != "\(KeyStore.formatVersion)" else { return }
        do { try PrivateFiles.replace(formatFile, with: Array("\(KeyStore.formatVersion)\n".utf8)) } catch let error as PrivateFiles.WriteError {
            throw CredentialError.keyStore(error.description)
        }
    }

    static func checkVersion(_ value: Any?, of path: String, supported: Int = formatVersion) throws {
        guard let value else { return }
        guard let version = JSON.int(value) else { throw CredentialError.keyStore("\(path) is damaged (its version is not a number).") }
        guard version <= supported else {
            throw CredentialError.newerStoreFormat(path: path, found: version, supported: supported)
        }
    }

    /// Writes with mode 0600 in a 0700 folder, atomically and durably (PrivateFiles.replace),
    /// after checking that the store is not a newer release's and marking its format.
    private func writePrivateFile(_ bytes: [UInt8], to url: URL) throws {
        try checkStoreFormat()
        do {
            try PrivateFiles.createFolder(url.deletingLastPathComponent())
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
            if !FileManager.default.fileExists(atPath: formatFile.path) {
                try PrivateFiles.replace(formatFile, with: Array("\(KeyStore.formatVersion)\n".utf8))
            }
            try PrivateFiles.replace(url, with: bytes)
        } catch let error as PrivateFiles.WriteError {
            throw CredentialError.keyStore(error.description)
        }
    }

    // MARK: Where the keys are protected

    /// What protects the stored keys, read from the key files' labels (nothing is decrypted).
    public struct Status: Sendable {
        /// Key files by protection: "scrypt", "keyring-device-key", "device-key".
        public let filesByProtection: [String: Int]
        public let holderDID: String?
        public let pairwiseKeys: Int
        /// Whether `device.key` exists (the weak fallback).
        public let deviceKeyFile: Bool
        /// What new keys would get: "passphrase", "keyring" or "file".
        public let newKeys: String
        /// True when any key, or the next one made, is protected only by the file `device.key`.
        public var weak: Bool { filesByProtection["device-key", default: 0] > 0 || newKeys == "file" }
    }

    public func status() -> Status {
        var counts: [String: Int] = [:]
        var holder: String?
        var pairwise = 0
        for url in keyFiles() {
            guard let data = FileManager.default.contents(atPath: url.path), let object = try? CanonicalJSON.object([UInt8](data)) else { continue }
            counts[object["kdf"] as? String ?? "unknown", default: 0] += 1
            if url.lastPathComponent == "holder.json" { holder = object["did"] as? String } else { pairwise += 1 }
        }
        return Status(filesByProtection: counts, holderDID: holder, pairwiseKeys: pairwise,
                      deviceKeyFile: FileManager.default.fileExists(atPath: deviceKeyFile.path),
                      newKeys: passphrase != nil ? "passphrase" : vault != nil ? "keyring" : "file")
    }

    /// Moves a file-protected store's device key into the keyring: the same 32 bytes go to the
    /// vault, each key file's label changes (its ciphertext and DID stay as they are), every
    /// key is opened through the keyring, and only then is `device.key` deleted. Safe to run
    /// again after a crash: until the last step both places hold the same key. Gives the number
    /// of key files moved.
    @discardableResult
    public func migrateToKeyring() throws -> Int {
        try checkStoreFormat()
        guard let vault else {
            throw CredentialError.keyStore("no system keyring is reachable (no Secret Service on this session's D-Bus, or PASSPORT_KEYRING=off): run this in your desktop session.")
        }
        let labelled = keyFiles().compactMap { url -> (URL, [String: Any])? in
            guard let data = FileManager.default.contents(atPath: url.path), let object = try? CanonicalJSON.object([UInt8](data)) else { return nil }
            return (url, object)
        }
        let onFile = labelled.filter { $0.1["kdf"] as? String == "device-key" }
        guard FileManager.default.fileExists(atPath: deviceKeyFile.path) else {
            guard onFile.isEmpty else { throw CredentialError.keyStore("\(onFile.count) key(s) need \(deviceKeyFile.path), which is missing.") }
            return 0
        }
        let key = try fileDeviceKey(create: false)
        if let existing = try vault.load(for: folder) {
            guard existing == key else { throw CredentialError.keyStore("\(vault.name) already holds a different device key for \(folder.path); nothing was changed.") }
        } else {
            try vault.store(key, for: folder)
        }
        for (url, object) in onFile {
            var relabelled = object
            relabelled["kdf"] = "keyring-device-key"
            try writePrivateFile(Array(try CanonicalJSON.data(relabelled)), to: url)
        }
        // Every moved key must open through the keyring before the file key goes.
        for (url, _) in onFile { _ = try load(url) }
        try FileManager.default.removeItem(at: deviceKeyFile)
        return onFile.count
    }

    // MARK: Export and import (a backup under a passphrase)

    /// What an export would hold, without decrypting anything: the holder key's DID (nil when
    /// there is no software holder key) and the number of pairwise keys.
    public func exportSummary() -> (holderDID: String?, pairwiseKeys: Int) {
        let status = status()
        return (status.holderDID, status.pairwiseKeys)
    }

    /// Every software key, decrypted and encrypted again under scrypt(`passphrase`) (AES-256-GCM,
    /// the DID as associated data), as one JSON document. Key file names go along, so that an
    /// import puts each pairwise key back under its verifier.
    public func exportKeys(passphrase: String) throws -> [UInt8] {
        guard passphrase.count >= 8 else { throw CredentialError.keyStore("the export passphrase must have at least 8 characters.") }
        let salt = OpenSSLCrypto.randomBytes(16)
        let kek = try KeyStore.scrypt(passphrase, salt: salt)
        var entries: [[String: Any]] = []
        for url in keyFiles() {
            let key = try load(url)
            let did = DIDKey.did(for: key.publicKey)
            let nonce = OpenSSLCrypto.randomBytes(12)
            var scalar = try key.scalar()
            defer { for i in scalar.indices { scalar[i] = 0 } }
            let sealed = try CredentialError.mapping { try AESGCM.seal(scalar, key: kek, nonce: nonce, aad: Array(did.utf8)) }
            entries.append(["file": url.path.replacing(folder.path + "/", with: ""), "did": did,
                            "nonce": Base64URL.encode(nonce), "ciphertext": Base64URL.encode(sealed.ciphertext), "tag": Base64URL.encode(sealed.tag)])
        }
        guard !entries.isEmpty else { throw CredentialError.keyStore("there are no keys in \(folder.path) to export.") }
        var document: [String: Any] = ["format": "passport-toolkit-keys", "version": 1, "kdf": "scrypt", "salt": Base64URL.encode(salt),
                                       "scrypt": ["n": KeyStore.scryptN, "r": 8, "p": 1], "cipher": "A256GCM", "keys": entries]
        // The naming secret goes along (sealed like the keys), so that pairwise files keep their names.
        if let secret = FileManager.default.contents(atPath: nameSecretFile.path) {
            let nonce = OpenSSLCrypto.randomBytes(12)
            let sealed = try CredentialError.mapping { try AESGCM.seal([UInt8](secret), key: kek, nonce: nonce, aad: Array("name.secret".utf8)) }
            document["name_secret"] = ["nonce": Base64URL.encode(nonce), "ciphertext": Base64URL.encode(sealed.ciphertext), "tag": Base64URL.encode(sealed.tag)]
        }
        return Array(try CanonicalJSON.data(document))
    }

    /// Reads an export: every key is decrypted first (all or nothing), then each is stored under
    /// this store's protection. A different key already at a key's place is refused. Gives the
    /// DIDs imported.
    @discardableResult
    public func importKeys(_ bytes: [UInt8], passphrase: String) throws -> [String] {
        guard let document = try? CanonicalJSON.object(bytes), document["format"] as? String == "passport-toolkit-keys",
              let salt = (document["salt"] as? String).flatMap(Base64URL.decode), let entries = document["keys"] as? [[String: Any]] else {
            throw CredentialError.keyStore("this is not a key export written by `passport keys export`.")
        }
        try KeyStore.checkVersion(document["version"], of: "the key export", supported: 1)
        let kek = try KeyStore.scrypt(passphrase, salt: salt)
        var keys: [(URL, P256PrivateKey)] = []
        for entry in entries {
            guard let file = entry["file"] as? String, file == "holder.json" || (file.hasPrefix("pairwise/") && !file.contains("..") && file.hasSuffix(".json")),
                  let did = entry["did"] as? String, let nonce = (entry["nonce"] as? String).flatMap(Base64URL.decode),
                  let ciphertext = (entry["ciphertext"] as? String).flatMap(Base64URL.decode),
                  let tag = (entry["tag"] as? String).flatMap(Base64URL.decode) else {
                throw CredentialError.keyStore("the key export is damaged.")
            }
            guard let scalar = try? AESGCM.open(ciphertext: ciphertext, tag: tag, key: kek, nonce: nonce, aad: Array(did.utf8)) else {
                throw CredentialError.keyStore("cannot decrypt the key export: wrong passphrase, or the file was altered. Nothing was imported.")
            }
            let key = try P256PrivateKey(scalar: scalar)
            guard DIDKey.did(for: key.publicKey) == did else { throw CredentialError.keyStore("the key export is damaged (a key does not match its DID).") }
            keys.append((folder.appendingPathComponent(file), key))
        }
        var importedSecret: [UInt8]?
        if let sealed = document["name_secret"] as? [String: Any] {
            guard let nonce = (sealed["nonce"] as? String).flatMap(Base64URL.decode), let ciphertext = (sealed["ciphertext"] as? String).flatMap(Base64URL.decode),
                  let tag = (sealed["tag"] as? String).flatMap(Base64URL.decode),
                  let secret = try? AESGCM.open(ciphertext: ciphertext, tag: tag, key: kek, nonce: nonce, aad: Array("name.secret".utf8)), secret.count == 32 else {
                throw CredentialError.keyStore("the key export is damaged (its naming secret does not open). Nothing was imported.")
            }
            importedSecret = secret
        }
        for (url, key) in keys where FileManager.default.fileExists(atPath: url.path) {
            guard try load(url).publicKey == key.publicKey else {
                throw CredentialError.keyStore("\(url.lastPathComponent) already holds a different key (\(DIDKey.did(for: try load(url).publicKey))); nothing was imported.")
            }
        }
        if let importedSecret, let own = FileManager.default.contents(atPath: nameSecretFile.path), [UInt8](own) != importedSecret,
           keys.contains(where: { $0.0.path.contains("/pairwise/") }) {
            throw CredentialError.keyStore("\(folder.path) already names its pairwise keys with a different secret; import into an empty key store. Nothing was imported.")
        }
        if let importedSecret, !FileManager.default.fileExists(atPath: nameSecretFile.path) {
            try writePrivateFile(importedSecret, to: nameSecretFile)
            try markFormat()
        }
        for (url, key) in keys where !FileManager.default.fileExists(atPath: url.path) { try store(key, at: url) }
        return keys.map { DIDKey.did(for: $0.1.publicKey) }
    }

    /// holder.json and every pairwise key file.
    private func keyFiles() -> [URL] {
        let pairwise = folder.appendingPathComponent("pairwise")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pairwise.path)) ?? []
        return [folder.appendingPathComponent("holder.json")].filter { FileManager.default.fileExists(atPath: $0.path) }
            + names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { pairwise.appendingPathComponent($0) }
    }

    static let scryptN: UInt64 = 1 << 15

    static func scrypt(_ passphrase: String, salt: [UInt8]) throws -> [UInt8] {
        try CredentialError.mapping { try AESGCM.scrypt(passphrase, salt: salt, n: scryptN) }
    }
}

/// A place outside the key folder that keeps the device key (the system keyring). `load`
/// gives nil when it holds none for `folder`.
public protocol DeviceKeyVault: AnyObject {
    var name: String { get }
    func load(for folder: URL) throws -> [UInt8]?
    func store(_ key: [UInt8], for folder: URL) throws
}
