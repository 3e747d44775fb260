import Credentials
import FoundationEssentials
import OpenID4VP
import PassportCrypto

/// The holder's side of a presentation, shared by `passport present` and the desk: a
/// presentation for one verifier, and a verifier's request put to the person and then answered.
/// Each presentation is signed under that verifier's own key: its pairwise key (self-issued
/// credential) or its instance of an issued batch.
public struct Holder: @unchecked Sendable {
    public let credential: HeldCredential
    public let store: KeyStore

    public init(credential: HeldCredential, store: KeyStore) {
        self.credential = credential
        self.store = store
    }

    /// One presentation for `audience` and `nonce`, disclosing `disclose`; the token and the DID
    /// it is presented under. `pairwise` gives the key of a self-issued presentation.
    public func present(disclose: Set<String>, audience: String, nonce: String,
                        pairwise: () throws -> P256PrivateKey) throws -> (token: String, did: String) {
        let held = credential
        if held.instances.isEmpty {
            let key = try pairwise()
            return (try PassportCredential.present(held.claims, format: held.format, disclose: disclose, audience: audience, nonce: nonce, key: key),
                    DIDKey.did(for: key.publicKey))
        }
        let label = try store.instance(for: audience, among: held.instances.map(\.keyLabel))
        guard let instance = held.instances.first(where: { $0.keyLabel == label }) else {
            throw CredentialError.malformed("the key store chose an instance the credential does not hold")
        }
        let key = try store.instanceKey(label: label, create: false)
        return (try PassportCredential.present(instance, claims: held.claims, disclose: disclose, audience: audience, nonce: nonce, key: key),
                DIDKey.did(for: key.publicKey))
    }

    /// A presentation for a verifier known by its origin (no request): under its pairwise key.
    public func present(disclose: Set<String>, origin: String, nonce: String) throws -> (token: String, did: String) {
        try present(disclose: disclose, audience: origin, nonce: nonce, pairwise: { try store.pairwiseKey(for: origin) })
    }

    /// The claims as a DCQL query sees them (the evidence is not a claim a verifier asks for).
    public var holding: [String: Any] {
        let claims = credential.claims
        var holding: [String: Any] = ["age_over_18": claims.ageOver18, "is_human": claims.isHuman]
        if let nationality = claims.nationality { holding["nationality"] = nationality }
        return holding
    }

    /// What a verifier will establish, in the holder's words.
    public var levelLine: String {
        switch credential.level {
        case .L1: return "The verifier will see level L1 (self-issued): your own signature, which proves nothing about your passport; a verifier that asks for more refuses it."
        default: return "The verifier will see level L2 (issued by \(credential.issuer ?? "an institution")) if it trusts that issuer; otherwise it refuses the credential."
        }
    }

    /// A checked request, with what the person is asked to agree to. Nothing has been signed or
    /// sent; `send` does both.
    public struct PendingAnswer: @unchecked Sendable {
        public let request: AuthorizationRequest
        public let selection: DCQLSelection
        /// The verifier as its request names it: client_id and, when signed, the certificate.
        public let verifier: String
        /// The claims asked, per credential query.
        public let asked: String
        /// The host the answer goes to.
        public let responseHost: String
        /// Set when the client_id names other hosts than the one the answer goes to.
        public let hostNote: String?
        /// The lines put to the person (the verifier's text is data: callers escape it for their medium).
        public let summary: [String]
    }

    /// Checks that `request` was not answered before and that its query can be answered with
    /// the claims the person `agreed` to; gives what the person must be shown.
    public func prepare(_ request: AuthorizationRequest, agreed: Set<String>) throws -> PendingAnswer {
        try AnsweredRequests(store: store).check(request)
        let selection = try DCQLSelection.select(request.dcql, vct: PassportCredential.vct, held: holding, agreed: agreed)
        let who = request.signer.map { "\(request.clientID) (certificate \($0.subject)\($0.dnsNames.isEmpty ? "" : ", DNS \($0.dnsNames.joined(separator: ", "))"))" }
            ?? "\(request.clientID) (unsigned request)"
        let what = selection.answers.map { "\($0.claims.isEmpty ? "no claim" : $0.claims.joined(separator: ", ")) (query \($0.queryID))" }.joined(separator: "; ")
        let host = request.responseURI.host ?? "?"
        var note: String?
        if let named = Self.namedHosts(request), !named.contains(where: { $0.lowercased() == host.lowercased() }) {
            note = "Note: the client_id names \(named.isEmpty ? "no host" : named.joined(separator: ", ")), but the answer goes to \(host)."
        }
        var lines = ["Verifier \(who) asks for: \(what).",
                     "The answer goes to host \(host): \(request.responseURI.absoluteString) (\(request.responseMode)\(request.responseMode == "direct_post.jwt" ? ", encrypted \(request.encryption.rawValue)" : ""))."]
        if let note { lines.append(note) }
        lines.append(levelLine)
        return PendingAnswer(request: request, selection: selection, verifier: who, asked: what, responseHost: host, hostNote: note, summary: lines)
    }

    /// What was sent, and how the verifier answered.
    public struct SentAnswer: Sendable {
        public let outcome: Wallet.Outcome
        /// Claims disclosed per credential query.
        public let disclosed: [String: [String]]
        /// The DID the presentations were made under (this verifier's own).
        public let did: String
    }

    /// Signs one presentation per credential query under this verifier's key and sends them to
    /// its response_uri. The request is remembered as answered once the verifier has it (accepted,
    /// or refused after reading it), so that it is not answered twice.
    public func send(_ pending: PendingAnswer, http: VerifierHTTP) throws -> SentAnswer {
        let request = pending.request
        var vpToken: [String: [String]] = [:]
        var did = ""
        for answer in pending.selection.answers {
            let (token, presenter) = try present(disclose: Set(answer.claims), audience: request.clientID, nonce: request.nonce,
                                                 pairwise: { try store.pairwiseKey(forClientID: request.clientID) })
            vpToken[answer.queryID] = [token]
            did = presenter
        }
        let memory = AnsweredRequests(store: store)
        let outcome: Wallet.Outcome
        do {
            outcome = try Wallet.send(request, vpToken: vpToken, http: http)
        } catch let error as OpenID4VPError {
            if case .verifierRefused = error { memory.record(request) }
            throw error
        }
        memory.record(request)
        return SentAnswer(outcome: outcome, disclosed: Dictionary(uniqueKeysWithValues: pending.selection.answers.map { ($0.queryID, $0.claims) }), did: did)
    }

    /// The hosts the client_id names: the x509_san_dns name, the redirect_uri's host, the DNS
    /// names of an x509_hash certificate (nil when the prefix names none).
    public static func namedHosts(_ request: AuthorizationRequest) -> [String]? {
        switch request.client {
        case .x509SanDNS(let name): return [name]
        case .redirectURI(let uri): return [URL(string: uri)?.host ?? uri]
        case .x509Hash: return request.signer?.dnsNames ?? []
        case .unsupported: return nil
        }
    }
}
