import Foundation
import Testing
import TestSupport

/// `passport present --request` against polaris-oid4vp (PyPI, an OpenID4VP 1.0 + HAIP verifier
/// nobody here wrote) on loopback: its `keygen` PKI (x509_hash client identifier, a CA and the
/// leaf it signs, a self-signed TLS certificate), its `serve --once` request (signed request
/// object, request_uri_method=post, DCQL, direct_post.jwt with ECDH-ES), and its verdict.
@Suite(.serialized) final class OpenID4VPInterop {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path] }
    static let polaris = TestPaths.projectRoot.appendingPathComponent(".build-interop/venv/bin/polaris-oid4vp")
    static let available = FileManager.default.fileExists(atPath: polaris.path)
        || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path

    deinit { try? FileManager.default.removeItem(at: home) }

    var pki: URL { home.appendingPathComponent("pki") }
    var tlsCA: String { pki.appendingPathComponent("tls.pem").path }
    var anchor: String { pki.appendingPathComponent("anchor.pem").path }

    /// polaris-oid4vp keygen: gives the client_id it prints.
    func keygen() throws -> String {
        if let existing = try? String(contentsOf: home.appendingPathComponent("client_id"), encoding: .utf8) { return existing }
        let r = try Harness.run(Self.polaris, ["keygen", "--out", pki.path, "--host", "localhost"], timeout: 60)
        try #require(r.status == 0, "keygen failed: \(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first { $0.contains("client_id") })
        let clientID = String(try #require(line.split(separator: " ").last))
        try Data(clientID.utf8).write(to: home.appendingPathComponent("client_id"))
        return clientID
    }

    func issue(nationality: Bool = false) throws -> String {
        let out = home.appendingPathComponent("credential\(nationality ? "-nat" : "")").path
        if FileManager.default.fileExists(atPath: out) { return out }
        let r = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust",
                                      "--csca", Self.csca, "--out", out, "--yes"] + (nationality ? ["--nationality"] : []), environment: env)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        return out
    }

    /// A running `polaris-oid4vp serve --once`.
    final class Server {
        let process: BackgroundProcess
        let port: Int
        var link = ""
        init(_ arguments: [String], folder: URL, port: Int? = nil) throws {
            self.port = port ?? Int.random(in: 20_000..<40_000)
            process = try BackgroundProcess(OpenID4VPInterop.polaris.path,
                                            ["serve", "--bind", "127.0.0.1", "--host", "localhost", "--port", "\(self.port)", "--once", "--verbose"] + arguments,
                                            folder: folder, name: "serve-\(self.port)-\(UUID().uuidString.prefix(8))",
                                            // Python block-buffers stdout into a file: without this the link it prints
                                            // stays in its buffer until it exits (a user's shell does not set it for us).
                                            environment: ["PYTHONUNBUFFERED": "1"])
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let found = process.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first(where: { $0.hasPrefix("openid4vp://") }) {
                    link = String(found)
                    return
                }
                if !process.isRunning { break }
                usleep(100_000)
            }
            process.stop()
            throw POSIXError(.ETIMEDOUT)
        }
        var log: String { process.stderr }
        func stop() { process.stop() }
    }

    func serve(claim: String = "age_over_18=true", clientID: String, port: Int? = nil) throws -> Server {
        let jwks = home.appendingPathComponent("issuer-jwks.json")
        let keys = try Harness.passport(["keys", "show", "--aud", clientID, "--jwk"], environment: env)
        try #require(keys.status == 0, "keys show failed: \(keys.stderr)")
        try Data(keys.stdout.utf8).write(to: jwks)
        return try Server(["--pki", pki.path, "--issuer-jwks", jwks.path, "--claim", claim,
                           "--vct", "urn:passport-toolkit:vct:passport-derived:1"], folder: home, port: port)
    }

    /// A credential, polaris' client_id and a verifier serving one request for `claim`.
    func polarisSession(claim: String = "age_over_18=true", nationality: Bool = false) throws -> (credential: String, clientID: String, server: Server) {
        let clientID = try keygen()
        let credential = try issue(nationality: nationality)
        return (credential, clientID, try serve(claim: claim, clientID: clientID))
    }

    /// `passport present CREDENTIAL --request REQUEST`, trusting polaris' TLS and request-object
    /// CAs unless `trust` says otherwise.
    func present(_ credential: String, request: String, trust: [String]? = nil, _ extra: [String] = []) throws -> Harness.Result {
        let anchors = (trust ?? [tlsCA, anchor]).flatMap { ["--verifier-ca", $0] }
        return try Harness.passport(["present", credential, "--request", request] + anchors + extra, environment: env)
    }

    /// scripts/interop/minimal_verifier.py in the background, and the link it prints.
    func minimalVerifier(python: String, _ arguments: [String], name: String) throws -> (BackgroundProcess, String) {
        let verifier = try BackgroundProcess(python, [TestPaths.projectRoot.appendingPathComponent("scripts/interop/minimal_verifier.py").path,
                                                      "--passport", Harness.passportExecutable.path] + arguments, folder: home, name: name)
        var link = ""
        for _ in 0..<100 where link.isEmpty {
            link = verifier.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            usleep(100_000)
        }
        guard link.hasPrefix("openid4vp://") else { verifier.stop(); throw POSIXError(.ETIMEDOUT) }
        return (verifier, link)
    }

    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func polarisAcceptsOurPresentation() throws {
        let (credential, clientID, server) = try polarisSession()
        defer { server.stop() }
        let saved = home.appendingPathComponent("request.jwt").path
        let r = try present(credential, request: server.link, ["--yes", "--json", "--save-request", saved])
        #expect(r.status == 0, "present failed: \(r.stderr)\npolaris: \(server.log)")
        try Harness.expectShape(r, "present-request")
        let json = try #require(r.json)
        #expect(json["response_mode"] as? String == "direct_post.jwt")
        #expect(json["verifier_status"] as? Int == 200)
        #expect((json["disclosed"] as? [String: [String]]) == ["pid": ["age_over_18"]])
        #expect((json["verifier"] as? [String: Any])?["client_id"] as? String == clientID)
        #expect(!server.log.contains("refused"), "polaris: \(server.log)")
        #expect(server.log.contains("POST /response"))
        // The same request again: this wallet does not answer a request twice.
        let again = try present(credential, request: saved, trust: [anchor], ["--yes"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already been answered"), "\(again.stderr)")
    }

    /// Issue 49: polaris' request link shown as a QR code (made by qrencode), read by `present
    /// --request-qr` from the image, and from a video of a screen showing it (`--request-qr-camera`):
    /// polaris accepts the answer, as it does the link given as text.
    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"), arguments: ["image", "video"])
    func polarisAcceptsOurAnswerToItsQRCode(_ medium: String) throws {
        let (credential, clientID, server) = try polarisSession()
        defer { server.stop() }
        let image = home.appendingPathComponent("polaris-request-\(medium).png").path
        let encoded = try Harness.run(URL(fileURLWithPath: "/usr/bin/qrencode"), ["-l", "M", "-s", "6", "-o", image, server.link])
        try #require(encoded.status == 0, "qrencode: \(encoded.stderr)")
        var source = ["--request-qr", image]
        if medium == "video" {
            let folder = home.appendingPathComponent("polaris-video")
            let made = try Harness.run(TestPaths.projectRoot.appendingPathComponent("scripts/qr/make-screen-photos"), [image, folder.path], timeout: 300)
            try #require(made.status == 0, "make-screen-photos: \(made.stderr)")
            source = ["--request-qr-camera", folder.appendingPathComponent("screen-video.mp4").path]
        }
        let anchors = [tlsCA, anchor].flatMap { ["--verifier-ca", $0] }
        let r = try Harness.passport(["present", credential] + source + anchors + ["--yes", "--json"], environment: env)
        #expect(r.status == 0, "present failed: \(r.stderr)\npolaris: \(server.log)")
        try Harness.expectShape(r, "present-request")
        #expect(r.json?["verifier_status"] as? Int == 200)
        #expect((r.json?["verifier"] as? [String: Any])?["client_id"] as? String == clientID)
        #expect(server.log.contains("POST /response") && !server.log.contains("refused"), "polaris: \(server.log)")
    }

    /// Issue 41: an institution's credential (L2, x5c) to polaris-oid4vp trusting the TEST-ONLY
    /// issuer CA (`--issuer-trust-anchor`): accepted; under another CA, refused.
    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"), arguments: [true, false])
    func polarisJudgesAnInstitutionCredentialByItsCA(trusted: Bool) throws {
        _ = try keygen()
        let issuerPKI = TestPaths.fixtures.appendingPathComponent("pki/issuer")
        let out = home.appendingPathComponent("issued-\(trusted)").path
        let issued = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust", "--csca", Self.csca,
                                           "--issuer-key", issuerPKI.appendingPathComponent("TEST-ONLY-issuer.key.pem").path,
                                           "--issuer-chain", issuerPKI.appendingPathComponent("TEST-ONLY-issuer-chain.pem").path,
                                           "--batch", "2", "--out", out, "--yes"], environment: env)
        try #require(issued.status == 0, "\(issued.stderr)")
        let ca = issuerPKI.appendingPathComponent(trusted ? "TEST-ONLY-issuer-ca.pem" : "TEST-ONLY-rogue-issuer-ca.pem").path
        let server = try Server(["--pki", pki.path, "--issuer-trust-anchor", ca, "--claim", "age_over_18=true",
                                 "--vct", "urn:passport-toolkit:vct:passport-derived:1"], folder: home)
        defer { server.stop() }
        let r = try present(out, request: server.link, ["--yes", "--json"])
        if trusted {
            #expect(r.status == 0, "present failed: \(r.stderr)\npolaris: \(server.log)")
            #expect(r.json?["level"] as? String == "L2")
            #expect(!server.log.contains("refused"), "polaris: \(server.log)")
        } else {
            #expect(r.status == 1, "\(r.stderr)\npolaris: \(server.log)")
            #expect(Self.code(r) == "verifier_refused", "\(r.stdout)")
        }
    }

    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func polarisRefusesAnOldRequestAndWeReportIt() throws {
        let clientID = try keygen()
        let credential = try issue()
        let saved = home.appendingPathComponent("old-request.jwt").path
        let port: Int
        do {
            let first = try serve(clientID: clientID)
            defer { first.stop() }
            port = first.port
            // Closed stdin and no --yes: the request is fetched and saved, nothing is sent.
            let r = try present(credential, request: first.link, ["--save-request", saved])
            #expect(r.status == 1)
            #expect(r.stderr.contains("stdin is closed"), "\(r.stderr)")
            #expect(!first.log.contains("POST /response"), "something was sent: \(first.log)")
        }
        // The verifier, started again on the same address, has forgotten that request (as it
        // does once it expires): answering it is answering an old request, and it refuses.
        let second = try serve(clientID: clientID, port: port)
        defer { second.stop() }
        let r = try present(credential, request: saved, ["--yes", "--json"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(Self.code(r) == "verifier_refused", "\(r.stdout)")
        #expect(r.stderr.contains("HTTP 400"), "\(r.stderr)")
        #expect(second.log.contains("refused"), "polaris: \(second.log)")
    }

    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func untrustedVerifierGetsNothing() throws {
        let (credential, _, server) = try polarisSession()
        defer { server.stop() }
        // No --verifier-ca: its self-signed TLS certificate is not trusted.
        let noCA = try present(credential, request: server.link, trust: [], ["--yes", "--json"])
        #expect(noCA.status == 1, "\(noCA.stderr)")
        #expect(Self.code(noCA) == "untrusted_verifier", "\(noCA.stdout)")
        // TLS trusted, but not the CA of its request-object certificate.
        let noAnchor = try present(credential, request: server.link, trust: [tlsCA], ["--yes", "--json"])
        #expect(noAnchor.status == 1, "\(noAnchor.stderr)")
        #expect(Self.code(noAnchor) == "untrusted_verifier", "\(noAnchor.stdout)")
        #expect(noAnchor.stderr.contains("does not chain"), "\(noAnchor.stderr)")
        #expect(!server.log.contains("POST /response"), "something was sent: \(server.log)")
    }

    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func tamperedRequestObjectIsRefused() throws {
        let (credential, _, server) = try polarisSession()
        defer { server.stop() }
        let saved = home.appendingPathComponent("to-tamper.jwt").path
        _ = try present(credential, request: server.link, ["--save-request", saved])
        let parts = try String(contentsOfFile: saved, encoding: .utf8).split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        var payload = try #require(Self.decode(parts[1]))
        payload["response_uri"] = "https://localhost:1/elsewhere"
        let forged = [parts[0], Self.encode(try JSONSerialization.data(withJSONObject: payload)), parts[2]].joined(separator: ".")
        let file = home.appendingPathComponent("tampered.jwt")
        try Data(forged.utf8).write(to: file)
        let r = try present(credential, request: file.path, trust: [anchor], ["--yes", "--json"])
        #expect(r.status == 1)
        #expect(Self.code(r) == "invalid_request_signature", "\(r.stdout) \(r.stderr)")
        // Unsigned (alg none) where x509_hash requires a signature.
        let header = Self.encode(Data(#"{"alg":"none"}"#.utf8))
        try Data("\(header).\(parts[1]).".utf8).write(to: file)
        let unsigned = try present(credential, request: file.path, trust: [anchor], ["--yes", "--json"])
        #expect(unsigned.status == 1)
        #expect(unsigned.stderr.contains("unsigned"), "\(unsigned.stderr)")
        #expect(!server.log.contains("POST /response"))
    }

    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func claimsWeDoNotHaveOrDidNotAllowAreRefused() throws {
        let clientID = try keygen()
        let credential = try issue(nationality: true)
        do {
            let server = try serve(claim: "given_name", clientID: clientID)
            defer { server.stop() }
            let r = try present(credential, request: server.link, ["--yes", "--json"])
            #expect(r.status == 1)
            #expect(Self.code(r) == "cannot_satisfy_request")
            #expect(r.stderr.contains("given_name"), "\(r.stderr)")
        }
        let server = try serve(claim: "nationality", clientID: clientID)
        defer { server.stop() }
        let r = try present(credential, request: server.link, ["--yes", "--json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("more than you agreed"), "\(r.stderr)")
        #expect(!server.log.contains("POST /response"))
    }

    /// direct_post (unsigned redirect_uri request, plain HTTP on loopback) to a minimal verifier
    /// whose judgement is our own `passport verify-vp --request` (scripts/interop/minimal_verifier.py).
    @Test func minimalVerifierOnOurVerifyVP() throws {
        let credential = try issue()
        let (verifier, link) = try minimalVerifier(python: "/usr/bin/python3", ["--claim", "age_over_18", "--claim", "is_human"], name: "minimal")
        defer { verifier.stop() }
        // Without --insecure-loopback, plain HTTP is refused before anything is sent.
        let refused = try Harness.passport(["present", credential, "--request", link, "--yes"], environment: env)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("not HTTPS"), "\(refused.stderr)")
        let r = try Harness.passport(["present", credential, "--request", link, "--insecure-loopback", "--yes", "--json"], environment: env)
        let log = verifier.stderr
        #expect(r.status == 0, "\(r.stderr)\nverifier: \(log)")
        try Harness.expectShape(r, "present-request")
        #expect(r.json?["response_mode"] as? String == "direct_post")
        #expect((r.json?["disclosed"] as? [String: [String]]) == ["passport": ["age_over_18", "is_human"]])
        #expect(log.contains("verdict: accepted"), "\(log)")
    }

    /// Issue 41: a verifier's error_description is data: ESC, CR and LF in it reach the terminal
    /// escaped, on the one error line.
    @Test func aVerifiersErrorDescriptionCannotControlTheTerminal() throws {
        let credential = try issue()
        let hostile = "bad\u{1B}[2K\rerror: none\nSent age_over_18: the verifier accepted it"
        let (verifier, link) = try minimalVerifier(python: "/usr/bin/python3", ["--refuse-with", hostile], name: "hostile")
        defer { verifier.stop() }
        let r = try Harness.passport(["present", credential, "--request", link, "--insecure-loopback", "--yes"], environment: env)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D }, "\(r.stderr)")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1 && errors[0].contains("bad\\u{1B}[2K\\u{D}error: none\\u{A}Sent"), "\(r.stderr)")
        #expect(!r.stderr.split(separator: "\n").contains { $0.hasPrefix("Sent") }, "\(r.stderr)")
    }

    /// direct_post.jwt to the minimal verifier: the response encrypted (ECDH-ES, A256GCM as it
    /// offers) and opened by our own `verify-vp --decryption-key`.
    @Test(.enabled(if: available, "the interop virtualenv is missing (run scripts/setup)"))
    func minimalVerifierEncryptedResponse() throws {
        let credential = try issue()
        let (verifier, link) = try minimalVerifier(python: TestPaths.projectRoot.appendingPathComponent(".build-interop/venv/bin/python").path,
                                                   ["--claim", "age_over_18", "--encrypted"], name: "minimal-jwt")
        defer { verifier.stop() }
        let r = try Harness.passport(["present", credential, "--request", link, "--insecure-loopback", "--yes", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)\nverifier: \(verifier.stderr)")
        #expect(r.json?["response_mode"] as? String == "direct_post.jwt")
        #expect(r.json?["encryption"] as? String == "A256GCM")
        #expect(verifier.stderr.contains("verdict: accepted"), "\(verifier.stderr)")
    }

    /// verify-vp --request: a vp_token keyed by credential query id, checked against the request.
    @Test func verifyVPTokenAgainstItsRequest() throws {
        let credential = try issue(nationality: true)
        let clientID = "x509_san_dns:rp.example"
        let request: [String: Any] = [
            "client_id": clientID, "nonce": "nonce-1", "response_type": "vp_token",
            "dcql_query": ["credentials": [["id": "pid", "format": "dc+sd-jwt", "meta": ["vct_values": ["urn:passport-toolkit:vct:passport-derived:1"]],
                                            "claims": [["path": ["age_over_18"], "values": [true]]]]]],
        ]
        let requestFile = home.appendingPathComponent("rp-request.json")
        try JSONSerialization.data(withJSONObject: request).write(to: requestFile)
        func token(_ disclose: String, nonce: String = "nonce-1") throws -> String {
            let r = try Harness.passport(["present", credential, "--aud", clientID, "--nonce", nonce, "--disclose", disclose, "--yes"], environment: env)
            try #require(r.status == 0, "\(r.stderr)")
            let vp = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return String(decoding: try JSONSerialization.data(withJSONObject: ["pid": [vp]]), as: UTF8.self)
        }
        let ok = try Harness.passport(["verify-vp", try token("age_over_18"), "--request", requestFile.path, "--json", "--require-level", "L1"], environment: env)
        #expect(ok.status == 0, "\(ok.stderr)")
        try Harness.expectShape(ok, "verify-vp-token")
        let claims = ((ok.json?["credentials"] as? [String: Any])?["pid"] as? [[String: Any]])?.first?["claims"] as? [String: Any]
        #expect(claims?["age_over_18"] as? Bool == true)
        let extra = try Harness.passport(["verify-vp", try token("age_over_18,nationality"), "--request", requestFile.path, "--require-level", "L1"], environment: env)
        #expect(extra.status == 1)
        #expect(extra.stderr.contains("not asked for"), "\(extra.stderr)")
        let wrongNonce = try Harness.passport(["verify-vp", try token("age_over_18", nonce: "other"), "--request", requestFile.path, "--require-level", "L1"], environment: env)
        #expect(wrongNonce.status == 1)
        #expect(wrongNonce.stderr.contains("another nonce"), "\(wrongNonce.stderr)")
        let unanswered = try Harness.passport(["verify-vp", #"{"other":["x~"]}"#, "--request", requestFile.path], environment: env)
        #expect(unanswered.status == 1)
    }

    /// x509_san_dns: a request object signed with polaris's keygen leaf (SAN DNS:localhost, issued
    /// by its CA), given by value in the link: accepted up to the question (closed stdin, nothing
    /// sent), and refused for another DNS name or a response_uri on another host.
    @Test(.enabled(if: available, "polaris-oid4vp is not installed (run scripts/setup)"))
    func x509SanDNSRequestObjects() throws {
        _ = try keygen()
        let credential = try issue()
        let python = TestPaths.projectRoot.appendingPathComponent(".build-interop/venv/bin/python")
        let signer = TestPaths.projectRoot.appendingPathComponent("scripts/interop/sign_request.py").path
        func link(clientID: String, responseURI: String = "https://localhost:1/response") throws -> String {
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = [
                "client_id": clientID, "response_type": "vp_token", "response_mode": "direct_post", "response_uri": responseURI,
                "nonce": "n-\(UUID().uuidString)", "state": "s", "iat": now, "exp": now + 300, "aud": "https://self-issued.me/v2",
                "dcql_query": ["credentials": [["id": "pid", "format": "dc+sd-jwt", "claims": [["path": ["age_over_18"]]]]]],
            ]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self)
            let r = try Harness.run(python, [signer, pki.appendingPathComponent("client-key.pem").path, pki.appendingPathComponent("client.pem").path, json])
            try #require(r.status == 0, "signing failed: \(r.stderr)")
            let jws = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let encoded = clientID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? clientID
            return "openid4vp://?client_id=\(encoded)&request=\(jws)"
        }
        let good = try Harness.passport(["present", credential, "--request", try link(clientID: "x509_san_dns:localhost"), "--verifier-ca", anchor], environment: env)
        #expect(good.status == 1)
        #expect(good.stderr.contains("asks for: age_over_18"), "\(good.stderr)")
        #expect(good.stderr.contains("stdin is closed"), "\(good.stderr)")
        let otherName = try Harness.passport(["present", credential, "--request", try link(clientID: "x509_san_dns:verifier.example",
                                                                                            responseURI: "https://verifier.example/response"),
                                              "--verifier-ca", anchor, "--json"], environment: env)
        #expect(Self.code(otherName) == "invalid_request_signature", "\(otherName.stderr)")
        #expect(otherName.stderr.contains("do not include verifier.example"), "\(otherName.stderr)")
        let otherHost = try Harness.passport(["present", credential, "--request", try link(clientID: "x509_san_dns:localhost",
                                                                                           responseURI: "https://attacker.example/response"),
                                              "--verifier-ca", anchor, "--json"], environment: env)
        #expect(Self.code(otherHost) == "invalid_request_object", "\(otherHost.stderr)")
        let noAnchor = try Harness.passport(["present", credential, "--request", try link(clientID: "x509_san_dns:localhost"), "--json"], environment: env)
        #expect(Self.code(noAnchor) == "untrusted_verifier", "\(noAnchor.stderr)")
    }

    /// The `code` of a `--json` error report.
    static func code(_ result: Harness.Result) -> String? {
        (result.json?["error"] as? [String: Any])?["code"] as? String
    }

    static func decode(_ part: String) -> [String: Any]? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
