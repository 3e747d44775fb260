import Foundation
import Testing
import TestSupport

/// Runs programs for end-to-end tests: the `passport` executable and `scripts/virtual-passport`.
enum Harness {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let seconds: Double
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    /// The folder of built products (next to the test bundle).
    static let products: URL = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: runner.appendingPathComponent("passport").path) { return runner }
        return TestPaths.projectRoot.appendingPathComponent(".build/debug")
    }()

    static var passportExecutable: URL { products.appendingPathComponent("passport") }

    /// Whether the real PC/SC stack for end-to-end tests is installed (pcscd, vpcd, virtualsmartcard).
    /// The test script sets PASSPORT_REQUIRE_E2E=1: then the tests run (and fail) even without it,
    /// so a missing stack can never pass as a skip.
    static let stackAvailable: Bool = {
        let required = ["/usr/sbin/pcscd", "/usr/lib/pcsc/drivers/serial/libifdvpcd.so",
                        "/usr/lib/python3/site-packages/virtualsmartcard/virtualsmartcard/VirtualSmartcard.py"]
        return required.allSatisfy { FileManager.default.fileExists(atPath: $0) }
            || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"
    }()

    /// Runs a program to completion with posix_spawn/waitpid (Foundation's Process can miss the
    /// exit of a child whose own children live on, as the virtual passport's do).
    @discardableResult
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                    stdin: String? = nil, timeout: Double = 120) throws -> Result {
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString).out")
        let errURL = outURL.deletingPathExtension().appendingPathExtension("err")
        let inURL = outURL.deletingPathExtension().appendingPathExtension("in")
        defer { for url in [outURL, errURL, inURL] { try? FileManager.default.removeItem(at: url) } }
        if let stdin { try Data(stdin.utf8).write(to: inURL) }

        let started = Date()
        let pid = try spawn(executable.path, arguments, environment: environment,
                            stdin: stdin == nil ? "/dev/null" : inURL.path, stdout: outURL.path, stderr: errURL.path)

        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date().timeIntervalSince(started) > timeout {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
                break
            }
            usleep(10_000)
        }
        // WIFEXITED / WEXITSTATUS, spelled out: the C macros do not import into Swift.
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitStatus,
                      stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                      stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self),
                      seconds: Date().timeIntervalSince(started))
    }

    /// Starts a program with posix_spawn, its standard streams on files, this process's
    /// environment plus `environment`; gives its pid (the caller waits for it).
    static func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                      stdin: String = "/dev/null", stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Tests never touch the desktop's keyring unless they ask (the Keyring suite does).
        let base = ProcessInfo.processInfo.environment.merging(["PASSPORT_KEYRING": "off"]) { $1 }
        let envp = base.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        // Children start with no blocked signals: the test runner's threads block some (SIGUSR1
        // among them), and a blocked mask would be inherited by every process the child starts.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        return pid
    }

    /// `stdin`: what the person types (answers to confirmation prompts); /dev/null when nil.
    static func passport(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Double = 120) throws -> Result {
        try run(passportExecutable, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    static let schemaChecker = TestPaths.projectRoot.appendingPathComponent("scripts/check-json-schema")

    /// The errors an independent JSON Schema validator (python3-jsonschema) finds in `json`
    /// against docs/schemas/NAME.schema.json; empty when it conforms.
    static func schemaErrors(_ json: String, schema: String) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shape-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try run(schemaChecker, [schema, file.path], timeout: 60)
        return r.status == 0 ? nil : "exit \(r.status): \(r.stderr)"
    }

    /// Expects a command's stdout to be one JSON object of the documented shape.
    static func expectShape(_ result: Result, _ schema: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let errors = try schemaErrors(result.stdout, schema: schema)
        #expect(errors == nil, "output does not match docs/schemas/\(schema).schema.json: \(errors ?? "")", sourceLocation: sourceLocation)
    }

    static let virtualPassportScript = TestPaths.projectRoot.appendingPathComponent("scripts/virtual-passport")

    /// Starts the virtual passport serving `dump` (restarting it if one runs).
    static func startVirtualPassport(_ dump: URL, _ options: [String] = []) throws {
        let r = try run(virtualPassportScript, ["start", dump.path] + options, timeout: 60)
        try #require(r.status == 0, "virtual-passport start failed: \(r.stderr)")
    }

    static func virtualPassport(_ command: String) throws {
        let r = try run(virtualPassportScript, [command], timeout: 60)
        try #require(r.status == 0, "virtual-passport \(command) failed: \(r.stderr)")
    }

    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passport-e2e-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Every suite that drives the virtual passport through pcscd lives inside this one, which
/// runs them one after another: they share one virtual reader.
@Suite(.serialized, .enabled(if: Harness.stackAvailable, "pcscd, vpcd or python3-virtualsmartcard not installed (run scripts/setup)"))
enum VirtualPassportStack {}

/// A program running in the background for a test (`Harness.spawn`, stdout and stderr to files):
/// Foundation's Process can hang in waitUntilExit under the test runner (seen here).
final class BackgroundProcess: @unchecked Sendable {
    let pid: pid_t
    let out: URL
    let err: URL
    private var stopped = false

    init(_ executable: String, _ arguments: [String], folder: URL, name: String, environment: [String: String] = [:]) throws {
        out = folder.appendingPathComponent("\(name).out")
        err = folder.appendingPathComponent("\(name).err")
        pid = try Harness.spawn(executable, arguments, environment: environment, stdout: out.path, stderr: err.path)
    }

    var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
    var isRunning: Bool {
        if stopped { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { stopped = true; return false }
        return true
    }

    /// Waits up to `seconds` for the process to end: its exit status (128 + the signal when one
    /// ended it), or nil while it still runs.
    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                stopped = true
                return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            }
            usleep(50_000)
        }
        return nil
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 { if waitpid(pid, &status, WNOHANG) != 0 { return }; usleep(100_000) }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    deinit { stop() }
}
