import Credentials
import FoundationEssentials
import TextSupport

/// The relying party's side: checks a vp_token (a JSON object keyed by DCQL credential query
/// id) against the request it answers: every presentation verified for the request's
/// client_id and nonce, of a type the query asked for, disclosing what it asked for and no more.
public struct VPTokenVerifier: @unchecked Sendable {
    public let clientID: String
    public let nonce: String
    public let state: String?
    public let dcql: DCQLQuery
    public var maxAge: TimeInterval = 300
    public var now = Date()
    /// The issuers the relying party trusts (L2); nil: none.
    public var issuerTrust: IssuerChainCheck?
    /// The credential types (vct) the relying party accepts (`--vct`); nil: those the query
    /// names (vct_values), else the toolkit's own.
    public var acceptedTypes: Set<String>?

    public struct Result: @unchecked Sendable {
        public let queryID: String
        public let presentations: [VerifiedPresentation]
    }

    /// `request`: the request object the relying party sent (compact JWS, its own, so not
    /// checked again) or its JSON payload.
    public init(request text: String) throws {
        guard text.utf8.count <= InputBounds.maxTokenBytes else {
            throw OpenID4VPError.usage("the request is \(text.utf8.count) bytes, more than the \(InputBounds.maxTokenBytes) (1 MiB) a request may be")
        }
        let object = try Self.requestPayload(FormEncoding.trimmed(text))
        guard let clientID = object["client_id"] as? String, let nonce = object["nonce"] as? String else {
            throw OpenID4VPError.usage("the request has no client_id or nonce")
        }
        self.clientID = clientID
        self.nonce = nonce
        state = object["state"] as? String
        dcql = try DCQLQuery(json: object["dcql_query"])
    }

    /// The claims of a request: a JSON object, or the payload of a compact JWS.
    static func requestPayload(_ text: String) throws -> [String: Any] {
        var bytes: [UInt8]? = Array(text.utf8)
        if !text.hasPrefix("{") {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            bytes = parts.count == 3 ? Base64URL.decode(parts[1]) : nil
        }
        let object: Any?
        do { object = try bytes.flatMap { try CanonicalJSON.parse($0) } } catch { throw OpenID4VPError.usage("the request: \(error)") }
        guard let object = object as? [String: Any] else {
            throw OpenID4VPError.usage("the request is neither a request object (compact JWS) nor its JSON payload")
        }
        return object
    }

    /// Refuses a response (form body, vp_token or encrypted response) larger than the verifier reads.
    static func checkSize(_ text: String, what: String) throws {
        let count = text.utf8.count
        guard count <= InputBounds.maxTokenBytes else {
            throw OpenID4VPError.invalidResponse("\(what) is \(count) bytes, more than the \(InputBounds.maxTokenBytes) (1 MiB) this verifier reads; it was not parsed")
        }
    }

    /// Parses a vp_token given as JSON text (an object of arrays of strings; a bare string per
    /// id is accepted as a one-element array).
    public static func parseToken(_ text: String) throws -> [String: [String]] {
        try checkSize(text, what: "the vp_token")
        let parsed: Any?
        do { parsed = try CanonicalJSON.parse(Array(FormEncoding.trimmed(text).utf8)) } catch { throw OpenID4VPError.invalidResponse("\(error)") }
        guard let object = parsed as? [String: Any] else {
            throw OpenID4VPError.invalidResponse("the vp_token is not a JSON object keyed by credential query id")
        }
        var out: [String: [String]] = [:]
        for (id, value) in object {
            if let list = value as? [String], !list.isEmpty { out[id] = list }
            else if let single = value as? String { out[id] = [single] }
            else { throw OpenID4VPError.invalidResponse("vp_token[\(MessageText.bounded(id))] is not a non-empty array of presentations") }
        }
        return out
    }

