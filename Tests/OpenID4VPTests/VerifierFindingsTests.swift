@testable import Credentials
import Foundation
@testable import OpenID4VP
import Testing
import TestSupport

/// An SD-JWT presentation made field by field, so that a test can give it what the toolkit's
/// issuer never writes: another vct or none, a `crit` header, a hostile `iss`, a deep value.
struct PresentationMaker {
    static let pki = TestPaths.fixtures.appendingPathComponent("pki/issuer")
    static let anchor = pki.appendingPathComponent("TEST-ONLY-issuer-ca.pem").path

    var issuerKey: any ES256Signer
    /// nil: self-issued (a did:key issuer, no x5c).
    var x5c: [String]?
    var iss: String
    var vct: String? = PassportCredential.vct
    var header: [String: Any] = [:]
    var keyBindingHeader: [String: Any] = [:]
    var claims: [String: Any] = ["age_over_18": true]

    /// A credential of the fixture institution `name` (Fixtures/pki/issuer/TEST-ONLY-name…),
    /// its leaf alone in x5c (the relying party holds the CA).
    static func institution(_ name: String = "issuer", iss: String = "https://issuer.test-only.example") throws -> PresentationMaker {
        let key = try IssuerTrust.privateKey(pemFile: pki.appendingPathComponent("TEST-ONLY-\(name).key.pem").path)
        let x5c = try IssuerTrust.x5c(pemFile: pki.appendingPathComponent("TEST-ONLY-\(name).pem").path)
        return PresentationMaker(issuerKey: key, x5c: x5c, iss: iss)
    }

    static func selfIssued() throws -> PresentationMaker {
        let key = try P256PrivateKey()
        return PresentationMaker(issuerKey: key, x5c: nil, iss: DIDKey.did(for: key.publicKey))
    }

    func token(aud: String = "https://rp.example", nonce: String = "n-1") throws -> String {
        let holder = try P256PrivateKey()
        let disclosures = try claims.sorted { $0.key < $1.key }.map { try SDJWT.Disclosure(salt: SDJWT.salt(), name: $0.key, value: $0.value) }
        let now = Int(Date().timeIntervalSince1970)
        var payload: [String: Any] = ["iss": iss, "iat": now, "exp": now + 3600, "cnf": ["jwk": holder.publicKey.jwk],
                                      "_sd": disclosures.map(\.digest), "_sd_alg": "sha-256"]
        if let vct { payload["vct"] = vct }
        var protected = header
        protected["typ"] = "dc+sd-jwt"
        if let x5c { protected["x5c"] = x5c }
        let jwt = try CompactJWS.sign(header: protected, payload: payload, key: issuerKey)
        let issued = SDJWT.presentedPart(jwt: jwt, disclosures: disclosures.map(\.encoded))
        var kbHeader = keyBindingHeader
        kbHeader["typ"] = "kb+jwt"
        let kb = try CompactJWS.sign(header: kbHeader, payload: ["iat": now, "aud": aud, "nonce": nonce, "sd_hash": SDJWT.digest(issued)],
                                     key: holder)
        return issued + kb
    }

    static func verifier(aud: String = "https://rp.example", nonce: String = "n-1") throws -> PresentationVerifier {
        var verifier = PresentationVerifier(audience: aud, nonce: nonce)
        verifier.issuerTrust = try IssuerTrust.check(anchors: [anchor])
        return verifier
    }

    /// Why the verifier refuses `token`, or nil when it accepts it.
    static func refusal(_ token: String, _ verifier: PresentationVerifier? = nil) -> String? {
        do { _ = try (verifier ?? (try Self.verifier())).verify(token); return nil } catch { return "\(error)" }
    }
}

/// Issue 48, item 8: what the verifier reads is bounded before it is parsed.
@Suite struct VerifierInputBounds {
    @Test func aTokenLargerThan1MiBIsRefusedOnItsSize() throws {
        let token = try PresentationMaker.selfIssued().token()
        var verifier = try PresentationMaker.verifier()
        verifier.issuerTrust = nil
        #expect(PresentationMaker.refusal(token, verifier) == nil, "the token itself is valid")
        // White space would be trimmed: still, what is larger than the bound is not read.
        for hostile in [token + String(repeating: " ", count: 1 << 20), String(repeating: "A", count: (1 << 20) + 1)] {
            let why = PresentationMaker.refusal(hostile, verifier)
            #expect(why?.contains("1048576") == true, "\(why?.prefix(200) ?? "accepted")")
            #expect((why?.utf8.count ?? 0) < 300, "the message repeats the token")
        }
    }

