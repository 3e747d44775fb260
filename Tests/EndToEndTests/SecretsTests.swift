import Foundation
import Testing
import TestSupport

/// No MRZ, DG1 content, session key or private key may appear where it was not asked for:
/// a full scan with the most verbose output, then a credential flow.
extension VirtualPassportStack {
@Suite(.serialized)
final class SecretsStayOut {
    let work = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: work) }

    /// What must never be printed unasked: the MRZ lines, the BAC key seed input, DG1's bytes.
    static let secrets: [String] = {
        let fixture = TestPaths.fixtures.appendingPathComponent("passport")
        let mrz = (try? String(contentsOf: fixture.appendingPathComponent("mrz.txt"), encoding: .utf8)) ?? ""
        let dg1 = (try? Data(contentsOf: fixture.appendingPathComponent("DG1.bin"))).map { hex([UInt8]($0)) } ?? "missing"
        return mrz.split(separator: "\n").map(String.init) + ["C01X00T47888041233409305", "C01X00T47<", dg1, String(dg1.prefix(40))]
    }()

    /// Long hexadecimal runs (16+ bytes) would be keys, nonces or raw chip data.
    static func longHexRuns(_ text: String) -> [String] {
        var runs: [String] = []
        var current = ""
        for character in text {
            if character.isHexDigit { current.append(character) } else {
                if current.count >= 32 { runs.append(current) }
                current = ""
            }
        }
        if current.count >= 32 { runs.append(current) }
        return runs
    }

    @Test(arguments: [["--pace"], [String]()])
    func verboseScanPrintsNoSecrets(chipOptions: [String]) throws {
        let fixture = TestPaths.fixtures.appendingPathComponent(chipOptions.isEmpty ? "passport" : "passport-pace")
        try Harness.startVirtualPassport(fixture, chipOptions)
        let out = work.appendingPathComponent("dump-\(UUID().uuidString)")
        let mrz = Self.secrets[0] + "\\n" + Self.secrets[1]
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        let r = try Harness.passport(["scan", "--verbose", "--mrz", mrz, "--out", out.path, "--no-default-trust", "--csca", csca])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("READ BINARY") || r.stderr.contains("Read DG2"), "verbose output is expected on stderr")
        for secret in Self.secrets {
            #expect(!r.stderr.contains(secret), "stderr leaks \(secret.prefix(12))…")
        }
        // stdout is the report the user asked for: document fields, but never the MRZ or keys.
        for secret in Self.secrets where secret != "C01X00T47<" {
            #expect(!r.stdout.contains(secret), "stdout leaks \(secret.prefix(12))…")
        }
        #expect(Self.longHexRuns(r.stderr).isEmpty, "hex material on stderr: \(Self.longHexRuns(r.stderr).prefix(2))")
        #expect(Self.longHexRuns(r.stdout).isEmpty, "hex material on stdout")
        // The dump's manifest holds file hashes only.
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
        for secret in Self.secrets { #expect(!manifest.contains(secret)) }
        // The virtual passport's own log (test infrastructure) keeps them out too.
        if let log = try? String(contentsOfFile: "/tmp/virtual-passport/card.log", encoding: .utf8) {
            for secret in Self.secrets { #expect(!log.contains(secret), "card.log leaks \(secret.prefix(12))…") }
        }
    }

    @Test func traceIsTheOnlyWayToSeeAPDUsAndItWarns() throws {
        try Harness.startVirtualPassport(TestPaths.fixtures.appendingPathComponent("passport"))
        let r = try Harness.passport(["scan", "--trace-apdus", "--out", work.appendingPathComponent("t").path,
                                      "--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: the APDU trace below contains session keys and personal data"))
    }

    @Test func credentialCommandsPrintNoKeyMaterial() throws {
        let home = work.appendingPathComponent("home")
        let env = ["XDG_CONFIG_HOME": home.path]
        let credential = work.appendingPathComponent("c.sdjwt").path
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        let issued = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust",
                                           "--csca", csca, "--out", credential, "--yes", "--json"], environment: env)
        #expect(issued.status == 0)
        let holder = try String(contentsOf: home.appendingPathComponent("passport/keys/holder.json"), encoding: .utf8)
        let ciphertext = try #require((try JSONSerialization.jsonObject(with: Data(holder.utf8)) as? [String: Any])?["ciphertext"] as? String)
        let present = try Harness.passport(["present", credential, "--aud", "https://a.example", "--nonce", "n", "--yes", "--json"], environment: env)
        for output in [issued.stdout, issued.stderr, present.stdout, present.stderr] {
            #expect(!output.contains(ciphertext))
            #expect(!output.contains("\"d\""), "a private JWK member appears")
            for secret in Self.secrets { #expect(!output.contains(secret)) }
        }
    }
}
}
