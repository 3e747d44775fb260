import PassportCrypto
import Foundation

/// The claims a passport-backed credential may carry: derived facts only, never MRZ data.
public struct DerivedClaims: @unchecked Sendable {
    public var ageOver18: Bool
    public var isHuman: Bool
    /// Only when the holder asks for it at issuance.
    public var nationality: String?
    public var trustLevel = "L3"
    public var trustLevelName = "Government"
    /// "NFC Verified" (SD-JWT fallback) or "ZKP Verified" (a zero-knowledge proof was made).
    public var verificationMethod: String
    /// Evidence of how the document was checked (no personal data).
    public var evidence: [String: Any]
    /// The document's expiry: the credential's expiry.
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
        list += [("trust_level", trustLevel), ("trust_level_name", trustLevelName),
                 ("verification_method", verificationMethod), ("evidence", evidence)]
        return list
    }

    /// Rebuilds the claims from a credential's claim map.
    public init(claims: [String: Any], expiry: Date) throws {
        guard let age = claims["age_over_18"] as? Bool, let human = claims["is_human"] as? Bool,
              let method = claims["verification_method"] as? String else {
            throw CredentialError.malformed("the credential lacks its derived claims")
        }
        self.init(ageOver18: age, isHuman: human, nationality: claims["nationality"] as? String,
                  verificationMethod: method, evidence: claims["evidence"] as? [String: Any] ?? [:], expiry: expiry)
        trustLevel = claims["trust_level"] as? String ?? trustLevel
        trustLevelName = claims["trust_level_name"] as? String ?? trustLevelName
    }
}

public enum CredentialFormat: String, Sendable, CaseIterable {
    case sdJWT = "sd-jwt"
    case jwt
}

/// Issues, presents and verifies the toolkit's self-issued passport credentials.
public enum PassportCredential {
    public static let vct = "urn:passport-toolkit:vct:passport-derived:1"
    static let vcContext = "https://www.w3.org/2018/credentials/v1"
    static let credentialType = "PassportDerivedCredential"

