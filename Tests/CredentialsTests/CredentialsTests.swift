import Credentials
import PassiveAuth
import PassportCrypto
import Foundation
import LDS
import PassportKit
import Testing
import TestSupport

/// did:key and JWK thumbprints against published vectors and an independent implementation.
@Suite struct DIDKeyVectors {
    /// W3C CCG did:key test vectors (test-vectors/nist-curves.json), P-256 entries; thumbprints
    /// computed by jwcrypto (RFC 7638).
    static let vectors: [(did: String, x: String, y: String, d: String, thumbprint: String)] = [
        ("did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv", "igrFmi0whuihKnj9R3Om1SoMph72wUGeFaBbzG2vzns",
         "efsX5b10x8yjyrj4ny3pGfLcY7Xby1KzgqOdqnsrJIM", "gPh-VvVS8MbvKQ9LSVVmfnxnKjHn4Tqj0bmbpehRlpc",
         "u7vrjwUEqr4_WVk1nfCx7nhirx2CrSvP9yUbAN4FNiQ"),
        ("did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169", "fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI",
         "hW2ojTNfH7Jbi8--CJUo3OCbH3y5n91g-IMA9MLMbTU", "YjRs6vNvw4sYrzVVY8ipkEpDAD9PFqw1sUnvPRMA-WI",
         "G_96kD3GBXg7fuqEEJsKY1YHracLxBDq7pdwv2DgxdM"),
    ]

    @Test(arguments: vectors.indices)
    func didKeyRoundTrip(index: Int) throws {
        let v = Self.vectors[index]
        let key = try P256PublicKey(x: Base64URL.decode(v.x)!, y: Base64URL.decode(v.y)!)
        #expect(DIDKey.did(for: key) == v.did)
        #expect(try DIDKey.publicKey(from: v.did) == key)
        #expect(try DIDKey.publicKey(from: v.did + "#" + v.did.dropFirst(8)) == key)
        #expect(key.thumbprint == v.thumbprint)
        // The private scalar gives the same public key.
        let privateKey = try P256PrivateKey(scalar: Base64URL.decode(v.d)!)
        #expect(privateKey.publicKey == key)
    }

    @Test func malformedDIDsAreRejected() {
        for did in ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", // Ed25519
                    "did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZ", // truncated
                    "did:web:example.com", "did:key:zDna0OIl"] {
            #expect(throws: CredentialError.self, "\(did)") { try DIDKey.publicKey(from: did) }
        }
    }

    /// A hostile `iss` (issue 48, item 7): refused on its length, before base58 decoding, whose
    /// cost grows with the square of the length; the message names it without repeating it.
    @Test func didsOfAnotherLengthAreRefusedBeforeDecodingWithABoundedMessage() {
        let long = "did:key:zDn" + String(repeating: "a", count: 219_000)
        for did in [long, long + "#x", "did:key:z" + String(repeating: "2", count: 49)] {
            do {
                _ = try DIDKey.publicKey(from: did)
                Issue.record("a did:key of \(did.count) characters was accepted")
            } catch let error as CredentialError {
                let message = String(describing: error)
                #expect(message.contains("57 characters"), "\(message.prefix(200))")
                #expect(message.utf8.count < 300, "the message repeats the DID: \(message.utf8.count) bytes")
            } catch {
                Issue.record("not a CredentialError: \(error)")
            }
        }
    }

    @Test func pointsOffTheCurveAreRejected() throws {
        let v = Self.vectors[0]
        var y = Base64URL.decode(v.y)!
        y[31] ^= 1
        #expect(throws: CredentialError.self) { try P256PublicKey(x: Base64URL.decode(v.x)!, y: y) }
    }

    @Test func es256SignAndVerify() throws {
        let key = try P256PrivateKey()
        let message = Array("hello".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verify(signature: signature, message: message))
        #expect(!key.publicKey.verify(signature: signature, message: Array("hellO".utf8)))
        #expect(!(try P256PrivateKey()).publicKey.verify(signature: signature, message: message))
    }

    @Test func base58AndBase64URL() {
        #expect(Base58.encode([0, 0, 1, 2, 3]) == "11Ldp")
        #expect(Base58.decode("11Ldp") == [0, 0, 1, 2, 3])
        #expect(Base58.decode("0OIl") == nil)
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("-_8=") == nil)
    }
}

