import Credentials
import Foundation
import Testing

/// TEST DOUBLE of the system keyring (the real one, gnome-keyring-daemon, is driven by
/// EndToEndTests/KeyringTests): a dictionary by folder, which can be made to refuse writes.
final class MemoryVault: DeviceKeyVault {
    var keys: [String: [UInt8]] = [:]
    var refuseStores = false
    var name: String { "the memory vault" }
    func load(for folder: URL) throws -> [UInt8]? { keys[folder.path] }
    func store(_ key: [UInt8], for folder: URL) throws {
        if refuseStores { throw CredentialError.keyStore("refused") }
        keys[folder.path] = key
    }
}

@Suite struct KeyStoreMigration {
    func folder() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)") }

    @Test func migrationKeepsEveryKeyAndRemovesTheFileLast() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fileStore = KeyStore(folder: dir, passphrase: nil)
        let holder = try fileStore.holderKey().publicKey
        let pairwise = try fileStore.pairwiseKey(for: "https://a.example").publicKey
        #expect(fileStore.status().weak)

        let vault = MemoryVault()
        vault.refuseStores = true
        let keyringStore = KeyStore(folder: dir, passphrase: nil, vault: vault)
        #expect(throws: CredentialError.self) { try keyringStore.migrateToKeyring() }
        // A refused keyring changes nothing: the file still opens every key.
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.key").path))
        #expect(try KeyStore(folder: dir, passphrase: nil).holderKey().publicKey == holder)

        vault.refuseStores = false
        #expect(try keyringStore.migrateToKeyring() == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.key").path))
        #expect(try keyringStore.holderKey().publicKey == holder)
        #expect(try keyringStore.pairwiseKey(for: "https://a.example").publicKey == pairwise)
        #expect(keyringStore.status().filesByProtection == ["keyring-device-key": 2])
        #expect(!keyringStore.status().weak)
        #expect(try keyringStore.migrateToKeyring() == 0, "running it again is harmless")
        // Without the keyring the keys are refused, not silently replaced by new ones.
        #expect(throws: CredentialError.self) { try KeyStore(folder: dir, passphrase: nil).holderKey() }
    }

    @Test func aKeyringHoldingAnotherKeyIsNotOverwritten() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try KeyStore(folder: dir, passphrase: nil).holderKey()
        let vault = MemoryVault()
        vault.keys[dir.path] = [UInt8](repeating: 7, count: 32)
        #expect(throws: CredentialError.self) { try KeyStore(folder: dir, passphrase: nil, vault: vault).migrateToKeyring() }
        #expect(vault.keys[dir.path] == [UInt8](repeating: 7, count: 32))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.key").path))
    }

    @Test func newKeysGoToTheKeyringWhenThereIsOne() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let vault = MemoryVault()
        let store = KeyStore(folder: dir, passphrase: nil, vault: vault)
        let holder = try store.holderKey().publicKey
        #expect(vault.keys[dir.path]?.count == 32)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("device.key").path))
        #expect(try KeyStore(folder: dir, passphrase: nil, vault: vault).holderKey().publicKey == holder)
        vault.keys[dir.path] = nil
        #expect(throws: CredentialError.self) { try KeyStore(folder: dir, passphrase: nil, vault: vault).holderKey() }
    }
}
