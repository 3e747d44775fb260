@testable import Desk
import Testing

/// The loopback server's checks, request by request (the browser tests run the same against the
/// real server).
@Suite struct DeskGuardTests {
    let security = DeskGuard(port: 4242, token: "t0ken", session: "s3ssion")
    let cookie = ("Cookie", "passport_desk=s3ssion")

    func request(_ method: String = "GET", _ target: String, _ headers: [(String, String)] = [("Host", "127.0.0.1:4242")]) -> DeskRequest {
        DeskRequest(method: method, target: target, headers: headers, body: [])
    }

    func denied(_ decision: DeskGuard.Decision, _ code: String) -> Bool {
        if case .deny(_, let given, _) = decision { return given == code }
        return false
    }

    @Test func theTokenIsExchangedOnceForAStrictHttpOnlyCookie() {
        guard case .exchange(let cookie) = security.check(request("GET", "/?token=t0ken")) else {
            Issue.record("the right token was not exchanged")
            return
        }
        #expect(cookie == "passport_desk=s3ssion; HttpOnly; SameSite=Strict; Path=/")
        #expect(denied(security.check(request("GET", "/?token=t0ken")), "token_used"))
        #expect(denied(DeskGuard(port: 4242, token: "t0ken").check(request("GET", "/?token=t0keN")), "token"))
    }

    @Test func everyRequestNeedsTheSessionCookie() {
        #expect(denied(security.check(request("GET", "/")), "no_session"))
        #expect(denied(security.check(request("GET", "/api/state", [("Host", "127.0.0.1:4242"), ("Cookie", "passport_desk=other")])), "no_session"))
        #expect(security.check(request("GET", "/api/state", [("Host", "127.0.0.1:4242"), cookie])) == .allow)
        #expect(security.check(request("GET", "/", [("Host", "localhost:4242"), ("Cookie", "a=b; passport_desk=s3ssion")])) == .allow)
        #expect(security.check(request("GET", "/", [("Host", "[::1]:4242"), cookie])) == .allow)
    }

    @Test func aForeignOrMissingHostIsRefused() {
        for host in ["attacker.example:4242", "127.0.0.1:4243", "127.0.0.1", "192.168.1.2:4242"] {
            #expect(denied(security.check(request("GET", "/", [("Host", host), cookie])), "host"), "\(host)")
        }
        #expect(denied(security.check(request("GET", "/", [cookie])), "host"))
        #expect(denied(security.check(request("GET", "/", [("Host", "127.0.0.1:4242"), ("Host", "127.0.0.1:4242"), cookie])), "host"))
    }

    @Test func changesNeedTheDesksOwnOrigin() {
        let base = [("Host", "127.0.0.1:4242"), cookie]
        #expect(denied(security.check(request("POST", "/api/clear", base)), "origin"))
        #expect(denied(security.check(request("POST", "/api/clear", base + [("Origin", "http://attacker.example")])), "origin"))
        #expect(denied(security.check(request("POST", "/api/clear", base + [("Origin", "null")])), "origin"))
        #expect(security.check(request("POST", "/api/clear", base + [("Origin", "http://127.0.0.1:4242")])) == .allow)
        #expect(denied(security.check(request("GET", "/api/events", base + [("Origin", "http://attacker.example")])), "origin"))
        #expect(denied(security.check(request("GET", "/api/state", base + [("Sec-Fetch-Site", "cross-site")])), "origin"))
        #expect(security.check(request("GET", "/api/state", base + [("Sec-Fetch-Site", "same-origin")])) == .allow)
        #expect(denied(security.check(request("PUT", "/api/clear", base)), "method"))
    }

    @Test func everyAnswerCarriesAStrictPolicy() {
        let headers = Dictionary(uniqueKeysWithValues: DeskGuard.headers)
        #expect(headers["Content-Security-Policy"]?.hasPrefix("default-src 'self'") == true)
        #expect(headers["Content-Security-Policy"]?.contains("unsafe") == false)
        #expect(headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(headers["Cache-Control"] == "no-store")
        #expect(headers["Referrer-Policy"] == "no-referrer")
    }

    @Test func theTokenIs256RandomBits() {
        let a = DeskGuard.randomSecret(), b = DeskGuard.randomSecret()
        #expect(a.count == 64 && a != b && a.allSatisfy(\.isHexDigit))
    }
}