/// RFC 9901's own examples, byte for byte.
@Suite struct RFC9901Examples {
    @Test func objectPropertyDisclosureAndDigest() throws {
        let disclosure = try SDJWT.Disclosure(salt: "_26bc4LT-ac6q2KI6cBW5es", name: "family_name", value: "Möbius")
        #expect(disclosure.encoded == "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0")
        #expect(disclosure.digest == "X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0")
        let parsed = try SDJWT.Disclosure(encoded: disclosure.encoded)
        #expect(parsed.name == "family_name")
        #expect(parsed.value as? String == "Möbius")
    }

    @Test func arrayElementDisclosureAndDigest() throws {
        let disclosure = try SDJWT.Disclosure(salt: "lklxF5jMYlGTPUovMNIvCA", name: nil, value: "FR")
        #expect(disclosure.encoded == "WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0")
        #expect(disclosure.digest == "w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs")
    }
}

@Suite struct PassportCredentials {
    static let birthDate = "880412"
    let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "NFC Verified",
                               evidence: ["type": "PassiveAuthentication"], expiry: Date().addingTimeInterval(86_400 * 365))

    func verifier(_ aud: String = "https://a.example", _ nonce: String = "n-1") -> PresentationVerifier {
        PresentationVerifier(audience: aud, nonce: nonce)
    }

    @Test(arguments: CredentialFormat.allCases)
    func presentAndVerify(format: CredentialFormat) throws {
        let key = try P256PrivateKey()
        let token = try PassportCredential.present(claims, format: format, disclose: ["age_over_18", "is_human"],
                                                   audience: "https://a.example", nonce: "n-1", key: key)
        let result = try verifier().verify(token)
        #expect(result.claims["age_over_18"] as? Bool == true)
        #expect(result.claims["is_human"] as? Bool == true)
        #expect(result.claims["trust_level"] == nil, "undisclosed claims must not appear")
        #expect(result.issuer == DIDKey.did(for: key.publicKey))
        #expect(throws: CredentialError.self) { try verifier("https://b.example").verify(token) }
        #expect(throws: CredentialError.self) { try verifier("https://a.example", "n-2").verify(token) }
        var late = verifier()
        late.now = Date().addingTimeInterval(format == .jwt ? 120 : 600)
        #expect(throws: CredentialError.self, "a stale presentation must be refused") { try late.verify(token) }
    }

    @Test func vcJWTPresentationExpiresAfter45Seconds() throws {
        let token = try PassportCredential.present(claims, format: .jwt, disclose: ["age_over_18"], audience: "https://a.example",
                                                   nonce: "n-1", key: try P256PrivateKey())
        let vp = try CompactJWS(token)
        #expect((vp.payload["exp"] as! Int) - (vp.payload["iat"] as! Int) == 45)
    }

    @Test func sdJWTTamperingIsCaught() throws {
        let key = try P256PrivateKey()
        let token = try PassportCredential.present(claims, format: .sdJWT, disclose: ["age_over_18", "is_human"],
                                                   audience: "https://a.example", nonce: "n-1", key: key)
        let parts = try SDJWT.split(token)
        // Dropping a disclosure after key binding breaks sd_hash.
        let dropped = SDJWT.presentedPart(jwt: parts.jwt, disclosures: [parts.disclosures[0]]) + parts.keyBinding!
        #expect(throws: CredentialError.self) { try verifier().verify(dropped) }
        // A forged disclosure (age_over_18: false → true is impossible; here: any changed byte) is unreferenced.
        let forged = try SDJWT.Disclosure(salt: SDJWT.salt(), name: "age_over_18", value: true).encoded
        let swapped = SDJWT.presentedPart(jwt: parts.jwt, disclosures: [forged, parts.disclosures[1]]) + parts.keyBinding!
        #expect(throws: CredentialError.self) { try verifier().verify(swapped) }
        // No key binding at all.
        #expect(throws: CredentialError.self) { try verifier().verify(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures)) }
        // Key binding signed by someone else.
        let sdHash = SDJWT.digest(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures))
        let otherKB = try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: ["iat": Int(Date().timeIntervalSince1970),
                                          "aud": "https://a.example", "nonce": "n-1", "sd_hash": sdHash], key: try P256PrivateKey())
        #expect(throws: CredentialError.invalidSignature("the key binding JWT")) {
            try verifier().verify(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures) + otherKB)
        }
        // Every single-character change of the token is refused.
        var accepted = 0
        let characters = Array(token)
        for i in stride(from: 0, to: characters.count, by: 5) {
            var copy = characters
            copy[i] = copy[i] == "A" ? "B" : "A"
            if (try? verifier().verify(String(copy))) != nil { accepted += 1 }
        }
        #expect(accepted == 0)
    }

    @Test func undisclosedAndUnknownClaims() throws {
        let key = try P256PrivateKey()
        #expect(throws: CredentialError.self) {
            try PassportCredential.present(claims, format: .sdJWT, disclose: ["birth_date"], audience: "a", nonce: "n", key: key)
        }
    }

    /// Two presentations to two verifiers share no key, DID, salt, signature or identifier.
    @Test(arguments: CredentialFormat.allCases)
    func presentationsToTwoAudiencesAreUnlinkable(format: CredentialFormat) throws {
        let disclose: Set = ["age_over_18", "is_human", "verification_method"]
        // Presentations made at different moments (a verifier pair sees different times anyway),
        // from one reading of the clock, so that the day below is the first one's even at midnight.
        let now = Date()
        let a = try PassportCredential.present(claims, format: format, disclose: disclose, audience: "https://a.example", nonce: "n",
                                               key: try P256PrivateKey(), now: now)
        let b = try PassportCredential.present(claims, format: format, disclose: disclose, audience: "https://b.example", nonce: "n",
                                               key: try P256PrivateKey(), now: now.addingTimeInterval(7))
        let shared = Self.values(in: a).intersection(Self.values(in: b))
        // What may coincide: the disclosed claim values and fixed protocol strings.
        // The day of issuance and its end of validity are shared by everyone presenting that day;
        // the passport's expiry is not among them (it is not presented).
        let day = PassportCredential.issuanceDay(now)
        let allowed: Set = ["true", "1", "NFC Verified", "ES256", "dc+sd-jwt", "kb+jwt", "JWT", "sha-256", "n",
                            "EC", "P-256", PassportCredential.vct, "VerifiableCredential", "VerifiablePresentation",
                            "PassportDerivedCredential", "https://www.w3.org/2018/credentials/v1",
                            String(day), String(day + Int(PassportCredential.selfIssuedValidity))]
        #expect(!shared.contains(String(Int(claims.expiry.timeIntervalSince1970))))
        #expect(shared.subtracting(allowed).isEmpty, "shared between audiences: \(shared.subtracting(allowed))")
    }

    /// Every string and number in every decoded part of a token (JWT headers, payloads, disclosures).
    static func values(in token: String) -> Set<String> {
        var out = Set<String>()
        func collect(_ value: Any) {
            switch value {
            case let s as String:
                out.insert(s)
                if s.split(separator: ".").count == 3, let jws = try? CompactJWS(s) { collectJWS(jws) }
            case let b as Bool: out.insert(b ? "true" : "false")
            case let n as Int: out.insert(String(n))
            case let n as Double: out.insert(n.description)
            case let d as [String: Any]: d.values.forEach(collect)
            case let a as [Any]: a.forEach(collect)
            default: break
            }
        }
        func collectJWS(_ jws: CompactJWS) {
            collect(jws.header); collect(jws.payload); out.insert(Base64URL.encode(jws.signature))
        }
        for part in token.split(separator: "~") {
            if let jws = try? CompactJWS(String(part)) { collectJWS(jws) }
            else if let d = try? SDJWT.Disclosure(encoded: String(part)) { out.insert(d.salt); out.insert(d.encoded); collect(d.value) }
        }
        return out
    }
}

