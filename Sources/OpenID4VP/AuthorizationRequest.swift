import Credentials
import FoundationEssentials
import JSONCore
import TextSupport

/// What a verifier shows a wallet (OpenID4VP 1.0 §5): an `openid4vp://` (or `haip-vp://`, any
/// scheme) URL, or its query string, carrying `client_id` and `request_uri` (by reference,
/// JAR RFC 9101), `request` (by value), or the parameters themselves (unsigned, `redirect_uri:`).
public struct AuthorizationRequestReference: Sendable {
    public let clientID: String
    public let requestURI: String?
    /// "get" (default) or "post" (§5.10: the wallet POSTs wallet_nonce and wallet_metadata).
    public let requestURIMethod: String
    /// The request object by value.
    public let request: String?
    /// Every parameter as given (for the unsigned `redirect_uri:` form).
    public let parameters: [String: String]
    /// The link's scheme (`openid4vp`, `haip-vp`, …), lowercased; nil for a bare query.
    public let scheme: String?

    public init(_ text: String) throws {
        let trimmed = FormEncoding.trimmed(text)
        guard !trimmed.isEmpty else { throw OpenID4VPError.badReference("it is empty") }
        var query = trimmed
        var scheme: String?
        if let schemeEnd = trimmed.firstRange(of: "://"), !trimmed.hasPrefix("http") {
            scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
            let rest = trimmed[schemeEnd.upperBound...]
            guard let mark = rest.firstIndex(of: "?") else { throw OpenID4VPError.badReference("the URL \(trimmed.prefix(80)) has no query") }
            query = String(rest[rest.index(after: mark)...])
        } else if trimmed.hasPrefix("http") {
            throw OpenID4VPError.badReference("\(trimmed.prefix(80)) is a web address, not an authorization request; give the openid4vp:// link (or client_id=…&request_uri=…)")
        }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = FormEncoding.decode(parts[0]) else {
                throw OpenID4VPError.badReference("a parameter name is not percent-encoded UTF-8")
            }
            guard let value = FormEncoding.decode(parts.count > 1 ? parts[1] : "") else {
                throw OpenID4VPError.badReference("the value of \(name) is not percent-encoded UTF-8")
            }
            guard parameters.updateValue(value, forKey: name) == nil else { throw OpenID4VPError.badReference("\(name) is given twice") }
        }
        guard let clientID = parameters["client_id"], !clientID.isEmpty else {
            throw OpenID4VPError.badReference("no client_id (is this an OpenID4VP request?)")
        }
        self.clientID = clientID
        self.scheme = scheme
        // HAIP: a haip-vp:// request is signed; redirect_uri requests cannot be.
        if scheme == "haip-vp", case .redirectURI = ClientIdentifier(clientID) {
            throw OpenID4VPError.badReference("a haip-vp:// request must be signed, but client_id \(clientID) (redirect_uri) is an unsigned one")
        }
        requestURI = parameters["request_uri"]
        request = parameters["request"]
        if requestURI != nil && request != nil { throw OpenID4VPError.badReference("both request and request_uri are given") }
        let method = parameters["request_uri_method"] ?? "get"
        guard method == "get" || method == "post" else { throw OpenID4VPError.badReference("request_uri_method is \(method), not get or post") }
        requestURIMethod = method
        self.parameters = parameters
        if let uri = requestURI {
            guard let url = URL(string: uri), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw OpenID4VPError.badReference("request_uri \(uri) is not an http(s) URL")
            }
        }
    }
}

/// How the verifier is identified (the client identifier prefix, §5.9).
public enum ClientIdentifier: Sendable, Equatable {
    case x509Hash(String)
    case x509SanDNS(String)
    case redirectURI(String)
    case unsupported(prefix: String)

    public init(_ clientID: String) {
        if clientID.hasPrefix("x509_hash:") { self = .x509Hash(String(clientID.dropFirst(10))) }
        else if clientID.hasPrefix("x509_san_dns:") { self = .x509SanDNS(String(clientID.dropFirst(13))) }
        else if clientID.hasPrefix("redirect_uri:") { self = .redirectURI(String(clientID.dropFirst(13))) }
        else if let colon = clientID.firstIndex(of: ":"), !clientID.hasPrefix("http") { self = .unsupported(prefix: String(clientID[..<colon])) }
        else { self = .unsupported(prefix: "(pre-registered)") }
    }
}

