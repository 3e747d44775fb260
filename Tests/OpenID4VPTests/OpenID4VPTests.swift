import Credentials
import Foundation
import JSONCore
@testable import OpenID4VP
import Testing
import TestSupport

@Suite struct DCQLTests {
    static func query(_ json: String) throws -> DCQLQuery {
        try DCQLQuery(json: try JSON.parse(Array(json.utf8)))   // as the wallet parses a request
    }

    static let vct = "urn:passport-toolkit:vct:passport-derived:1"
    nonisolated(unsafe) static let held: [String: Any] = ["age_over_18": true, "is_human": true, "nationality": "UTO"]

    @Test func selectsWhatIsAskedAndNoMore() throws {
        let q = try Self.query(#"{"credentials":[{"id":"pid","format":"dc+sd-jwt","meta":{"vct_values":["\#(Self.vct)"]},"claims":[{"path":["age_over_18"],"values":[true]}]}]}"#)
        let s = try DCQLSelection.select(q, vct: Self.vct, held: Self.held, agreed: ["age_over_18", "is_human"])
        #expect(s.answers == [.init(queryID: "pid", claims: ["age_over_18"])])
    }

    @Test func claimSetsPickTheFirstThatCanBeAnswered() throws {
        let q = try Self.query(#"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"id":"g","path":["given_name"]},{"id":"o","path":["age_over_18"]}],"claim_sets":[["g"],["o"]]}]}"#)
        let s = try DCQLSelection.select(q, vct: Self.vct, held: Self.held, agreed: ["age_over_18"])
        #expect(s.answers.first?.claims == ["age_over_18"])
    }

    @Test func optionalCredentialSetsAreLeftOut() throws {
        let q = try Self.query(#"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":["age_over_18"]}]},{"id":"b","format":"dc+sd-jwt","claims":[{"path":["nationality"]}]}],"credential_sets":[{"options":[["a"]]},{"options":[["b"]],"required":false}]}"#)
        let s = try DCQLSelection.select(q, vct: Self.vct, held: Self.held, agreed: ["age_over_18"])
        #expect(s.answers.map(\.queryID) == ["a"])
    }

    @Test func refusesWhatItCannotOrMayNotAnswer() throws {
        let missing = try Self.query(#"{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["given_name"]}]}]}"#)
        #expect(throws: OpenID4VPError.self) { try DCQLSelection.select(missing, vct: Self.vct, held: Self.held, agreed: ["given_name"]) }
        let nationality = try Self.query(#"{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["nationality"]}]}]}"#)
        do {
            _ = try DCQLSelection.select(nationality, vct: Self.vct, held: Self.held, agreed: ["age_over_18"])
            Issue.record("more than agreed was selected")
        } catch let error as OpenID4VPError {
            #expect(error.description.contains("more than you agreed"))
        }
        let wrongValue = try Self.query(#"{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["age_over_18"],"values":[false]}]}]}"#)
        #expect(throws: OpenID4VPError.self) { try DCQLSelection.select(wrongValue, vct: Self.vct, held: Self.held, agreed: ["age_over_18"]) }
        let wrongType = try Self.query(#"{"credentials":[{"id":"pid","format":"dc+sd-jwt","meta":{"vct_values":["urn:eudi:pid:1"]},"claims":[{"path":["age_over_18"]}]}]}"#)
        #expect(throws: OpenID4VPError.self) { try DCQLSelection.select(wrongType, vct: Self.vct, held: Self.held, agreed: ["age_over_18"]) }
        let mdoc = try Self.query(#"{"credentials":[{"id":"m","format":"mso_mdoc","claims":[{"path":["org.iso.18013.5.1","age_over_18"]}]}]}"#)
        #expect(throws: OpenID4VPError.self) { try DCQLSelection.select(mdoc, vct: Self.vct, held: Self.held, agreed: ["age_over_18"]) }
    }

    @Test(arguments: [
        #"[]"#, #"{}"#, #"{"credentials":[]}"#, #"{"credentials":[{"format":"dc+sd-jwt"}]}"#,
        #"{"credentials":[{"id":"a b","format":"dc+sd-jwt"}]}"#, #"{"credentials":[{"id":"a"}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt"},{"id":"a","format":"dc+sd-jwt"}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":[]}]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":[-1]}]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":[true]}]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":["x"],"values":[]}]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claims":[{"path":["x"]}],"claim_sets":[["nope"]]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","claim_sets":[["x"]]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt"}],"credential_sets":[{"options":[["b"]]}]}"#,
        #"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":"x"}}]}"#,
    ])
    func malformedQueriesAreRefused(json: String) throws {
        #expect(throws: OpenID4VPError.self) { try Self.query(json) }
    }
}

@Suite struct JWETests {
    /// RFC 7518 Appendix C: ECDH-ES with A128GCM, apu "Alice", apv "Bob" derives
    /// VqqN6vgjbSBcIijNcacQGg from Alice's ephemeral key and Bob's key.
    @Test func concatKDFMatchesRFC7518AppendixC() throws {
        let alice = try P256PrivateKeyHandle(jwk: ["kty": "EC", "crv": "P-256",
                                                   "x": "gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0",
                                                   "y": "SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps",
                                                   "d": "0_NxaRPUMQoAJt50Gz8YiTr8gRTwyEaCumd-MToTmIo"])
        let bob = try P256PublicKey(jwk: ["kty": "EC", "crv": "P-256",
                                          "x": "weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ",
                                          "y": "e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck"])
        let shared = try JWE.agree(alice.key, with: bob)
        let key = JWE.concatKDF(shared: shared, enc: .a128gcm, apu: Array("Alice".utf8), apv: Array("Bob".utf8))
        #expect(Base64URL.encode(key) == "VqqN6vgjbSBcIijNcacQGg")
    }

    @Test(arguments: JWE.Encryption.allCases)
    func roundTripAndTamper(enc: JWE.Encryption) throws {
        let recipient = try P256PrivateKeyHandle()
        let message = Array(#"{"vp_token":{"pid":["x~y~z"]},"state":"s"}"#.utf8)
        let jwe = try JWE.encrypt(message, to: recipient.publicKey, enc: enc, kid: "k1")
        let (header, plain) = try JWE.decrypt(jwe, with: recipient)
        #expect(plain == message)
        #expect(header["enc"] as? String == enc.rawValue)
        #expect(header["kid"] as? String == "k1")
        var parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[3] = String(parts[3].reversed())
        #expect(throws: OpenID4VPError.self) { try JWE.decrypt(parts.joined(separator: "."), with: recipient) }
        #expect(throws: OpenID4VPError.self) { try JWE.decrypt(jwe, with: try P256PrivateKeyHandle()) }
    }
}

@Suite struct RequestTests {
    static func unsigned(_ claims: [String: Any]) throws -> String {
        Base64URL.encode(#"{"alg":"none"}"#) + "." + Base64URL.encode(Array(try CanonicalJSON.data(claims))) + "."
    }

    nonisolated(unsafe) static let dcql: [String: Any] = ["credentials": [["id": "pid", "format": "dc+sd-jwt", "claims": [["path": ["age_over_18"]]]]]]

    static func claims(_ clientID: String = "redirect_uri:https://rp.example/cb", responseURI: String = "https://rp.example/cb") -> [String: Any] {
        ["client_id": clientID, "response_type": "vp_token", "response_mode": "direct_post", "response_uri": responseURI,
         "nonce": "n-1", "state": "s-1", "dcql_query": dcql, "iat": Int(Date().timeIntervalSince1970), "exp": Int(Date().timeIntervalSince1970) + 300]
    }

    @Test func referenceForms() throws {
        let r = try AuthorizationRequestReference("openid4vp://?client_id=x509_hash%3Aabc&request_uri=https%3A%2F%2Fv.example%2Fr%3Fstate%3D1&request_uri_method=post")
        #expect(r.clientID == "x509_hash:abc")
        #expect(r.requestURI == "https://v.example/r?state=1")
        #expect(r.requestURIMethod == "post")
        #expect(throws: OpenID4VPError.self) { try AuthorizationRequestReference("https://v.example/") }
        #expect(throws: OpenID4VPError.self) { try AuthorizationRequestReference("openid4vp://?request_uri=https://v.example/") }
        #expect(throws: OpenID4VPError.self) { try AuthorizationRequestReference("openid4vp://?client_id=a&client_id=b") }
    }

    /// Form decoding over UTF-8 bytes: `+` and `%XX`, multi-byte UTF-8, and what must be refused.
    @Test func formDecoding() throws {
        #expect(FormEncoding.decode("x509_hash%3Aab+c%2b") == "x509_hash:ab c+")
        #expect(FormEncoding.decode("%C3%A9t%C3%A9") == "été")
        #expect(FormEncoding.decode("100%") == nil)
        #expect(FormEncoding.decode("%4") == nil)
        #expect(FormEncoding.decode("%zz") == nil)
        #expect(FormEncoding.decode("%FF%FE") == nil, "not UTF-8")
        #expect(FormEncoding.decode("") == "")
        #expect(FormEncoding.trimmed(" \r\n\tclient_id=a \n") == "client_id=a")
        #expect(FormEncoding.trimmed(" \n ") == "")
        let r = try AuthorizationRequestReference("  openid4vp://?client_id=redirect_uri%3Ahttps%3A%2F%2Frp.example%2Fcb&request=a.b.c\n")
        #expect(r.clientID == "redirect_uri:https://rp.example/cb")
        #expect(throws: OpenID4VPError.self) { try AuthorizationRequestReference("openid4vp://?client_id=%E0%80") }
    }

    @Test func unsignedRedirectURIRequestIsAccepted() throws {
        let request = try AuthorizationRequest.verify(requestObject: try Self.unsigned(Self.claims()), clientID: "redirect_uri:https://rp.example/cb",
                                                      policy: .init())
        #expect(request.nonce == "n-1")
        #expect(request.dcql.credentials.first?.id == "pid")
    }

    @Test func refusals() throws {
        let policy = AuthorizationRequest.Policy()
        // An unsigned request for a prefix that requires a signature.
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(Self.claims("x509_hash:abc")), clientID: "x509_hash:abc", policy: policy)
        }
        // response_uri elsewhere than the redirect_uri client identifier.
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(Self.claims(responseURI: "https://evil.example/cb")),
                                            clientID: "redirect_uri:https://rp.example/cb", policy: policy)
        }
        // Not HTTPS.
        var plain = Self.claims("redirect_uri:http://rp.example/cb", responseURI: "http://rp.example/cb")
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(plain), clientID: "redirect_uri:http://rp.example/cb", policy: policy)
        }
        // Loopback http only with --insecure-loopback.
        plain = Self.claims("redirect_uri:http://127.0.0.1:8080/cb", responseURI: "http://127.0.0.1:8080/cb")
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(plain), clientID: "redirect_uri:http://127.0.0.1:8080/cb", policy: policy)
        }
        var loopback = policy
        loopback.insecureLoopback = true
        _ = try AuthorizationRequest.verify(requestObject: try Self.unsigned(plain), clientID: "redirect_uri:http://127.0.0.1:8080/cb", policy: loopback)
        // Expired.
        var old = Self.claims()
        old["exp"] = Int(Date().timeIntervalSince1970) - 3600
        old["iat"] = Int(Date().timeIntervalSince1970) - 4000
        do {
            _ = try AuthorizationRequest.verify(requestObject: try Self.unsigned(old), clientID: "redirect_uri:https://rp.example/cb", policy: policy)
            Issue.record("an expired request was accepted")
        } catch let error as OpenID4VPError {
            #expect(error.description.contains("expired"))
        }
        // Unparseable DCQL.
        var bad = Self.claims()
        bad["dcql_query"] = ["credentials": "all"]
        #expect(throws: OpenID4VPError.badQuery("credentials is missing or not a non-empty array")) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(bad), clientID: "redirect_uri:https://rp.example/cb", policy: policy)
        }
        // A client_id inside that differs from the one presented.
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(Self.claims()), clientID: "redirect_uri:https://other.example/cb", policy: policy)
        }
        // Prefixes this wallet cannot check.
        #expect(throws: OpenID4VPError.self) {
            try AuthorizationRequest.verify(requestObject: try Self.unsigned(Self.claims("decentralized_identifier:did:web:x")),
                                            clientID: "decentralized_identifier:did:web:x", policy: policy)
        }
    }
}