@Suite struct KeyStoreProtection {
    func folder() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)") }

    @Test func keysPersistAreEncryptedAndPrivate() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = KeyStore(folder: dir, passphrase: nil)
        let holder = try store.holderKey()
        #expect(try KeyStore(folder: dir, passphrase: nil).holderKey().publicKey == holder.publicKey)
        let a = try store.pairwiseKey(for: "https://a.example")
        let b = try store.pairwiseKey(for: "https://b.example")
        #expect(a.publicKey != b.publicKey && a.publicKey != holder.publicKey)
        #expect(try store.pairwiseKey(for: "https://a.example").publicKey == a.publicKey)

        let file = dir.appendingPathComponent("holder.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: dir.path)[.posixPermissions] as? Int) == 0o700)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(Base64URL.encode(try holder.scalar())), "the private key must not be stored in clear")
        // The folder does not name the verifiers.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("pairwise").path)
        #expect(!names.joined().contains("example"))
    }

    @Test func passphraseProtectedKeysNeedThePassphrase() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try KeyStore(folder: dir, passphrase: "correct horse").holderKey()
        #expect(try KeyStore(folder: dir, passphrase: "correct horse").holderKey().publicKey == key.publicKey)
        #expect(throws: CredentialError.self) { try KeyStore(folder: dir, passphrase: "wrong").holderKey() }
        #expect(throws: CredentialError.self) { try KeyStore(folder: dir, passphrase: nil).holderKey() }
    }
}

