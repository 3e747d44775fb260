import CCurl
import FoundationEssentials
import Glibc
import TextSupport
import OpenID4VP

/// HTTPS to verifiers through the system's libcurl (built on the system's OpenSSL): the
/// system's CA store plus `--verifier-ca` anchors, the standard proxy variables (`https_proxy`,
/// `HTTPS_PROXY`, `no_proxy`, `NO_PROXY`), no redirects followed, bodies bounded while they are
/// read and a deadline on each whole exchange.
public struct VerifierHTTP: Sendable {
    public struct Response: Sendable {
        public let status: Int
        public let contentType: String?
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// PEM text of the extra anchors, read once.
    let anchorsPEM: [UInt8]
    /// Bodies larger than this are refused as they arrive (a request object or an answer is a few KB).
    public var maxBody = 1 << 20
    /// The deadline of one exchange, connection and TLS included.
    public var deadline: TimeInterval
    public var connectTimeout: TimeInterval
    /// Plain http:// is allowed only for loopback test verifiers the caller has allowed.
    public var allowPlainHTTP = false

    public init(anchors: [String], deadline: TimeInterval = 30, connectTimeout: TimeInterval = 10) throws {
        var pem: [UInt8] = []
        for file in anchors {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw OpenID4VPError.usage("cannot read the CA file \(file)")
            }
            guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                throw OpenID4VPError.usage("the CA file \(file) holds no PEM certificate")
            }
            pem += [UInt8](data) + [0x0A]
        }
        anchorsPEM = pem
        self.deadline = deadline
        self.connectTimeout = connectTimeout
    }

    public func get(_ url: URL, accept: String, step: String) throws -> Response {
        try send(url, post: false, headers: ["Accept: \(accept)"], body: [], step: step)
    }

    public func postForm(_ url: URL, _ fields: [(String, String)], accept: String, step: String) throws -> Response {
        let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        return try send(url, post: true, headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: \(accept)"],
                        body: Array(body.utf8), step: step)
    }

    static func formEncode(_ text: String) -> String { PercentEncoding.encodeUnreserved(text) }

    func send(_ url: URL, post: Bool, headers: [String], body: [UInt8], step: String) throws -> Response {
        guard url.scheme == "https" || (url.scheme == "http" && allowPlainHTTP) else {
            throw OpenID4VPError.transport(step: step, "\(url) is not an https URL")
        }
        var raw = passport_http_response()
        defer { passport_http_response_free(&raw) }
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        url.absoluteString.withCString { urlText in
            body.withUnsafeBufferPointer { bodyBytes in
                anchorsPEM.withUnsafeBufferPointer { anchors in
                    cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerList in
                        var request = passport_http_request()
                        request.url = urlText
                        request.post = post ? 1 : 0
                        request.headers = headerList.baseAddress
                        request.header_count = headerList.count
                        request.body = bodyBytes.baseAddress
                        request.body_length = bodyBytes.count
                        request.extra_anchors_pem = anchors.baseAddress
                        request.extra_anchors_length = anchors.count
                        request.connect_timeout_ms = Int(connectTimeout * 1000)
                        request.total_timeout_ms = Int(deadline * 1000)
                        request.max_body = maxBody
                        request.allow_plain_http = allowPlainHTTP ? 1 : 0
                        passport_http_perform(&request, &raw)
                    }
                }
            }
        }
        if raw.outcome != PASSPORT_HTTP_OK { throw failure(raw, url: url, method: post ? "POST" : "GET", step: step) }
        let bytes = raw.body.map { Array(UnsafeBufferPointer(start: $0, count: raw.body_length)) } ?? []
        return Response(status: raw.status, contentType: raw.content_type.map { String(cString: $0) }, body: bytes)
    }

    /// libcurl's outcome as the wallet's typed error, naming the step, the host and what was seen.
    func failure(_ raw: passport_http_response, url: URL, method: String, step: String) -> OpenID4VPError {
        let detail = withUnsafeBytes(of: raw.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let host = "\(url.host ?? "?"):\(url.port ?? (url.scheme == "http" ? 80 : 443))"
        switch raw.outcome {
        case PASSPORT_HTTP_UNTRUSTED_CERTIFICATE:
            return .untrustedVerifier("the TLS certificate of \(host) is not trusted (\(detail)); give its CA with --verifier-ca")
        case PASSPORT_HTTP_TLS:
            return .tls(step: step, "the TLS connection to \(host) failed: \(detail)")
        case PASSPORT_HTTP_TOO_LARGE:
            return .transport(step: step, "\(host) sent more than \(maxBody) bytes; the transfer was stopped")
        case PASSPORT_HTTP_DEADLINE:
            return .transport(step: step, "\(host) did not finish within \(Int(deadline)) s (\(detail)); the transfer was stopped")
        case PASSPORT_HTTP_CONNECT:
            return .transport(step: step, "cannot reach \(host)\(Self.proxyNote(for: url)): \(detail)")
        case PASSPORT_HTTP_PROXY:
            return .transport(step: step, "the proxy\(Self.proxyNote(for: url)) refused the connection to \(host): \(detail)")
        case PASSPORT_HTTP_SCHEME:
            return .transport(step: step, "\(url) is not an https URL")
        case PASSPORT_HTTP_LIBRARY:
            return .transport(step: step, "\(detail); install it: sudo apt install \(String(cString: passport_curl_package()))")
        default:
            return .transport(step: step, "\(method) \(url) failed: \(detail)")
        }
    }

    /// " through the proxy P" when the environment names one for this URL's scheme.
    static func proxyNote(for url: URL) -> String {
        let environment = ProcessInfo.processInfo.environment
        let names = url.scheme == "https" ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
        guard let proxy = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return "" }
        return " through the proxy \(proxy)"
    }
}
