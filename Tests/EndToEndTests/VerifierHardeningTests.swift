import Credentials
import Foundation
import OpenID4VP
import PassportCrypto
import Testing
import TestSupport

/// Issue 48, items 8–10 and 13, through the `passport verify-vp` binary: input beyond its bound,
/// an issuer certificate for other purposes or an `iss` it does not name, a credential of another
/// type, and what a refused presentation prints.
@Suite(.serialized) final class VerifierHardening {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path] }
    static let pki = TestPaths.fixtures.appendingPathComponent("pki/issuer")
    static func pem(_ name: String) -> String { pki.appendingPathComponent("TEST-ONLY-\(name).pem").path }
    nonisolated(unsafe) static let request: [String: Any] = ["client_id": "redirect_uri:https://shop.example/cb", "nonce": "n-1", "state": "s-1",
                                         "dcql_query": ["credentials": [["id": "pid", "format": "dc+sd-jwt", "claims": [["path": ["age_over_18"]]]]]]]

    deinit { try? FileManager.default.removeItem(at: home) }

    /// A presentation of an SD-JWT signed by the fixture institution `issuer` (its leaf in x5c),
    /// or self-issued when `issuer` is nil, with the given iss and vct.
    func token(issuer: String? = "issuer", iss: String = "https://issuer.test-only.example", vct: String? = PassportCredential.vct,
               aud: String = "https://shop.example", nonce: String = "n-1") throws -> String {
        let holder = try P256PrivateKey()
        let signer: any ES256Signer = try issuer.map { try IssuerTrust.privateKey(pemFile: Self.pem("\($0).key")) } ?? holder
        let disclosure = try SDJWT.Disclosure(salt: SDJWT.salt(), name: "age_over_18", value: true)
        let now = Int(Date().timeIntervalSince1970)
        var payload: [String: Any] = ["iss": issuer == nil ? DIDKey.did(for: holder.publicKey) : iss, "iat": now, "exp": now + 3600,
                                      "cnf": ["jwk": holder.publicKey.jwk], "_sd": [disclosure.digest], "_sd_alg": "sha-256"]
        if let vct { payload["vct"] = vct }
        var header: [String: Any] = ["typ": "dc+sd-jwt"]
        if let issuer { header["x5c"] = try IssuerTrust.x5c(pemFile: Self.pem(issuer)) }
        let issued = SDJWT.presentedPart(jwt: try CompactJWS.sign(header: header, payload: payload, key: signer), disclosures: [disclosure.encoded])
        return issued + (try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: ["iat": now, "aud": aud, "nonce": nonce, "sd_hash": SDJWT.digest(issued)],
                                             key: holder))
    }

    func verify(_ token: String, _ extra: [String] = [], json: Bool = true, stdin: String? = nil) throws -> Harness.Result {
        try Harness.passport(["verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-1", "--trust-issuer", Self.pem("issuer-ca")]
                             + (json ? ["--json"] : []) + extra, environment: env, stdin: stdin)
    }

    func write(_ text: String, _ name: String) throws -> String {
        let url = home.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func requestFile(_ request: [String: Any] = VerifierHardening.request) throws -> String {
        try write(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self), "request-\(UUID().uuidString).json")
    }

    static func errorMessage(_ r: Harness.Result) -> String {
        ((r.json?["error"] as? [String: Any])?["message"] as? String) ?? "(no JSON error) \(r.stdout.prefix(300)) \(r.stderr.prefix(300))"
    }

    static func errorCode(_ r: Harness.Result) -> String? { (r.json?["error"] as? [String: Any])?["code"] as? String }

    // MARK: item 8

    @Test func aTokenOver1MiBInAFileOrOnStdinIsRefusedOnItsSize() throws {
        let valid = try token()
        #expect(try verify(valid).status == 0)
        let file = try write(valid + String(repeating: " ", count: 1 << 20), "large.token")
        for (label, r) in [("file", try verify(file)), ("stdin", try verify("-", stdin: String(repeating: "A", count: 3 << 20)))] {
            #expect(r.status == 1, "\(label): \(r.stderr.prefix(300))")
            try Harness.expectShape(r, "error")
            #expect(Self.errorCode(r) == "invalid_presentation", "\(label)")
            #expect(Self.errorMessage(r).contains("1048576"), "\(label): \(Self.errorMessage(r))")
            #expect(r.stderr.utf8.count < 400, "\(label): stderr repeats the token (\(r.stderr.utf8.count) bytes)")
        }
    }

    @Test func aFormBodyOver1MiBIsRefusedOnItsSize() throws {
        let body = try write("state=s-1&vp_token=" + String(repeating: "A", count: 1 << 20), "large.form")
        let r = try Harness.passport(["verify-vp", body, "--request", try requestFile(), "--json", "--require-level", "L1"], environment: env)
        #expect(r.status == 1, "\(r.stderr.prefix(300))")
        try Harness.expectShape(r, "error")
        #expect(Self.errorCode(r) == "invalid_presentation")
        #expect(Self.errorMessage(r).contains("1048576"), "\(Self.errorMessage(r))")
    }

    // MARK: item 9

    @Test func anIssuerCertificateForServerAuthenticationOnlyIsRefused() throws {
        let r = try verify(try token(issuer: "eku-server"))
        #expect(r.status == 1, "\(r.stdout)")
        #expect(Self.errorCode(r) == "invalid_presentation")
        #expect(Self.errorMessage(r).contains("extended key usage"), "\(Self.errorMessage(r))")
        let text = try verify(try token(issuer: "eku-server"), json: false)
        #expect(text.status == 1 && text.stderr.contains("extended key usage"), "\(text.stderr)")
    }

    @Test func anIssWithUserinfoIsRefusedAndNeverReportedAsTheIssuer() throws {
        let userinfo = "https://passport-office.gov.example@issuer.test-only.example/"
        let r = try verify(try token(issuer: "issuer-docsign", iss: userinfo))
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.json?["issuer"] == nil, "reported as the issuer: \(r.stdout)")
        #expect(Self.errorMessage(r).contains("iss"), "\(Self.errorMessage(r))")
        // The same certificate with an iss it names exactly.
        let named = try verify(try token(issuer: "issuer-docsign", iss: "https://issuer.test-only.example/offices/berlin"))
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
        #expect(named.json?["issuer"] as? String == "https://issuer.test-only.example/offices/berlin")
    }

    // MARK: item 10

    @Test func aCredentialOfAnotherTypeIsRefusedUnlessTheVerifierNamesIt() throws {
        let foreign = try token(vct: "urn:eudi:pid:1")
        let refused = try verify(foreign)
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(Self.errorMessage(refused).contains("vct"), "\(Self.errorMessage(refused))")
        #expect(try verify(try token(vct: nil)).status == 1, "an untyped credential")
        let named = try verify(foreign, ["--vct", "urn:eudi:pid:1"])
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
        // Naming another type replaces the default: the toolkit's own is then refused.
        #expect(try verify(try token(), ["--vct", "urn:eudi:pid:1"]).status == 1)
        #expect(try verify(try token(), ["--vct", "urn:eudi:pid:1", "--vct", PassportCredential.vct]).status == 0)
    }

    @Test func aVPTokenOfAnotherTypeIsRefusedWhenTheQueryNamesNone() throws {
        let request = try requestFile()
        func run(_ vct: String?, _ extra: [String] = []) throws -> Harness.Result {
            let vpToken = String(decoding: try JSONSerialization.data(withJSONObject: ["pid": [try token(vct: vct, aud: "redirect_uri:https://shop.example/cb")]]),
                                 as: UTF8.self)
            return try Harness.passport(["verify-vp", vpToken, "--request", request, "--state", "s-1", "--trust-issuer", Self.pem("issuer-ca"), "--json"] + extra,
                                        environment: env)
        }
        let ours = try run(PassportCredential.vct)
        #expect(ours.status == 0, "\(ours.stdout)\(ours.stderr)")
        let foreign = try run("urn:eudi:pid:1")
        #expect(foreign.status == 1 && Self.errorMessage(foreign).contains("vct"), "\(foreign.stdout)")
        #expect(try run("urn:eudi:pid:1", ["--vct", "urn:eudi:pid:1"]).status == 0)
    }

    // MARK: item 13

    @Test func aRefusedPresentationShowsNoClaimValues() throws {
        let selfIssued = try token(issuer: nil)
        let json = try verify(selfIssued)
        #expect(json.status == 1)
        try Harness.expectShape(json, "verify-vp")
        #expect(json.json?["ok"] as? Bool == false)
        #expect(json.json?["claims"] is NSNull, "claims of a refused presentation: \(json.stdout)")
        let text = try verify(selfIssued, json: false)
        #expect(text.status == 1 && text.stdout.contains("refused"), "\(text.stdout)")
        #expect(!text.stdout.contains("age_over_18"), "claims printed for a refused presentation: \(text.stdout)")
        // Accepted at L1, the same presentation shows them.
        let accepted = try verify(selfIssued, ["--require-level", "L1"], json: false)
        #expect(accepted.status == 0 && accepted.stdout.contains("age_over_18: true"), "\(accepted.stdout)")
    }

    @Test func aRefusedVPTokenShowsNoClaimValues() throws {
        let vpToken = String(decoding: try JSONSerialization.data(withJSONObject: ["pid": [try token(issuer: nil, aud: "redirect_uri:https://shop.example/cb")]]),
                             as: UTF8.self)
        let arguments = ["verify-vp", vpToken, "--request", try requestFile(), "--state", "s-1"]
        let json = try Harness.passport(arguments + ["--json"], environment: env)
        #expect(json.status == 1)
        try Harness.expectShape(json, "verify-vp-token")
        let presentation = ((json.json?["credentials"] as? [String: Any])?["pid"] as? [[String: Any]])?.first
        #expect(presentation?["claims"] is NSNull, "\(json.stdout)")
        let text = try Harness.passport(arguments, environment: env)
        #expect(text.status == 1 && text.stdout.contains("refused"), "\(text.stdout)")
        #expect(!text.stdout.contains("age_over_18"), "\(text.stdout)")
    }
}
