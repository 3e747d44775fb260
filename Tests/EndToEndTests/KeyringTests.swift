import Foundation
import Testing
import TestSupport

let keyringAvailable = FileManager.default.fileExists(atPath: "/usr/bin/gnome-keyring-daemon")
    || ProcessInfo.processInfo.environment["PASSPORT_REQUIRE_E2E"] == "1"

/// The key store's device key in a real GNOME Keyring (gnome-keyring-daemon, secrets component)
/// on a private D-Bus session (dbus-run-session), with its own keyring files: keys made there,
/// a locked keyring, migration of a file-protected store, and no keyring at all.
@Suite(.serialized, .enabled(if: keyringAvailable, "gnome-keyring is not installed (run scripts/setup)"))
final class Keyring {
    let home = Harness.temporaryFolder()
    var keys: URL { home.appendingPathComponent("config/passport/keys") }
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static let dump = TestPaths.fixtures.appendingPathComponent("passport").path

    deinit { try? FileManager.default.removeItem(at: home) }

    /// The person's environment: config, keyring files and runtime folder all in this test's home.
    var env: [String: String] {
        ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
         "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.appendingPathComponent("run").path,
         "DBUS_SESSION_BUS_ADDRESS": "", "PASSPORT_KEYRING": "on"]
    }

    enum Daemon { case unlocked, locked, none }

    /// Runs `passport` commands in one D-Bus session with gnome-keyring-daemon: `unlocked` logs
    /// in with a password (making the login keyring the first time), `locked` starts it without
    /// one. Gives each command's result, in order.
    func session(_ daemon: Daemon, _ commands: [[String]], environment: [String: String] = [:]) throws -> [Harness.Result] {
        try FileManager.default.createDirectory(at: home.appendingPathComponent("run"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let start = switch daemon {
        case .unlocked: "printf login-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97\n"
        case .locked: "gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1 || exit 97\n"
        case .none: ""
        }
        var script = start
        for (index, command) in commands.enumerated() {
            let quoted = ([Harness.passportExecutable.path] + command).map { "'\($0)'" }.joined(separator: " ")
            script += "\(quoted) >\(home.path)/\(index).out 2>\(home.path)/\(index).err; echo $? >\(home.path)/\(index).rc\n"
        }
        let r = daemon == .none
            ? try Harness.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: env.merging(environment) { $1 }, timeout: 120)
            : try Harness.run(URL(fileURLWithPath: "/usr/bin/dbus-run-session"), ["--", "/bin/sh", "-c", script],
                              environment: env.merging(environment) { $1 }, timeout: 120)
        try #require(r.status == 0, "the keyring session failed (\(r.status)): \(r.stderr)")
        return try commands.indices.map { index in
            func read(_ suffix: String) throws -> String { try String(contentsOf: home.appendingPathComponent("\(index).\(suffix)"), encoding: .utf8) }
            return Harness.Result(status: Int32(try read("rc").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                                  stdout: try read("out"), stderr: try read("err"), seconds: 0)
        }
    }

    static func trimmed(_ result: Harness.Result) -> String { result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test func keysMadeWithTheKeyringLeaveNoKeyFile() throws {
        let out = home.appendingPathComponent("credential").path
        let r = try session(.unlocked, [["keys", "show"], ["keys", "status", "--json"],
                                        ["issue", Self.dump, "--no-default-trust", "--csca", Self.csca, "--out", out, "--yes"]])
        #expect(r[0].status == 0 && Self.trimmed(r[0]).hasPrefix("did:key:z"), "\(r[0].stderr)")
        #expect(!FileManager.default.fileExists(atPath: keys.appendingPathComponent("device.key").path), "no device key file")
        try Harness.expectShape(r[1], "keys-status")
        let status = try #require(r[1].json)
        #expect(status["weak"] as? Bool == false)
        #expect(status["keyring_reachable"] as? Bool == true)
        #expect((status["key_files"] as? [String: Int]) == ["keyring-device-key": 1])
        #expect(r[2].status == 0, "issue with the keyring: \(r[2].stderr)")
        let holder = try String(contentsOf: keys.appendingPathComponent("holder.json"), encoding: .utf8)
        #expect(holder.contains("\"keyring-device-key\""))
    }

    @Test func aLockedKeyringSignsNothing() throws {
        let made = try session(.unlocked, [["keys", "show"]])
        try #require(made[0].status == 0, "\(made[0].stderr)")
        let out = home.appendingPathComponent("credential").path
        let r = try session(.locked, [["issue", Self.dump, "--no-default-trust", "--csca", Self.csca, "--out", out, "--yes", "--json"],
                                      ["keys", "show", "--aud", "https://new.example"]])
        #expect(r[0].status == 2, "\(r[0].stderr)")
        #expect((r[0].json?["error"] as? [String: Any])?["code"] as? String == "keyring_locked", "\(r[0].stdout)")
        #expect(r[0].stderr.contains("is locked: unlock it") && r[0].stderr.contains("Nothing was signed"), "\(r[0].stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing was signed")
        #expect(r[1].status == 2, "a new pairwise key is not made under a locked keyring: \(r[1].stderr)")
        let pairwise = (try? FileManager.default.contentsOfDirectory(atPath: keys.appendingPathComponent("pairwise").path)) ?? []
        #expect(pairwise.isEmpty, "\(pairwise)")
    }

    @Test func aFileProtectedStoreMigrates() throws {
        let before = try session(.none, [["keys", "show"], ["keys", "show", "--aud", "https://a.example"]], environment: ["PASSPORT_KEYRING": "off"])
        try #require(before.allSatisfy { $0.status == 0 }, "\(before.map(\.stderr))")
        #expect(FileManager.default.fileExists(atPath: keys.appendingPathComponent("device.key").path))
        let r = try session(.unlocked, [["keys", "status", "--json"], ["keys", "migrate"], ["keys", "show"],
                                        ["keys", "show", "--aud", "https://a.example"], ["keys", "status", "--json"]])
        #expect(r[0].json?["weak"] as? Bool == true)
        #expect((r[0].json?["advice"] as? String)?.contains("passport keys migrate") == true, "\(r[0].stdout)")
        #expect(r[1].status == 0 && r[1].stdout.contains("2 key file(s)"), "\(r[1].stdout) \(r[1].stderr)")
        #expect(Self.trimmed(r[2]) == Self.trimmed(before[0]), "the holder key is unchanged")
        #expect(Self.trimmed(r[3]) == Self.trimmed(before[1]), "the pairwise key is unchanged")
        #expect(!FileManager.default.fileExists(atPath: keys.appendingPathComponent("device.key").path), "device.key is removed")
        #expect(r[4].json?["weak"] as? Bool == false)
        // The keys now need the keyring: without one they are refused, not silently re-made.
        let without = try session(.none, [["keys", "show"]])
        #expect(without[0].status == 2 && without[0].stderr.contains("no keyring is reachable"), "\(without[0].stderr)")
    }

    @Test func noSessionBusFallsBackToTheFileAndSaysItIsWeak() throws {
        let r = try session(.none, [["keys", "show"], ["keys", "status", "--json"], ["keys", "status"]])
        #expect(r[0].status == 0)
        #expect(FileManager.default.fileExists(atPath: keys.appendingPathComponent("device.key").path))
        try Harness.expectShape(r[1], "keys-status")
        #expect(r[1].json?["weak"] as? Bool == true)
        #expect(r[1].json?["keyring_reachable"] as? Bool == false)
        #expect(r[2].stdout.contains("WEAK:") && r[2].stdout.contains("desktop session"), "\(r[2].stdout)")
    }
}
