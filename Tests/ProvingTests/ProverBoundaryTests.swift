import Foundation
@testable import Proving
import Testing
import TestSupport

/// The mopro ABI boundary, against a TEST DOUBLE library written in C (Tests/ProverDouble):
/// marshaling, checksum and contract checks, error decoding, and a child process that
/// survives anything the library does.
@Suite(.serialized) struct ProverBoundary {
    static let expectation = MoproLibrary.Expectation(namespace: "mopro_double", contractVersion: 30, checksums: [
        "generate_noir_proof": [11111], "get_noir_verification_key": [22222, 4], "verify_noir_proof": [33333],
    ])

    static let library = MoproDouble.library

    /// The prover's child as `passport` itself runs it: the passport binary of this build.
    static let child: [String] = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passport").path
        let executable = FileManager.default.isExecutableFile(atPath: beside) ? beside : TestPaths.projectRoot.appendingPathComponent(".build/debug/passport").path
        return [executable, ProverChild.argument]
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

    /// A folder holding (empty) compiled circuits with the given names.
    static func circuitsFolder(_ names: [String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circuits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names { try Data("{}".utf8).write(to: folder.appendingPathComponent(name + ".json")) }
        return folder
    }

    @Test(arguments: [("ok", ""), ("abort", "crashed (signal 6)"), ("hang", "no answer within 2 s"),
                      ("garbage", "Vec<u8>"), ("unverified", "does not verify"), ("error", "NoirError"), ("checksum", "checksum"),
                      ("print", ""), ("flood", "no answer within 2 s"), ("exit", "no readable answer")])
    func childProcessSurvivesAnything(mode: String, expected: String) throws {
        let path = try #require(Self.library)
        let folder = try Self.circuitsFolder(["dsc", "age"])
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ProverRunner.Configuration(library: path, circuits: folder.path)
        configuration.expectation = Self.expectation
        // The time limit is what "hang" and "flood" test; the other modes get one no loaded machine
        // reaches, so that their answer never depends on the machine's speed (a 2 s limit failed
        // "garbage" once, with a release build running beside the suite).
        configuration.timeout = ["hang", "flood"].contains(mode) ? 2 : 120
        configuration.memoryLimitMB = 1024
        // A witness far larger than a pipe's buffer: the request must still arrive whole.
        let big = (0..<20_000).map { "0x\(String($0, radix: 16))" }
        let jobs = [ProverRunner.Job(name: "dsc", inputs: big), ProverRunner.Job(name: "age", inputs: ["1", "2"])]
        let result = withMode(mode) { ProverRunner(command: Self.child).prove(jobs, configuration: configuration) }
        switch result {
        case .success(let proofs):
            #expect(mode == "ok" || mode == "print")
            #expect(proofs.map(\.name) == ["dsc", "age"])
            #expect(String(decoding: proofs[0].proof, as: UTF8.self) == "proof:" + big.joined(separator: ","))
            #expect(String(decoding: proofs[1].proof, as: UTF8.self) == "proof:1,2")
            #expect(String(decoding: proofs[1].verificationKey, as: UTF8.self) == "vk:" + folder.appendingPathComponent("age.json").path)
        case .failure(let error):
            #expect(mode != "ok" && mode != "print", "\(error)")
            #expect(String(describing: error).contains(expected), "\(mode): \(error)")
        }
    }

    @Test func namesEveryMissingCircuit() throws {
        let path = try #require(Self.library)
        let folder = try Self.circuitsFolder(["age"])
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ProverRunner.Configuration(library: path, circuits: folder.path)
        configuration.expectation = Self.expectation
        let jobs = ["dsc", "id", "age"].map { ProverRunner.Job(name: $0, inputs: []) }
        guard case .failure(let error) = ProverRunner(command: Self.child).prove(jobs, configuration: configuration) else {
            Issue.record("expected a failure")
            return
        }
        #expect(String(describing: error).contains("missing from \(folder.path): dsc.json, id.json"))
    }

    @Test func childProcessPipesBothWaysAndCapsTheAnswer() throws {
        let megabyte = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        guard case .success(let echoed) = ChildProcess.run(["/bin/cat"], input: megabyte, timeout: 10, maximumOutput: 2 << 20) else {
            Issue.record("cat failed")
            return
        }
        #expect(echoed == megabyte)
        guard case .failure(let error) = ChildProcess.run(["/usr/bin/yes"], input: Data(), timeout: 10, maximumOutput: 1 << 20) else {
            Issue.record("an endless answer must be cut off")
            return
        }
        #expect(String(describing: error).contains("more than 1 MB"))
    }

    @Test func acceptsEveryListedChecksum() throws {
        let path = try #require(Self.library)
        // The double's get_noir_verification_key checksum is 4 in this mode: listed, so accepted.
        _ = try withMode("checksum-alternative") { try MoproLibrary(path: path, expect: Self.expectation) }
        var strict = Self.expectation
        strict.checksums["get_noir_verification_key"] = [22222]
        #expect(throws: ProverError.self) { try withMode("checksum-alternative") { try MoproLibrary(path: path, expect: strict) } }
    }
}

/// The compare_age inputs in zkpassport/circuits 0.17.0 declaration order (121 witnesses).
@Suite struct CompareAgeInputs {
    // A TD3 DG1 (93 bytes, padded to 95) whose MRZ expires 340930.
    static let mrz = "P<ZKRSMITH<<JOHN<MILLER<<<<<<<<<<<<<<<<<<<<<ZP1111111_ZKR951112_M340930_<<<<<<<<<<<<<<<<"
    static let dg1: [UInt8] = [0x61, 0x5B, 0x5F, 0x1F, 0x58] + Array(CompareAgeInputs.mrz.utf8)
    static let eContent: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x00]
    static let signature = SODSignature.rsa(signature: [UInt8](repeating: 0x17, count: 255), modulusBytes: 256)
    static let dg2Hash = [UInt8](repeating: 0xAB, count: 32)
    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func orderAndSizes() throws {
        let salt = FieldElement(0x5a)
        let salts = IntegrityToDisclosureSalts(all: salt)
        let witness = CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature,
                                        dg2Hash: Self.dg2Hash, currentDate: Self.date, salts: salts)
        let inputs = try witness.inputs()
        let values = try witness.values()
        let zero = FieldElement.zero.hex
        #expect(inputs.count == 121)
        #expect(inputs[0] == values.commitmentIn.hex && !values.commitmentIn.isZero)          // comm_in
        #expect(inputs[1] == "1795000000")                                                     // current_date
        #expect(Array(inputs[2...4]) == [salt.hex, values.privateNullifier.hex, zero])         // salted private nullifier
        #expect(!values.privateNullifier.isZero)
        #expect(Array(inputs[5...12]) == [salt.hex, "51", "52", "48", "57", "51", "48", zero]) // salted expiry "340930"
        #expect(inputs[13] == salt.hex && inputs[14] == "97" && inputs[15] == "91")           // DG1 starts 61 5B
        #expect(inputs[14 + 92] == "60" && inputs[14 + 93] == "0" && inputs[14 + 94] == "0") // 93 bytes, padded to 95
        #expect(inputs[109] == zero)
        #expect(Array(inputs[110...112]) == [salt.hex, values.dg2HashNormalized.hex, zero])    // salted DG2 hash
        #expect(Array(inputs[113...115]) == [salt.hex, "3", zero])                             // salted DG2 hash type: SHA-256
        #expect(Array(inputs[116...120]) == ["18", "0", zero, zero, zero])                     // min, max, secret, scope, subscope
        // The RSA signature enters the private nullifier left-padded to the modulus.
        let padded = try ZKPassportCommitments.privateNullifier(dg1: Self.dg1, eContent: Self.eContent,
                                                                signature: [0] + [UInt8](repeating: 0x17, count: 255))
        #expect(values.privateNullifier == padded)
    }

    @Test func freshSaltsEachTime() throws {
        let first = try CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature,
                                          dg2Hash: Self.dg2Hash, currentDate: Self.date).inputs()
        let second = try CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature,
                                           dg2Hash: Self.dg2Hash, currentDate: Self.date).inputs()
        #expect(first[0] != second[0] && first[2] != second[2])
        #expect(first[3] == second[3])                                                         // same private nullifier
    }

    @Test func refusesWhatTheCircuitCannotTake() {
        #expect(throws: ZKPassportInputError.self) {
            try CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature, dg2Hash: Self.dg2Hash,
                                  currentDate: Self.date, salts: IntegrityToDisclosureSalts(all: .zero)).inputs()
        }
        #expect(throws: ZKPassportInputError.self) {
            try CompareAgeWitness(dg1: Self.dg1 + [UInt8](repeating: 0x3C, count: 3), eContent: Self.eContent,
                                  signature: Self.signature, dg2Hash: Self.dg2Hash, currentDate: Self.date).inputs()
        }
        #expect(throws: ZKPassportInputError.self) {
            try CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature,
                                  dg2Hash: [UInt8](repeating: 1, count: 33), currentDate: Self.date).inputs()
        }
        #expect(throws: ZKPassportInputError.self) {
            try CompareAgeWitness(dg1: Self.dg1, eContent: Self.eContent, signature: Self.signature, dg2Hash: Self.dg2Hash,
                                  dg2HashAlgorithm: .sha512, currentDate: Self.date).inputs()
        }
    }
}
