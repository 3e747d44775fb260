import FoundationEssentials
import LocalFiles
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// The prover's child process: `passport` started again with `argument` as its only argument
/// (ProverRunner does so), so that whatever mopro's library does (abort, hang, exhaust memory,
/// print, return garbage) cannot harm the process that asked for the proof.
/// Protocol (ProverRunner): one JSON request on stdin, one JSON answer on stdout.
public enum ProverChild {
    /// argv[1] that makes `passport` the prover's child; never a command a person types.
    public static let argument = "__prover-child"

    /// Whether this process was started as the prover's child.
    public static func isRequested(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.count == 2 && arguments[1] == argument
    }

    /// Reads the request, proves, answers and exits; called before anything else of the command
    /// line runs (the memory limit applies before the library is loaded).
    public static func run() -> Never {
        // The answer goes to a private copy of stdout; fd 1 itself then points at stderr, so that
        // anything the library prints cannot corrupt the answer.
        let answerFD = dup(1)
        dup2(2, 1)
        let input = (try? StandardStreams.readInput()) ?? []
        guard let request = try? JSON.parse(input) as? [String: Any] else {
            reply(["ok": false, "reason": "the request on stdin is not a JSON object"], to: answerFD)
        }
        limitMemory(request)
        do {
            reply(try prove(request), to: answerFD)
        } catch {
            reply(["ok": false, "reason": String(describing: error)], to: answerFD)
        }
    }

    private static func limitMemory(_ request: [String: Any]) {
        guard let megabytes = JSON.int(request["memory_limit_mb"]), megabytes > 0 else { return }
        var limit = rlimit(rlim_cur: rlim_t(megabytes) << 20, rlim_max: rlim_t(megabytes) << 20)
        setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
    }

    private struct Incomplete: Error, CustomStringConvertible { let description: String }

    /// Every job's proof, made and verified by the library.
    private static func prove(_ request: [String: Any]) throws -> [String: Any] {
        guard let path = request["library"] as? String, let jobs = request["jobs"] as? [[String: Any]] else {
            throw Incomplete(description: "incomplete request (library, jobs)")
        }
        let library = try MoproLibrary(path: path, expect: expectation(request))
        let srs = request["srs"] as? String
        let onChain = JSON.bool(request["on_chain"]) ?? false
        let lowMemory = JSON.bool(request["low_memory"]) ?? false
        var proofs: [[String: Any]] = []
        for job in jobs {
            guard let name = job["name"] as? String, let circuit = job["circuit"] as? String, let inputs = job["inputs"] as? [String] else {
                throw Incomplete(description: "a job lacks its name, circuit or inputs")
            }
            let vk = try library.verificationKey(circuit: circuit, srs: srs, onChain: onChain, lowMemory: lowMemory)
            let proof = try library.generateProof(circuit: circuit, srs: srs, inputs: inputs, onChain: onChain, verificationKey: vk,
                                                  lowMemory: lowMemory)
            let verified = try library.verifyProof(circuit: circuit, proof: proof, onChain: onChain, verificationKey: vk, lowMemory: lowMemory)
            proofs.append(["name": name, "proof": Data(proof).base64EncodedString(), "verification_key": Data(vk).base64EncodedString(),
                           "verified": verified])
        }
        return ["ok": true, "proofs": proofs]
    }

    private static func expectation(_ request: [String: Any]) -> MoproLibrary.Expectation {
        var expect = MoproLibrary.Expectation.noirSwift
        if let namespace = request["namespace"] as? String { expect.namespace = namespace }
        if let version = JSON.int(request["contract_version"]) { expect.contractVersion = UInt32(truncatingIfNeeded: version) }
        if let checksums = request["checksums"] as? [String: [Int]] {
            expect.checksums = checksums.mapValues { Set($0.map { UInt16(truncatingIfNeeded: $0) }) }
        }
        return expect
    }

    private static func reply(_ object: [String: Any], to fd: Int32) -> Never {
        let bytes = ((try? JSON.serialize(object)) ?? Array("{\"ok\":false}".utf8)) + [0x0A]
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if count <= 0 && errno != EINTR { break }
            if count > 0 { written += count }
        }
        exit(0)
    }
}
