import PassiveAuth
import Foundation
import LDS
import PassportKit
import Testing
import TestSupport

/// `passport issue --prover`: a proof from the prover library makes "ZKP Verified"; anything
/// the library does wrong gives the SD-JWT credential with "NFC Verified" and a reason. The
/// library here is the C TEST DOUBLE of mopro's ABI (the real one cannot be built here).
@Suite(.serialized) final class ProverFallback {
    let home = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: home) }

    static let dump = TestPaths.fixtures.appendingPathComponent("passport")
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem")

    /// The zkPassport circuits the fixture passport needs, as the toolkit names them.
    static func circuitNames() throws -> [String] {
        let trust = TrustStore()
        try trust.addCSCA(at: csca)
        return try CredentialIssuer.zkCircuits(dump: try DumpFolder(reading: dump), trust: trust)
    }

    /// `passport issue` with the TEST DOUBLE as the prover library and a circuits folder holding
    /// `circuits` (empty files: the double does not read them).
    func issue(mode: String, prover: String = "auto", circuits: [String]? = nil) throws -> [String: Any] {
        let library = try #require(MoproDouble.library, "gcc could not build the test double")
        let folder = home.appendingPathComponent("circuits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in try circuits ?? Self.circuitNames() { try Data("{}".utf8).write(to: folder.appendingPathComponent(name + ".json")) }
        let config = home.appendingPathComponent("passport/prover.json")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        let settings: [String: Any] = ["library": library, "circuits": folder.path, "namespace": "mopro_double",
                                       "contract_version": 30, "checksums": MoproDouble.checksums, "timeout_seconds": 3]
        try JSONSerialization.data(withJSONObject: settings).write(to: config)
        let r = try Harness.passport(["issue", Self.dump.path, "--no-default-trust", "--csca", Self.csca.path, "--prover", prover, "--yes", "--json"],
                                     environment: ["XDG_CONFIG_HOME": home.path, "MOPRO_DOUBLE_MODE": mode], timeout: 60)
        try #require(r.status == 0, "issue failed: \(r.stderr)")
        return try #require(r.json)
    }

    @Test func theFixturePassportNeedsFourCircuits() throws {
        // UTO test PKI: CSCA RSA-3072, DSC RSA-2048, SOD and DSC signed with sha256WithRSAEncryption.
        let names = try Self.circuitNames()
        #expect(names.count == 4)
        #expect(names[0].hasPrefix("sig_check_dsc_tbs_") && names[0].hasSuffix("_rsa_pkcs_3072_sha256"), "\(names[0])")
        #expect(names[1].hasPrefix("sig_check_id_data_tbs_") && names[1].hasSuffix("_rsa_pkcs_2048_sha256"), "\(names[1])")
        #expect(Array(names[2...]) == ["data_check_integrity_sa_sha256_dg_sha256", "compare_age"])
    }

    @Test func aProofMakesZKPVerified() throws {
        let json = try issue(mode: "ok")
        #expect(json["verification_method"] as? String == "ZKP Verified")
        let evidence = try #require((json["claims"] as? [String: Any])?["evidence"] as? [String: Any])
        let proof = try #require(evidence["zero_knowledge_proof"] as? [String: Any])
        #expect(proof["circuits"] as? String == "zkpassport/circuits 0.17.0")
        let proofs = try #require(proof["proofs"] as? [[String: Any]])
        #expect(proofs.compactMap { $0["circuit"] as? String } == (try Self.circuitNames()))
        #expect(proofs.allSatisfy { ($0["verification_key_sha256"] as? String)?.count == 64 && $0["proof"] is String })
        // Each circuit's comm_out is the next one's comm_in.
        let publicInputs = proofs.map { $0["public_inputs"] as? [String] ?? [] }
        #expect(publicInputs.map(\.count) == [2, 2, 2, 7])
        #expect(publicInputs[0][1] == publicInputs[1][0] && publicInputs[1][1] == publicInputs[2][0] && publicInputs[2][1] == publicInputs[3][0])
        // compare_age's nullifier is 0: nothing in the proof identifies the passport across credentials.
        #expect(publicInputs[3][6] == "0x" + String(repeating: "0", count: 64))
    }

    @Test func missingCircuitsAreNamed() throws {
        let names = try Self.circuitNames()
        let json = try issue(mode: "ok", circuits: [names[3]])
        #expect(json["verification_method"] as? String == "NFC Verified")
        let why = (json["prover"] as? [String: Any])?["reason"] as? String ?? ""
        #expect(why.contains(names[0] + ".json, " + names[1] + ".json, " + names[2] + ".json"), "\(why)")
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
