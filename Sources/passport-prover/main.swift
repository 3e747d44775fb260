// passport-prover: runs mopro's Noir prover in its own process, so that whatever the library
// does (abort, hang, exhaust memory, print, return garbage) cannot harm the main process.
// Protocol (ProverRunner): one JSON request on stdin, one JSON answer on stdout.
import Foundation
import Proving
#if canImport(Glibc)
import Glibc
#endif

// The answer goes to a private copy of stdout; fd 1 itself then points at stderr, so that
// anything the library prints cannot corrupt the answer.
let answerFD = dup(1)
dup2(2, 1)

func reply(_ object: [String: Any]) -> Never {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{\"ok\":false}".utf8)
    let bytes = [UInt8](data + Data("\n".utf8))
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(answerFD, $0.baseAddress! + written, bytes.count - written) }
        if count <= 0 && errno != EINTR { break }
        if count > 0 { written += count }
    }
    exit(0)
}

let input = FileHandle.standardInput.readDataToEndOfFile()
guard let request = try? JSONSerialization.jsonObject(with: input) as? [String: Any] else {
    reply(["ok": false, "reason": "the request on stdin is not a JSON object"])
}

// The memory limit applies before the library is even loaded.
if let megabytes = request["memory_limit_mb"] as? Int, megabytes > 0 {
    var limit = rlimit(rlim_cur: rlim_t(megabytes) << 20, rlim_max: rlim_t(megabytes) << 20)
    setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
}

do {
    guard let path = request["library"] as? String, let jobs = request["jobs"] as? [[String: Any]] else {
        reply(["ok": false, "reason": "incomplete request (library, jobs)"])
    }
    var expect = MoproLibrary.Expectation.noirSwift
    if let namespace = request["namespace"] as? String { expect.namespace = namespace }
    if let version = request["contract_version"] as? Int { expect.contractVersion = UInt32(truncatingIfNeeded: version) }
    if let checksums = request["checksums"] as? [String: [Int]] {
        expect.checksums = checksums.mapValues { Set($0.map { UInt16(truncatingIfNeeded: $0) }) }
    }
    let library = try MoproLibrary(path: path, expect: expect)
    let srs = request["srs"] as? String
    let onChain = request["on_chain"] as? Bool ?? false
    let lowMemory = request["low_memory"] as? Bool ?? false
    var proofs: [[String: Any]] = []
    for job in jobs {
        guard let name = job["name"] as? String, let circuit = job["circuit"] as? String, let inputs = job["inputs"] as? [String] else {
            reply(["ok": false, "reason": "a job lacks its name, circuit or inputs"])
        }
        let vk = try library.verificationKey(circuit: circuit, srs: srs, onChain: onChain, lowMemory: lowMemory)
        let proof = try library.generateProof(circuit: circuit, srs: srs, inputs: inputs, onChain: onChain, verificationKey: vk,
                                              lowMemory: lowMemory)
        let verified = try library.verifyProof(circuit: circuit, proof: proof, onChain: onChain, verificationKey: vk, lowMemory: lowMemory)
        proofs.append(["name": name, "proof": Data(proof).base64EncodedString(), "verification_key": Data(vk).base64EncodedString(),
                       "verified": verified])
    }
    reply(["ok": true, "proofs": proofs])
} catch {
    reply(["ok": false, "reason": String(describing: error)])
}