/// Issuing from the fixture passport: derived claims only, nothing from the MRZ.
@Suite struct IssuingFromADump {
    @Test(arguments: CredentialFormat.allCases)
    func credentialHoldsNoPersonalData(format: CredentialFormat) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        let outcome = try CredentialIssuer.issue(dump: dump, trust: trust, holder: KeyStore(folder: dir, passphrase: nil).holderKey,
                                                 format: format, includeNationality: true, prover: .auto)
        #expect(outcome.claims.ageOver18)
        #expect(outcome.claims.verificationMethod == "NFC Verified")
        #expect(outcome.proverFallbackReason != nil)
        #expect(outcome.claims.nationality == "UTO")
        let decoded = PassportCredentials.values(in: outcome.credential).joined(separator: "\n")
        for secret in ["SPECIMEN", "ALEX", "MARIE", "C01X00T47", "880412", "1988", "P<UTO"] {
            #expect(!decoded.contains(secret), "\(secret) leaked into the credential")
            #expect(!outcome.credential.contains(secret))
        }
        // The credential expires with the passport (2034-09-30, end of day UTC).
        #expect(Int(outcome.claims.expiry.timeIntervalSince1970) == 2_043_273_599)
    }

    @Test func tamperedDumpIsRefused() throws {
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("pa/tampered-dg"))
        #expect(throws: CredentialIssuer.IssueError.self) {
            try CredentialIssuer.issue(dump: dump, trust: trust, holder: KeyStore(folder: FileManager.default.temporaryDirectory
                .appendingPathComponent("unused-\(UUID().uuidString)")).holderKey, format: .sdJWT, includeNationality: false, prover: .none)
        }
    }

    @Test func ageOver18TurnsTrueOnThe18thBirthday() throws {
        // The fixture holder was born on 1988-04-12 (the SOD's signing time, 2024, is what
        // passive authentication judges, so issuance can be simulated at any date).
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        func over18(at date: String) throws -> Bool {
            let now = ISO8601DateFormatter().date(from: date)!
            return try CredentialIssuer.issue(dump: dump, trust: trust, holder: KeyStore(folder: dir, passphrase: nil).holderKey,
                                              format: .jwt, includeNationality: false, prover: .none, now: now).claims.ageOver18
        }
        #expect(try !over18(at: "2006-04-11T23:59:59Z"))
        #expect(try over18(at: "2006-04-12T00:00:00Z"))
        #expect(try over18(at: "2026-11-21T12:00:00Z"))
    }
}

