import FoundationEssentials
import LDS
import PassportCrypto
import Synchronization

/// The checks of a loopback server that holds passport data (docs/desk.md, "Security"):
/// - the page is reached only through the address `passport desk` printed, whose random token
///   (256 bits) is exchanged, once, for an HttpOnly, SameSite=Strict session cookie; every other
///   request without that cookie gets 403 (other users of the machine can reach the port, and a
///   browser's command line, which holds the address, is visible to them);
/// - the Host header must name the loopback address or localhost with the desk's port (DNS
///   rebinding), and the Origin header, required on every request that changes something and
///   checked on the event stream, must be the desk's own;
/// - every answer carries a strict Content-Security-Policy and is not cached.
public final class DeskGuard: Sendable {
    public enum Decision: Equatable, Sendable {
        case allow
        /// The token is right: answer with this cookie and send the browser to the page.
        case exchange(cookie: String)
        case deny(status: Int, code: String, message: String)
    }

    public static let cookieName = "passport_desk"
    public let port: Int
    public let token: String
    private let session: String
    private let tokenUsed = Atomic<Bool>(false)

    public init(port: Int, token: String = DeskGuard.randomSecret(), session: String = DeskGuard.randomSecret()) {
        self.port = port
        self.token = token
        self.session = session
    }

    /// 32 random bytes from OpenSSL, hex.
    public static func randomSecret() -> String {
        hexString(OpenSSLCrypto.randomBytes(32)).lowercased()
    }

    /// The address to open (the token is in it).
    public var address: String { "http://127.0.0.1:\(port)/?token=\(token)" }

    var hosts: Set<String> { ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"] }
    var origins: Set<String> { Set(hosts.map { "http://\($0)" }) }

    public func check(_ request: DeskRequest) -> Decision {
        guard ["GET", "HEAD", "POST"].contains(request.method) else {
            return .deny(status: 405, code: "method", message: "The desk answers GET and POST only.")
        }
        guard let host = request.header("host"), hosts.contains(host.lowercased()) else {
            return .deny(status: 403, code: "host", message: "Refused: the Host header must be 127.0.0.1, [::1] or localhost with the desk's port \(port).")
        }
        if let origin = request.header("origin"), !origins.contains(origin.lowercased()) {
            return .deny(status: 403, code: "origin", message: "Refused: a request from another origin (\(origin)).")
        }
        if let site = request.header("sec-fetch-site"), !["same-origin", "none"].contains(site.lowercased()) {
            return .deny(status: 403, code: "origin", message: "Refused: a request from another site (Sec-Fetch-Site: \(site)).")
        }
        if request.method == "POST" && request.header("origin") == nil {
            return .deny(status: 403, code: "origin", message: "Refused: a request that changes something must carry the desk's Origin.")
        }
        if let given = request.query["token"], request.method == "GET", request.path == "/" {
            guard Self.equal(given, token) else {
                return .deny(status: 403, code: "token", message: "Refused: this is not the address `passport desk` printed.")
            }
            guard !tokenUsed.exchange(true, ordering: .relaxed) else {
                return .deny(status: 403, code: "token_used", message: "This address has been opened once already; the browser that opened it has the desk. To open it elsewhere, start `passport desk` again.")
            }
            return .exchange(cookie: "\(Self.cookieName)=\(session); HttpOnly; SameSite=Strict; Path=/")
        }
        guard let cookie = request.cookie(Self.cookieName), Self.equal(cookie, session) else {
            return .deny(status: 403, code: "no_session", message: "Refused: open the address that `passport desk` printed (it holds the access token).")
        }
        return .allow
    }

    /// Compares in time that does not depend on where the strings differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// Headers on every answer, personal or not.
    public static let headers: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' blob:; media-src 'self' blob: mediastream:; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Permissions-Policy", "camera=(self), microphone=(), geolocation=()"),
        ("Cache-Control", "no-store"),
    ]
}
