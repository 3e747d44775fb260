import PassportCrypto
import FoundationEssentials
import JSONCore
import TextSupport

/// The claims a passport-backed credential may carry: derived facts only, never MRZ data.
/// How far a verifier may trust them is not a claim: the verifier states it (`TrustLevel`).
public struct DerivedClaims: @unchecked Sendable {
    public var ageOver18: Bool
    public var isHuman: Bool
    /// Only when the holder asks for it at issuance.
    public var nationality: String?
    /// "NFC Verified" (SD-JWT fallback) or "ZKP Verified" (a zero-knowledge proof was made).
    /// Said by whoever signed the credential; a self-issued one proves nothing by it.
    public var verificationMethod: String
    /// Evidence of how the document was checked (no personal data).
    public var evidence: [String: Any]
    /// Until when the holder may present it: the document's expiry for a self-issued credential
    /// (kept in the holder's own file, never presented), the issuer's `exp` for an issued one.
    public var expiry: Date

    public init(ageOver18: Bool, isHuman: Bool, nationality: String?, verificationMethod: String,
                evidence: [String: Any], expiry: Date) {
        self.ageOver18 = ageOver18
        self.isHuman = isHuman
        self.nationality = nationality
        self.verificationMethod = verificationMethod
        self.evidence = evidence
        self.expiry = expiry
    }

    /// One line for a confirmation prompt: the claims as they will be signed (evidence by its kind only).
    public var summary: String {
        claims.filter { $0.0 != "evidence" }.map { "\($0.0)=\($0.1)" }.joined(separator: ", ") + ", evidence: passive authentication"
            + (evidence["zero_knowledge_proof"] != nil ? " and a zero-knowledge proof" : "")
    }

    /// Claim name → JSON value, in a fixed order.
    public var claims: [(String, Any)] {
        var list: [(String, Any)] = [("age_over_18", ageOver18), ("is_human", isHuman)]
        if let nationality { list.append(("nationality", nationality)) }
        list += [("verification_method", verificationMethod), ("evidence", evidence)]
        return list
    }

    /// Rebuilds the claims from a credential's claim map (a `trust_level` claim written by
    /// 0.2.0 is ignored: the level is the verifier's to establish).
    public init(claims: [String: Any], expiry: Date) throws {
        guard let age = JSON.bool(claims["age_over_18"]), let human = JSON.bool(claims["is_human"]),
              let method = claims["verification_method"] as? String else {
            throw CredentialError.malformed("the credential lacks its derived claims")
        }
        self.init(ageOver18: age, isHuman: human, nationality: claims["nationality"] as? String,
                  verificationMethod: method, evidence: claims["evidence"] as? [String: Any] ?? [:], expiry: expiry)
    }
}

public enum CredentialFormat: String, Sendable, CaseIterable {
    case sdJWT = "sd-jwt"
    case jwt
}

/// An institution that signs credentials (level L2): its ES256 key, its certificate chain as the
/// JOSE `x5c` header carries it (standard base64 DER, leaf first) and its `iss` (an https URI
/// that is a uniformResourceIdentifier SAN of the leaf certificate).
public struct InstitutionIssuer: @unchecked Sendable {
    public let signer: any ES256Signer
    public let x5c: [String]
    public let issuer: String
    public init(signer: any ES256Signer, x5c: [String], issuer: String) {
        self.signer = signer
        self.x5c = x5c
        self.issuer = issuer
    }
}

