import Foundation
import Testing
import TestSupport

/// `passport keys export` / `keys import`: a passphrase-encrypted backup that restores the same
/// DIDs elsewhere, asked for before anything leaves the key store.
@Suite(.serialized) final class KeyBackup {
    let home = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: home) }

    func env(_ store: String, passphrase: String = "correct horse battery") -> [String: String] {
        ["XDG_CONFIG_HOME": home.appendingPathComponent(store).path, "PASSPORT_EXPORT_PASSPHRASE": passphrase]
    }

    func dids(_ store: String) throws -> [String] {
        try [["keys", "show"], ["keys", "show", "--aud", "https://a.example"], ["keys", "show", "--aud", "x509_hash:abc"]].map {
            try Harness.passport($0, environment: env(store)).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test func exportAsksThenRestoresTheSameKeys() throws {
        let original = try dids("a")
        let backup = home.appendingPathComponent("keys.backup").path
        let closed = try Harness.passport(["keys", "export", "--out", backup], environment: env("a"))
        #expect(closed.status == 1 && closed.stderr.contains("Not exported: stdin is closed"), "\(closed.stderr)")
        #expect(closed.stderr.contains("holder key: \(original[0])") && closed.stderr.contains("2 pairwise key(s)"), "\(closed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: backup))
        let exported = try Harness.passport(["keys", "export", "--out", backup], environment: env("a"), stdin: "y\n")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: backup, encoding: .utf8)
        #expect(!text.contains("device") && text.contains("\"kdf\":\"scrypt\""))
        let again = try Harness.passport(["keys", "export", "--out", backup, "--yes"], environment: env("a"))
        #expect(again.status == 2, "an existing backup is not overwritten")

        let wrong = try Harness.passport(["keys", "import", backup, "--yes"], environment: env("b", passphrase: "wrong passphrase"))
        #expect(wrong.status == 2 && wrong.stderr.contains("wrong passphrase"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("b/passport/keys/holder.json").path), "nothing imported")
        let imported = try Harness.passport(["keys", "import", backup, "--yes"], environment: env("b"))
        #expect(imported.status == 0 && imported.stdout.contains("Imported 3 key(s)"), "\(imported.stderr)")
        #expect(try dids("b") == original, "the same holder and pairwise DIDs")

        // A store that already has another holder key refuses the import as a whole.
        _ = try dids("c")
        let clash = try Harness.passport(["keys", "import", backup, "--yes"], environment: env("c"))
        #expect(clash.status == 2 && clash.stderr.contains("already holds a different key"), "\(clash.stderr)")
    }
}