/// A checked authorization request: its signature (when its prefix requires one) holds, it is
/// fresh, and it asks for a vp_token with a DCQL query sent to an acceptable response_uri.
public struct AuthorizationRequest: @unchecked Sendable {
    public let clientID: String
    public let client: ClientIdentifier
    /// The verified claims (payload) of the request object, or the unsigned parameters.
    public let claims: [String: Any]
    public let nonce: String
    public let state: String?
    public let responseMode: String
    public let responseURI: URL
    public let dcql: DCQLQuery
    public let dcqlJSON: Any
    /// Who signed it: the certificate subject and DNS names (nil for redirect_uri).
    public let signer: (subject: String, dnsNames: [String])?
    /// The verifier's key to encrypt a direct_post.jwt response to, with its kid.
    public let encryptionKey: (key: P256PublicKey, kid: String?)?
    public let encryption: JWE.Encryption
    public let expiresAt: Date?
    /// The request object as received (compact JWS), when there was one.
    public let requestObject: String?

    public struct Policy: Sendable {
        /// PEM files of extra trust anchors (request-object certificates).
        public var anchors: [String] = []
        /// Also trust the system's store for request-object certificates (x509_san_dns only).
        public var systemStore = true
        /// Allow http:// response_uri on loopback (tests).
        public var insecureLoopback = false
        public var now = Date()
        /// A request older than this (iat) is refused even without exp.
        public var maxAge: TimeInterval = 600
        /// The audiences a request object may name (OpenID4VP 1.0 §5.8: static discovery).
        public var audiences: Set<String> = ["https://self-issued.me/v2"]
        public var clockSkew: TimeInterval = 60
        /// The wallet_nonce sent with request_uri_method=post, which must come back.
        public var walletNonce: String?
        public init() {}
    }

    /// Checks a request object (compact JWS) received for `reference`.
    public static func verify(requestObject compact: String, clientID: String, policy: Policy) throws -> AuthorizationRequest {
        let client = ClientIdentifier(clientID)
        let trimmed = FormEncoding.trimmed(compact)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 5 { throw OpenID4VPError.badRequest("the request object is encrypted (JWE); this wallet does not ask for encrypted request objects") }
        guard parts.count == 3 else { throw OpenID4VPError.badSignature("the request object is not a compact JWS (three base64url parts)") }
        let unsignedAlg = Base64URL.decode(parts[0]).flatMap { try? CanonicalJSON.object($0) }?["alg"] as? String
        var signer: (String, [String])?
        let payload: [String: Any]
        switch client {
        case .x509Hash, .x509SanDNS:
            guard unsignedAlg != "none", !parts[2].isEmpty else {
                throw OpenID4VPError.badSignature("the request object is unsigned (alg none), but client_id \(clientID) requires a signature")
            }
            let jws: CompactJWS
            do { jws = try CompactJWS(trimmed) } catch { throw OpenID4VPError.badSignature("the request object does not parse: \(error)") }
            guard let typ = jws.header["typ"] as? String, typ == "oauth-authz-req+jwt" else {
                throw OpenID4VPError.badSignature("the request object's typ is \(jws.header["typ"] ?? "missing"), not oauth-authz-req+jwt (RFC 9101)")
            }
            // RFC 7515 §4.1.11: an extension this wallet does not understand makes the JWS invalid.
            if let crit = jws.header["crit"] {
                throw OpenID4VPError.badSignature("the request object's header marks \(crit) critical, an extension this wallet does not understand")
            }
            let chain = try X509Chain(x5c: jws.header["x5c"])
            var dns: String?
            switch client {
            case .x509Hash(let hash):
                guard chain.leafHash == hash else {
                    throw OpenID4VPError.badSignature("the signing certificate's SHA-256 hash is \(chain.leafHash), not \(hash) as the client_id says")
                }
            case .x509SanDNS(let name): dns = name
            default: break
            }
            // x509_hash binds no DNS name, so a web-PKI certificate proves nothing about the
            // verifier: its chain must end at an anchor given for verifiers (--verifier-ca), not
            // at the system's store.
            let (key, subject, names) = try chain.verify(anchors: policy.anchors, systemStore: policy.systemStore && dns != nil, dnsName: dns, at: policy.now)
            do { try jws.verify(with: key, what: "the request object") } catch let error as CredentialError {
                throw OpenID4VPError.badSignature("it does not verify under the certificate \(subject) (\(error))")
            }
            signer = (subject, names)
            payload = jws.payload
        case .redirectURI:
            // §5.9.3: requests of this prefix cannot be signed; an unsigned request object or
            // plain parameters only.
            guard unsignedAlg == "none" else { throw OpenID4VPError.badSignature("client_id \(clientID) (redirect_uri) must not sign its request, but it is signed with \(unsignedAlg ?? "an unknown alg")") }
            guard let bytes = Base64URL.decode(parts[1]) else { throw OpenID4VPError.badRequest("the request object's payload is not base64url") }
            do { payload = try CanonicalJSON.object(bytes) } catch { throw OpenID4VPError.badRequest("the request object's payload is not a JSON object") }
        case .unsupported(let prefix):
            throw OpenID4VPError.badSignature("client identifier prefix \(prefix) cannot be checked by this wallet (it checks x509_hash, x509_san_dns and redirect_uri)")
        }
        return try make(claims: payload, clientID: clientID, client: client, signer: signer, requestObject: trimmed, policy: policy)
    }