/// A credential as the holder keeps it.
public struct HeldCredential: @unchecked Sendable {
    /// One institution-signed SD-JWT (all disclosures) bound to its own holder key (`cnf`); the
    /// private key is in the key store under `keyLabel`.
    public struct Instance: Sendable {
        public let jwt: String
        public let disclosures: [SDJWT.Disclosure]
        public let holderKey: P256PublicKey
        public var keyLabel: String { PassportCredential.instanceKeyLabel(holderKey) }
    }
    public let claims: DerivedClaims
    public let format: CredentialFormat
    /// Empty for a self-issued credential (minted afresh for each presentation); otherwise the
    /// batch an institution issued, one instance per verifier.
    public let instances: [Instance]
    /// The institution's `iss` (nil when self-issued).
    public let issuer: String?
    /// What a verifier will establish at best: L1 self-issued, L2 when the verifier trusts the issuer.
    public var level: TrustLevel { instances.isEmpty ? .L1 : .L2 }
}

/// Issues, presents and verifies the toolkit's passport credentials.
public enum PassportCredential {
    public static let vct = "urn:passport-toolkit:vct:passport-derived:1"
    static let vcContext = "https://www.w3.org/2018/credentials/v1"
    static let credentialType = "PassportDerivedCredential"
    /// Every SD-JWT carries this many `_sd` digests, decoys making up the difference, so that
    /// their number does not tell which claims (e.g. nationality) are inside.
    public static let digestCount = 10
    /// A self-issued presentation's credential is valid this long from the start of its day.
    public static let selfIssuedValidity: TimeInterval = 30 * 86_400

    /// The start (00:00 UTC) of `now`'s day, in seconds: the `iat` every credential carries, so
    /// that it says no more than the day (shared by everyone issued that day).
    public static func issuanceDay(_ now: Date) -> Int { Int(now.timeIntervalSince1970) / 86_400 * 86_400 }

    public static func instanceKeyLabel(_ key: P256PublicKey) -> String { "credential-instance:\(key.thumbprint)" }

    static func sdPayload(_ claims: DerivedClaims) throws -> (disclosures: [SDJWT.Disclosure], digests: [String]) {
        var disclosures: [SDJWT.Disclosure] = []
        for (name, value) in claims.claims {
            disclosures.append(try SDJWT.Disclosure(salt: SDJWT.salt(), name: name, value: value))
        }
        guard disclosures.count <= digestCount else { throw CredentialError.malformed("more claims than digests") }
        // Digests sorted, decoys up to a fixed count: neither order nor number tells what is inside.
        let digests = (disclosures.map(\.digest) + SDJWT.decoys(digestCount - disclosures.count)).sorted()
        return (disclosures, digests)
    }

    /// A self-issued credential for `key`'s DID about itself: SD-JWT VC (every claim selectively
    /// disclosable, a fixed number of digests) or VC-JWT. `disclose` limits the claims put in
    /// (VC-JWT) or released (SD-JWT). `expiry` is the credential's `exp`: the passport's for the
    /// holder's own file, the day plus `selfIssuedValidity` in presentations.
    public static func issue(_ claims: DerivedClaims, format: CredentialFormat, key: any ES256Signer,
                             now: Date = Date(), expiry: Date? = nil, disclose: Set<String>? = nil) throws -> String {
        let did = DIDKey.did(for: key.publicKey)
        let kid = DIDKey.verificationMethod(for: did)
        let iat = issuanceDay(now)
        let exp = expiry.map { Int($0.timeIntervalSince1970) } ?? iat + Int(selfIssuedValidity)
        switch format {
        case .sdJWT:
            let (disclosures, digests) = try sdPayload(claims)
            let payload: [String: Any] = [
                "iss": did, "sub": did, "iat": iat, "exp": exp, "vct": vct,
                "cnf": ["jwk": key.publicKey.jwk], "_sd": digests, "_sd_alg": "sha-256",
            ]
            let jwt = try CompactJWS.sign(header: ["typ": "dc+sd-jwt", "kid": kid], payload: payload, key: key)
            let released = disclosures.filter { disclose?.contains($0.name ?? "") ?? true }
            return SDJWT.presentedPart(jwt: jwt, disclosures: released.map(\.encoded))
        case .jwt:
            var subject: [String: Any] = ["id": did]
            for (name, value) in claims.claims where disclose?.contains(name) ?? true { subject[name] = value }
            let payload: [String: Any] = [
                "iss": did, "sub": did, "nbf": iat, "iat": iat, "exp": exp,
                "jti": "urn:uuid:\(UUID().uuidString.lowercased())",
                "vc": ["@context": [vcContext], "type": ["VerifiableCredential", credentialType],
                       "credentialSubject": subject] as [String: Any],
            ]
            return try CompactJWS.sign(header: ["typ": "JWT", "kid": kid], payload: payload, key: key)
        }
    }

