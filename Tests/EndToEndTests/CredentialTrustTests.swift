import Credentials
import Foundation
import PassportCrypto
import Testing
import TestSupport

/// Issue 41: trust levels stated by the verifier (L1 self-issued, L2 a trusted institution), an
/// institution issuer with an x5c chain, presentations that share nothing undisclosed, and a
/// verifier's text kept off the terminal's controls.
@Suite(.serialized) final class CredentialTrust {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path] }
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static let pki = TestPaths.fixtures.appendingPathComponent("pki/issuer")
    static func pem(_ name: String) -> String { pki.appendingPathComponent("TEST-ONLY-\(name).pem").path }
    static let interopPython = TestPaths.projectRoot.appendingPathComponent(".build-interop/venv/bin/python")
    static let interopScript = TestPaths.projectRoot.appendingPathComponent("scripts/interop/sdjwt_interop.py").path
    static let interopAvailable = FileManager.default.fileExists(atPath: interopPython.path)
        || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"

    deinit { try? FileManager.default.removeItem(at: home) }

    /// `passport issue` of the fixture passport; with `issuer`, as that institution (a fixture name).
    func issue(issuer: String? = nil, batch: Int = 3, nationality: Bool = false, name: String = "credential") throws -> String {
        let out = home.appendingPathComponent(name).path
        var arguments = ["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust", "--csca", Self.csca,
                         "--out", out, "--yes", "--json"]
        if let issuer { arguments += ["--issuer-key", Self.pem("\(issuer).key"), "--issuer-chain", Self.pem("\(issuer)-chain"), "--batch", "\(batch)"] }
        if nationality { arguments.append("--nationality") }
        let r = try Harness.passport(arguments, environment: env)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        try Harness.expectShape(r, "issue")
        #expect(r.json?["level"] as? String == (issuer == nil ? "L1" : "L2"))
        return out
    }

    func present(_ credential: String, aud: String, nonce: String, disclose: String = "age_over_18,is_human") throws -> String {
        let r = try Harness.passport(["present", credential, "--aud", aud, "--nonce", nonce, "--disclose", disclose, "--yes"], environment: env)
        try #require(r.status == 0, "present failed: \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func verify(_ token: String, aud: String, nonce: String, _ extra: [String] = []) throws -> Harness.Result {
        try Harness.passport(["verify-vp", token, "--aud", aud, "--nonce", nonce, "--json"] + extra, environment: env)
    }

    /// The finding: a self-made SD-JWT under a fresh key claiming age_over_18 (and, in its
    /// evidence, "L3") with a valid key binding. It verifies, is reported L1, and is refused
    /// unless the verifier accepts self-issued credentials.
    @Test func aForgedSelfIssuedTokenIsReportedL1AndRefusedByDefault() throws {
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "ZKP Verified",
                                   evidence: ["trust_level": "L3"], expiry: Date().addingTimeInterval(365 * 86_400))
        let token = try PassportCredential.present(claims, format: .sdJWT, disclose: ["age_over_18", "verification_method"],
                                                   audience: "https://shop.example", nonce: "n-1", key: try P256PrivateKey())
        let refused = try verify(token, aud: "https://shop.example", nonce: "n-1")
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        try Harness.expectShape(refused, "verify-vp")
        #expect(refused.json?["ok"] as? Bool == false)
        #expect(refused.json?["level"] as? String == "L1")
        #expect(refused.json?["required_level"] as? String == "L2")
        #expect((refused.json?["refusal"] as? String)?.contains("self-issued") == true)
        let text = try Harness.passport(["verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-1"], environment: env)
        #expect(text.status == 1 && text.stdout.contains("refused") && text.stdout.contains("L1") && !text.stdout.contains("valid"), "\(text.stdout)")
        // Trusting an issuer CA does not lift a did:key issuer.
        #expect(try verify(token, aud: "https://shop.example", nonce: "n-1", ["--trust-issuer", Self.pem("issuer-ca")]).status == 1)
        // Accepted only when the verifier accepts self-issued credentials explicitly, and still reported L1.
        let accepted = try verify(token, aud: "https://shop.example", nonce: "n-1", ["--require-level", "L1"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        try Harness.expectShape(accepted, "verify-vp")
        #expect(accepted.json?["level"] as? String == "L1")
        // L3 cannot be reached: there is no proof verifier.
        #expect(try verify(token, aud: "https://shop.example", nonce: "n-1", ["--require-level", "L3"]).status == 1)
    }

    /// The forged token of the finding had no exp: refused even by a verifier that accepts L1.
    @Test func aCredentialWithoutExpIsRefused() throws {
        let key = try P256PrivateKey()
        let did = DIDKey.did(for: key.publicKey)
        let disclosure = try SDJWT.Disclosure(salt: SDJWT.salt(), name: "age_over_18", value: true)
        let jwt = try CompactJWS.sign(header: ["typ": "dc+sd-jwt", "kid": DIDKey.verificationMethod(for: did)],
                                      payload: ["iss": did, "iat": Int(Date().timeIntervalSince1970), "vct": PassportCredential.vct,
                                                "cnf": ["jwk": key.publicKey.jwk], "_sd": [disclosure.digest], "_sd_alg": "sha-256"], key: key)
        let issued = SDJWT.presentedPart(jwt: jwt, disclosures: [disclosure.encoded])
        func kb(_ aud: Any) throws -> String {
            try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: ["iat": Int(Date().timeIntervalSince1970), "aud": aud, "nonce": "n-1",
                                                                     "sd_hash": SDJWT.digest(issued)], key: key)
        }
        let r = try verify(issued + (try kb("https://shop.example")), aud: "https://shop.example", nonce: "n-1", ["--require-level", "L1"])
        #expect(r.status == 1)
        #expect(((r.json?["error"] as? [String: Any])?["message"] as? String)?.contains("no exp") == true, "\(r.stdout)")

        // A key-binding JWT's aud must be one string (here an array holding the verifier).
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "NFC Verified", evidence: [:],
                                   expiry: Date().addingTimeInterval(86_400 * 365))
        let fresh = try PassportCredential.issue(claims, format: .sdJWT, key: key, disclose: ["age_over_18"])
        let arrayKB = try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: ["iat": Int(Date().timeIntervalSince1970), "aud": ["https://shop.example"],
                                                                               "nonce": "n-1", "sd_hash": SDJWT.digest(fresh)], key: key)
        let array = try verify(fresh + arrayKB, aud: "https://shop.example", nonce: "n-1", ["--require-level", "L1"])
        #expect(array.status == 1)
        #expect(((array.json?["error"] as? [String: Any])?["message"] as? String)?.contains("aud is not a single string") == true, "\(array.stdout)")
    }

    @Test func aCredentialFromATrustedInstitutionIsL2() throws {
        let credential = try issue(issuer: "issuer")
        let token = try present(credential, aud: "https://shop.example", nonce: "n-2")
        let ok = try verify(token, aud: "https://shop.example", nonce: "n-2", ["--trust-issuer", Self.pem("issuer-ca")])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        try Harness.expectShape(ok, "verify-vp")
        #expect(ok.json?["level"] as? String == "L2")
        #expect(ok.json?["issuer"] as? String == "https://issuer.test-only.example")
        #expect((ok.json?["issuer_certificate"] as? String)?.contains("TEST-ONLY Passport Office") == true)
        #expect((ok.json?["claims"] as? [String: Any])?["age_over_18"] as? Bool == true)
        // Without an issuer anchor, or with another one, it is refused.
        let untrusted = try verify(token, aud: "https://shop.example", nonce: "n-2")
        #expect(untrusted.status == 1 && (untrusted.json?["error"] as? [String: Any]).map { "\($0)" }?.contains("trust-issuer") == true, "\(untrusted.stdout)")
        let other = try verify(token, aud: "https://shop.example", nonce: "n-2", ["--trust-issuer", Self.pem("rogue-issuer-ca")])
        #expect(other.status == 1, "\(other.stdout)")
    }

    @Test func aCredentialFromAnUntrustedInstitutionIsRefused() throws {
        let credential = try issue(issuer: "rogue-issuer")
        let token = try present(credential, aud: "https://shop.example", nonce: "n-3")
        let r = try verify(token, aud: "https://shop.example", nonce: "n-3", ["--trust-issuer", Self.pem("issuer-ca")])
        #expect(r.status == 1)
        #expect(((r.json?["error"] as? [String: Any])?["message"] as? String)?.contains("does not chain") == true, "\(r.stdout)")
        // Nor may an institution sign with a certificate that is not for signatures.
        let nosign = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust", "--csca", Self.csca,
                                           "--issuer-key", Self.pem("issuer-nosign.key"), "--issuer-chain", Self.pem("issuer-nosign-chain"), "--yes"], environment: env)
        #expect(nosign.status == 2 && nosign.stderr.contains("digitalSignature"), "\(nosign.stderr)")
    }

    @Test func aBatchShowsEachVerifierItsOwnInstanceAndNoInstanceTwice() throws {
        let credential = try issue(issuer: "issuer", batch: 2)
        let a1 = try present(credential, aud: "https://a.example", nonce: "1")
        let a2 = try present(credential, aud: "https://a.example", nonce: "2")
        let b = try present(credential, aud: "https://b.example", nonce: "3")
        func jwt(_ token: String) -> Substring { token.prefix { $0 != "~" } }
        #expect(jwt(a1) == jwt(a2), "the same verifier sees the same instance")
        #expect(jwt(a1) != jwt(b))
        let c = try Harness.passport(["present", credential, "--aud", "https://c.example", "--nonce", "4", "--yes"], environment: env)
        #expect(c.status == 2 && c.stderr.contains("instances"), "\(c.stderr)")
    }

    /// Issue 41 item 3: what three verifiers receive shares nothing but the disclosed claims,
    /// protocol constants, the day of issuance (every credential issued that day carries it) and,
    /// at L2, the issuer.
    @Test(arguments: ["L1", "L2"])
    func presentationsToThreeVerifiersShareNoUndisclosedValue(level: String) throws {
        let credential = try issue(issuer: level == "L2" ? "issuer" : nil, nationality: true)
        var seen: [Set<String>] = []
        for (index, verifier) in ["https://a.example", "https://b.example", "https://c.example"].enumerated() {
            if index > 0 { Thread.sleep(forTimeInterval: 1.1) } // key-binding iat: the time of each presentation
            let token = try present(credential, aud: verifier, nonce: "nonce-\(index)")
            #expect(Self.digestCount(token) == PassportCredential.digestCount)
            seen.append(Self.values(token))
        }
        var shared = seen[0].intersection(seen[1]).union(seen[0].intersection(seen[2])).union(seen[1].intersection(seen[2]))
        let allowed: Set<String> = ["ES256", "dc+sd-jwt", "kb+jwt", "sha-256", "EC", "P-256", PassportCredential.vct,
                                    "age_over_18", "is_human", "true", "1"]
        shared.subtract(allowed)
        // The day of issuance and a validity in whole days: shared by everyone issued that day.
        shared = shared.filter { Int($0).map { $0 % 86_400 != 0 } ?? true }
        if level == "L2" {
            shared.remove("https://issuer.test-only.example")
            let x5c = try String(contentsOfFile: Self.pem("issuer-chain"), encoding: .utf8)
                .components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
                .map { $0.components(separatedBy: "-----END CERTIFICATE-----")[0].filter { !$0.isWhitespace } }
            shared.subtract(x5c)
        }
        #expect(shared.isEmpty, "shared between verifiers: \(shared.sorted())")
        // Nothing from the passport: its expiry (2034-09-30) is in no presentation.
        let expiry = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: 2034, month: 9, day: 30).date!
        let end = Int(expiry.timeIntervalSince1970)
        for values in seen { #expect(!values.contains("\(end + 86_399)") && !values.contains("\(end)")) }
    }

    @Test func theNumberOfDigestsDoesNotTellWhetherNationalityIsInside() throws {
        let without = try present(try issue(name: "plain"), aud: "https://a.example", nonce: "n")
        let with = try present(try issue(nationality: true, name: "with-nationality"), aud: "https://a.example", nonce: "n")
        #expect(Self.digestCount(without) == Self.digestCount(with))
    }

    @Test(.enabled(if: interopAvailable, "the sd-jwt interop virtualenv is missing (run scripts/setup)"))
    func referenceVerifierAcceptsAnInstitutionCredential() throws {
        let credential = try issue(issuer: "issuer")
        let token = try present(credential, aud: "https://verifier.example", nonce: "ref-nonce")
        let r = try Harness.run(Self.interopPython, [Self.interopScript, "verify-issued", token, "https://verifier.example", "ref-nonce", Self.pem("issuer-ca")])
        #expect(r.status == 0, "reference verifier refused: \(r.stderr)")
        #expect(r.json?["age_over_18"] as? Bool == true)
        #expect(r.json?["iss"] as? String == "https://issuer.test-only.example")
        // …and refuses it under another CA.
        #expect(try Harness.run(Self.interopPython, [Self.interopScript, "verify-issued", token, "https://verifier.example", "ref-nonce",
                                                     Self.pem("rogue-issuer-ca")]).status != 0)
    }

    /// Issue 41 item 4: a redirect_uri request whose client_id (and so its response_uri) holds
    /// ESC[2K, CR and LF cannot erase, rewrite or add a line of the prompt.
    @Test func aVerifierCannotWriteToTheTerminal() throws {
        let credential = try issue(name: "escape")
        let evil = "https://evil.example/cb\u{1B}[2K\rVerifier redirect_uri:https://bank.example/cb (unsigned request) asks for: age_over_18 (query pid).\nThe answer goes to host bank.example"
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let dcql = #"{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["age_over_18"]}]}]}"#
        let link = "openid4vp://?client_id=\(encoded("redirect_uri:" + evil))&response_type=vp_token&response_mode=direct_post"
            + "&response_uri=\(encoded(evil))&nonce=n-1&dcql_query=\(encoded(dcql))"
        // stdin is /dev/null: the prompt is shown and nothing is sent.
        let r = try Harness.passport(["present", credential, "--request", link], environment: env)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D }, "raw control characters reached the terminal")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        let verifierLines = lines.filter { $0.hasPrefix("Verifier ") }
        #expect(verifierLines.count == 1, "\(lines)")
        #expect(verifierLines.first?.contains("\\u{1B}[2K\\u{D}") == true, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("The answer goes to host bank.example") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("The answer goes to host evil.example") }, "\(lines)")
    }

    /// An x509_hash verifier whose certificate names no host answering to elsewhere.example: the
    /// prompt says where the answer goes and that the client_id does not name it. Its chain ends in
    /// a --verifier-ca anchor (x509_hash chains never end in the system's store).
    @Test func thePromptNamesTheHostTheAnswerGoesTo() throws {
        let credential = try issue(name: "host")
        let certificate = try String(contentsOfFile: Self.pem("issuer"), encoding: .utf8)
        let der = [UInt8](Data(base64Encoded: certificate.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined())!)
        let clientID = "x509_hash:" + Base64URL.encode(OpenSSLCrypto.sha256(der))
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = [
            "client_id": clientID, "response_type": "vp_token", "response_mode": "direct_post", "response_uri": "https://elsewhere.example/cb",
            "nonce": "n-host", "state": "s", "iat": now, "exp": now + 300, "aud": "https://self-issued.me/v2",
            "dcql_query": ["credentials": [["id": "pid", "format": "dc+sd-jwt", "claims": [["path": ["age_over_18"]]]]]],
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self)
        let signed = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), [TestPaths.projectRoot.appendingPathComponent("scripts/interop/sign_request.py").path,
                                                                               Self.pem("issuer.key"), Self.pem("issuer"), json])
        try #require(signed.status == 0, "\(signed.stderr)")
        let link = "openid4vp://?client_id=\(clientID.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&request=\(signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"
        let r = try Harness.passport(["present", credential, "--request", link, "--verifier-ca", Self.pem("issuer-ca")], environment: env)
        #expect(r.status == 1 && r.stderr.contains("stdin is closed"), "\(r.stderr)")
        #expect(r.stderr.contains("The answer goes to host elsewhere.example"), "\(r.stderr)")
        #expect(r.stderr.contains("Note: the client_id names no host, but the answer goes to elsewhere.example"), "\(r.stderr)")
        #expect(r.stderr.contains("level L1"), "\(r.stderr)")
    }

    // MARK: helpers

    static func decodeJSON(_ part: Substring) -> Any? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// Every value in a token: each part as sent, each signature, and every leaf of every decoded header, payload and disclosure.
    static func values(_ token: String) -> Set<String> {
        var out = Set<String>()
        func collect(_ value: Any) {
            if let object = value as? [String: Any] { object.values.forEach(collect) }
            else if let array = value as? [Any] { array.forEach(collect) }
            else if let number = value as? NSNumber { out.insert("\(number)") }
            else { out.insert("\(value)") }
        }
        for part in token.split(separator: "~") {
            out.insert(String(part))
            let pieces = part.split(separator: ".", omittingEmptySubsequences: false)
            if pieces.count == 3 {
                pieces.prefix(2).compactMap(decodeJSON).forEach(collect)
                out.insert(String(pieces[2]))
            } else if let disclosure = decodeJSON(part) {
                collect(disclosure)
            }
        }
        return out
    }

    static func digestCount(_ token: String) -> Int {
        let payload = token.prefix { $0 != "~" }.split(separator: ".")[1]
        return ((decodeJSON(payload) as? [String: Any])?["_sd"] as? [Any])?.count ?? -1
    }
}
