import Credentials
import OpenID4VP
import FoundationEssentials
import JSONCore
import TextSupport
import PassportCrypto

/// The holder's side of OpenID4VP 1.0: fetch and check the request, answer it.
public enum Wallet {
    /// Reads what the verifier showed (a URL, its query, or a request object itself) and gives
    /// the checked request. Nothing is sent to the verifier but the request_uri fetch.
    public static func resolve(_ text: String, policy basePolicy: AuthorizationRequest.Policy, http: VerifierHTTP?) throws -> AuthorizationRequest {
        var policy = basePolicy
        let trimmed = text.trimmed()
        // A request object on its own (saved earlier): its client_id comes from its payload,
        // which the signature check below then covers.
        if !trimmed.contains("://"), !trimmed.contains("="), trimmed.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
            guard let bytes = Base64URL.decode(parts[1]), let payload = try? CanonicalJSON.object(bytes),
                  let clientID = payload["client_id"] as? String else {
                throw OpenID4VPError.badReference("the text looks like a request object but its payload has no client_id")
            }
            policy.walletNonce = nil
            return try AuthorizationRequest.verify(requestObject: trimmed, clientID: clientID, policy: policy)
        }
        let reference = try AuthorizationRequestReference(trimmed)
        if let request = reference.request {
            return try AuthorizationRequest.verify(requestObject: request, clientID: reference.clientID, policy: policy)
        }
        guard let uriText = reference.requestURI else {
            return try AuthorizationRequest.fromParameters(reference, policy: policy)
        }
        guard let http, let uri = URL(string: uriText) else { throw OpenID4VPError.usage("no HTTP client") }
        let loopback = ["localhost", "127.0.0.1", "::1"].contains(uri.host?.lowercased() ?? "")
        guard uri.scheme == "https" || (loopback && policy.insecureLoopback) else {
            throw OpenID4VPError.badReference("request_uri \(uriText) is not HTTPS")
        }
        let step = "Fetching the request object"
        let accept = "application/oauth-authz-req+jwt"
        let response: VerifierHTTP.Response
        if reference.requestURIMethod == "post" {
            let walletNonce = Base64URL.encode(OpenSSLCrypto.randomBytes(16))
            policy.walletNonce = walletNonce
            let metadata: [String: Any] = [
                "vp_formats_supported": ["dc+sd-jwt": ["sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]]],
                "client_id_prefixes_supported": ["x509_hash", "x509_san_dns", "redirect_uri"],
                "request_object_signing_alg_values_supported": ["ES256"],
                "response_modes_supported": ["direct_post", "direct_post.jwt"],
            ]
            response = try http.postForm(uri, [("wallet_nonce", walletNonce), ("wallet_metadata", try CanonicalJSON.string(metadata))],
                                         accept: accept, step: step)
        } else {
            response = try http.get(uri, accept: accept, step: step)
        }
        guard response.status == 200 else {
            throw OpenID4VPError.transport(step: step, "\(uriText) answered HTTP \(response.status): \(response.text.prefix(200))")
        }
        return try AuthorizationRequest.verify(requestObject: response.text, clientID: reference.clientID, policy: policy)
    }

    /// The response parameters: vp_token keyed by credential query id, and state.
    public static func responsePayload(_ request: AuthorizationRequest, vpToken: [String: [String]]) -> [String: Any] {
        var payload: [String: Any] = ["vp_token": vpToken]
        if let state = request.state { payload["state"] = state }
        return payload
    }

    /// What the verifier answered an accepted response with.
    public struct Outcome: Sendable {
        public let status: Int
        public let redirectURI: String?
    }

    /// Sends the response (direct_post, or direct_post.jwt encrypted to the verifier's key).
    public static func send(_ request: AuthorizationRequest, vpToken: [String: [String]], http: VerifierHTTP) throws -> Outcome {
        let payload = responsePayload(request, vpToken: vpToken)
        var fields: [(String, String)]
        if request.responseMode == "direct_post.jwt" {
            guard let (key, kid) = request.encryptionKey else { throw OpenID4VPError.badRequest("no key to encrypt the response to") }
            let jwe = try JWE.encrypt(Array(try CanonicalJSON.data(payload)), to: key, enc: request.encryption, kid: kid)
            fields = [("response", jwe)]
        } else {
            fields = [("vp_token", try CanonicalJSON.string(vpToken))]
            if let state = request.state { fields.append(("state", state)) }
        }
        let step = "Sending the response to \(request.responseURI.absoluteString)"
        let answer = try http.postForm(request.responseURI, fields, accept: "application/json", step: step)
        let object = (try? JSON.parse(answer.body)) as? [String: Any]
        guard answer.status == 200 else {
            throw OpenID4VPError.verifierRefused(status: answer.status, error: object?["error"] as? String ?? "(no error code)",
                                                 description: object?["error_description"] as? String)
        }
        return Outcome(status: answer.status, redirectURI: object?["redirect_uri"] as? String)
    }
}

