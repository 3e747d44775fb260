import Foundation
import Testing
import TestSupport

let softHSMModule = "/usr/lib/softhsm/libsofthsm2.so"
let softHSMAvailable = FileManager.default.fileExists(atPath: softHSMModule)
    || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"

/// The holder key on a PKCS#11 token, with SoftHSM2 (a real PKCS#11 module, Debian `softhsm2`)
/// as the token: `keys init --pkcs11`, issuing with the key on the token, a wrong PIN, a token
/// that is gone, and the confirmation asked before anything is signed.
@Suite(.serialized, .enabled(if: softHSMAvailable, "softhsm2 is not installed (run scripts/setup)"))
final class HardwareToken {
    static let module = softHSMModule
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static let dump = TestPaths.fixtures.appendingPathComponent("passport").path

    let home = Harness.temporaryFolder()
    var tokens: URL { home.appendingPathComponent("tokens") }
    var keys: URL { home.appendingPathComponent("config/passport/keys") }
    var env: [String: String] {
        ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "SOFTHSM2_CONF": home.appendingPathComponent("softhsm2.conf").path,
         "PASSPORT_PKCS11_PIN": "4711", "PASSPORT_KEYRING": "off"]
    }

    /// A fresh SoftHSM token "holder-test" with user PIN 4711, in this test's own folder.
    init() throws {
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        try Data("directories.tokendir = \(tokens.path)\nobjectstore.backend = file\nlog.level = ERROR\n".utf8)
            .write(to: home.appendingPathComponent("softhsm2.conf"))
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/softhsm2-util"),
                                ["--init-token", "--free", "--label", "holder-test", "--pin", "4711", "--so-pin", "0815"], environment: env)
        try #require(r.status == 0, "softhsm2-util --init-token failed: \(r.stderr)")
    }

    deinit { try? FileManager.default.removeItem(at: home) }

    func initToken(_ extra: [String] = []) throws -> Harness.Result {
        try Harness.passport(["keys", "init", "--pkcs11", Self.module, "--json"] + extra, environment: env)
    }

    func issue(_ extra: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Harness.Result {
        try Harness.passport(["issue", Self.dump, "--no-default-trust", "--csca", Self.csca] + extra,
                             environment: env.merging(environment) { $1 }, stdin: stdin)
    }

    static func code(_ result: Harness.Result) -> String? {
        (result.json?["error"] as? [String: Any])?["code"] as? String
    }

    /// The `iss` of a credential's issuer-signed JWT.
    static func issuer(ofCredential credential: String) throws -> String? {
        let jwt = credential.split(separator: "~").first.map(String.init) ?? credential
        let payload = try #require(jwt.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let object = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64))) as? [String: Any]
        return object?["iss"] as? String
    }

    @Test func holderKeyMadeOnTheTokenSignsCredentials() throws {
        let made = try initToken()
        try #require(made.status == 0, "keys init --pkcs11 failed: \(made.stderr)")
        let did = try #require(made.json?["did"] as? String)
        #expect(made.json?["created"] as? Bool == true)
        #expect(made.json?["location"] as? String == "token")
        try Harness.expectShape(made, "keys-init")
        // Found again, not made twice; `keys show` needs no PIN for the public key.
        let again = try initToken()
        #expect(again.json?["did"] as? String == did && again.json?["created"] as? Bool == false, "\(again.stdout)")
        let shown = try Harness.passport(["keys", "show"], environment: env.merging(["PASSPORT_PKCS11_PIN": "wrong"]) { $1 })
        #expect(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == did)
        // The key store holds the token's name and the public key only: no software holder key.
        #expect(!FileManager.default.fileExists(atPath: keys.appendingPathComponent("holder.json").path))
        let record = try String(contentsOf: keys.appendingPathComponent("holder-token.json"), encoding: .utf8)
        #expect(record.contains("holder-test") && !record.contains("\"d\""))

        let out = home.appendingPathComponent("credential").path
        let issued = try issue(["--out", out, "--yes", "--json"])
        try #require(issued.status == 0, "issue failed: \(issued.stderr)")
        #expect(issued.json?["holder"] as? String == did)
        let credential = try String(contentsOfFile: out, encoding: .utf8)
        #expect(try Self.issuer(ofCredential: credential) == did, "the credential is signed by the token's key")
        #expect(issued.stderr.contains("on token \"holder-test\""), "\(issued.stderr)")
        // Presenting opens the credential with the token's public key (no PIN) and signs with the pairwise key.
        let presented = try Harness.passport(["present", out, "--aud", "https://a.example", "--nonce", "n-1", "--yes"],
                                             environment: env.merging(["PASSPORT_PKCS11_PIN": "wrong"]) { $1 })
        try #require(presented.status == 0, "present failed: \(presented.stderr)")
        let verified = try Harness.passport(["verify-vp", presented.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                                             "--aud", "https://a.example", "--nonce", "n-1", "--require-level", "L1"], environment: env)
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func wrongPINAndMissingTokenSignNothing() throws {
        try #require(try initToken().status == 0)
        let out = home.appendingPathComponent("credential").path
        let wrongPIN = try issue(["--out", out, "--yes", "--json"], environment: ["PASSPORT_PKCS11_PIN": "0000"])
        #expect(wrongPIN.status == 2)
        #expect(Self.code(wrongPIN) == "wrong_pin", "\(wrongPIN.stdout)")
        #expect(wrongPIN.stderr.contains("refused the PIN") && wrongPIN.stderr.contains("Nothing was signed"), "\(wrongPIN.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // The token is unplugged: SoftHSM's token folder is gone (a fresh empty one stands in).
        try FileManager.default.moveItem(at: tokens, to: home.appendingPathComponent("unplugged"))
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        let absent = try issue(["--out", out, "--yes", "--json"])
        #expect(absent.status == 2)
        #expect(Self.code(absent) == "token_absent", "\(absent.stdout)")
        #expect(absent.stderr.contains("is not present: insert it"), "\(absent.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let noModule = try Harness.passport(["keys", "init", "--pkcs11", "/nonexistent/pkcs11.so", "--json"], environment: env)
        #expect(noModule.status == 2 && Self.code(noModule) == "pkcs11_module_unloadable", "\(noModule.stdout)")
    }

    @Test func anExistingSoftwareHolderKeyIsKeptUnlessReplaced() throws {
        let software = try Harness.passport(["keys", "show"], environment: env)
        try #require(software.status == 0)
        let refused = try initToken()
        #expect(refused.status == 2 && Self.code(refused) == "holder_key_exists", "\(refused.stdout)")
        #expect(refused.stderr.contains(software.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let replaced = try initToken(["--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(replaced.json?["did"] as? String != software.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let kept = try FileManager.default.contentsOfDirectory(atPath: keys.path).filter { $0.hasPrefix("holder.json.replaced-") }
        #expect(kept.count == 1, "the software key is renamed, not deleted")
    }

    /// Nothing is signed without a yes: a closed stdin, a "no", then a typed "y".
    @Test func issuingAndPresentingAskFirst() throws {
        let out = home.appendingPathComponent("credential").path
        let closed = try issue(["--out", out, "--json"])
        #expect(closed.status == 1 && Self.code(closed) == "declined", "\(closed.stdout)")
        #expect(closed.stderr.contains("will be signed by your holder key") && closed.stderr.contains("age_over_18=true"), "\(closed.stderr)")
        #expect(closed.stderr.contains("stdin is closed"))
        try Harness.expectShape(closed, "error")
        #expect(!FileManager.default.fileExists(atPath: out))
        let no = try issue(["--out", out], stdin: "n\n")
        #expect(no.status == 1 && no.stderr.contains("Not signed: you answered \"n\""), "\(no.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let yes = try issue(["--out", out], stdin: "y\n")
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))

        let present = try Harness.passport(["present", out, "--aud", "https://a.example", "--nonce", "n", "--json"], environment: env)
        #expect(present.status == 1 && Self.code(present) == "declined", "\(present.stdout)")
        #expect(present.stderr.contains("A presentation for https://a.example") && present.stderr.contains("disclosing: age_over_18"), "\(present.stderr)")
        #expect(!present.stdout.contains("~"), "no presentation was printed")
        let pairwise = (try? FileManager.default.contentsOfDirectory(atPath: keys.appendingPathComponent("pairwise").path)) ?? []
        #expect(pairwise.isEmpty, "a declined verifier leaves no pairwise key behind: \(pairwise)")
    }
}
