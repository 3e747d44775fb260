import Foundation
import Testing
import TestSupport

/// A user's stores survive an upgrade: the trust store and key stores that passport 0.2.0 wrote
/// (Fixtures/stores-0.2.0, see its README) are read by this version with the same CSCAs and
/// DIDs; and a store in a newer format than this version knows is refused, with nothing changed.
@Suite final class StoreUpgradeTests {
    static let written = TestPaths.fixtures.appendingPathComponent("stores-0.2.0")
    static let holderDID = "did:key:zDnaeTTepdGjLFoL3XXMKeKh7yNCT5L5HjXiWWd2JWVSR1avp"
    static let pairwiseDID = "did:key:zDnaeukcmZYTCtMBLpmYbdP9Y1tkhbpo9d5Gb3pKki8ekqRCA"
    static let passphraseDID = "did:key:zDnaest8pfQdSBCzRZJHDVgxTJxvSsZxedRtu25BPFPou1GYk"
    static let passphrase = "correct horse battery staple"

    let home = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: home) }

    /// A copy of one of the 0.2.0 configuration folders, private as passport wrote it.
    func copy(_ name: String) throws -> URL {
        let config = home.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.written.appendingPathComponent(name), to: config)
        let files = FileManager.default.enumerator(at: config, includingPropertiesForKeys: nil)!
        for case let url as URL in files {
            let folder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            try FileManager.default.setAttributes([.posixPermissions: folder ? 0o700 : 0o600], ofItemAtPath: url.path)
        }
        return config
    }

    /// Every file under `folder` with its bytes, to show that nothing changed.
    func snapshot(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            if let data = FileManager.default.contents(atPath: url.path), !((try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false) {
                files[url.path.replacingOccurrences(of: folder.path, with: "")] = data
            }
        }
        return files
    }

    func passport(_ arguments: [String], config: URL, _ extra: [String: String] = [:]) throws -> Harness.Result {
        try Harness.passport(arguments, environment: ["XDG_CONFIG_HOME": config.path, "PASSPORT_KEYSTORE_PASSPHRASE": ""].merging(extra) { $1 })
    }

    func errorCode(_ r: Harness.Result) -> String? { (r.json?["error"] as? [String: Any])?["code"] as? String }

    @Test func the020KeyStoresGiveTheSameDIDs() throws {
        let device = try copy("device")
        let holder = try passport(["keys", "show"], config: device)
        #expect(holder.status == 0, "\(holder.stderr)")
        #expect(holder.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.holderDID)
        let pairwise = try passport(["keys", "show", "--aud", "https://verifier.example"], config: device)
        #expect(pairwise.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.pairwiseDID, "\(pairwise.stderr)")

        let protected = try copy("passphrase")
        let withPassphrase = try passport(["keys", "show"], config: protected, ["PASSPORT_KEYSTORE_PASSPHRASE": Self.passphrase])
        #expect(withPassphrase.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.passphraseDID, "\(withPassphrase.stderr)")
        let wrong = try passport(["keys", "show"], config: protected, ["PASSPORT_KEYSTORE_PASSPHRASE": "not the passphrase"])
        #expect(wrong.status == 2 && wrong.stderr.contains("wrong passphrase"), "\(wrong.stderr)")
    }

    @Test func the020TrustStoreListsTheSameAnchorsAndVerifies() throws {
        let device = try copy("device")
        let list = try passport(["trust", "list", "--json"], config: device)
        #expect(list.status == 0, "\(list.stderr)")
        let countries = try #require(list.json?["countries"] as? [[String: Any]])
        #expect(countries.count == 1)
        #expect(countries.first?["country"] as? String == "UTO")
        #expect((countries.first?["cscas"] as? [String: Any])?["total"] as? Int == 2)
        #expect((countries.first?["crls"] as? [Any])?.count == 1)

        let verify = try passport(["verify", TestPaths.fixtures.appendingPathComponent("passport").path], config: device)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("2 CSCA(s), 0 DSC(s), 1 CRL(s) of 1 countries from the trust store"), "\(verify.stdout)")
    }

    @Test func aNewKeyInAn020StoreMarksItsFormat() throws {
        let device = try copy("device")
        let r = try passport(["keys", "show", "--aud", "https://other.example"], config: device)
        #expect(r.status == 0, "\(r.stderr)")
        let marker = device.appendingPathComponent("passport/keys/format")
        // The new key was named with the store's own secret: the store is format 2 from then on.
        #expect((try? String(contentsOf: marker, encoding: .utf8)) == "2\n")
        // The 0.2.0 keys are still the same keys.
        let holder = try passport(["keys", "show"], config: device)
        #expect(holder.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.holderDID)
    }

    @Test func aTrustStoreInANewerFormatIsRefusedAndLeftAlone() throws {
        let device = try copy("device")
        let store = device.appendingPathComponent("passport/trust")
        let generation = try String(contentsOf: store.appendingPathComponent("CURRENT"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let catalog = store.appendingPathComponent(generation).appendingPathComponent("catalog.json")
        // A newer release's catalog: another version and a shape this one cannot decode.
        try Data(#"{"version": 2, "layout": {"countries": "sharded"}}"#.utf8).write(to: catalog)
        let before = snapshot(store)

        let list = try passport(["trust", "list", "--json"], config: device)
        #expect(list.status == 2)
        #expect(errorCode(list) == "newer_store_format")
        let message = (list.json?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("newer version of passport") && message.contains("format 2"), "\(message)")

        let importing = try passport(["trust", "import", TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path, "--json"], config: device)
        #expect(importing.status == 2)
        #expect(errorCode(importing) == "newer_store_format")
        let verify = try passport(["verify", TestPaths.fixtures.appendingPathComponent("passport").path], config: device)
        #expect(verify.status == 2, "\(verify.stdout)\(verify.stderr)")
        #expect(snapshot(store) == before, "the newer store was changed")
    }

    @Test(arguments: ["format", "holder.json"])
    func aKeyStoreInANewerFormatIsRefusedAndLeftAlone(marker: String) throws {
        let device = try copy("device")
        let keys = device.appendingPathComponent("passport/keys")
        if marker == "format" {
            try Data("3\n".utf8).write(to: keys.appendingPathComponent("format"))
        } else {
            let holder = keys.appendingPathComponent("holder.json")
            let text = try String(contentsOf: holder, encoding: .utf8)
            try Data(text.replacingOccurrences(of: #""version":1"#, with: #""version":2"#).utf8).write(to: holder)
            #expect(try String(contentsOf: holder, encoding: .utf8).contains(#""version":2"#))
        }
        let before = snapshot(keys)
        for arguments in [["keys", "show"], ["keys", "show", "--aud", "https://new.example"]] {
            let r = try passport(arguments, config: device)
            #expect(r.status == 2, "\(arguments): \(r.stdout)")
            #expect(r.stderr.contains("newer version of passport"), "\(arguments): \(r.stderr)")
        }
        #expect(snapshot(keys) == before, "the newer key store was changed")
    }
}
