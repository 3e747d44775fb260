import Foundation
import Testing
import TestSupport

/// `passport prove --export`: Prover.toml files only for a dump that passes passive
/// authentication, private files, the documented JSON shape.
@Suite struct ProveExport {
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path

    @Test func exportsFourCircuitsForAVerifiedDumpAndNothingOtherwise() throws {
        let home = Harness.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let out = home.appendingPathComponent("zk")
        let r = try Harness.passport(["prove", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust",
                                      "--csca", Self.csca, "--export", out.path, "--current-date", "2026-11-24T12:00:00Z", "--json"])
        try #require(r.status == 0, "prove failed: \(r.stderr)")
        try Harness.expectShape(r, "prove")
        let circuits = try #require(r.json?["circuits"] as? [[String: Any]])
        #expect(circuits.compactMap { $0["name"] as? String }.last == "compare_age")
        for circuit in circuits {
            let file = try #require(circuit["prover_toml"] as? String)
            #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        }
        #expect((try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int) == 0o700)
        let age = try String(contentsOf: out.appendingPathComponent("compare_age/Prover.toml"), encoding: .utf8)
        #expect(age.contains("current_date = \"1795521600\"") && age.contains("min_age_required = \"18\""))
        let readme = try String(contentsOf: out.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("nargo execute --package compare_age") && readme.contains("has NOT been run"))

        let refused = home.appendingPathComponent("refused")
        let tampered = try Harness.passport(["prove", TestPaths.fixtures.appendingPathComponent("pa/tampered-dg").path, "--no-default-trust",
                                             "--csca", Self.csca, "--export", refused.path, "--json"])
        #expect(tampered.status == 1)
        #expect((tampered.json?["error"] as? [String: Any])?["code"] as? String == "not_verified", "\(tampered.stdout)")
        #expect(!FileManager.default.fileExists(atPath: refused.path), "nothing is written for a dump that fails")
    }
}
