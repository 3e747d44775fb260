import Foundation
import Testing
import TestSupport

/// `passport issue --prover`: a proof from the prover library makes "ZKP Verified"; anything
/// the library does wrong gives the SD-JWT credential with "NFC Verified" and a reason. The
/// library here is the C TEST DOUBLE of mopro's ABI (the real one cannot be built here).
@Suite(.serialized) final class ProverFallback {
    let home = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: home) }

    func issue(mode: String, prover: String = "auto") throws -> [String: Any] {
        let library = try #require(MoproDouble.library, "gcc could not build the test double")
        let config = home.appendingPathComponent("passport/prover.json")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        let settings: [String: Any] = ["library": library, "circuit": "compare_age.json", "namespace": "mopro_double",
                                       "contract_version": 30, "checksums": MoproDouble.checksums, "timeout_seconds": 3]
        try JSONSerialization.data(withJSONObject: settings).write(to: config)
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        let r = try Harness.passport(["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust",
                                      "--csca", csca, "--prover", prover, "--json"],
                                     environment: ["XDG_CONFIG_HOME": home.path, "MOPRO_DOUBLE_MODE": mode], timeout: 60)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        return try #require(r.json)
    }

    @Test func aProofMakesZKPVerified() throws {
        let json = try issue(mode: "ok")
        #expect(json["verification_method"] as? String == "ZKP Verified")
        let evidence = try #require((json["claims"] as? [String: Any])?["evidence"] as? [String: Any])
        let proof = try #require(evidence["zero_knowledge_proof"] as? [String: Any])
        #expect((proof["verification_key_sha256"] as? String)?.count == 64)
        #expect(proof["circuit"] as? String == "zkpassport/circuits 0.17.0 compare/age/standard")
    }

    @Test(arguments: [("abort", "crashed"), ("hang", "no answer within 3 s"), ("garbage", "garbage"),
                      ("unverified", "does not verify"), ("checksum", "checksum"), ("panic", "panicked")])
    func anyFailureFallsBackToNFCVerified(mode: String, reason: String) throws {
        let json = try issue(mode: mode)
        #expect(json["verification_method"] as? String == "NFC Verified")
        let why = (json["prover"] as? [String: Any])?["reason"] as? String ?? ""
        #expect(why.contains(reason), "\(mode): \(why)")
    }

    @Test func proverNoneSkipsTheLibrary() throws {
        let json = try issue(mode: "ok", prover: "none")
        #expect(json["verification_method"] as? String == "NFC Verified")
    }
}
