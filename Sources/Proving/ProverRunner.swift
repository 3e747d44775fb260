import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `passport-prover` as a child process under a time and memory limit and turns every
/// way it can go wrong into a one-line reason.
public struct ProverRunner: Sendable {
    public struct Configuration: Sendable {
        public var library: String
        public var circuit: String
        public var srs: String?
        public var expectation = MoproLibrary.Expectation.noirSwift
        public var timeout: Double = 300
        public var memoryLimitMB = 8192
        public init(library: String, circuit: String) {
            self.library = library
            self.circuit = circuit
        }
    }

    public struct Proof: Sendable {
        public let proof: [UInt8]
        public let verificationKey: [UInt8]
    }

    public let helper: String
    public init(helper: String) { self.helper = helper }

    /// The helper next to the running executable.
    public static func besideCurrentExecutable() -> ProverRunner {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return ProverRunner(helper: me.deletingLastPathComponent().appendingPathComponent("passport-prover").path)
    }

    /// A proof that the library itself verified, or a reason why there is none.
    public func prove(inputs: [String], configuration: Configuration) -> Result<Proof, ProverError> {
        guard FileManager.default.fileExists(atPath: configuration.library) else {
            return .failure(.libraryMissing("\(configuration.library) does not exist"))
        }
        guard FileManager.default.isExecutableFile(atPath: helper) else { return .failure(.libraryMissing("\(helper) is missing")) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passport-prover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var request: [String: Any] = [
                "library": configuration.library, "circuit": configuration.circuit, "inputs": inputs,
                "namespace": configuration.expectation.namespace, "contract_version": Int(configuration.expectation.contractVersion),
                "checksums": configuration.expectation.checksums.mapValues { Int($0) }, "memory_limit_mb": configuration.memoryLimitMB,
            ]
            if let srs = configuration.srs { request["srs"] = srs }
            try JSONSerialization.data(withJSONObject: request).write(to: folder.appendingPathComponent("request.json"))
        } catch {
            return .failure(.failed("cannot prepare the request: \(error)"))
        }
        let output = folder.appendingPathComponent("response.json").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments: [String] = [helper, folder.appendingPathComponent("request.json").path]
        var argv: [UnsafeMutablePointer<CChar>?] = []
        for argument in arguments { argv.append(argument.withCString { strdup($0) }) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, helper, &actions, nil, argv, environ) == 0 else { return .failure(.failed("cannot start \(helper)")) }

        let deadline = Date().addingTimeInterval(configuration.timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return .failure(.failed("no answer within \(Int(configuration.timeout)) s (stopped)"))
            }
            usleep(20_000)
        }
        if status & 0x7F != 0 { return .failure(.failed("the prover process crashed (signal \(status & 0x7F))")) }
        guard let data = FileManager.default.contents(atPath: output), !data.isEmpty,
              let reply = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .failure(.garbage("the prover process gave no readable answer"))
        }
        guard reply["ok"] as? Bool == true else { return .failure(.failed(reply["reason"] as? String ?? "unknown reason")) }
        guard reply["verified"] as? Bool == true else { return .failure(.failed("the proof does not verify")) }
        guard let proof = (reply["proof"] as? String).flatMap({ Data(base64Encoded: $0) }), !proof.isEmpty,
              let vk = (reply["verification_key"] as? String).flatMap({ Data(base64Encoded: $0) }), !vk.isEmpty else {
            return .failure(.garbage("the answer lacks the proof or the verification key"))
        }
        return .success(Proof(proof: [UInt8](proof), verificationKey: [UInt8](vk)))
    }
}
