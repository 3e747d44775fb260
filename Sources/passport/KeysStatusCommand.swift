import ArgumentParser
import PassportCLI
import Credentials
import FoundationEssentials
import PassportKit
import SystemKeyring
import TokenKeys

/// The user's key store: its device key in the system keyring when a Secret Service is
/// reachable on this session's D-Bus, unless PASSPORT_KEYRING=off; otherwise the file. Throws
/// `MissingLibrary` when a session bus is there but libsecret is not.
func userKeyStore() throws -> KeyStore {
    let off = ProcessInfo.processInfo.environment["PASSPORT_KEYRING"] == "off"
    return KeyStore(vault: off ? nil : try SystemKeyring.connect())
}

/// For `doctor`, which runs whatever is missing: the key store as `userKeyStore` gives it, or as
/// its files alone with the reason when that failed (libsecret missing on a session bus).
func userKeyStoreOrFiles() -> (store: KeyStore, keyringProblem: Error?) {
    do { return (try userKeyStore(), nil) } catch { return (KeyStore(vault: nil), error) }
}

struct KeysStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Where the keys are kept and what protects them; says so when only the file device.key does.")

    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let store = try userKeyStore()
            let status = store.status()
            let token = try HolderToken.recorded(in: store.folder)
            let report = KeysStatusReport(folder: store.folder.path, holderDID: token.map { DIDKey.did(for: $0.publicKey) } ?? status.holderDID,
                                          holderOn: token.map { "token \"\($0.tokenLabel)\" (serial \($0.tokenSerial))" } ?? (status.holderDID == nil ? nil : "key_store"),
                                          pairwiseKeys: status.pairwiseKeys, keyFiles: status.filesByProtection, deviceKeyFile: status.deviceKeyFile,
                                          keyringReachable: store.vault != nil, newKeys: status.newKeys, weak: status.weak,
                                          advice: status.weak ? KeysStatusCommand.advice(store) : nil)
            if json { printJSON(report); return }
            print("Key store: \(report.folder)")
            print("Holder key: \(report.holderDID ?? "none yet")\(report.holderOn.map { " (\($0))" } ?? "")")
            print("Pairwise keys: \(report.pairwiseKeys)")
            let labels = ["scrypt": "passphrase (scrypt)", "keyring-device-key": "device key in the system keyring", "device-key": "device key in the file device.key"]
            for (kind, count) in report.keyFiles.sorted(by: { $0.key < $1.key }) { print("  \(count) key file(s) protected by \(labels[kind] ?? kind)") }
            print("New keys: protected by \(["passphrase": "the passphrase", "keyring": "a device key in the system keyring", "file": "a device key in the file device.key"][report.newKeys] ?? report.newKeys)")
            if let advice = report.advice { print("WEAK: \(advice)") }
        } catch {
            throw fail(error, json: json)
        }
    }

    static func advice(_ store: KeyStore) -> String {
        let fix = store.vault != nil ? "run `passport keys migrate` to move the device key into the system keyring"
            : "run in a desktop session with GNOME Keyring or KWallet (a Secret Service on D-Bus) and then `passport keys migrate`, or set PASSPORT_KEYSTORE_PASSPHRASE before keys are made"
        return "anyone who can read \(store.folder.path) can open the keys protected by device.key and sign as you; \(fix)."
    }
}

/// `docs/schemas/keys-status.schema.json`.
struct KeysStatusReport: Encodable {
    let ok = true
    let folder: String
    @NullEncoded var holderDID: String?
    /// "key_store", a token's description, or null when there is no holder key yet.
    @NullEncoded var holderOn: String?
    let pairwiseKeys: Int
    /// Key files by protection ("scrypt", "keyring-device-key", "device-key").
    let keyFiles: [String: Int]
    let deviceKeyFile: Bool
    let keyringReachable: Bool
    /// What a new key would get: "passphrase", "keyring" or "file".
    let newKeys: String
    let weak: Bool
    @NullEncoded var advice: String?

    enum CodingKeys: String, CodingKey {
        case ok, folder, weak, advice
        case holderDID = "holder_did", holderOn = "holder_on", pairwiseKeys = "pairwise_keys", keyFiles = "key_files"
        case deviceKeyFile = "device_key_file", keyringReachable = "keyring_reachable", newKeys = "new_keys"
    }
}

struct KeysMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move the key store's device key from the file device.key into the system keyring (keys and DIDs unchanged).")

    func run() throws {
        do {
            let store = try userKeyStore()
            let moved = try store.migrateToKeyring()
            print(moved == 0 ? "Nothing to move: no key is protected by device.key." : "Moved the device key of \(moved) key file(s) into the system keyring; device.key is deleted.")
        } catch {
            throw fail(error, json: false)
        }
    }
}