    @Test(arguments: [33, 1000])
    func jsonNestedDeeperThan32LevelsIsRefused(depth: Int) throws {
        var maker = try PresentationMaker.selfIssued()
        var value: Any = true
        for _ in 0..<depth { value = [value] }
        maker.claims["age_over_18"] = value
        var verifier = try PresentationMaker.verifier()
        verifier.issuerTrust = nil
        let why = PresentationMaker.refusal(try maker.token(), verifier)
        #expect(why?.contains("deeper than 32 levels") == true, "\(why ?? "accepted")")
    }

    /// Each disclosure is shallow, but one's value hides the next (`{"_sd": [digest]}`): the
    /// claims they resolve to are bounded too, or a 1 MiB token of such a chain would recurse
    /// thousands of levels deep.
    @Test func claimsThatResolveDeeperThan32LevelsAreRefused() throws {
        let key = try P256PrivateKey()
        let did = DIDKey.did(for: key.publicKey)
        var chain = [try SDJWT.Disclosure(salt: SDJWT.salt(), name: "age_over_18", value: true)]
        for _ in 0..<40 { chain.append(try SDJWT.Disclosure(salt: SDJWT.salt(), name: "age_over_18", value: ["_sd": [chain.last!.digest]])) }
        let now = Int(Date().timeIntervalSince1970)
        let jwt = try CompactJWS.sign(header: ["typ": "dc+sd-jwt"],
                                      payload: ["iss": did, "iat": now, "exp": now + 3600, "vct": PassportCredential.vct, "cnf": ["jwk": key.publicKey.jwk],
                                                "_sd": [chain.last!.digest], "_sd_alg": "sha-256"], key: key)
        let issued = SDJWT.presentedPart(jwt: jwt, disclosures: chain.map(\.encoded))
        let kb = try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: ["iat": now, "aud": "https://rp.example", "nonce": "n-1",
                                                                          "sd_hash": SDJWT.digest(issued)], key: key)
        var verifier = try PresentationMaker.verifier()
        verifier.issuerTrust = nil
        let why = PresentationMaker.refusal(issued + kb, verifier)
        #expect(why?.contains("deeper than 32 levels") == true, "\(why ?? "accepted")")
    }

    static let request = #"{"client_id":"redirect_uri:https://rp.example/cb","nonce":"n-1","state":"s-1","dcql_query":{"credentials":[{"id":"pid","format":"dc+sd-jwt"}]}}"#

    @Test func aFormBodyOrVPTokenLargerThan1MiBIsRefusedOnItsSize() throws {
        let verifier = try VPTokenVerifier(request: Self.request)
        let form = "state=s-1&vp_token=" + String(repeating: "A", count: 1 << 20)
        for (label, attempt) in [("form", { try verifier.open(posted: form, state: nil) }),
                                 ("bare", { try verifier.open(posted: "{\"pid\":\"" + String(repeating: "A", count: 1 << 20) + "\"}", state: "s-1") })] {
            do {
                _ = try attempt()
                Issue.record("\(label): a body over 1 MiB was read")
            } catch {
                #expect("\(error)".contains("1048576"), "\(label): \("\(error)".prefix(200))")
                #expect("\(error)".utf8.count < 300, "\(label): the message repeats the body")
            }
        }
    }

    @Test func aVPTokenNestedDeeperThan32LevelsIsRefused() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        do {
            _ = try VPTokenVerifier.parseToken("{\"pid\":\(deep)}")
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("deeper than 32 levels"), "\(error)")
        }
    }
}

/// Issue 48, item 9: the issuer certificate must be for signing credentials (its extended key
/// usage), and `iss` an https URL the certificate names, nothing looser.
@Suite struct IssuerCertificatePurposeAndName {
    @Test(arguments: ["eku-server", "eku-email"])
    func aLeafForOtherPurposesIsRefused(name: String) throws {
        let why = PresentationMaker.refusal(try PresentationMaker.institution(name).token())
        #expect(why?.contains("extended key usage") == true, "\(name): \(why ?? "accepted")")
    }

    @Test(arguments: ["issuer", "eku-any", "issuer-docsign"])
    func aLeafWithoutExtendedKeyUsageOrForAnyUseOrDocumentSigningIsAccepted(name: String) throws {
        let iss = name == "issuer-docsign" ? "https://issuer.test-only.example/offices/berlin" : "https://issuer.test-only.example"
        #expect(PresentationMaker.refusal(try PresentationMaker.institution(name, iss: iss).token()) == nil)
    }

