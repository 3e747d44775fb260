import Foundation
import Testing
import TestSupport

/// `passport verify` as a user runs it: exit codes, the human report and --json.
@Suite struct VerifyCommand {
    static let pki = TestPaths.fixtures.appendingPathComponent("pki").path
    static let anchors = ["--no-default-trust", "--csca", "\(pki)/TEST-ONLY-csca-UTO.pem",
                          "--csca", "\(pki)/TEST-ONLY-csca-UTO-bp384.pem", "--crl", "\(pki)/TEST-ONLY-csca-UTO.crl"]

    func dump(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent("pa/\(name)").path }

    @Test func validDumpExitsZero() throws {
        let r = try Harness.passport(["verify", dump("rsa-pss-sha512")] + Self.anchors)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.hasPrefix("Passive authentication: PASSED"))
        #expect(r.stdout.contains("DG15 ok"))
    }

    @Test(arguments: [
        ("tampered-dg", "DG11"), ("tampered-sod", "signature is invalid"), ("expired-dsc", "not valid at"),
        ("revoked-dsc", "revoked"), ("unknown-csca", "No trusted CSCA for UTO"),
    ])
    func invalidDumpsExitOneNamingTheFailure(name: String, expected: String) throws {
        let r = try Harness.passport(["verify", "--json", dump(name)] + Self.anchors)
        #expect(r.status == 1)
        let json = try #require(r.json, "stdout is not one JSON object: \(r.stdout)")
        #expect(json["ok"] as? Bool == false)
        let pa = try #require(json["passive_authentication"] as? [String: Any])
        let failures = try #require(pa["failures"] as? [String])
        #expect(failures.contains { $0.contains(expected) }, "\(failures)")
    }

    @Test func atDateChangesTheJudgement() throws {
        let r = try Harness.passport(["verify", dump("expired-dsc"), "--at", "2023-06-01"] + Self.anchors)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("given (--at)"))
    }

    @Test func sodFileAloneSaysHashesWereNotChecked() throws {
        let r = try Harness.passport(["verify", dump("ecdsa-p256-sha256") + "/SOD.bin"] + Self.anchors)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("not checked (no data groups in the dump)"))
    }

    @Test func usageAndEnvironmentErrorsExitTwo() throws {
        #expect(try Harness.passport(["verify", "/nonexistent/dump"] + Self.anchors).status == 2)
        #expect(try Harness.passport(["verify", dump("tampered-dg"), "--at", "June 1st"]).status == 2)
        let missingAnchor = try Harness.passport(["verify", dump("tampered-dg"), "--csca", "/nonexistent.pem"])
        #expect(missingAnchor.status == 2)
        #expect(missingAnchor.stderr.contains("/nonexistent.pem does not exist"))
    }
}