/// Signed request objects (x509_hash, the TEST-ONLY issuer PKI of Fixtures/pki/issuer as the
/// verifier's certificate): what a request object must carry and what its certificate must allow.
@Suite struct SignedRequestTests {
    static let pki = TestPaths.fixtures.appendingPathComponent("pki/issuer")
    static let anchor = pki.appendingPathComponent("TEST-ONLY-issuer-ca.pem").path

    static func signer(_ name: String = "TEST-ONLY-issuer") throws -> InstitutionIssuer {
        try IssuerTrust.institution(keyFile: pki.appendingPathComponent("\(name).key.pem").path,
                                    chainFile: pki.appendingPathComponent("\(name)-chain.pem").path, issuer: nil)
    }

    static func clientID(_ signer: InstitutionIssuer) throws -> String {
        "x509_hash:" + (try X509Chain(x5c: signer.x5c)).leafHash
    }

    static func claims(_ clientID: String) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        return ["client_id": clientID, "response_type": "vp_token", "response_mode": "direct_post", "response_uri": "https://v.example/cb",
                "nonce": "n-1", "state": "s-1", "dcql_query": RequestTests.dcql, "iat": now, "exp": now + 300, "aud": "https://self-issued.me/v2"]
    }

    static func sign(_ claims: [String: Any], header: [String: Any] = ["typ": "oauth-authz-req+jwt"], with signer: InstitutionIssuer) throws -> String {
        var protected = header
        protected["x5c"] = signer.x5c
        return try CompactJWS.sign(header: protected, payload: claims, key: signer.signer)
    }

    func verify(_ object: String, _ clientID: String) throws -> AuthorizationRequest {
        var policy = AuthorizationRequest.Policy()
        policy.anchors = [Self.anchor]
        return try AuthorizationRequest.verify(requestObject: object, clientID: clientID, policy: policy)
    }

    func refusal(_ object: String, _ clientID: String) -> String? {
        do { _ = try verify(object, clientID); return nil } catch { return "\(error)" }
    }

    @Test func aWellFormedRequestIsAccepted() throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        #expect(try verify(try Self.sign(Self.claims(id), with: signer), id).nonce == "n-1")
    }

    @Test(arguments: ["iat", "exp"])
    func freshnessIsRequired(missing: String) throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        var claims = Self.claims(id)
        claims.removeValue(forKey: missing)
        #expect(refusal(try Self.sign(claims, with: signer), id)?.contains("no \(missing)") == true)
    }

    @Test func notBeforeIsRead() throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        var claims = Self.claims(id)
        claims["nbf"] = Int(Date().timeIntervalSince1970) + 3600
        #expect(refusal(try Self.sign(claims, with: signer), id)?.contains("nbf") == true)
    }

    @Test func typIsRequired() throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        #expect(refusal(try Self.sign(Self.claims(id), header: [:], with: signer), id)?.contains("typ") == true)
        #expect(refusal(try Self.sign(Self.claims(id), header: ["typ": "JWT"], with: signer), id)?.contains("typ") == true)
    }

    @Test func unknownCriticalHeadersAreRefused() throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        let object = try Self.sign(Self.claims(id), header: ["typ": "oauth-authz-req+jwt", "crit": ["exp-ext"], "exp-ext": 1], with: signer)
        #expect(refusal(object, id)?.contains("critical") == true)
    }

    @Test func theAudienceMustBeThisWallet() throws {
        let signer = try Self.signer()
        let id = try Self.clientID(signer)
        var claims = Self.claims(id)
        claims["aud"] = "https://another-wallet.example"
        #expect(refusal(try Self.sign(claims, with: signer), id)?.contains("aud") == true)
        claims.removeValue(forKey: "aud")
        #expect(refusal(try Self.sign(claims, with: signer), id)?.contains("aud") == true)
    }

    @Test func certificatesMustBeForSigning() throws {
        for name in ["TEST-ONLY-issuer-nosign", "TEST-ONLY-eku-email"] {
            let key = try IssuerTrust.privateKey(pemFile: Self.pki.appendingPathComponent("\(name).key.pem").path)
            let x5c = try IssuerTrust.x5c(pemFile: Self.pki.appendingPathComponent("\(name)-chain.pem").path)
            let id = "x509_hash:" + (try X509Chain(x5c: x5c)).leafHash
            let object = try CompactJWS.sign(header: ["typ": "oauth-authz-req+jwt", "x5c": x5c], payload: Self.claims(id), key: key)
            let why = refusal(object, id)
            #expect(why?.contains("key usage") == true, Comment(rawValue: "\(name): \(why ?? "accepted")"))
        }
    }

    @Test func haipLinksMustBeSigned() throws {
        let link = "haip-vp://?client_id=redirect_uri%3Ahttps%3A%2F%2Frp.example%2Fcb&response_type=vp_token&response_mode=direct_post&response_uri=https%3A%2F%2Frp.example%2Fcb&nonce=n"
        #expect(throws: OpenID4VPError.self) { try AuthorizationRequestReference(link) }
        _ = try AuthorizationRequestReference("openid4vp://" + link.dropFirst("haip-vp://".count))
    }
}

