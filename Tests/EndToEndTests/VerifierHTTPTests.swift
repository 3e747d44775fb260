import Foundation
import Testing
import TestSupport

/// The wallet's HTTPS (`passport present --request`) through the system's libcurl: a local HTTPS
/// server with a TEST-ONLY CA (scripts/interop/https_server.py), reached directly and through
/// Debian's tinyproxy given by HTTPS_PROXY; the CA store, bounded bodies and the deadline.
/// The server answers with text that is not a request object, so a fetch that got through ends
/// in `invalid_request_signature` (the next step), never in a transport error.
@Suite(.serialized) final class VerifierHTTPTests {
    static let server = TestPaths.projectRoot.appendingPathComponent("scripts/interop/https_server.py").path
    static let tinyproxy = "/usr/bin/tinyproxy"
    static let available = FileManager.default.fileExists(atPath: tinyproxy)
        || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path

    let home = Harness.temporaryFolder()
    var pki: URL { home.appendingPathComponent("pki") }
    var caFile: String { pki.appendingPathComponent("ca.pem").path }
    /// The proxy variables of the machine running the tests must not decide these tests.
    var cleanProxy: [String: String] {
        Dictionary(uniqueKeysWithValues: ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY",
                                          "no_proxy", "NO_PROXY"].map { ($0, "") })
            .merging(["XDG_CONFIG_HOME": home.path]) { $1 }
    }

    init() throws {
        let made = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), [Self.server, "make-pki", pki.path], timeout: 60)
        try #require(made.status == 0, "make-pki failed: \(made.stderr)")
    }

    deinit { try? FileManager.default.removeItem(at: home) }

    /// A credential to present (issued once per test from the fixture passport).
    func credential() throws -> String {
        let out = home.appendingPathComponent("credential").path
        if FileManager.default.fileExists(atPath: out) { return out }
        let r = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust",
                                      "--csca", Self.csca, "--out", out, "--yes"], environment: cleanProxy)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        return out
    }

    /// https_server.py serve MODE, and its port.
    func serve(_ mode: String) throws -> (BackgroundProcess, Int) {
        let process = try BackgroundProcess("/usr/bin/python3", [Self.server, "serve", pki.path, mode], folder: home,
                                            name: "server-\(mode)-\(UUID().uuidString.prefix(6))", environment: ["PYTHONUNBUFFERED": "1"])
        // Up to 60 s for Python to start and listen: a slow or busy machine is not a failure.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let line = process.stdout.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }), let port = Int(line.dropFirst(5)) {
                return (process, port)
            }
            if !process.isRunning { break }
            usleep(50_000)
        }
        process.stop()
        throw POSIXError(.ETIMEDOUT)
    }

    /// tinyproxy (Debian's) in the foreground on a free loopback port, logging the tunnels it opens.
    func proxy() throws -> (BackgroundProcess, port: Int, log: URL) {
        let log = home.appendingPathComponent("tinyproxy-\(UUID().uuidString.prefix(6)).log")
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<40_000)
            let config = home.appendingPathComponent("tinyproxy-\(port).conf")
            try Data("""
                Port \(port)
                Listen 127.0.0.1
                Timeout 30
                LogLevel Info
                LogFile "\(log.path)"
                MaxClients 10
                Allow 127.0.0.1

                """.utf8).write(to: config)
            let process = try BackgroundProcess(Self.tinyproxy, ["-d", "-c", config.path], folder: home, name: "tinyproxy-\(port)")
            let deadline = Date().addingTimeInterval(30) // a loaded machine may be slow to start it
            while Date() < deadline {
                if !process.isRunning { break }
                if (try? String(contentsOf: log, encoding: .utf8))?.contains("listening on") == true
                    || Self.accepts(port: port) { return (process, port, log) }
                usleep(50_000)
            }
            process.stop()
        }
        throw POSIXError(.EADDRINUSE)
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    func link(port: Int) -> String {
        "openid4vp://?client_id=x509_san_dns:localhost&request_uri=https%3A%2F%2F127.0.0.1%3A\(port)%2Frequest"
    }

    func present(port: Int, anchors: Bool = true, _ extra: [String] = [], environment: [String: String] = [:]) throws -> Harness.Result {
        try Harness.passport(["present", try credential(), "--request", link(port: port), "--json", "--yes"]
                             + (anchors ? ["--verifier-ca", caFile] : []) + extra,
                             environment: cleanProxy.merging(environment) { $1 })
    }

    func errorCode(_ r: Harness.Result) -> String? { (r.json?["error"] as? [String: Any])?["code"] as? String }
    func message(_ r: Harness.Result) -> String { ((r.json?["error"] as? [String: Any])?["message"] as? String) ?? r.stderr }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"))
    func fetchesOverHTTPSWithTheGivenCA() throws {
        let (server, port) = try serve("ok")
        defer { server.stop() }
        let r = try present(port: port)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(errorCode(r) == "invalid_request_signature", "the fetch did not get through: \(message(r))")
        #expect(server.stderr.contains("REQUEST GET /request"))
    }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"))
    func refusesAServerTheCAStoreDoesNotTrust() throws {
        let (server, port) = try serve("ok")
        defer { server.stop() }
        let r = try present(port: port, anchors: false)
        #expect(r.status == 1)
        #expect(errorCode(r) == "untrusted_verifier", "\(message(r))")
        #expect(message(r).contains("127.0.0.1:\(port)") && message(r).contains("--verifier-ca"), "\(message(r))")
        #expect(!server.stderr.contains("REQUEST"), "a request reached an untrusted server")
    }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"))
    func goesThroughTheProxyThatHTTPSProxyNames() throws {
        let (server, port) = try serve("ok")
        defer { server.stop() }
        let (tinyproxy, proxyPort, log) = try proxy()
        defer { tinyproxy.stop() }
        for variable in ["HTTPS_PROXY", "https_proxy"] {
            let before = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let r = try present(port: port, environment: [variable: "http://127.0.0.1:\(proxyPort)"])
            #expect(errorCode(r) == "invalid_request_signature", "\(variable): \(message(r))")
            let after = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(after.dropFirst(before.count).contains("Established connection to host \"127.0.0.1\""),
                    "\(variable): tinyproxy opened no tunnel: \(after.suffix(600))")
        }
        // NO_PROXY takes the verifier out of the proxy's way.
        let before = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let direct = try present(port: port, environment: ["HTTPS_PROXY": "http://127.0.0.1:\(proxyPort)", "NO_PROXY": "127.0.0.1"])
        #expect(errorCode(direct) == "invalid_request_signature", "\(message(direct))")
        let after = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(!after.dropFirst(before.count).contains("Established connection"), "NO_PROXY was ignored")
    }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"))
    func aProxyThatIsNotThereIsAClearTransportError() throws {
        let (server, port) = try serve("ok")
        defer { server.stop() }
        var closed = 0
        repeat { closed = Int.random(in: 40_000..<50_000) } while Self.accepts(port: closed)
        let r = try present(port: port, environment: ["HTTPS_PROXY": "http://127.0.0.1:\(closed)"])
        #expect(r.status == 2)
        #expect(errorCode(r) == "transport_error")
        #expect(message(r).contains("through the proxy http://127.0.0.1:\(closed)"), "\(message(r))")
    }

    /// Peak memory of `passport present` (kB) read by its parent Python through RUSAGE_CHILDREN.
    func presentMeasured(port: Int) throws -> (Harness.Result, maxRSSKB: Int) {
        let measure = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            sys.stdout.write(r.stdout.decode()); sys.stderr.write(r.stderr.decode())
            sys.stderr.write("\\nMAXRSS %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(r.returncode)
            """
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"),
                                ["-c", measure, Harness.passportExecutable.path, "present", try credential(), "--request", link(port: port),
                                 "--json", "--yes", "--verifier-ca", caFile], environment: cleanProxy)
        let line = r.stderr.split(separator: "\n").last { $0.hasPrefix("MAXRSS ") }
        return (r, line.flatMap { Int($0.dropFirst(7)) } ?? -1)
    }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"), arguments: ["huge", "stream"])
    func anOversizedAnswerIsCutOffWhileItIsRead(mode: String) throws {
        let (server, port) = try serve(mode)
        defer { server.stop() }
        _ = try credential()
        let (r, maxRSS) = try presentMeasured(port: port)
        #expect(r.status == 2)
        #expect(errorCode(r) == "transport_error")
        #expect(message(r).contains("more than 1048576 bytes"), "\(message(r))")
        #expect(maxRSS > 0 && maxRSS < 64 * 1024, "passport present peaked at \(maxRSS) kB")
    }

    @Test(.enabled(if: available, "tinyproxy is not installed (run scripts/setup)"))
    func aDripFeedingServerIsCutOffAtTheDeadline() throws {
        let (server, port) = try serve("drip")
        defer { server.stop() }
        let r = try present(port: port, ["--http-timeout", "3"])
        #expect(r.status == 2)
        #expect(errorCode(r) == "transport_error")
        #expect(message(r).contains("did not finish within 3 s"), "\(message(r))")
    }
}