    /// The docsign leaf names dNSName issuer.test-only.example and URI
    /// https://issuer.test-only.example/offices/berlin.
    @Test(arguments: ["https://issuer.test-only.example", "https://issuer.test-only.example/", "https://Issuer.Test-Only.example",
                      "https://issuer.test-only.example/offices/berlin"])
    func anHTTPSIssuerTheLeafNamesIsAccepted(iss: String) throws {
        let why = PresentationMaker.refusal(try PresentationMaker.institution("issuer-docsign", iss: iss).token())
        #expect(why == nil, "\(iss): \(why ?? "")")
    }

    @Test(arguments: ["https://passport-office.gov.example@issuer.test-only.example/", "https://user:pw@issuer.test-only.example",
                      "https://issuer.test-only.example/?office=berlin", "https://issuer.test-only.example?x", "https://issuer.test-only.example/#berlin",
                      "https://issuer.test-only.example/offices/hamburg", "https://issuer.test-only.example/offices/berlin/",
                      "https://issuer.test-only.example:8443", "http://issuer.test-only.example", "https://evil.example/offices/berlin",
                      "issuer.test-only.example", "https://issuer.test-only.example.evil.example"])
    func anyOtherIssIsRefused(iss: String) throws {
        let why = PresentationMaker.refusal(try PresentationMaker.institution("issuer-docsign", iss: iss).token())
        #expect(why?.contains("iss") == true, "\(iss): \(why ?? "accepted")")
    }

    /// The institution's side: `issue` refuses to sign with a certificate verifiers refuse.
    @Test func anInstitutionCannotIssueWithALeafForOtherPurposesOrAnIssItDoesNotName() throws {
        func institution(_ name: String, iss: String?) -> String? {
            let pki = PresentationMaker.pki
            do {
                _ = try IssuerTrust.institution(keyFile: pki.appendingPathComponent("TEST-ONLY-\(name).key.pem").path,
                                                chainFile: pki.appendingPathComponent("TEST-ONLY-\(name)-chain.pem").path, issuer: iss)
                return nil
            } catch { return "\(error)" }
        }
        #expect(institution("eku-server", iss: nil)?.contains("extended key usage") == true)
        #expect(institution("issuer", iss: "https://x@issuer.test-only.example")?.contains("iss") == true)
        #expect(institution("issuer", iss: nil) == nil)
        #expect(institution("issuer-docsign", iss: nil) == nil)
    }
}

/// Issue 48, item 10: a credential of another type is not the toolkit's credential.
@Suite struct CredentialType {
    @Test(arguments: ["L1", "L2"])
    func anotherVCTOrNoneIsRefusedByDefault(level: String) throws {
        var maker = level == "L1" ? try PresentationMaker.selfIssued() : try PresentationMaker.institution()
        #expect(PresentationMaker.refusal(try maker.token()) == nil)
        for vct in ["urn:eudi:pid:1", nil] {
            maker.vct = vct
            let why = PresentationMaker.refusal(try maker.token())
            #expect(why?.contains("vct") == true, "\(vct ?? "no vct"): \(why ?? "accepted")")
        }
    }

    /// A query without vct_values: the toolkit's type is required all the same.
    @Test func aQueryWithoutVCTValuesStillRequiresTheToolkitsType() throws {
        var maker = try PresentationMaker.institution()
        maker.vct = "urn:eudi:pid:1"
        var verifier = try VPTokenVerifier(request: VerifierInputBounds.request)
        verifier.issuerTrust = try IssuerTrust.check(anchors: [PresentationMaker.anchor])
        let token = try maker.token(aud: verifier.clientID, nonce: verifier.nonce)
        do {
            _ = try verifier.verify(["pid": [token]])
            Issue.record("a presentation of another vct was accepted")
        } catch {
            #expect("\(error)".contains("vct"), "\(error)")
        }
    }
}

/// Issue 48, item 11: RFC 7515 §4.1.11, an extension this verifier does not understand makes
/// the JWS invalid, on the credential and on the key-binding JWT.
@Suite struct CriticalHeaders {
    @Test(arguments: ["credential", "key binding"])
    func critIsRefused(on part: String) throws {
        var maker = try PresentationMaker.institution()
        let crit: [String: Any] = ["crit": ["urn:example:ext"], "urn:example:ext": 1]
        if part == "credential" { maker.header = crit } else { maker.keyBindingHeader = crit }
        let why = PresentationMaker.refusal(try maker.token())
        #expect(why?.contains("critical") == true, "\(part): \(why ?? "accepted")")
    }