    /// What a direct_post response carried: the form body (`vp_token=…&state=…`) or the bare
    /// vp_token JSON with the `state` given apart. Its state must be the request's (absent when
    /// the request had none).
    public func open(posted text: String, state given: String?) throws -> [String: [String]] {
        try Self.checkSize(text, what: "the posted response")
        let trimmed = FormEncoding.trimmed(text)
        var tokenText = trimmed
        var posted = given
        if !trimmed.hasPrefix("{") && trimmed.contains("vp_token=") {
            let fields = try Self.formFields(trimmed)
            guard let token = fields["vp_token"] else { throw OpenID4VPError.invalidResponse("the posted form has no vp_token") }
            if given != nil && fields["state"] != nil { throw OpenID4VPError.usage("the form carries the state; do not give --state too") }
            tokenText = token
            posted = fields["state"] ?? given
        }
        try checkState(posted)
        return try Self.parseToken(tokenText)
    }

    /// The fields of an `application/x-www-form-urlencoded` body, each name once.
    static func formFields(_ body: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = FormEncoding.decode(parts[0]), let value = FormEncoding.decode(parts.count > 1 ? parts[1] : ""),
                  fields.updateValue(value, forKey: name) == nil else {
                throw OpenID4VPError.invalidResponse("the posted form is not percent-encoded name=value pairs, each once")
            }
        }
        return fields
    }

    /// The response's state must be the request's, on every response mode.
    func checkState(_ posted: Any?) throws {
        guard posted as? String == state, (posted == nil) == (state == nil) else {
            throw OpenID4VPError.invalidResponse("the response's state \(MessageText.bounded(posted ?? "(none)")) is not the request's \(state ?? "(none)")")
        }
    }

    /// Opens a direct_post.jwt `response` (a JWE encrypted to the relying party's key) and gives
    /// its vp_token after checking its state against the request's.
    public func open(response text: String, key: P256PrivateKeyHandle) throws -> [String: [String]] {
        try Self.checkSize(text, what: "the encrypted response")
        var compact = FormEncoding.trimmed(text)
        if compact.hasPrefix("response=") { compact = FormEncoding.decode(compact.dropFirst(9)) ?? compact }
        let (_, plain) = try JWE.decrypt(compact, with: key)
        let payload: [String: Any]
        do { payload = try CanonicalJSON.object(plain) } catch { throw OpenID4VPError.invalidResponse("the decrypted response is not a JSON object (\(error))") }
        if let error = payload["error"] { throw OpenID4VPError.invalidResponse("the wallet answered with the error \(MessageText.bounded(error))") }
        try checkState(payload["state"])
        guard let token = payload["vp_token"] as? [String: Any], let text = try? CanonicalJSON.string(token) else {
            throw OpenID4VPError.invalidResponse("the response has no vp_token object")
        }
        return try Self.parseToken(text)
    }

    /// Checks a vp_token against the request: it answers only the queries made and every one
    /// that must be answered, and each presentation answers its query.
    public func verify(_ token: [String: [String]]) throws -> [Result] {
        try checkAnswersOnlyQueriesMade(token)
        try checkRequiredQueriesAnswered(token)
        return try token.sorted { $0.key < $1.key }.map { id, presentations in
            Result(queryID: id, presentations: try verify(presentations, answering: query(id)))
        }
    }

    func query(_ id: String) throws -> DCQLQuery.CredentialQuery {
        guard let query = dcql.credentials.first(where: { $0.id == id }) else {
            throw OpenID4VPError.invalidResponse("it answers credential query \(MessageText.bounded(id)), which the request did not make")
        }
        return query
    }

    func checkAnswersOnlyQueriesMade(_ token: [String: [String]]) throws {
        for id in token.keys { _ = try query(id) }
    }

    /// With credential_sets, one option of every required set; without, every query.
    func checkRequiredQueriesAnswered(_ token: [String: [String]]) throws {
        guard let sets = dcql.credentialSets else {
            for query in dcql.credentials where token[query.id] == nil {
                throw OpenID4VPError.invalidResponse("credential query \(query.id) is not answered")
            }
            return
        }
        for (index, set) in sets.enumerated() where set.required {
            guard set.options.contains(where: { $0.allSatisfy { token[$0] != nil } }) else {
                throw OpenID4VPError.invalidResponse("no option of required credential set \(index) is answered")
            }
        }
    }

    /// The presentations answering one query: as many as it allows, in a format this verifier checks.
    func verify(_ presentations: [String], answering query: DCQLQuery.CredentialQuery) throws -> [VerifiedPresentation] {
        guard query.multiple || presentations.count == 1 else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id) allows one presentation, \(presentations.count) came")
        }
        guard query.format == "dc+sd-jwt" else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id) asks for format \(query.format), which this verifier does not check")
        }
        let verifier = try presentationVerifier(for: query)
        return try presentations.map { presentation in
            let result: VerifiedPresentation
            do { result = try verifier.verify(presentation) } catch let error as CredentialError {
                throw OpenID4VPError.invalidResponse("credential query \(query.id): \(error)")
            }
            guard result.format == .sdJWT else { throw OpenID4VPError.invalidResponse("credential query \(query.id) was answered with a VC-JWT, not dc+sd-jwt") }
            try checkClaims(result.claims, query: query)
            return result
        }
    }

    /// The check of one presentation: for this request's client_id and nonce, of a type both
    /// the verifier (`acceptedTypes`) and the query (`vct_values`) accept.
    func presentationVerifier(for query: DCQLQuery.CredentialQuery) throws -> PresentationVerifier {
        var verifier = PresentationVerifier(audience: clientID, nonce: nonce)
        verifier.maxAge = maxAge
        verifier.now = now
        verifier.issuerTrust = issuerTrust
        verifier.acceptedTypes = try acceptedTypes(for: query)
        return verifier
    }

    /// The types a query's presentation may have: those the verifier named (`--vct`) and the
    /// query's vct_values, each narrowing the other; the toolkit's own when neither names any.
    func acceptedTypes(for query: DCQLQuery.CredentialQuery) throws -> Set<String> {
        switch (acceptedTypes, query.vctValues.map(Set.init)) {
        case (nil, nil): return [PassportCredential.vct]
        case (let named?, nil): return named
        case (nil, let asked?): return asked
        case (let named?, let asked?):
            let both = named.intersection(asked)
            guard !both.isEmpty else {
                throw OpenID4VPError.usage("credential query \(query.id) asks for vct \(asked.sorted().joined(separator: " or ")), none of which --vct accepts")
            }
            return both
        }
    }

    func checkClaims(_ claims: [String: Any], query: DCQLQuery.CredentialQuery) throws {
        guard let requested = query.claims else {
            if !claims.isEmpty { throw OpenID4VPError.invalidResponse("credential query \(query.id) asked for no claim, \(claims.keys.sorted().joined(separator: ", ")) disclosed") }
            return
        }
        let chosen = try disclosedClaimSet(claims, requested: requested, query: query)
        let names = Set(chosen.compactMap { claim -> String? in if case .key(let n) = claim.path[0] { return n } else { return nil } })
        let extra = Set(claims.keys).subtracting(names)
        guard extra.isEmpty else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id): the presentation discloses \(extra.sorted().joined(separator: ", ")), which was not asked for")
        }
    }

    /// The first claim set (or the claims themselves) the disclosed claims satisfy, values included.
    func disclosedClaimSet(_ claims: [String: Any], requested: [DCQLQuery.ClaimQuery], query: DCQLQuery.CredentialQuery) throws -> [DCQLQuery.ClaimQuery] {
        func satisfied(_ claim: DCQLQuery.ClaimQuery) -> Bool {
            guard claim.path.count == 1, case .key(let name) = claim.path[0], let value = claims[name] else { return false }
            return claim.values.map { $0.contains { DCQLSelection.jsonEqual($0, value) } } ?? true
        }
        var allowed: [[DCQLQuery.ClaimQuery]] = [requested]
        if let sets = query.claimSets { allowed = sets.map { set in set.compactMap { id in requested.first { $0.id == id } } } }
        guard let chosen = allowed.first(where: { $0.allSatisfy(satisfied) }) else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id): the presentation does not disclose what was asked (\(requested.map(\.pathText).joined(separator: ", "))) with acceptable values")
        }
        return chosen
    }
}
