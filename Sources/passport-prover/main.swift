// passport-prover: runs mopro's Noir prover in its own process, so that whatever the library
// does (abort, hang, exhaust memory, return garbage) cannot harm the main process.
// Protocol: a JSON request file as the only argument, one JSON object on stdout.
import Foundation
import Proving
#if canImport(Glibc)
import Glibc
#endif

func reply(_ object: [String: Any]) -> Never {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{\"ok\":false}".utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
    exit(0)
}

guard CommandLine.arguments.count == 2, let data = FileManager.default.contents(atPath: CommandLine.arguments[1]),
      let request = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
    reply(["ok": false, "reason": "usage: passport-prover REQUEST.json"])
}

// The memory limit applies before the library is even loaded.
if let megabytes = request["memory_limit_mb"] as? Int, megabytes > 0 {
    var limit = rlimit(rlim_cur: rlim_t(megabytes) << 20, rlim_max: rlim_t(megabytes) << 20)
    setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
}

do {
    guard let path = request["library"] as? String, let circuit = request["circuit"] as? String,
          let inputs = request["inputs"] as? [String] else { reply(["ok": false, "reason": "incomplete request"]) }
    var expect = MoproLibrary.Expectation.noirSwift
    if let namespace = request["namespace"] as? String { expect.namespace = namespace }
    if let version = request["contract_version"] as? Int { expect.contractVersion = UInt32(version) }
    if let checksums = request["checksums"] as? [String: Int] { expect.checksums = checksums.mapValues { UInt16($0) } }
    let library = try MoproLibrary(path: path, expect: expect)
    let srs = request["srs"] as? String
    let onChain = request["on_chain"] as? Bool ?? false
    let lowMemory = request["low_memory"] as? Bool ?? false
    let vk = try library.verificationKey(circuit: circuit, srs: srs, onChain: onChain, lowMemory: lowMemory)
    let proof = try library.generateProof(circuit: circuit, srs: srs, inputs: inputs, onChain: onChain, verificationKey: vk, lowMemory: lowMemory)
    let verified = try library.verifyProof(circuit: circuit, proof: proof, onChain: onChain, verificationKey: vk, lowMemory: lowMemory)
    reply(["ok": true, "proof": Data(proof).base64EncodedString(), "verification_key": Data(vk).base64EncodedString(), "verified": verified])
} catch {
    reply(["ok": false, "reason": String(describing: error)])
}