/// Issue 41: key-store file names keyed by the store's own secret; 0.3.0's unkeyed names are
/// renamed when first used, so the same verifier keeps the same key.
@Suite struct KeyedFileNames {
    @Test func pairwiseFilesAreNamedWithTheStoresSecretAndOldNamesMigrate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = KeyStore(folder: dir, passphrase: "a test passphrase")
        let key = try store.pairwiseKey(for: "https://a.example")
        let pairwise = dir.appendingPathComponent("pairwise")
        let unkeyed = Base64URL.encode(OpenSSLCrypto.sha256(Array("passport-pairwise:https://a.example".utf8))) + ".json"
        let keyed = try store.keyedName("passport-pairwise:https://a.example") + ".json"
        #expect(try FileManager.default.contentsOfDirectory(atPath: pairwise.path) == [keyed])
        #expect(keyed != unkeyed)
        #expect((try Data(contentsOf: dir.appendingPathComponent("name.secret"))).count == 32)
        #expect(try String(contentsOf: dir.appendingPathComponent("format"), encoding: .utf8) == "2\n")
        // Another store has another secret: the same verifier gets another name.
        let other = KeyStore(folder: dir.appendingPathComponent("other"), passphrase: "a test passphrase")
        #expect(try other.keyedName("passport-pairwise:https://a.example") + ".json" != keyed)
        // A file named the old way is renamed on first use and is the same key.
        try FileManager.default.moveItem(at: pairwise.appendingPathComponent(keyed), to: pairwise.appendingPathComponent(unkeyed))
        #expect(try store.pairwiseKey(for: "https://a.example").publicKey == key.publicKey)
        #expect(try FileManager.default.contentsOfDirectory(atPath: pairwise.path) == [keyed])
    }

    @Test func presentationsCarryADayAndAFixedNumberOfDigests() throws {
        let key = try P256PrivateKey()
        for nationality in [nil, "UTO"] {
            let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nationality, verificationMethod: "NFC Verified",
                                       evidence: [:], expiry: Date(timeIntervalSince1970: 2_027_548_799))
            let token = try PassportCredential.present(claims, format: .sdJWT, disclose: ["age_over_18"], audience: "a", nonce: "n", key: key)
            let jws = try CompactJWS(try SDJWT.split(token).jwt)
            #expect((jws.payload["_sd"] as? [String])?.count == PassportCredential.digestCount)
            let iat = try #require(jws.payload["iat"] as? Int)
            #expect(iat % 86_400 == 0)
            #expect(jws.payload["exp"] as? Int == iat + Int(PassportCredential.selfIssuedValidity))
            #expect(jws.payload["exp"] as? Int != 2_027_548_799, "the passport's expiry is not presented")
        }
    }
}

/// Issue 48, item 13: a refused presentation's claims are not reported as if they held.
@Suite struct RefusedPresentationReport {
    @Test func aPresentationBelowTheRequiredLevelReportsNoClaims() throws {
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "NFC Verified", evidence: [:],
                                   expiry: Date().addingTimeInterval(86_400))
        let token = try PassportCredential.present(claims, format: .sdJWT, disclose: ["age_over_18"], audience: "https://a.example",
                                                   nonce: "n-1", key: try P256PrivateKey())
        let verified = try PresentationVerifier(audience: "https://a.example", nonce: "n-1").verify(token)
        func encoded(_ required: TrustLevel) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: try ReportEncoding.data(try PresentationReport(verified, required: required))) as? [String: Any])
        }
        let refused = try encoded(.L2)
        #expect(refused["ok"] as? Bool == false)
        #expect(refused["claims"] is NSNull, "a refused presentation's claims: \(refused["claims"] ?? "absent")")
        let accepted = try encoded(.L1)
        #expect((accepted["claims"] as? [String: Any])?["age_over_18"] as? Bool == true)
    }
}
