import Credentials
/// `passport present --request … --json`: what was asked, by whom, what was sent, and the
/// verifier's answer.
public struct PresentRequestReport: Codable, Sendable, Equatable {
    public struct Verifier: Codable, Sendable, Equatable {
        public let clientID: String
        /// The request-object certificate's subject (null for redirect_uri client identifiers).
        @NullEncoded public var certificateSubject: String?
        public let dnsNames: [String]
        enum CodingKeys: String, CodingKey { case clientID = "client_id", certificateSubject = "certificate_subject", dnsNames = "dns_names" }
        public init(clientID: String, certificateSubject: String?, dnsNames: [String]) {
            self.clientID = clientID
            self.certificateSubject = certificateSubject
            self.dnsNames = dnsNames
        }
    }

    public var ok = true
    public let verifier: Verifier
    public let responseURI: String
    /// What the verifier will establish at best (L1 self-issued; L2 if it trusts the issuer).
    public var level = "L1"
    public let responseMode: String
    /// The JWE content encryption (direct_post.jwt only; null otherwise).
    @NullEncoded public var encryption: String?
    public let nonce: String
    /// Claim names disclosed, by DCQL credential query id.
    public let disclosed: [String: [String]]
    /// The pairwise DID the verifier sees.
    public let did: String
    public let sent: Bool
    @NullEncoded public var verifierStatus: Int?
    @NullEncoded public var redirectURI: String?

    enum CodingKeys: String, CodingKey {
        case ok, verifier, nonce, disclosed, did, sent, encryption, level
        case responseURI = "response_uri", responseMode = "response_mode", verifierStatus = "verifier_status", redirectURI = "redirect_uri"
    }

    public init(verifier: Verifier, responseURI: String, responseMode: String, encryption: String?, nonce: String,
                disclosed: [String: [String]], did: String, sent: Bool, verifierStatus: Int?, redirectURI: String?, level: TrustLevel = .L1) {
        self.level = level.rawValue
        self.verifier = verifier
        self.responseURI = responseURI
        self.responseMode = responseMode
        self.encryption = encryption
        self.nonce = nonce
        self.disclosed = disclosed
        self.did = did
        self.sent = sent
        self.verifierStatus = verifierStatus
        self.redirectURI = redirectURI
    }
}

/// `passport verify-vp --request … --json`: each credential query's verified presentations.
public struct VPTokenReport: Codable, Sendable, Equatable {
    public struct Presentation: Codable, Sendable, Equatable {
        public let issuer: String
        public let level: String
        @NullEncoded public var issuerCertificate: String?
        /// Null when the vp_token is refused: nobody vouches for a refused presentation's claims.
        @NullEncoded public var claims: [String: JSONValue]?
        enum CodingKeys: String, CodingKey { case issuer, level, claims, issuerCertificate = "issuer_certificate" }
        public init(issuer: String, level: TrustLevel, issuerCertificate: String?, claims: [String: JSONValue]?) {
            self.issuer = issuer
            self.level = level.rawValue
            self.issuerCertificate = issuerCertificate
            self.claims = claims
        }
    }
    /// Every presentation verified and at the required level.
    public var ok: Bool
    public let clientID: String
    public let nonce: String
    public let requiredLevel: String
    public let credentials: [String: [Presentation]]
    @NullEncoded public var refusal: String?
    enum CodingKeys: String, CodingKey { case ok, nonce, credentials, refusal, clientID = "client_id", requiredLevel = "required_level" }
    public init(clientID: String, nonce: String, credentials: [String: [Presentation]], required: TrustLevel, refusal: String?) {
        ok = refusal == nil
        self.refusal = refusal
        requiredLevel = required.rawValue
        self.clientID = clientID
        self.nonce = nonce
        self.credentials = credentials
    }

    /// The report of verified presentations by query id; their claims only when none is refused.
    public init(clientID: String, nonce: String, results: [(queryID: String, presentations: [VerifiedPresentation])],
                required: TrustLevel, refusal: String?) throws {
        var credentials: [String: [Presentation]] = [:]
        for (queryID, presentations) in results {
            credentials[queryID] = try presentations.map {
                Presentation(issuer: $0.issuer, level: $0.level, issuerCertificate: $0.issuerCertificate,
                             claims: refusal == nil ? try JSONValue.object($0.claims.map { ($0.key, $0.value) }) : nil)
            }
        }
        self.init(clientID: clientID, nonce: nonce, credentials: credentials, required: required, refusal: refusal)
    }
}
