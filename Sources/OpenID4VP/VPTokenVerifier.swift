import Credentials
import Foundation

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

    public struct Result: @unchecked Sendable {
        public let queryID: String
        public let presentations: [VerifiedPresentation]
    }

    /// `request`: the request object the relying party sent (compact JWS, its own, so not
    /// checked again) or its JSON payload.
    public init(request text: String) throws {
        let trimmed = String(FormEncoding.trimmed(text))
        var object: [String: Any]?
        if trimmed.hasPrefix("{") {
            object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any]
        } else {
            let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3, let bytes = Base64URL.decode(parts[1]) { object = try? CanonicalJSON.object(bytes) }
        }
        guard let object else { throw OpenID4VPError.usage("the request is neither a request object (compact JWS) nor its JSON payload") }
        guard let clientID = object["client_id"] as? String, let nonce = object["nonce"] as? String else {
            throw OpenID4VPError.usage("the request has no client_id or nonce")
        }
        self.clientID = clientID
        self.nonce = nonce
        state = object["state"] as? String
        dcql = try DCQLQuery(json: object["dcql_query"])
    }

    /// Parses a vp_token given as JSON text (an object of arrays of strings; a bare string per
    /// id is accepted as a one-element array).
    public static func parseToken(_ text: String) throws -> [String: [String]] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(String(FormEncoding.trimmed(text)).utf8))) as? [String: Any] else {
            throw OpenID4VPError.invalidResponse("the vp_token is not a JSON object keyed by credential query id")
        }
        var out: [String: [String]] = [:]
        for (id, value) in object {
            if let list = value as? [String], !list.isEmpty { out[id] = list }
            else if let single = value as? String { out[id] = [single] }
            else { throw OpenID4VPError.invalidResponse("vp_token[\(id)] is not a non-empty array of presentations") }
        }
        return out
    }

    /// What a direct_post response carried: the form body (`vp_token=…&state=…`) or the bare
    /// vp_token JSON with the `state` given apart. Its state must be the request's (absent when
    /// the request had none).
    public func open(posted text: String, state given: String?) throws -> [String: [String]] {
        let trimmed = String(FormEncoding.trimmed(text))
        var tokenText = trimmed
        var posted = given
        if !trimmed.hasPrefix("{") && trimmed.contains("vp_token=") {
            var fields: [String: String] = [:]
            for pair in trimmed.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = FormEncoding.decode(parts[0]), let value = FormEncoding.decode(parts.count > 1 ? parts[1] : ""),
                      fields.updateValue(value, forKey: name) == nil else {
                    throw OpenID4VPError.invalidResponse("the posted form is not percent-encoded name=value pairs, each once")
                }
            }
            guard let token = fields["vp_token"] else { throw OpenID4VPError.invalidResponse("the posted form has no vp_token") }
            if given != nil && fields["state"] != nil { throw OpenID4VPError.usage("the form carries the state; do not give --state too") }
            tokenText = token
            posted = fields["state"] ?? given
        }
        guard posted == state else {
            throw OpenID4VPError.invalidResponse("the response's state \(posted ?? "(none)") is not the request's \(state ?? "(none)")")
        }
        return try Self.parseToken(tokenText)
    }

    /// Opens a direct_post.jwt `response` (a JWE encrypted to the relying party's key) and gives
    /// its vp_token after checking its state against the request's.
    public func open(response text: String, key: P256PrivateKeyHandle) throws -> [String: [String]] {
        var compact = String(FormEncoding.trimmed(text))
        if compact.hasPrefix("response=") { compact = FormEncoding.decode(compact.dropFirst(9)) ?? compact }
        let (_, plain) = try JWE.decrypt(compact, with: key)
        guard let payload = try? CanonicalJSON.object(plain) else { throw OpenID4VPError.invalidResponse("the decrypted response is not a JSON object") }
        if let error = payload["error"] { throw OpenID4VPError.invalidResponse("the wallet answered with the error \(error)") }
        guard payload["state"] as? String == state else {
            throw OpenID4VPError.invalidResponse("the response's state \(payload["state"] ?? "(none)") is not the request's \(state ?? "(none)")")
        }
        guard let token = payload["vp_token"] as? [String: Any], JSONSerialization.isValidJSONObject(token),
              let data = try? JSONSerialization.data(withJSONObject: token) else {
            throw OpenID4VPError.invalidResponse("the response has no vp_token object")
        }
        return try Self.parseToken(String(decoding: data, as: UTF8.self))
    }

    public func verify(_ token: [String: [String]]) throws -> [Result] {
        let byID = Dictionary(uniqueKeysWithValues: dcql.credentials.map { ($0.id, $0) })
        for id in token.keys where byID[id] == nil {
            throw OpenID4VPError.invalidResponse("it answers credential query \(id), which the request did not make")
        }
        // Which queries must be answered.
        if let sets = dcql.credentialSets {
            for (index, set) in sets.enumerated() where set.required {
                guard set.options.contains(where: { $0.allSatisfy { token[$0] != nil } }) else {
                    throw OpenID4VPError.invalidResponse("no option of required credential set \(index) is answered")
                }
            }
        } else {
            for query in dcql.credentials where token[query.id] == nil {
                throw OpenID4VPError.invalidResponse("credential query \(query.id) is not answered")
            }
        }
        var results: [Result] = []
        for (id, presentations) in token.sorted(by: { $0.key < $1.key }) {
            let query = byID[id]!
            guard query.multiple || presentations.count == 1 else {
                throw OpenID4VPError.invalidResponse("credential query \(id) allows one presentation, \(presentations.count) came")
            }
            var verified: [VerifiedPresentation] = []
            for presentation in presentations {
                guard query.format == "dc+sd-jwt" else {
                    throw OpenID4VPError.invalidResponse("credential query \(id) asks for format \(query.format), which this verifier does not check")
                }
                var verifier = PresentationVerifier(audience: clientID, nonce: nonce)
                verifier.maxAge = maxAge
                verifier.now = now
                verifier.issuerTrust = issuerTrust
                let result: VerifiedPresentation
                do { result = try verifier.verify(presentation) } catch let error as CredentialError {
                    throw OpenID4VPError.invalidResponse("credential query \(id): \(error)")
                }
                guard result.format == .sdJWT else { throw OpenID4VPError.invalidResponse("credential query \(id) was answered with a VC-JWT, not dc+sd-jwt") }
                if let vcts = query.vctValues {
                    let vct = Self.vct(of: presentation)
                    guard let vct, vcts.contains(vct) else {
                        throw OpenID4VPError.invalidResponse("credential query \(id) asks for vct \(vcts.joined(separator: " or ")), the presentation is \(vct ?? "untyped")")
                    }
                }
                try checkClaims(result.claims, query: query)
                verified.append(result)
            }
            results.append(Result(queryID: id, presentations: verified))
        }
        return results
    }

    static func vct(of presentation: String) -> String? {
        guard let jwt = presentation.split(separator: "~").first, let jws = try? CompactJWS(String(jwt)) else { return nil }
        return jws.payload["vct"] as? String
    }

    func checkClaims(_ claims: [String: Any], query: DCQLQuery.CredentialQuery) throws {
        guard let requested = query.claims else {
            if !claims.isEmpty { throw OpenID4VPError.invalidResponse("credential query \(query.id) asked for no claim, \(claims.keys.sorted().joined(separator: ", ")) disclosed") }
            return
        }
        func satisfied(_ claim: DCQLQuery.ClaimQuery) -> Bool {
            guard claim.path.count == 1, case .key(let name) = claim.path[0], let value = claims[name] else { return false }
            return claim.values.map { $0.contains { DCQLSelection.jsonEqual($0, value) } } ?? true
        }
        var allowed: [[DCQLQuery.ClaimQuery]] = [requested]
        if let sets = query.claimSets { allowed = sets.map { set in set.compactMap { id in requested.first { $0.id == id } } } }
        guard let chosen = allowed.first(where: { $0.allSatisfy(satisfied) }) else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id): the presentation does not disclose what was asked (\(requested.map(\.pathText).joined(separator: ", "))) with acceptable values")
        }
        let names = Set(chosen.compactMap { claim -> String? in if case .key(let n) = claim.path[0] { return n } else { return nil } })
        let extra = Set(claims.keys).subtracting(names)
        guard extra.isEmpty else {
            throw OpenID4VPError.invalidResponse("credential query \(query.id): the presentation discloses \(extra.sorted().joined(separator: ", ")), which was not asked for")
        }
    }
}
