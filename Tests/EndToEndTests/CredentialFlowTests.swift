import Foundation
import Testing
import TestSupport

/// issue → present → verify-vp through the `passport` executable, and interoperability with
/// the SD-JWT reference implementation (PyPI sd-jwt) in both directions.
@Suite(.serialized) final class CredentialFlow {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path] }
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static let interopPython = TestPaths.projectRoot.appendingPathComponent(".build-interop/venv/bin/python")
    static let interopScript = TestPaths.projectRoot.appendingPathComponent("scripts/interop/sdjwt_interop.py").path
    static let interopAvailable = FileManager.default.fileExists(atPath: interopPython.path)
        || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"

    deinit { try? FileManager.default.removeItem(at: home) }

    func issue(_ format: String, dump: String = "passport") throws -> String {
        let out = home.appendingPathComponent("credential-\(format)").path
        let r = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent(dump).path, "--no-default-trust",
                                      "--csca", Self.csca, "--format", format, "--out", out, "--yes", "--json"], environment: env)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        let json = try #require(r.json)
        #expect(json["verification_method"] as? String == "NFC Verified")
        #expect(json["level"] as? String == "L1", "a self-issued credential is L1 whatever it says")
        #expect((json["prover"] as? [String: Any])?["reason"] is String, "the fallback gives its reason")
        return out
    }

    func present(_ credential: String, aud: String, nonce: String, disclose: String? = nil) throws -> String {
        let r = try Harness.passport(["present", credential, "--aud", aud, "--nonce", nonce, "--yes"]
                                     + (disclose.map { ["--disclose", $0] } ?? []), environment: env)
        try #require(r.status == 0, "present failed: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        try #require(lines.count == 1, "present prints exactly one token")
        return String(lines[0])
    }

    @Test(arguments: ["sd-jwt", "jwt"])
    func issuePresentVerify(format: String) throws {
        let credential = try issue(format)
        let a = try present(credential, aud: "https://a.example", nonce: "nonce-a")
        let b = try present(credential, aud: "https://b.example", nonce: "nonce-b")
        let ok = try Harness.passport(["verify-vp", a, "--aud", "https://a.example", "--nonce", "nonce-a", "--json", "--require-level", "L1"], environment: env)
        #expect(ok.status == 0, "\(ok.stderr)")
        let claims = try #require(ok.json?["claims"] as? [String: Any])
        #expect(claims["age_over_18"] as? Bool == true)
        #expect(claims["is_human"] as? Bool == true)
        #expect(claims["nationality"] == nil)
        // A presentation is good for its own audience and nonce only.
        let replayed = try Harness.passport(["verify-vp", a, "--aud", "https://b.example", "--nonce", "nonce-b", "--require-level", "L1"], environment: env)
        #expect(replayed.status == 1)
        #expect(replayed.stderr.contains("another audience"))
        #expect(try Harness.passport(["verify-vp", b, "--aud", "https://b.example", "--nonce", "nonce-a", "--require-level", "L1"], environment: env).status == 1)
        // Different verifiers see different issuers (pairwise DIDs).
        let issuerA = ok.json?["issuer"] as? String
        let issuerB = try Harness.passport(["verify-vp", b, "--aud", "https://b.example", "--nonce", "nonce-b", "--json", "--require-level", "L1"], environment: env).json?["issuer"] as? String
        #expect(issuerA != nil && issuerB != nil && issuerA != issuerB)
        // No personal data anywhere.
        let stored = try String(contentsOfFile: credential, encoding: .utf8)
        for token in [stored, a, b] {
            let decoded = Self.decodeAllParts(token)
            for secret in ["SPECIMEN", "ALEX", "C01X00T47", "880412", "1988-04-12", "19880412"] {
                #expect(!decoded.contains(secret), "\(secret) appears in a token")
            }
        }
    }

    @Test func refusesToIssueForATamperedDump() throws {
        let r = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("pa/tampered-dg").path,
                                      "--no-default-trust", "--csca", Self.csca], environment: env)
        #expect(r.status == 1)
        #expect(r.stderr.contains("Refusing to issue a credential"))
        #expect(r.stderr.contains("DG11"))
        #expect(r.stdout.isEmpty)
    }

    @Test(.enabled(if: interopAvailable, "the sd-jwt interop virtualenv is missing (run scripts/setup)"))
    func referenceVerifierAcceptsOurPresentation() throws {
        let credential = try issue("sd-jwt")
        let token = try present(credential, aud: "https://verifier.example", nonce: "ref-nonce",
                                disclose: "age_over_18,is_human")
        let r = try Harness.run(Self.interopPython, [Self.interopScript, "verify-ours", token, "https://verifier.example", "ref-nonce"])
        #expect(r.status == 0, "reference verifier refused: \(r.stderr)")
        let payload = try #require(r.json)
        #expect(payload["age_over_18"] as? Bool == true)
        #expect(payload["is_human"] as? Bool == true)
        #expect(payload["trust_level"] == nil, "the level is the verifier's to establish, not a claim")
        #expect(payload["verification_method"] == nil)
        // …and refuses it for another nonce.
        #expect(try Harness.run(Self.interopPython, [Self.interopScript, "verify-ours", token, "https://verifier.example", "other"]).status != 0)
    }

    @Test(.enabled(if: interopAvailable, "the sd-jwt interop virtualenv is missing (run scripts/setup)"))
    func ourVerifierAcceptsTheReferencePresentation() throws {
        let made = try Harness.run(Self.interopPython, [Self.interopScript, "make-theirs", "https://verifier.example", "their-nonce"])
        try #require(made.status == 0, "reference issuer failed: \(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Its credential type is the reference issuer's (scripts/interop/sdjwt_interop.py), which
        // the verifier must name: by default only the toolkit's own is accepted.
        let vct = ["--vct", "https://example.org/reference-test"]
        let r = try Harness.passport(["verify-vp", token, "--aud", "https://verifier.example", "--nonce", "their-nonce", "--json", "--require-level", "L1"] + vct)
        #expect(r.status == 0, "\(r.stderr)")
        let claims = try #require(r.json?["claims"] as? [String: Any])
        #expect(claims["age_over_18"] as? Bool == true)
        #expect((claims["address"] as? [String: Any])?["country"] as? String == "UT")
        #expect((claims["address"] as? [String: Any])?["locality"] == nil)
        #expect(claims["nationalities"] as? [String] == ["UT"])
        #expect(claims["given_name"] == nil)
        #expect(try Harness.passport(["verify-vp", token, "--aud", "https://verifier.example", "--nonce", "x", "--require-level", "L1"] + vct).status == 1)
        let untyped = try Harness.passport(["verify-vp", token, "--aud", "https://verifier.example", "--nonce", "their-nonce", "--require-level", "L1"])
        #expect(untyped.status == 1 && untyped.stderr.contains("vct"), "\(untyped.stderr)")
    }

    /// Every base64url part of a JWT/SD-JWT, decoded, joined with the raw token; twice, so
    /// that a VC-JWT nested in a VP payload is decoded too.
    static func decodeAllParts(_ token: String, depth: Int = 2) -> String {
        var out = token
        for piece in token.split(whereSeparator: { $0 == "~" || $0 == "." || $0 == "\"" }) {
            var base64 = piece.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            if let data = Data(base64Encoded: base64) {
                let text = String(decoding: data, as: UTF8.self)
                out += "\n" + (depth > 1 ? decodeAllParts(text, depth: depth - 1) : text)
            }
        }
        return out
    }
}
