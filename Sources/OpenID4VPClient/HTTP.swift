import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import OpenID4VP

/// HTTPS to verifiers through AsyncHTTPClient: the system's trust store plus `--verifier-ca`
/// anchors, no redirects followed, bounded bodies and time.
public final class VerifierHTTP: @unchecked Sendable {
    public struct Response: Sendable {
        public let status: Int
        public let contentType: String?
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    let client: HTTPClient
    /// Bodies larger than this are refused (a request object or an answer is a few KB).
    public var maxBody = 1 << 20

    public init(anchors: [String], timeout: TimeInterval = 20) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if !anchors.isEmpty {
            var roots: [NIOSSLCertificate] = []
            for file in anchors {
                do { roots += try NIOSSLCertificate.fromPEMFile(file) } catch {
                    throw OpenID4VPError.usage("cannot read the CA file \(file): \(error)")
                }
            }
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .seconds(Int64(timeout)), read: .seconds(Int64(timeout))))
        configuration.httpVersion = .http1Only
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit { try? client.syncShutdown() }

    public func get(_ url: URL, accept: String, step: String) throws -> Response {
        try send(url, method: .GET, headers: [("Accept", accept)], body: nil, step: step)
    }

    public func postForm(_ url: URL, _ fields: [(String, String)], accept: String, step: String) throws -> Response {
        let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        return try send(url, method: .POST, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", accept)],
                        body: body, step: step)
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func send(_ url: URL, method: HTTPMethod, headers: [(String, String)], body: String?, step: String) throws -> Response {
        guard url.scheme == "https" || url.scheme == "http" else { throw OpenID4VPError.transport(step: step, "\(url) is not an http(s) URL") }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url.absoluteString, method: method, headers: HTTPHeaders(headers),
                                             body: body.map { .string($0) })
        } catch { throw OpenID4VPError.transport(step: step, "\(url) cannot be requested: \(error)") }
        let response: HTTPClient.Response
        do {
            response = try client.execute(request: request).wait()
        } catch {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") || text.contains("handshakeFailed") {
                let reason = text.contains("CERTIFICATE_VERIFY_FAILED") ? "CERTIFICATE_VERIFY_FAILED" : String(text.prefix(160))
                throw OpenID4VPError.untrustedVerifier("the TLS certificate of \(url.host ?? "?"):\(url.port.map(String.init) ?? "443") is not trusted (\(reason)); give its CA with --verifier-ca")
            }
            throw OpenID4VPError.transport(step: step, "\(method.rawValue) \(url) failed: \(text)")
        }
        let bytes = response.body.map { Array($0.readableBytesView) } ?? []
        guard bytes.count <= maxBody else { throw OpenID4VPError.transport(step: step, "the answer is larger than \(maxBody) bytes") }
        return Response(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"), body: bytes)
    }
}
