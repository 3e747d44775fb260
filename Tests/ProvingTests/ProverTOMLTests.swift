import Foundation
import Testing
@testable import Proving

/// `passport prove --export`'s Prover.toml files: the parameter names and sizes of the
/// zkpassport/circuits `main` functions (commit fef4b948, the 0.17.0 the witnesses follow), the
/// published fixture values under the right names, and a TOML round trip by Python's tomllib.
@Suite struct ProverTOMLTests {
    /// Parameter names as the circuits' main.nr declare them, and the array sizes.
    static let rsaDSC = ["certificate_registry_root", "certificate_registry_index", "certificate_registry_hash_path", "certificate_tags",
                         "salt", "country", "tbs_certificate", "csc_pubkey", "csc_pubkey_redc_param", "dsc_signature", "exponent"]
    static let ecdsaDSC = ["certificate_registry_root", "certificate_registry_index", "certificate_registry_hash_path", "certificate_tags",
                           "salt", "country", "csc_pubkey_x", "csc_pubkey_y", "dsc_signature", "tbs_certificate"]
    static let rsaIDData = ["comm_in", "salt_in", "salt_out", "dg1", "dsc_pubkey", "dsc_pubkey_redc_param", "sod_signature",
                            "tbs_certificate", "signed_attributes", "exponent", "e_content"]
    static let ecdsaIDData = ["comm_in", "salt_in", "salt_out", "dg1", "dsc_pubkey_x", "dsc_pubkey_y", "sod_signature",
                              "tbs_certificate", "signed_attributes", "e_content"]
    static let integrity = ["comm_in", "salt_in", "salted_dg1", "expiry_date_salt", "dg2_hash_salt", "signed_attributes", "e_content",
                            "salted_private_nullifier"]
    static let compareAge = ["comm_in", "current_date", "salted_private_nullifier", "salted_expiry_date", "salted_dg1", "salted_dg2_hash",
                             "salted_dg2_hash_type", "min_age_required", "max_age_required", "nullifier_secret", "service_scope", "service_subscope"]

    @Test(arguments: ["john_rsa_2048_sha256", "mary_ecdsa_p256_sha256"])
    func filesFollowTheCircuitsAndHoldThePublishedValues(_ name: String) throws {
        let (chain, fixture) = try ZKPassportChainTests.fixtureChain(name)
        let rsa = fixture.rsa
        #expect(chain.circuits.map { $0.parameters.map(\.name) } == [rsa ? Self.rsaDSC : Self.ecdsaDSC, rsa ? Self.rsaIDData : Self.ecdsaIDData,
                                                                     Self.integrity, Self.compareAge])
        let tomls = try chain.circuits.map { try ProverTOML.render($0.inputs, parameters: $0.parameters, circuit: $0.name) }
        let parsed = try tomls.map(Self.parse)
        let keyBytes = rsa ? 256 : 32
        // Sizes as declared: [Field; 16], [Field; 3], [u8; 700], the key, DG1 95, eContent 700, signed attributes 256.
        #expect((parsed[0]["certificate_registry_hash_path"] as? [Any])?.count == 16)
        #expect((parsed[0]["certificate_tags"] as? [Any])?.count == 3)
        #expect((parsed[0]["tbs_certificate"] as? [Any])?.count == 700)
        #expect((parsed[0][rsa ? "csc_pubkey" : "csc_pubkey_x"] as? [Any])?.count == keyBytes)
        if rsa { #expect((parsed[0]["csc_pubkey_redc_param"] as? [Any])?.count == 257) }
        #expect((parsed[1]["dg1"] as? [Any])?.count == 95)
        #expect((parsed[1]["e_content"] as? [Any])?.count == 700)
        #expect((parsed[1]["signed_attributes"] as? [Any])?.count == 256)
        #expect(((parsed[2]["salted_dg1"] as? [String: Any])?["value"] as? [Any])?.count == 95)
        #expect(((parsed[3]["salted_expiry_date"] as? [String: Any])?["value"] as? [Any])?.count == 6)
        // Published values under their names.
        #expect(parsed[0]["certificate_registry_root"] as? String == ZKPassportChainTests.RegistryFixture.shared.registry.root)
        #expect(parsed[0]["country"] as? String == "ZKR")
        #expect(parsed[0]["certificate_registry_hash_path"] as? [String] == fixture.expected["certificate_registry_hash_path"]!.list)
        #expect(parsed[1]["comm_in"] as? String == fixture.expected["id_data_comm_in"]!.text)
        #expect(parsed[2]["comm_in"] as? String == fixture.passport.expected["integrity_comm_in"])
        #expect((parsed[2]["salted_private_nullifier"] as? [String: Any])?["value"] as? String == fixture.passport.expected["private_nullifier"])
        #expect(parsed[3]["comm_in"] as? String == fixture.passport.expected["disclosure_comm_in"])
        #expect(parsed[3]["min_age_required"] as? String == "18")
        // Round trip: the parsed values, flattened in order, are the witness.
        for (index, circuit) in chain.circuits.enumerated() {
            let flat = circuit.parameters.flatMap { Self.flatten(parsed[index][$0.name] as Any, $0.shape) }
            #expect(flat == circuit.inputs, "\(circuit.name) does not round-trip")
        }
    }

    @Test func aWitnessThatDoesNotFitIsRefused() throws {
        #expect(throws: ProverTOML.Problem.self) {
            try ProverTOML.render(["1", "2"], parameters: [NoirParameter("comm_in", .field)], circuit: "compare_age")
        }
        #expect(throws: ProverTOML.Problem.self) {
            try ProverTOML.render(["34", "90", "75"], parameters: [NoirParameter("country", .string(3))], circuit: "x")   // a quote
        }
        let text = try ProverTOML.render(["0x01", "85", "84", "79", "0x02", "7", "0x00"],
                                         parameters: [NoirParameter("salt", .field), NoirParameter("country", .string(3)),
                                                      NoirParameter("salted", .salted(.integer))], circuit: "x")
        #expect(text == "salt = \"0x01\"\ncountry = \"UTO\"\nsalted = { salt = \"0x02\", value = \"7\", hash = \"0x00\" }\n")
    }

    /// The values of one TOML document, read by Python's tomllib (an independent TOML parser).
    static func parse(_ toml: String) throws -> [String: Any] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("prover-\(UUID().uuidString).toml")
        try Data(toml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("prover-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import json, sys, tomllib; json.dump(tomllib.load(open(sys.argv[1], 'rb')), open(sys.argv[2], 'w'))",
                             file.path, output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "tomllib refused the file")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
    }

    static func flatten(_ value: Any, _ shape: NoirShape) -> [String] {
        switch shape {
        case .field, .integer: return [value as? String ?? "?"]
        case .bytes, .fields: return (value as? [String]) ?? ["?"]
        case .string: return (value as? String).map { $0.utf8.map { String($0) } } ?? ["?"]
        case .salted(let inner):
            let table = value as? [String: Any] ?? [:]
            return [table["salt"] as? String ?? "?"] + flatten(table["value"] as Any, inner) + [table["hash"] as? String ?? "?"]
        }
    }
}
