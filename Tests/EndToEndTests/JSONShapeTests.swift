import Foundation
import Testing
import TestSupport

/// Every command's `--json` output against its JSON Schema (docs/schemas), checked by an
/// independent validator (python3-jsonschema); scans are checked in the suites that scan.
@Suite(.serialized) final class JSONShapes {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path] }
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: home) }

    func run(_ arguments: [String], status: Int32, shape: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Harness.Result {
        let r = try Harness.passport(arguments + ["--json"], environment: env)
        #expect(r.status == status, "\(arguments.first ?? ""): \(r.stderr)", sourceLocation: sourceLocation)
        try Harness.expectShape(r, shape, sourceLocation: sourceLocation)
        return r
    }

    @Test func verifyPassedFailedAndError() throws {
        let trust = ["--no-default-trust", "--csca", Self.csca]
        let passed = try run(["verify", Self.fixture("passport")] + trust, status: 0, shape: "verify")
        #expect(passed.json?["ok"] as? Bool == true)
        let failed = try run(["verify", Self.fixture("pa/tampered-dg")] + trust, status: 1, shape: "verify")
        #expect(failed.json?["ok"] as? Bool == false)
        let unknown = try run(["verify", Self.fixture("pa/unknown-csca")] + trust, status: 1, shape: "verify")
        let pa = try #require(unknown.json?["passive_authentication"] as? [String: Any])
        #expect(pa["csca"] is NSNull, "an absent CSCA is null, not left out")
        let missing = try run(["verify", home.appendingPathComponent("absent").path], status: 2, shape: "error")
        #expect((missing.json?["error"] as? [String: Any])?["code"] as? String == "dump_error")
    }

    @Test(arguments: ["passport", "passport-pace"])
    func showAndPhoto(dump: String) throws {
        let shown = try run(["show", Self.fixture(dump)], status: 0, shape: "show")
        #expect(shown.json?["document"] != nil && shown.json?["dg14"] != nil)
        _ = try run(["photo", Self.fixture(dump), "--out", home.appendingPathComponent("\(dump).png").path], status: 0, shape: "photo")
    }

    @Test func ocrOfAGeneratedCard() throws {
        let r = try run(["ocr", Self.fixture("ocr/card-td1.jpg"), "--time-budget", "20"], status: 0, shape: "ocr")
        #expect((r.json?["fields"] as? [String: Any])?["format"] as? String == "TD1")
        #expect((r.json?["search"] as? [String: Any])?["stopped_by"] as? String == "accepted")
        // No search ran on a file that is no image: the error says so with search null.
        let refused = try run(["ocr", Self.csca], status: 1, shape: "error")
        #expect((refused.json?["error"] as? [String: Any])?["code"] as? String == "image_error")
        #expect(refused.json?["search"] is NSNull, "\(refused.stdout)")
    }

    @Test func issuePresentVerifyAndRefusal() throws {
        let out = home.appendingPathComponent("credential").path
        _ = try run(["issue", Self.fixture("passport"), "--no-default-trust", "--csca", Self.csca, "--out", out, "--yes"], status: 0, shape: "issue")
        let presented = try run(["present", out, "--aud", "https://shop.example", "--nonce", "n-1", "--yes"], status: 0, shape: "present")
        let token = try #require(presented.json?["token"] as? String)
        let verified = try run(["verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-1", "--require-level", "L1"], status: 0, shape: "verify-vp")
        #expect((verified.json?["claims"] as? [String: Any])?["age_over_18"] as? Bool == true)
        let refused = try run(["verify-vp", token, "--aud", "https://other.example", "--nonce", "n-1"], status: 1, shape: "error")
        #expect((refused.json?["error"] as? [String: Any])?["code"] as? String == "invalid_presentation")
        let unverified = try run(["issue", Self.fixture("pa/tampered-dg"), "--no-default-trust", "--csca", Self.csca], status: 1, shape: "error")
        #expect((unverified.json?["error"] as? [String: Any])?["code"] as? String == "not_verified")
    }

    /// The check can fail: a key the schema does not name, a missing key and a wrong type are
    /// each refused.
    @Test func schemasRejectOtherShapes() throws {
        let r = try Harness.passport(["verify", Self.fixture("passport"), "--no-default-trust", "--csca", Self.csca, "--json"])
        let json = try #require(r.json)
        func text(_ object: [String: Any]) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) }
        var extra = json
        extra["surprise"] = 1
        var missing = json
        missing["ok"] = nil
        var wrongType = json
        wrongType["trust"] = "not a list"
        for (label, object) in [("extra key", extra), ("missing key", missing), ("wrong type", wrongType)] {
            #expect(try Harness.schemaErrors(try text(object), schema: "verify") != nil, "\(label) was accepted")
        }
        #expect(try Harness.schemaErrors(r.stdout, schema: "verify") == nil)
    }
}
