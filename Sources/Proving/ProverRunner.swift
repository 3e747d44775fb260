import FoundationEssentials
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs the prover's child (`passport __prover-child`, ProverChild) as a child process under a
/// time and memory limit, talks JSON with it over its stdin and stdout, and turns every way it can
/// go wrong into a one-line reason.
///
/// Request (one JSON object on the child's stdin): `library`, `namespace`, `contract_version`,
/// `checksums` (name → list of accepted values), `srs`, `memory_limit_mb`, and `jobs`: a list of
/// `{name, circuit, inputs}`. Answer (one JSON object on its stdout): `{"ok": true, "proofs":
/// [{name, proof, verification_key, verified}]}` with base64 bytes, or `{"ok": false, "reason"}`.
public struct ProverRunner: Sendable {
    public struct Configuration: Sendable {
        public var library: String
        /// The folder of compiled circuits (nargo JSON), one `<package name>.json` per circuit.
        public var circuits: String
        public var srs: String?
        public var expectation = MoproLibrary.Expectation.noirSwift
        /// For the whole chain of proofs.
        public var timeout: Double = 600
        public var memoryLimitMB = 8192
        public init(library: String, circuits: String) {
            self.library = library
            self.circuits = circuits
        }

        public func circuitPath(_ name: String) -> String {
            URL(fileURLWithPath: circuits).appendingPathComponent(name + ".json").path
        }
    }

    /// One proof to make: the circuit's package name and its witness.
    public struct Job: Sendable {
        public let name: String
        public let inputs: [String]
        public init(name: String, inputs: [String]) {
            self.name = name
            self.inputs = inputs
        }
    }

    public struct Proof: Sendable {
        public let name: String
        public let proof: [UInt8]
        public let verificationKey: [UInt8]
    }

    /// The most the helper may write back (proofs are tens of kilobytes).
    static let maximumAnswer = 64 << 20

    /// The child's command line: an executable that runs `ProverChild.run()` for these arguments.
    public let command: [String]
    public init(command: [String]) { self.command = command }

    /// The running executable started again as the prover's child (one binary, a separate process).
    public static func sameExecutable() -> ProverRunner {
        // /proc/self/exe, not argv[0]: a command found on PATH has no folder in argv[0].
        ProverRunner(command: [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, ProverChild.argument])
    }