    /// An unsigned request given as parameters (only for `redirect_uri:` client identifiers).
    public static func fromParameters(_ reference: AuthorizationRequestReference, policy: Policy) throws -> AuthorizationRequest {
        let client = ClientIdentifier(reference.clientID)
        guard case .redirectURI = client else {
            throw OpenID4VPError.badSignature("the request is unsigned (no request object), but client_id \(reference.clientID) requires a signed request object")
        }
        var claims: [String: Any] = reference.parameters
        for name in ["dcql_query", "client_metadata"] {
            if let text = reference.parameters[name] {
                guard let value = try? CanonicalJSON.parse(Array(text.utf8)) else {
                    throw name == "dcql_query" ? OpenID4VPError.badQuery("dcql_query is not JSON") : OpenID4VPError.badRequest("\(name) is not JSON")
                }
                claims[name] = value
            }
        }
        return try make(claims: claims, clientID: reference.clientID, client: client, signer: nil, requestObject: nil, policy: policy)
    }

    static func make(claims: [String: Any], clientID: String, client: ClientIdentifier, signer: (String, [String])?,
                     requestObject: String?, policy: Policy) throws -> AuthorizationRequest {
        if let inner = claims["client_id"] {
            guard inner as? String == clientID else {
                throw OpenID4VPError.badRequest("its client_id \(inner) differs from the client_id \(clientID) it was presented with")
            }
        } else if requestObject != nil {
            throw OpenID4VPError.badRequest("it has no client_id")
        }
        let now = policy.now.timeIntervalSince1970
        var expiresAt: Date?
        func time(_ name: String) throws -> Double? {
            guard let value = claims[name] else { return nil }
            guard let number = JSON.double(value) else { throw OpenID4VPError.badRequest("\(name) is not a number") }
            return number
        }
        // A request object must say when it was made and until when it holds (JAR, RFC 9101 §10.2).
        if requestObject != nil {
            guard claims["iat"] != nil else { throw OpenID4VPError.badRequest("it has no iat: a request that does not say when it was made is not answered") }
            guard claims["exp"] != nil else { throw OpenID4VPError.badRequest("it has no exp: a request that does not say until when it holds is not answered") }
        }
        // A signed one must be meant for this wallet (an unsigned one's aud would prove nothing).
        if signer != nil {
            let aud = (claims["aud"] as? [String]) ?? (claims["aud"] as? String).map { [$0] } ?? []
            guard aud.contains(where: policy.audiences.contains) else {
                throw OpenID4VPError.badRequest("its aud is \(claims["aud"].map { "\($0)" } ?? "missing"), not this wallet (\(policy.audiences.sorted().joined(separator: " or ")))")
            }
        }
        if let value = try time("exp") {
            guard value + policy.clockSkew >= now else {
                throw OpenID4VPError.badRequest("it expired at \(Date(timeIntervalSince1970: value)) (now \(policy.now)): an old request is not answered")
            }
            expiresAt = Date(timeIntervalSince1970: value)
        }
        if let value = try time("iat") {
            guard value <= now + policy.clockSkew else { throw OpenID4VPError.badRequest("it is issued in the future (iat \(Int(value)))") }
            guard value >= now - policy.maxAge else {
                throw OpenID4VPError.badRequest("it was issued \(Int(now - value)) s ago, more than \(Int(policy.maxAge)) s: an old request is not answered")
            }
        }
        if let value = try time("nbf"), value > now + policy.clockSkew {
            throw OpenID4VPError.badRequest("it is not valid before \(Date(timeIntervalSince1970: value)) (nbf)")
        }
        if let walletNonce = policy.walletNonce, requestObject != nil {
            guard claims["wallet_nonce"] as? String == walletNonce else {
                throw OpenID4VPError.badRequest("it does not carry the wallet_nonce this wallet sent (a replayed or substituted request object)")
            }
        }
        guard claims["response_type"] as? String == "vp_token" else {
            throw OpenID4VPError.badRequest("response_type is \(claims["response_type"] ?? "missing"), not vp_token")
        }
        let mode = claims["response_mode"] as? String ?? "fragment"
        guard mode == "direct_post" || mode == "direct_post.jwt" else {
            throw OpenID4VPError.badRequest("response_mode \(mode) is not supported (direct_post and direct_post.jwt are)")
        }
        guard let nonce = claims["nonce"] as? String, !nonce.isEmpty else { throw OpenID4VPError.badRequest("it has no nonce") }
        guard let uriText = claims["response_uri"] as? String, let uri = URL(string: uriText), let host = uri.host else {
            throw OpenID4VPError.badRequest("response_uri is missing or not a URL")
        }
        if claims["redirect_uri"] != nil { throw OpenID4VPError.badRequest("it has both redirect_uri and response_uri") }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard uri.scheme == "https" || (uri.scheme == "http" && loopback && policy.insecureLoopback) else {
            throw OpenID4VPError.badRequest("response_uri \(uriText) is not HTTPS" + (loopback ? " (on loopback, --insecure-loopback allows http)" : ""))
        }
        switch client {
        case .x509SanDNS(let name):
            guard host.lowercased() == name.lowercased() else {
                throw OpenID4VPError.badRequest("response_uri host \(host) is not \(name), the DNS name of the client identifier")
            }
        case .redirectURI(let expected):
            guard uriText == expected else { throw OpenID4VPError.badRequest("response_uri \(uriText) is not the client identifier's URI \(expected)") }
        default: break
        }
        if claims["presentation_definition"] != nil && claims["dcql_query"] == nil {
            throw OpenID4VPError.badQuery("the request uses presentation_definition (Presentation Exchange), which OpenID4VP 1.0 replaced with dcql_query")
        }
        guard let dcqlJSON = claims["dcql_query"] else { throw OpenID4VPError.badQuery("the request has no dcql_query") }
        let dcql = try DCQLQuery(json: dcqlJSON)

        var encryptionKey: (P256PublicKey, String?)?
        var encryption = JWE.Encryption.a128gcm
        let metadata = claims["client_metadata"] as? [String: Any]
        if mode == "direct_post.jwt" {
            let keys = ((metadata?["jwks"] as? [String: Any])?["keys"] as? [[String: Any]]) ?? []
            let usable = keys.first { jwk in
                jwk["kty"] as? String == "EC" && jwk["crv"] as? String == "P-256"
                    && (jwk["use"] == nil || jwk["use"] as? String == "enc")
                    && (jwk["alg"] == nil || jwk["alg"] as? String == "ECDH-ES")
            }
            guard let usable, let key = try? P256PublicKey(jwk: usable) else {
                throw OpenID4VPError.badRequest("response_mode direct_post.jwt but client_metadata.jwks has no P-256 ECDH-ES key to encrypt to")
            }
            encryptionKey = (key, usable["kid"] as? String)
            let offered = (metadata?["encrypted_response_enc_values_supported"] as? [String]) ?? ["A128GCM"]
            guard let choice = JWE.Encryption.allCases.first(where: { offered.contains($0.rawValue) }) else {
                throw OpenID4VPError.badRequest("the verifier accepts response encryption \(offered.joined(separator: ", ")); this wallet makes A128GCM and A256GCM")
            }
            encryption = choice
        }
        return AuthorizationRequest(clientID: clientID, client: client, claims: claims, nonce: nonce, state: claims["state"] as? String,
                                    responseMode: mode, responseURI: uri, dcql: dcql, dcqlJSON: dcqlJSON,
                                    signer: signer.map { (subject: $0.0, dnsNames: $0.1) }, encryptionKey: encryptionKey.map { (key: $0.0, kid: $0.1) },
                                    encryption: encryption, expiresAt: expiresAt, requestObject: requestObject)
    }
}