    /// A credential for `key`'s DID about itself: SD-JWT VC (every claim selectively disclosable,
    /// with decoys) or VC-JWT. `disclose` limits the claims put in (VC-JWT) or released (SD-JWT).
    public static func issue(_ claims: DerivedClaims, format: CredentialFormat, key: any ES256Signer,
                             now: Date = Date(), disclose: Set<String>? = nil) throws -> String {
        let did = DIDKey.did(for: key.publicKey)
        let kid = DIDKey.verificationMethod(for: did)
        let iat = Int(now.timeIntervalSince1970)
        let exp = Int(claims.expiry.timeIntervalSince1970)
        switch format {
        case .sdJWT:
            var disclosures: [SDJWT.Disclosure] = []
            for (name, value) in claims.claims {
                disclosures.append(try SDJWT.Disclosure(salt: SDJWT.salt(), name: name, value: value))
            }
            // Digests sorted, decoys mixed in: neither order nor count tells what is inside.
            let digests = (disclosures.map(\.digest) + SDJWT.decoys(2 + Int(OpenSSLCrypto.randomBytes(1)[0] % 3))).sorted()
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

    /// Reads a credential this toolkit issued to `holder` (signature checked), giving its claims.
    public static func open(_ credential: String, holder: P256PublicKey) throws -> (DerivedClaims, CredentialFormat) {
        let trimmed = credential.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.contains("~") {
            let parts = try SDJWT.split(trimmed)
            let jws = try CompactJWS(parts.jwt)
            try jws.verify(with: holder, what: "the stored credential (is it yours?)")
            let disclosures = try parts.disclosures.map(SDJWT.Disclosure.init(encoded:))
            let payload = try SDJWT.resolve(jws.payload, disclosures: disclosures)
            guard let exp = payload["exp"] as? Int else { throw CredentialError.malformed("no exp") }
            return (try DerivedClaims(claims: payload, expiry: Date(timeIntervalSince1970: TimeInterval(exp))), .sdJWT)
        }
        let jws = try CompactJWS(trimmed)
        try jws.verify(with: holder, what: "the stored credential (is it yours?)")
        guard let exp = jws.payload["exp"] as? Int, let vc = jws.payload["vc"] as? [String: Any],
              let subject = vc["credentialSubject"] as? [String: Any] else { throw CredentialError.malformed("not a VC-JWT") }
        return (try DerivedClaims(claims: subject, expiry: Date(timeIntervalSince1970: TimeInterval(exp))), .jwt)
    }

    /// A presentation for one verifier: a credential minted afresh under that verifier's pairwise
    /// key (new DID, salts, decoys, identifiers), with the chosen claims, bound to `audience`
    /// and `nonce`. Nothing in it links to presentations made to other audiences.
    public static func present(_ claims: DerivedClaims, format: CredentialFormat, disclose: Set<String>,
                               audience: String, nonce: String, key: P256PrivateKey, now: Date = Date()) throws -> String {
        let known = Set(claims.claims.map(\.0))
        let unknown = disclose.subtracting(known)
        guard unknown.isEmpty else {
            throw CredentialError.rejected("the credential has no claim \(unknown.sorted().joined(separator: ", ")) (it has \(known.sorted().joined(separator: ", ")))")
        }
        let iat = Int(now.timeIntervalSince1970)
        switch format {
        case .sdJWT:
            let issued = try issue(claims, format: .sdJWT, key: key, now: now, disclose: disclose)
            let parts = try SDJWT.split(issued)
            let sdHash = SDJWT.digest(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures))
            let kb = try CompactJWS.sign(header: ["typ": "kb+jwt"],
                                         payload: ["iat": iat, "aud": audience, "nonce": nonce, "sd_hash": sdHash], key: key)
            return issued + kb
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
}

/// What a verifier learns from a valid presentation.
public struct VerifiedPresentation: @unchecked Sendable {
    public let format: CredentialFormat
    public let issuer: String
    public let claims: [String: Any]
    public let expiry: Date?
}

/// Checks presentations: signatures, audience, nonce, freshness, sd_hash and disclosures.
public struct PresentationVerifier: Sendable {
    public var audience: String
    public var nonce: String
    /// How old a presentation may be (its iat), in seconds.
    public var maxAge: TimeInterval = 300
    /// Tolerated clock difference, in seconds.
    public var clockSkew: TimeInterval = 60
    public var now: Date = Date()

    public init(audience: String, nonce: String) {
        self.audience = audience
        self.nonce = nonce
    }

    public func verify(_ token: String) throws -> VerifiedPresentation {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.contains("~") ? try verifySDJWT(trimmed) : try verifyVPJWT(trimmed)
    }

    private func checkTime(iat: Int?, exp: Int?, what: String) throws {
        let t = now.timeIntervalSince1970
        if let exp, TimeInterval(exp) + clockSkew < t { throw CredentialError.rejected("\(what) has expired") }
        guard let iat else { throw CredentialError.rejected("\(what) has no iat") }
        if TimeInterval(iat) > t + clockSkew { throw CredentialError.rejected("\(what) is issued in the future") }
        if TimeInterval(iat) < t - maxAge { throw CredentialError.rejected("\(what) is older than \(Int(maxAge)) s (replayed?)") }
    }

    private func checkAudienceAndNonce(_ payload: [String: Any], what: String) throws {
        let audiences = (payload["aud"] as? [String]) ?? (payload["aud"] as? String).map { [$0] } ?? []
        guard audiences.contains(audience) else { throw CredentialError.rejected("\(what) is meant for another audience") }
        guard payload["nonce"] as? String == nonce else { throw CredentialError.rejected("\(what) answers another nonce") }
    }

    private func issuerKey(_ payload: [String: Any], what: String) throws -> (String, P256PublicKey) {
        guard let iss = payload["iss"] as? String else { throw CredentialError.malformed("\(what) has no iss") }
        guard iss.hasPrefix("did:key:") else { throw CredentialError.rejected("\(what) issuer \(iss) is not a did:key this verifier can resolve") }
        return (iss, try DIDKey.publicKey(from: iss))
    }

    private func verifySDJWT(_ token: String) throws -> VerifiedPresentation {
        let parts = try SDJWT.split(token)
        let jws = try CompactJWS(parts.jwt)
        guard jws.header["typ"] as? String == "dc+sd-jwt" || jws.header["typ"] as? String == "vc+sd-jwt" else {
            throw CredentialError.rejected("the issuer JWT's typ is \(jws.header["typ"] ?? "missing"), not dc+sd-jwt")
        }
        let (issuer, key) = try issuerKey(jws.payload, what: "the SD-JWT")
        try jws.verify(with: key, what: "the issuer-signed JWT")
        guard (jws.payload["_sd_alg"] as? String ?? "sha-256") == "sha-256" else {
            throw CredentialError.rejected("unsupported _sd_alg \(jws.payload["_sd_alg"]!)")
        }
        let exp = jws.payload["exp"] as? Int
        if let exp, TimeInterval(exp) + clockSkew < now.timeIntervalSince1970 { throw CredentialError.rejected("the credential has expired") }

        guard let kbToken = parts.keyBinding else { throw CredentialError.rejected("no key binding JWT: the presentation is not bound to this verifier") }
        guard let cnf = (jws.payload["cnf"] as? [String: Any])?["jwk"] as? [String: Any] else {
            throw CredentialError.rejected("the SD-JWT has no holder key (cnf)")
        }
        let holder = try P256PublicKey(jwk: cnf)
        let kb = try CompactJWS(kbToken)
        guard kb.header["typ"] as? String == "kb+jwt" else { throw CredentialError.rejected("the key binding JWT's typ is not kb+jwt") }
        try kb.verify(with: holder, what: "the key binding JWT")
        try checkAudienceAndNonce(kb.payload, what: "the key binding JWT")
        try checkTime(iat: kb.payload["iat"] as? Int, exp: nil, what: "the key binding JWT")
        let expectedHash = SDJWT.digest(SDJWT.presentedPart(jwt: parts.jwt, disclosures: parts.disclosures))
        guard kb.payload["sd_hash"] as? String == expectedHash else {
            throw CredentialError.rejected("sd_hash does not match the presented SD-JWT (disclosures added or removed)")
        }
        let disclosures = try parts.disclosures.map(SDJWT.Disclosure.init(encoded:))
        var claims = try SDJWT.resolve(jws.payload, disclosures: disclosures)
        for reserved in ["iss", "iat", "exp", "nbf", "cnf", "vct", "sub", "status"] { claims.removeValue(forKey: reserved) }
        return VerifiedPresentation(format: .sdJWT, issuer: issuer, claims: claims,
                                    expiry: exp.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    private func verifyVPJWT(_ token: String) throws -> VerifiedPresentation {
        let vp = try CompactJWS(token)
        let (holderDID, holderKey) = try issuerKey(vp.payload, what: "the presentation")
        try vp.verify(with: holderKey, what: "the presentation")
        try checkAudienceAndNonce(vp.payload, what: "the presentation")
        guard vp.payload["exp"] is Int else { throw CredentialError.rejected("the presentation has no exp") }
        try checkTime(iat: vp.payload["iat"] as? Int, exp: vp.payload["exp"] as? Int, what: "the presentation")
        guard let body = vp.payload["vp"] as? [String: Any], let credentials = body["verifiableCredential"] as? [String],
              credentials.count == 1 else { throw CredentialError.malformed("the presentation does not hold exactly one VC-JWT") }
        let vc = try CompactJWS(credentials[0])
        let (issuer, issuerKey) = try issuerKey(vc.payload, what: "the credential")
        try vc.verify(with: issuerKey, what: "the credential")
        guard let subject = (vc.payload["vc"] as? [String: Any])?["credentialSubject"] as? [String: Any] else {
            throw CredentialError.malformed("the credential has no credentialSubject")
        }
        // Holder binding: the credential is about the DID that signed the presentation.
        guard (vc.payload["sub"] as? String ?? subject["id"] as? String) == holderDID else {
            throw CredentialError.rejected("the credential's subject is not the presenter")
        }
        let exp = vc.payload["exp"] as? Int
        if let exp, TimeInterval(exp) + clockSkew < now.timeIntervalSince1970 { throw CredentialError.rejected("the credential has expired") }
        var claims = subject
        claims.removeValue(forKey: "id")
        return VerifiedPresentation(format: .jwt, issuer: issuer, claims: claims,
                                    expiry: exp.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }
}