    @Test func critIsRefusedOnAVCJWTPresentation() throws {
        let key = try P256PrivateKey()
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "NFC Verified", evidence: [:],
                                   expiry: Date().addingTimeInterval(86_400))
        let token = try PassportCredential.present(claims, format: .jwt, disclose: ["age_over_18"], audience: "https://rp.example", nonce: "n-1", key: key)
        let vp = try CompactJWS(token)
        var header = vp.header
        header["crit"] = ["b64"]
        let forged = try CompactJWS.sign(header: header, payload: vp.payload, key: key)
        var verifier = try PresentationMaker.verifier()
        verifier.issuerTrust = nil
        #expect(PresentationMaker.refusal(token, verifier) == nil)
        let why = PresentationMaker.refusal(forged, verifier)
        #expect(why?.contains("critical") == true, "\(why ?? "accepted")")
    }
}

/// Issue 48, item 12: the verifier is a sequence of named checks, each of which can be read,
/// called and refused on its own.
@Suite struct NamedVerifierChecks {
    @Test func eachCheckOfAnSDJWTPresentationHoldsAndRefusesOnItsOwn() throws {
        let token = try PresentationMaker.institution().token()
        let verifier = try PresentationMaker.verifier()
        let parts = try SDJWT.split(token)
        let credential = try CompactJWS(parts.jwt)
        try verifier.checkMediaType(credential)
        let issuer = try verifier.sdJWTIssuer(credential)
        #expect(issuer.level == .L2 && issuer.iss == "https://issuer.test-only.example")
        try credential.verify(with: issuer.key, what: "the issuer-signed JWT")
        try verifier.checkCredentialType(credential.payload)
        try verifier.checkDigestAlgorithm(credential.payload)
        try verifier.checkKeyBinding(parts, credential: credential)
        #expect(try verifier.disclosedClaims(parts, credential: credential)["age_over_18"] as? Bool == true)

        #expect(throws: CredentialError.self) { try verifier.checkCredentialType(["vct": "urn:eudi:pid:1"]) }
        #expect(throws: CredentialError.self) { try verifier.checkDigestAlgorithm(["_sd_alg": "sha-512"]) }
        var elsewhere = verifier
        elsewhere.audience = "https://elsewhere.example"
        #expect(throws: CredentialError.self) { try elsewhere.checkKeyBinding(parts, credential: credential) }
        var untrusting = verifier
        untrusting.issuerTrust = nil
        #expect(throws: CredentialError.self) { try untrusting.sdJWTIssuer(credential) }
    }

    static func verifier(_ query: String) throws -> VPTokenVerifier {
        try VPTokenVerifier(request: #"{"client_id":"redirect_uri:https://rp.example/cb","nonce":"n-1","dcql_query":\#(query)}"#)
    }

    /// The types a query's presentation may have: the verifier's (--vct) and the query's
    /// (vct_values) narrow each other; neither: the toolkit's own; two that share none: usage.
    @Test func acceptedTypesCombineTheVerifiersAndTheQuerys() throws {
        let plain = try Self.verifier(#"{"credentials":[{"id":"a","format":"dc+sd-jwt"}]}"#)
        let typed = try Self.verifier(#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["urn:x","urn:y"]}}]}"#)
        #expect(try plain.acceptedTypes(for: plain.query("a")) == [PassportCredential.vct])
        #expect(try typed.acceptedTypes(for: typed.query("a")) == ["urn:x", "urn:y"])
        var named = plain
        named.acceptedTypes = ["urn:z"]
        #expect(try named.acceptedTypes(for: named.query("a")) == ["urn:z"])
        var narrowed = typed
        narrowed.acceptedTypes = ["urn:y", "urn:z"]
        #expect(try narrowed.acceptedTypes(for: narrowed.query("a")) == ["urn:y"])
        narrowed.acceptedTypes = ["urn:z"]
        #expect(throws: OpenID4VPError.self) { try narrowed.acceptedTypes(for: narrowed.query("a")) }
    }

    @Test func whichQueriesMustBeAnswered() throws {
        let sets = try Self.verifier(#"{"credentials":[{"id":"a","format":"dc+sd-jwt"},{"id":"b","format":"dc+sd-jwt"}],"credential_sets":[{"options":[["a"],["b"]]}]}"#)
        try sets.checkRequiredQueriesAnswered(["b": ["x~"]])
        #expect(throws: OpenID4VPError.self) { try sets.checkRequiredQueriesAnswered([:]) }
        #expect(throws: OpenID4VPError.self) { try sets.checkAnswersOnlyQueriesMade(["c": ["x~"]]) }
        let all = try Self.verifier(#"{"credentials":[{"id":"a","format":"dc+sd-jwt"},{"id":"b","format":"dc+sd-jwt"}]}"#)
        #expect(throws: OpenID4VPError.self) { try all.checkRequiredQueriesAnswered(["a": ["x~"]]) }
        try all.checkRequiredQueriesAnswered(["a": ["x~"], "b": ["y~"]])
    }
}