    /// Proofs the library itself verified, one per job in order, or a reason why there are none.
    public func prove(_ jobs: [Job], configuration: Configuration) -> Result<[Proof], ProverError> {
        guard FileManager.default.fileExists(atPath: configuration.library) else {
            return .failure(.libraryMissing("\(configuration.library) does not exist"))
        }
        let missing = jobs.map(\.name).filter { !FileManager.default.fileExists(atPath: configuration.circuitPath($0)) }
        guard missing.isEmpty else {
            return .failure(.libraryMissing("compiled circuits missing from \(configuration.circuits): "
                + missing.map { $0 + ".json" }.joined(separator: ", ")))
        }
        guard let executable = command.first, FileManager.default.isExecutableFile(atPath: executable) else {
            return .failure(.libraryMissing("\(command.first ?? "the prover's executable") is missing"))
        }
        var request: [String: Any] = [
            "library": configuration.library, "namespace": configuration.expectation.namespace,
            "contract_version": Int(configuration.expectation.contractVersion),
            "checksums": configuration.expectation.checksums.mapValues { $0.sorted().map(Int.init) },
            "memory_limit_mb": configuration.memoryLimitMB,
            "jobs": jobs.map { ["name": $0.name, "circuit": configuration.circuitPath($0.name), "inputs": $0.inputs] as [String: Any] },
        ]
        if let srs = configuration.srs { request["srs"] = srs }
        let requestData: Data
        do {
            requestData = Data(try JSON.serialize(request))
        } catch {
            return .failure(.failed("cannot encode the request: \(error)"))
        }

        let answer: Data
        switch ChildProcess.run(command, input: requestData, timeout: configuration.timeout, maximumOutput: ProverRunner.maximumAnswer) {
        case .failure(let error): return .failure(error)
        case .success(let output): answer = output
        }
        guard let reply = try? JSON.parse(answer) as? [String: Any] else {
            return .failure(.garbage("the prover process gave no readable answer"))
        }
        guard JSON.bool(reply["ok"]) == true else { return .failure(.failed(reply["reason"] as? String ?? "unknown reason")) }
        guard let items = reply["proofs"] as? [[String: Any]], items.count == jobs.count else {
            return .failure(.garbage("the answer does not hold one proof per circuit"))
        }
        var proofs: [Proof] = []
        for (job, item) in zip(jobs, items) {
            guard item["name"] as? String == job.name else { return .failure(.garbage("the answer's proofs are out of order")) }
            guard JSON.bool(item["verified"]) == true else { return .failure(.failed("the \(job.name) proof does not verify")) }
            guard let proof = (item["proof"] as? String).flatMap({ Data(base64Encoded: $0) }), !proof.isEmpty,
                  let key = (item["verification_key"] as? String).flatMap({ Data(base64Encoded: $0) }), !key.isEmpty else {
                return .failure(.garbage("the \(job.name) answer lacks the proof or the verification key"))
            }
            proofs.append(Proof(name: job.name, proof: [UInt8](proof), verificationKey: [UInt8](key)))
        }
        return .success(proofs)
    }
}

/// A child process fed `input` on stdin, whose stdout is collected, killed at the deadline.
enum ChildProcess {
    static func run(_ arguments: [String], input: Data, timeout: Double, maximumOutput: Int) -> Result<Data, ProverError> {
        let child: Spawned
        switch spawn(arguments) {
        case .failure(let error): return .failure(error)
        case .success(let spawned): child = spawned
        }
        let deadline = Date().addingTimeInterval(timeout)
        let (collected, outcome) = exchange(with: child, input: input, deadline: deadline, timeout: timeout, maximumOutput: maximumOutput)
        if let outcome {
            var status: Int32 = 0
            kill(child.pid, SIGKILL)
            waitpid(child.pid, &status, 0)
            return .failure(outcome)
        }
        return awaitExit(child.pid, deadline: deadline, timeout: timeout).map { collected }
    }

    /// A started helper: its pid, the write end of its stdin (non-blocking) and the read end of its stdout.
    struct Spawned {
        let pid: pid_t
        let requestFD: Int32
        let answerFD: Int32
    }

    /// Starts the helper with pipes on its stdin and stdout and stderr discarded.
    static func spawn(_ arguments: [String]) -> Result<Spawned, ProverError> {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { return .failure(.failed("cannot create a pipe: \(String(cString: strerror(errno)))")) }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            return .failure(.failed("cannot create a pipe: \(String(cString: strerror(errno)))"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // The library's own messages may quote its inputs (the passport's data): discard them.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        // A helper that dies before reading its request must give this process EPIPE, not SIGPIPE;
        // the helper itself starts with the default disposition.
        signal(SIGPIPE, SIG_IGN)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        let requestFD = toChild[1], answerFD = fromChild[0]
        guard spawned == 0 else {
            close(requestFD); close(answerFD)
            return .failure(.failed("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))"))
        }
        _ = fcntl(requestFD, F_SETFL, fcntl(requestFD, F_GETFL) | O_NONBLOCK)
        return .success(Spawned(pid: pid, requestFD: requestFD, answerFD: answerFD))
    }

    /// Writes the request and collects the answer until the helper closes its stdout, the deadline
    /// passes or the answer grows too large; closes both pipes. Returns what was collected and,
    /// when the exchange went wrong, why (the helper must then be killed).
    static func exchange(with child: Spawned, input: Data, deadline: Date, timeout: Double,
                         maximumOutput: Int) -> (Data, ProverError?) {
        var inputOpen = true, written = 0
        var collected = Data()
        var outcome: ProverError?
        let bytes = [UInt8](input)
        var buffer = [UInt8](repeating: 0, count: 65536)
        loop: while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                outcome = .failed("no answer within \(Int(timeout)) s (stopped)")
                break
            }
            var fds = [pollfd(fd: child.answerFD, events: Int16(POLLIN), revents: 0)]
            if inputOpen { fds.append(pollfd(fd: child.requestFD, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { outcome = .failed("poll failed: \(String(cString: strerror(errno)))"); break }
            if inputOpen, fds.count > 1, fds[1].revents != 0 {
                inputOpen = writeRequest(bytes, written: &written, to: child.requestFD)
            }
            if fds[0].revents != 0 {
                let count = read(child.answerFD, &buffer, buffer.count)
                if count > 0 {
                    collected.append(contentsOf: buffer[0..<count])
                    if collected.count > maximumOutput { outcome = .garbage("the prover process wrote more than \(maximumOutput >> 20) MB"); break loop }
                } else if count == 0 {
                    break   // the helper closed its stdout: it has ended or is ending
                } else if errno != EINTR && errno != EAGAIN {
                    outcome = .failed("cannot read the prover's answer: \(String(cString: strerror(errno)))")
                    break
                }
            }
        }
        if inputOpen { close(child.requestFD) }
        close(child.answerFD)
        return (collected, outcome)
    }

    /// Writes what the pipe takes of the rest of the request; returns whether the request pipe is
    /// still open (it is closed once everything is written, or when the helper has gone).
    private static func writeRequest(_ bytes: [UInt8], written: inout Int, to fd: Int32) -> Bool {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
        if count > 0 { written += count }
        if written == bytes.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
            close(fd)   // EOF tells the helper the request is complete; EPIPE: it left early
            return false
        }
        return true
    }

    /// Stdout is closed; gives the process until the deadline to exit, then kills it.
    static func awaitExit(_ pid: pid_t, deadline: Date, timeout: Double) -> Result<Void, ProverError> {
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return .failure(.failed("no answer within \(Int(timeout)) s (stopped)"))
            }
            usleep(5_000)
        }
        if status & 0x7F != 0 { return .failure(.failed("the prover process crashed (signal \(status & 0x7F))")) }
        return .success(())
    }
}