    /// An institution's batch (level L2): one SD-JWT VC per holder key, each with its own salts
    /// and decoys, `x5c` in the header (HAIP), `iat` the day of issuance and `exp` that day plus
    /// `validity`. One line per instance: the holder keeps the batch and shows each verifier its
    /// own instance.
    public static func issueBatch(_ claims: DerivedClaims, institution: InstitutionIssuer, holderKeys: [P256PublicKey],
                                  validity: TimeInterval, now: Date = Date()) throws -> String {
        let iat = issuanceDay(now)
        var lines: [String] = []
        for holder in holderKeys {
            let (disclosures, digests) = try sdPayload(claims)
            let payload: [String: Any] = [
                "iss": institution.issuer, "iat": iat, "exp": iat + Int(validity), "vct": vct,
                "cnf": ["jwk": holder.jwk], "_sd": digests, "_sd_alg": "sha-256",
            ]
            let jwt = try CompactJWS.sign(header: ["typ": "dc+sd-jwt", "x5c": institution.x5c], payload: payload, key: institution.signer)
            lines.append(SDJWT.presentedPart(jwt: jwt, disclosures: disclosures.map(\.encoded)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a credential the holder keeps: a self-issued one (signature checked under `holder`)
    /// or an institution's batch (one SD-JWT with `x5c` per line; the verifier checks the chain).
    public static func open(_ credential: String, holder: P256PublicKey) throws -> HeldCredential {
        let lines = credential.split(whereSeparator: \.isNewline).map { $0.trimmed() }.filter { !$0.isEmpty }
        guard let first = lines.first else { throw CredentialError.malformed("the credential is empty") }
        if first.contains("~"), let header = try? CompactJWS(String(first.prefix { $0 != "~" })).header, header["x5c"] != nil {
            var instances: [HeldCredential.Instance] = []
            var claims: DerivedClaims?
            var issuer: String?
            for line in lines {
                let parts = try SDJWT.split(line)
                let jws = try CompactJWS(parts.jwt)
                guard jws.header["x5c"] != nil, let iss = jws.payload["iss"] as? String, issuer == nil || issuer == iss,
                      let exp = JSON.int(jws.payload["exp"]),
                      let cnf = (jws.payload["cnf"] as? [String: Any])?["jwk"] as? [String: Any] else {
                    throw CredentialError.malformed("a line of the issued credential is not an institution's SD-JWT with iss, exp and cnf")
                }
                issuer = iss
                let disclosures = try parts.disclosures.map(SDJWT.Disclosure.init(encoded:))
                let payload = try SDJWT.resolve(jws.payload, disclosures: disclosures)
                if claims == nil { claims = try DerivedClaims(claims: payload, expiry: Date(timeIntervalSince1970: TimeInterval(exp))) }
                instances.append(.init(jwt: parts.jwt, disclosures: disclosures, holderKey: try P256PublicKey(jwk: cnf)))
            }
            return HeldCredential(claims: claims!, format: .sdJWT, instances: instances, issuer: issuer)
        }
        let trimmed = credential.trimmed()
        if trimmed.contains("~") {
            let parts = try SDJWT.split(trimmed)
            let jws = try CompactJWS(parts.jwt)
            try jws.verify(with: holder, what: "the stored credential (is it yours?)")
            let disclosures = try parts.disclosures.map(SDJWT.Disclosure.init(encoded:))
            let payload = try SDJWT.resolve(jws.payload, disclosures: disclosures)
            guard let exp = JSON.int(payload["exp"]) else { throw CredentialError.malformed("no exp") }
            return HeldCredential(claims: try DerivedClaims(claims: payload, expiry: Date(timeIntervalSince1970: TimeInterval(exp))),
                                  format: .sdJWT, instances: [], issuer: nil)
        }
        let jws = try CompactJWS(trimmed)
        try jws.verify(with: holder, what: "the stored credential (is it yours?)")
        guard let exp = JSON.int(jws.payload["exp"]), let vc = jws.payload["vc"] as? [String: Any],
              let subject = vc["credentialSubject"] as? [String: Any] else { throw CredentialError.malformed("not a VC-JWT") }
        return HeldCredential(claims: try DerivedClaims(claims: subject, expiry: Date(timeIntervalSince1970: TimeInterval(exp))),
                              format: .jwt, instances: [], issuer: nil)
    }

    static func checkDisclosable(_ claims: DerivedClaims, _ disclose: Set<String>) throws {
        let known = Set(claims.claims.map(\.0))
        let unknown = disclose.subtracting(known)
        guard unknown.isEmpty else {
            throw CredentialError.rejected("the credential has no claim \(unknown.sorted().joined(separator: ", ")) (it has \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// A self-issued presentation for one verifier: a credential minted afresh under that
    /// verifier's pairwise key (new DID, salts, decoys, identifiers; `iat` the day, `exp` a fixed
    /// time after it, nothing from the passport), with the chosen claims, bound to `audience`
    /// and `nonce`. Nothing in it links to presentations made to other audiences.
    public static func present(_ claims: DerivedClaims, format: CredentialFormat, disclose: Set<String>,
                               audience: String, nonce: String, key: P256PrivateKey, now: Date = Date()) throws -> String {
        try checkDisclosable(claims, disclose)
        guard claims.expiry > now else { throw CredentialError.rejected("the credential expired on \(claims.expiry) (with its passport)") }
        let iat = Int(now.timeIntervalSince1970)
        switch format {
        case .sdJWT:
            let issued = try issue(claims, format: .sdJWT, key: key, now: now, disclose: disclose)
            return issued + (try keyBinding(for: issued, audience: audience, nonce: nonce, key: key, now: now))
        case .jwt:
            let vc = try issue(claims, format: .jwt, key: key, now: now, disclose: disclose)
            let did = DIDKey.did(for: key.publicKey)
            let payload: [String: Any] = [
                "iss": did, "aud": audience, "nonce": nonce, "iat": iat, "nbf": iat, "exp": iat + 45,
                "jti": "urn:uuid:\(UUID().uuidString.lowercased())",
                "vp": ["@context": [vcContext], "type": ["VerifiablePresentation"], "holder": did,
                       "verifiableCredential": [vc]] as [String: Any],
            ]
            return try CompactJWS.sign(header: ["typ": "JWT", "kid": DIDKey.verificationMethod(for: did)], payload: payload, key: key)
        }
    }

    /// A presentation of one instance of an institution's batch: its issuer JWT, the chosen
    /// disclosures and a key-binding JWT signed by that instance's key.
    public static func present(_ instance: HeldCredential.Instance, claims: DerivedClaims, disclose: Set<String>,
                               audience: String, nonce: String, key: any ES256Signer, now: Date = Date()) throws -> String {
        try checkDisclosable(claims, disclose)
        guard key.publicKey == instance.holderKey else { throw CredentialError.keyStore("the key for this credential instance is not the one it is bound to.") }
        guard claims.expiry > now else { throw CredentialError.rejected("the credential expired on \(claims.expiry); ask the issuer for a new one") }
        let issued = SDJWT.presentedPart(jwt: instance.jwt, disclosures: instance.disclosures.filter { disclose.contains($0.name ?? "") }.map(\.encoded))
        return issued + (try keyBinding(for: issued, audience: audience, nonce: nonce, key: key, now: now))
    }

    static func keyBinding(for issued: String, audience: String, nonce: String, key: any ES256Signer, now: Date) throws -> String {
        let parts = try SDJWT.split(issued)
        let sdHash = SDJWT.digest(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures))
        return try CompactJWS.sign(header: ["typ": "kb+jwt"],
                                   payload: ["iat": Int(now.timeIntervalSince1970), "aud": audience, "nonce": nonce, "sd_hash": sdHash], key: key)
    }
}

/// What a verifier learns from a presentation whose signatures, binding and freshness hold.
/// Whether it is good enough is `level` against what the verifier asks for (`meets`).
public struct VerifiedPresentation: @unchecked Sendable {
    public let format: CredentialFormat
    public let issuer: String
    public let claims: [String: Any]
    public let expiry: Date?
    /// Established by the verifier: L1 for a did:key issuer (self-issued), L2 for an x5c chain to
    /// one of its issuer anchors.
    public let level: TrustLevel
    /// The issuer certificate's subject (L2).
    public let issuerCertificate: String?

    public func meets(_ required: TrustLevel) -> Bool { level >= required }
}

/// What a verifier's issuer anchors say about an issuer JWT's `x5c` chain: the leaf's key,
/// subject, DNS and URI names. Throws when the chain does not verify to an anchor or the leaf
/// may not sign (key usage).
public typealias IssuerChainCheck = @Sendable (_ x5c: [String], _ at: Date) throws -> (key: P256PublicKey, subject: String, dnsNames: [String], uris: [String])

/// Checks presentations: signatures, audience, nonce, freshness, sd_hash and disclosures, the
/// credential's type, and establishes the trust level of the issuer. Each step is a named check,
/// run in the order `verifySDJWT` and `verifyVPJWT` list them.
public struct PresentationVerifier: Sendable {
    public var audience: String
    public var nonce: String
    /// How old a presentation may be (its iat), in seconds.
    public var maxAge: TimeInterval = 300
    /// Tolerated clock difference, in seconds.
    public var clockSkew: TimeInterval = 60
    public var now: Date = Date()
    /// The issuers this verifier trusts (nil: none, so nothing reaches L2).
    public var issuerTrust: IssuerChainCheck?
    /// The credential types (SD-JWT VC `vct`) accepted: the toolkit's own unless the verifier
    /// names others. A VC-JWT, which has no vct, is the toolkit's own type or nothing.
    public var acceptedTypes: Set<String> = [PassportCredential.vct]

    public init(audience: String, nonce: String) {
        self.audience = audience
        self.nonce = nonce
    }

    /// Who signed a credential, as this verifier established it.
    struct Issuer {
        let iss: String
        let key: P256PublicKey
        let level: TrustLevel
        /// The certificate's subject (L2).
        let certificate: String?
    }

    public func verify(_ token: String) throws -> VerifiedPresentation {
        try InputBounds.checkTokenSize(token, what: "the presentation")
        let trimmed = token.trimmed()
        return trimmed.contains("~") ? try verifySDJWT(trimmed) : try verifyVPJWT(trimmed)
    }

    // MARK: SD-JWT VC

    /// An SD-JWT VC presentation: the issuer and its signature, the credential's type and
    /// validity, the holder's key binding to this verifier, then the disclosed claims.
    private func verifySDJWT(_ token: String) throws -> VerifiedPresentation {
        let parts = try SDJWT.split(token)
        let credential = try CompactJWS(parts.jwt)
        try checkMediaType(credential)
        let issuer = try sdJWTIssuer(credential)
        try credential.verify(with: issuer.key, what: "the issuer-signed JWT")
        try checkCredentialType(credential.payload)
        try checkDigestAlgorithm(credential.payload)
        let exp = try checkValidity(credential.payload, what: "the credential")
        try checkKeyBinding(parts, credential: credential)
        let claims = try disclosedClaims(parts, credential: credential)
        return VerifiedPresentation(format: .sdJWT, issuer: issuer.iss, claims: claims, expiry: Date(timeIntervalSince1970: TimeInterval(exp)),
                                    level: issuer.level, issuerCertificate: issuer.certificate)
    }

    func checkMediaType(_ credential: CompactJWS) throws {
        let typ = credential.header["typ"] as? String
        guard typ == "dc+sd-jwt" || typ == "vc+sd-jwt" else {
            throw CredentialError.rejected("the issuer JWT's typ is \(MessageText.bounded(credential.header["typ"] ?? "missing")), not dc+sd-jwt")
        }
    }

    /// The issuer of an SD-JWT: an x5c chain to a trusted anchor (L2), else its did:key (L1).
    func sdJWTIssuer(_ credential: CompactJWS) throws -> Issuer {
        guard let x5c = credential.header["x5c"] else {
            let (iss, key) = try selfIssuer(credential.payload, what: "the SD-JWT")
            return Issuer(iss: iss, key: key, level: .L1, certificate: nil)
        }
        guard let chain = x5c as? [String], !chain.isEmpty else { throw CredentialError.malformed("the issuer JWT's x5c is not an array of certificates") }
        guard let iss = credential.payload["iss"] as? String else { throw CredentialError.malformed("the SD-JWT has no iss") }
        let leaf = try trustedLeaf(chain)
        try IssuerIdentifier.check(iss, dnsNames: leaf.dnsNames, uris: leaf.uris, subject: leaf.subject)
        return Issuer(iss: iss, key: leaf.key, level: .L2, certificate: leaf.subject)
    }

    /// The x5c chain checked by the verifier's issuer anchors: the leaf's key and names.
    func trustedLeaf(_ chain: [String]) throws -> (key: P256PublicKey, subject: String, dnsNames: [String], uris: [String]) {
        guard let issuerTrust else {
            throw CredentialError.rejected("the credential is signed by an issuer certificate (x5c), and this verifier trusts no issuer (give its CA with --trust-issuer)")
        }
        do { return try issuerTrust(chain, now) } catch let error as CredentialError { throw error } catch {
            throw CredentialError.rejected("the issuer is not trusted: \(error)")
        }
    }

    /// A did:key `iss` and the key it names (self-issued credentials and VC-JWT presentations).
    func selfIssuer(_ payload: [String: Any], what: String) throws -> (String, P256PublicKey) {
        guard let iss = payload["iss"] as? String else { throw CredentialError.malformed("\(what) has no iss") }
        guard iss.hasPrefix("did:key:") else {
            throw CredentialError.rejected("\(what) issuer \(MessageText.bounded(iss)) is not a did:key this verifier can resolve")
        }
        return (iss, try DIDKey.publicKey(from: iss))
    }

    /// SD-JWT VC §3.2.2.2: `vct` is required; it must be one of the types this verifier accepts.
    func checkCredentialType(_ payload: [String: Any]) throws {
        let accepted = acceptedTypes.sorted().map { MessageText.bounded($0) }.joined(separator: " or ")
        guard let vct = payload["vct"] as? String else {
            throw CredentialError.rejected("the credential has no vct (its type); this verifier accepts vct \(accepted)")
        }
        guard acceptedTypes.contains(vct) else {
            throw CredentialError.rejected("the credential's vct is \(MessageText.bounded(vct)), not \(accepted) (name the types you accept with --vct)")
        }
    }

    func checkDigestAlgorithm(_ payload: [String: Any]) throws {
        guard (payload["_sd_alg"] as? String ?? "sha-256") == "sha-256" else {
            throw CredentialError.rejected("unsupported _sd_alg \(MessageText.bounded(payload["_sd_alg"]))")
        }
    }

    /// The key-binding JWT: signed by the credential's holder key (`cnf`), for this audience and
    /// nonce, fresh, over exactly the issuer JWT and disclosures presented (`sd_hash`).
    func checkKeyBinding(_ parts: (jwt: String, disclosures: [String], keyBinding: String?), credential: CompactJWS) throws {
        guard let kbToken = parts.keyBinding else { throw CredentialError.rejected("no key binding JWT: the presentation is not bound to this verifier") }
        guard let cnf = (credential.payload["cnf"] as? [String: Any])?["jwk"] as? [String: Any] else {
            throw CredentialError.rejected("the SD-JWT has no holder key (cnf)")
        }
        let holder = try P256PublicKey(jwk: cnf)
        let kb = try CompactJWS(kbToken)
        guard kb.header["typ"] as? String == "kb+jwt" else { throw CredentialError.rejected("the key binding JWT's typ is not kb+jwt") }
        try kb.verify(with: holder, what: "the key binding JWT")
        try checkAudienceAndNonce(kb.payload, what: "the key binding JWT", stringAudience: true)
        try checkTime(iat: JSON.int(kb.payload["iat"]), exp: nil, what: "the key binding JWT")
        let expectedHash = SDJWT.digest(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures))
        guard kb.payload["sd_hash"] as? String == expectedHash else {
            throw CredentialError.rejected("sd_hash does not match the presented SD-JWT (disclosures added or removed)")
        }
    }

    /// The claims the disclosures reveal, without the credential's own registered claims.
    func disclosedClaims(_ parts: (jwt: String, disclosures: [String], keyBinding: String?), credential: CompactJWS) throws -> [String: Any] {
        let disclosures = try parts.disclosures.map(SDJWT.Disclosure.init(encoded:))
        var claims = try SDJWT.resolve(credential.payload, disclosures: disclosures)
        for reserved in ["iss", "iat", "exp", "nbf", "cnf", "vct", "sub", "status"] { claims.removeValue(forKey: reserved) }
        return claims
    }

    // MARK: VC-JWT

    /// A VP JWT holding one self-issued VC-JWT: the presentation's signature, audience, nonce
    /// and freshness, then the credential's signature, type, holder binding and validity.
    private func verifyVPJWT(_ token: String) throws -> VerifiedPresentation {
        let vp = try CompactJWS(token)
        let (holderDID, holderKey) = try selfIssuer(vp.payload, what: "the presentation")
        try vp.verify(with: holderKey, what: "the presentation")
        try checkAudienceAndNonce(vp.payload, what: "the presentation", stringAudience: false)
        guard JSON.int(vp.payload["exp"]) != nil else { throw CredentialError.rejected("the presentation has no exp") }
        try checkTime(iat: JSON.int(vp.payload["iat"]), exp: JSON.int(vp.payload["exp"]), what: "the presentation")
        let vc = try presentedCredential(vp)
        let (issuer, issuerKey) = try selfIssuer(vc.payload, what: "the credential")
        try vc.verify(with: issuerKey, what: "the credential")
        let subject = try credentialSubject(vc, holder: holderDID)
        let exp = try checkValidity(vc.payload, what: "the credential")
        var claims = subject
        claims.removeValue(forKey: "id")
        return VerifiedPresentation(format: .jwt, issuer: issuer, claims: claims,
                                    expiry: Date(timeIntervalSince1970: TimeInterval(exp)), level: .L1, issuerCertificate: nil)
    }

    /// The one VC-JWT a VP JWT carries: self-issued (institutions issue SD-JWT VC) and of the
    /// toolkit's type, which stands for the toolkit's vct.
    func presentedCredential(_ vp: CompactJWS) throws -> CompactJWS {
        guard let body = vp.payload["vp"] as? [String: Any], let credentials = body["verifiableCredential"] as? [String],
              credentials.count == 1 else { throw CredentialError.malformed("the presentation does not hold exactly one VC-JWT") }
        let vc = try CompactJWS(credentials[0])
        guard vc.header["x5c"] == nil else { throw CredentialError.rejected("an institution's VC-JWT (x5c) is not checked by this verifier: issued credentials are SD-JWT VC") }
        let types = (vc.payload["vc"] as? [String: Any])?["type"] as? [String] ?? []
        guard types.contains(PassportCredential.credentialType), acceptedTypes.contains(PassportCredential.vct) else {
            throw CredentialError.rejected("the VC-JWT's type is \(MessageText.bounded(types)), and this verifier accepts only vct \(acceptedTypes.sorted().map { MessageText.bounded($0) }.joined(separator: " or ")) (a VC-JWT counts as \(PassportCredential.vct) when its type is \(PassportCredential.credentialType))")
        }
        return vc
    }

    /// Holder binding: the credential is about the DID that signed the presentation.
    func credentialSubject(_ vc: CompactJWS, holder: String) throws -> [String: Any] {
        guard let subject = (vc.payload["vc"] as? [String: Any])?["credentialSubject"] as? [String: Any] else {
            throw CredentialError.malformed("the credential has no credentialSubject")
        }
        guard (vc.payload["sub"] as? String ?? subject["id"] as? String) == holder else {
            throw CredentialError.rejected("the credential's subject is not the presenter")
        }
        return subject
    }

    // MARK: Shared checks

    private func checkTime(iat: Int?, exp: Int?, what: String) throws {
        let t = now.timeIntervalSince1970
        if let exp, TimeInterval(exp) + clockSkew < t { throw CredentialError.rejected("\(what) has expired") }
        guard let iat else { throw CredentialError.rejected("\(what) has no iat") }
        if TimeInterval(iat) > t + clockSkew { throw CredentialError.rejected("\(what) is issued in the future") }
        if TimeInterval(iat) < t - maxAge { throw CredentialError.rejected("\(what) is older than \(Int(maxAge)) s (replayed?)") }
    }

    /// A credential's own validity: `exp` required and not passed, `iat` and `nbf` (when given) not in the future.
    private func checkValidity(_ payload: [String: Any], what: String) throws -> Int {
        let t = now.timeIntervalSince1970
        guard let exp = JSON.int(payload["exp"]) else { throw CredentialError.rejected("\(what) has no exp (a credential without an end is not accepted)") }
        if TimeInterval(exp) + clockSkew < t { throw CredentialError.rejected("\(what) has expired") }
        for name in ["iat", "nbf"] {
            guard let value = payload[name] else { continue }
            guard let time = JSON.int(value) else { throw CredentialError.malformed("\(what)'s \(name) is not a number") }
            if TimeInterval(time) > t + clockSkew { throw CredentialError.rejected("\(what) is not valid yet (\(name) in the future)") }
        }
        return exp
    }

    private func checkAudienceAndNonce(_ payload: [String: Any], what: String, stringAudience: Bool) throws {
        if stringAudience {
            guard let aud = payload["aud"] as? String else { throw CredentialError.rejected("\(what)'s aud is not a single string") }
            guard aud == audience else { throw CredentialError.rejected("\(what) is meant for another audience") }
        } else {
            let audiences = (payload["aud"] as? [String]) ?? (payload["aud"] as? String).map { [$0] } ?? []
            guard audiences.contains(audience) else { throw CredentialError.rejected("\(what) is meant for another audience") }
        }
        guard payload["nonce"] as? String == nonce else { throw CredentialError.rejected("\(what) answers another nonce") }
    }
}

extension HeldCredential {
    /// Claims held in memory only (the desk, from a document it verified): each presentation is a
    /// self-issued credential under the verifier's pairwise key (level L1).
    public init(selfIssued claims: DerivedClaims) {
        self.init(claims: claims, format: .sdJWT, instances: [], issuer: nil)
    }
}
