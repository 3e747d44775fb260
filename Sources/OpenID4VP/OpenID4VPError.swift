/// Why a presentation request was not answered, or an answer not accepted. Every case names the
/// step it happened in and what was seen; none of them is raised after anything was sent,
/// except `verifierRefused`, which reports what the verifier answered.
public enum OpenID4VPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text given as the request is not an OpenID4VP authorization request.
    case badReference(String)
    /// Fetching the request object or posting the response failed (network, TLS, HTTP status).
    case transport(step: String, String)
    /// The verifier's TLS or request-object certificate does not chain to a trusted anchor.
    case untrustedVerifier(String)
    /// The TLS connection to the verifier failed for a reason other than its certificate's trust
    /// (handshake, protocol version, cipher, a CA file the TLS library cannot read).
    case tls(step: String, String)
    /// The request object is unsigned where a signature is required, or the signature is wrong.
    case badSignature(String)
    /// The request object is well signed but not acceptable (expired, replayed, wrong URIs…).
    case badRequest(String)
    /// The DCQL query cannot be parsed.
    case badQuery(String)
    /// The request asks for something this wallet does not hold or the person did not agree to.
    case cannotSatisfy(String)
    /// The verifier answered the response with an error.
    case verifierRefused(status: Int, error: String, description: String?)
    /// A vp_token (verifier side) does not answer its request.
    case invalidResponse(String)
    /// Usage: options that do not fit together, unreadable files.
    case usage(String)

    public var description: String {
        switch self {
        case .badReference(let why): return "Reading the request: \(why)."
        case .transport(let step, let why): return "\(step): \(why)."
        case .untrustedVerifier(let why): return "Verifier not trusted: \(why). Nothing was sent."
        case .tls(let step, let why): return "\(step): \(why)."
        case .badSignature(let why): return "Request object signature: \(why). Nothing was sent."
        case .badRequest(let why): return "Request object: \(why). Nothing was sent."
        case .badQuery(let why): return "DCQL query: \(why). Nothing was sent."
        case .cannotSatisfy(let why): return "Refusing the request: \(why). Nothing was sent."
        case .verifierRefused(let status, let error, let text):
            return "The verifier refused the presentation: HTTP \(status), error \(error)" + (text.map { " (\($0))" } ?? "") + "."
        case .invalidResponse(let why): return "vp_token: \(why)."
        case .usage(let why): return why
        }
    }

    /// A stable machine-readable code for `--json` error objects.
    public var code: String {
        switch self {
        case .badReference: return "invalid_request_reference"
        case .transport: return "transport_error"
        case .untrustedVerifier: return "untrusted_verifier"
        case .tls: return "tls_error"
        case .badSignature: return "invalid_request_signature"
        case .badRequest: return "invalid_request_object"
        case .badQuery: return "invalid_dcql_query"
        case .cannotSatisfy: return "cannot_satisfy_request"
        case .verifierRefused: return "verifier_refused"
        case .invalidResponse: return "invalid_presentation"
        case .usage: return "usage"
        }
    }

    /// 1: the request or token is invalid or refused; 2: usage or environment.
    public var exitStatus: Int32 {
        switch self {
        case .usage, .transport, .tls: return 2
        default: return 1
        }
    }
}