/// Issue 41: the relying party checks the response's state on direct_post too, not only on the
/// encrypted path.
@Suite struct ResponseStateTests {
    static let request = #"{"client_id":"redirect_uri:https://rp.example/cb","nonce":"n","state":"s-1","dcql_query":{"credentials":[{"id":"pid","format":"dc+sd-jwt"}]}}"#

    @Test func stateIsCheckedOnDirectPost() throws {
        let verifier = try VPTokenVerifier(request: Self.request)
        let token = #"{"pid":["x~"]}"#
        let form = "vp_token=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try verifier.open(posted: form + "&state=s-1", state: nil)["pid"] == ["x~"])
        #expect(try verifier.open(posted: token, state: "s-1")["pid"] == ["x~"])
        #expect(throws: OpenID4VPError.self) { try verifier.open(posted: form + "&state=s-2", state: nil) }
        #expect(throws: OpenID4VPError.self) { try verifier.open(posted: form, state: nil) }
        #expect(throws: OpenID4VPError.self) { try verifier.open(posted: token, state: nil) }
        #expect(throws: OpenID4VPError.self) { try verifier.open(posted: token, state: "s-2") }
        // A request without state: a response must not bring one.
        let stateless = try VPTokenVerifier(request: Self.request.replacingOccurrences(of: #","state":"s-1""#, with: ""))
        #expect(try stateless.open(posted: token, state: nil)["pid"] == ["x~"])
        #expect(throws: OpenID4VPError.self) { try stateless.open(posted: form + "&state=x", state: nil) }
    }
}
