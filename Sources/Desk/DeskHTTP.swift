import FoundationEssentials
import TextSupport
import PassportKit

/// One HTTP request as the desk's routes see it: the body is complete (bounded by the server).
public struct DeskRequest: Sendable {
    public let method: String
    /// The path without its query, e.g. "/api/key".
    public let path: String
    public let query: [String: String]
    /// Header names in lower case; a repeated header keeps its values in order.
    public let headers: [String: [String]]
    public let body: [UInt8]

    public init(method: String, target: String, headers: [(String, String)], body: [UInt8]) {
        self.method = method
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first.map(String.init) ?? "/"
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = PercentEncoding.decode(kv[0], plusIsSpace: false) ?? String(kv[0])
                let value = kv.count == 2 ? (PercentEncoding.decode(kv[1], plusIsSpace: true) ?? "") : ""
                query[name] = value
            }
        }
        self.query = query
        var grouped: [String: [String]] = [:]
        for (name, value) in headers { grouped[name.lowercased(), default: []].append(value) }
        self.headers = grouped
        self.body = body
    }

    /// The header's value when it appears once (nil when absent or repeated: a repeated Host or
    /// Origin is refused, never guessed at).
    public func header(_ name: String) -> String? {
        guard let values = headers[name.lowercased()], values.count == 1 else { return nil }
        return values[0]
    }

    /// The cookie of that name, from the Cookie header(s).
    public func cookie(_ name: String) -> String? {
        for header in headers["cookie"] ?? [] {
            for pair in header.split(separator: ";") {
                let kv = pair.trimmed().split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == name { return String(kv[1]) }
            }
        }
        return nil
    }
}

/// One HTTP response; `eventStream` responses stay open and receive the desk's events.
public struct DeskResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var eventStream = false

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: some Encodable, status: Int = 200) -> DeskResponse {
        do {
            return DeskResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(try ReportEncoding.line(value)))
        } catch {
            return .error(500, "internal", "The answer could not be encoded: \(error)")
        }
    }

    /// `{"ok": false, "error": {"code", "message"}}`, as the command line's `--json` errors.
    public static func error(_ status: Int, _ code: String, _ message: String) -> DeskResponse {
        .json(ErrorReport(code: code, message: message), status: status)
    }

    public static func bytes(_ body: [UInt8], type: String, download: String? = nil) -> DeskResponse {
        var headers = [("Content-Type", type)]
        if let download { headers.append(("Content-Disposition", "attachment; filename=\"\(download)\"")) }
        return DeskResponse(status: 200, headers: headers, body: body)
    }

    public static let noContent = DeskResponse(status: 204)

    public static func redirect(to location: String, headers: [(String, String)] = []) -> DeskResponse {
        DeskResponse(status: 303, headers: [("Location", location)] + headers)
    }

    public static var events: DeskResponse {
        var response = DeskResponse(status: 200, headers: [("Content-Type", "text/event-stream")])
        response.eventStream = true
        return response
    }

    public static let reasons: [Int: String] = [
        200: "OK", 204: "No Content", 303: "See Other", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type",
        422: "Unprocessable Content", 500: "Internal Server Error", 503: "Service Unavailable",
    ]
}
