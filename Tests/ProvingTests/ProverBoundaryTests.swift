import Foundation
import Proving
import Testing
import TestSupport

/// The mopro ABI boundary, against a TEST DOUBLE library written in C (Tests/ProverDouble):
/// marshaling, checksum and contract checks, error decoding, and a child process that
/// survives anything the library does.
@Suite(.serialized) struct ProverBoundary {
    static let expectation = MoproLibrary.Expectation(namespace: "mopro_double", contractVersion: 30, checksums: [
        "generate_noir_proof": 11111, "get_noir_verification_key": 22222, "verify_noir_proof": 33333,
    ])

    static let library = MoproDouble.library

    static let helper: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passport-prover").path
        return FileManager.default.fileExists(atPath: beside) ? beside : TestPaths.projectRoot.appendingPathComponent(".build/debug/passport-prover").path
    }()

    func withMode<T>(_ mode: String, _ body: () throws -> T) rethrows -> T {
        setenv("MOPRO_DOUBLE_MODE", mode, 1)
        defer { unsetenv("MOPRO_DOUBLE_MODE") }
        return try body()
    }

    @Test func marshalsStringsVectorsAndOptions() throws {
        let path = try #require(Self.library, "gcc could not build the test double")
        let library = try MoproLibrary(path: path, expect: Self.expectation)
        let vk = try library.verificationKey(circuit: "circuits/age.json", srs: nil, onChain: false, lowMemory: false)
        #expect(String(decoding: vk, as: UTF8.self) == "vk:circuits/age.json")
        let inputs = ["0x01", "1732000000", "18", "ünïcode"]
        let proof = try library.generateProof(circuit: "c", srs: "srs.dat", inputs: inputs, onChain: false, verificationKey: vk, lowMemory: true)
        #expect(String(decoding: proof, as: UTF8.self) == "proof:0x01,1732000000,18,ünïcode")
        #expect(try library.verifyProof(circuit: "c", proof: proof, onChain: false, verificationKey: vk, lowMemory: false))
        #expect(UniFFICodec.vecString(["ab", ""]) == [0, 0, 0, 2, 0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 0])
        #expect(UniFFICodec.optionString(nil) == [0])
        #expect(UniFFICodec.optionString("x") == [1, 0, 0, 0, 1, 0x78])
    }

    @Test func refusesAnotherBuildsChecksumsAndContract() throws {
        let path = try #require(Self.library)
        #expect(throws: ProverError.self) { try withMode("checksum") { try MoproLibrary(path: path, expect: Self.expectation) } }
        #expect(throws: ProverError.self) { try withMode("contract") { try MoproLibrary(path: path, expect: Self.expectation) } }
        #expect(throws: ProverError.self) { try MoproLibrary(path: path, expect: .noirSwift) }
        #expect(throws: ProverError.self) { try MoproLibrary(path: "/nonexistent/libmopro.so", expect: Self.expectation) }
    }

    @Test func decodesErrorsAndPanics() throws {
        let path = try #require(Self.library)
        let library = try MoproLibrary(path: path, expect: Self.expectation)
        do {
            _ = try withMode("error") { try library.generateProof(circuit: "c", srs: nil, inputs: [], onChain: false, verificationKey: [0, 0, 0, 0], lowMemory: false) }
            Issue.record("expected an error")
        } catch {
            #expect(String(describing: error).contains("NoirError: Generate Proof error: the test double was told to fail"))
        }
        do {
            _ = try withMode("panic") { try library.generateProof(circuit: "c", srs: nil, inputs: [], onChain: false, verificationKey: [0, 0, 0, 0], lowMemory: false) }
            Issue.record("expected a panic report")
        } catch {
            #expect(String(describing: error).contains("panicked: double panicked"))
        }
        #expect(throws: ProverError.self) {
            try withMode("garbage") { try library.verificationKey(circuit: "c", srs: nil, onChain: false, lowMemory: false) }
        }
    }

    @Test(arguments: [("ok", ""), ("abort", "crashed (signal 6)"), ("hang", "no answer within 2 s"),
                      ("garbage", "Vec<u8>"), ("unverified", "does not verify"), ("error", "NoirError"), ("checksum", "checksum")])
    func childProcessSurvivesAnything(mode: String, expected: String) throws {
        let path = try #require(Self.library)
        var configuration = ProverRunner.Configuration(library: path, circuit: "age.json")
        configuration.expectation = Self.expectation
        configuration.timeout = 2
        configuration.memoryLimitMB = 1024
        let result = withMode(mode) { ProverRunner(helper: Self.helper).prove(inputs: ["1", "2"], configuration: configuration) }
        switch result {
        case .success(let proof):
            #expect(mode == "ok")
            #expect(String(decoding: proof.proof, as: UTF8.self) == "proof:1,2")
        case .failure(let error):
            #expect(mode != "ok", "\(error)")
            #expect(String(describing: error).contains(expected), "\(mode): \(error)")
        }
    }
}

/// The compare_age inputs in zkpassport/circuits 0.17.0 declaration order (121 witnesses).
@Suite struct CompareAgeInputs {
    @Test func orderAndSizes() throws {
        let dg1 = [0x61, 0x5B, 0x5F, 0x1F, 0x58] + [UInt8](repeating: 0x3C, count: 88)
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let inputs = CircuitInputs.compareAge(dg1: dg1, expiryYYMMDD: "340930", currentDate: date, salt: { "0x5a" })
        #expect(inputs.count == 121)
        #expect(inputs[1] == "1795000000")                       // current_date
        #expect(Array(inputs[2...4]) == ["0x5a", "0", "0"])      // salted private nullifier
        #expect(Array(inputs[5...12]) == ["0x5a", "51", "52", "48", "57", "51", "48", "0"]) // salted expiry "340930"
        #expect(inputs[13] == "0x5a" && inputs[14] == "97" && inputs[15] == "91")           // DG1 starts 61 5B
        #expect(inputs[14 + 92] == "60" && inputs[14 + 93] == "0" && inputs[14 + 94] == "0") // 93 bytes, padded to 95
        #expect(Array(inputs[116...120]) == ["18", "0", "0", "0", "0"])
    }
}
