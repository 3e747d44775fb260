import Foundation
import Testing
import TestSupport

/// `passport doctor` on this machine's real stack, and in each failing state that can be made
/// here for real: pcscd unreachable, a card that is not a passport (vsmartcard's own iso7816
/// card), a weak key store; USB permissions as an unprivileged user on a fixture device tree.
extension VirtualPassportStack {
@Suite(.serialized)
final class DoctorTests {
    let work = Harness.temporaryFolder()
    var environment: [String: String] {
        ["XDG_CONFIG_HOME": work.appendingPathComponent("config").path, "XDG_CACHE_HOME": work.appendingPathComponent("cache").path]
    }
    deinit { try? FileManager.default.removeItem(at: work) }

    func doctor(_ extra: [String: String] = [:], arguments: [String] = []) throws -> (Harness.Result, [[String: Any]]) {
        let r = try Harness.passport(["doctor", "--json"] + arguments, environment: environment.merging(extra) { $1 }, timeout: 60)
        try Harness.expectShape(r, "doctor")
        return (r, try #require(r.json?["checks"] as? [[String: Any]], "\(r.stdout)"))
    }

    func find(_ checks: [[String: Any]], area: String, name: String? = nil) -> [String: Any]? {
        checks.first { $0["area"] as? String == area && (name == nil || $0["name"] as? String == name) }
    }

    @Test func thisMachineWithTheVirtualPassport() throws {
        try Harness.startVirtualPassport(TestPaths.fixtures.appendingPathComponent("passport"))
        let (r, checks) = try doctor()
        #expect(r.status == 0, "\(r.stdout)")
        #expect(find(checks, area: "pcsc", name: "PC/SC service")?["status"] as? String == "ok")
        #expect(find(checks, area: "readers", name: "Virtual PCD 00 00")?["seen"] as? String == "PC/SC reader, card present")
        let card = try #require(find(checks, area: "card", name: "Virtual PCD 00 00"))
        #expect(card["status"] as? String == "ok" && (card["seen"] as? String)?.contains("an eMRTD") == true)
        #expect(find(checks, area: "trust")?["status"] as? String == "warn")  // a fresh, empty store
        for name in ["pcsc-lite", "libnfc", "OpenSSL", "Tesseract"] {
            #expect(find(checks, area: "versions", name: name) != nil)
        }
        // The text form: one line per check, fixes under their line, exit as with --json.
        let text = try Harness.passport(["doctor"], environment: environment, timeout: 60)
        #expect(text.status == 0 && text.stdout.contains("ok    card     Virtual PCD 00 00: an eMRTD"))
        #expect(text.stdout.contains("               fix: passport trust import FILE"))
    }

    @Test func pcscdUnreachableFailsWithTheFix() throws {
        let (r, checks) = try doctor(["PCSCLITE_CSOCK_NAME": work.appendingPathComponent("no-pcscd.comm").path])
        #expect(r.status == 1)
        #expect(r.json?["ok"] as? Bool == false)
        let service = try #require(find(checks, area: "pcsc", name: "PC/SC service"))
        #expect(service["status"] as? String == "fail")
        #expect((service["seen"] as? String)?.contains("No such file or directory") == true)
        #expect((service["fix"] as? String)?.contains("systemctl enable --now pcscd.socket") == true)
        #expect(find(checks, area: "readers", name: "readers")?["status"] as? String == "fail")
    }

    /// pcscd really stopped (not only its socket hidden): both pcscd checks fail with their fixes.
    @Test func pcscdStopped() throws {
        _ = try Harness.run(URL(fileURLWithPath: "/usr/bin/pkill"), ["-x", "pcscd"], timeout: 30)
        let deadline = Date().addingTimeInterval(10)
        while try Harness.run(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-x", "pcscd"], timeout: 30).status == 0 && Date() < deadline { usleep(50_000) }
        defer { try? Harness.startVirtualPassport(TestPaths.fixtures.appendingPathComponent("passport")) }  // pcscd back for the next tests
        let (r, checks) = try doctor()
        #expect(r.status == 1)
        let running = try #require(find(checks, area: "pcsc", name: "pcscd running"))
        #expect(running["status"] as? String == "fail" && (running["fix"] as? String)?.contains("pcscd") == true, "\(running)")
        #expect(find(checks, area: "pcsc", name: "PC/SC service")?["status"] as? String == "fail")
    }

    @Test func aCardThatIsNotAPassportIsNamed() throws {
        let card = try BackgroundProcess("/usr/bin/python3", ["-m", "vpassport.other_card", "iso7816"], folder: work, name: "iso7816",
                                         environment: ["PYTHONPATH": TestPaths.projectRoot.appendingPathComponent("emulator").path])
        defer { card.stop() }
        var checks: [[String: Any]] = []
        for _ in 0..<50 {  // until pcscd has powered the new card up
            checks = try doctor().1
            if find(checks, area: "card", name: "Virtual PCD 00 01") != nil { break }
            usleep(100_000)
        }
        let other = try #require(find(checks, area: "card", name: "Virtual PCD 00 01"), "\(card.stderr)")
        #expect(other["status"] as? String == "warn")
        #expect(other["seen"] as? String == "a card that is not an eMRTD: no eMRTD application (SELECT answered 6A82)")
    }

    @Test func aWeakKeyStoreWarnsAndAPassphraseDoesNot() throws {
        let made = try Harness.passport(["keys", "init"], environment: environment, timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let holder = try #require(find(try doctor().1, area: "keys"))
        #expect(holder["status"] as? String == "warn" && (holder["seen"] as? String)?.contains("only by the file device.key") == true)
        #expect((holder["fix"] as? String)?.contains("passport keys migrate") == true)
        let strong = work.appendingPathComponent("strong")
        let passphrase = ["PASSPORT_KEYSTORE_PASSPHRASE": "correct horse battery staple", "XDG_CONFIG_HOME": strong.path]
        try #require(try Harness.passport(["keys", "init"], environment: environment.merging(passphrase) { $1 }, timeout: 60).status == 0)
        let protected = try #require(find(try doctor(passphrase).1, area: "keys"))
        #expect(protected["status"] as? String == "ok" && (protected["seen"] as? String)?.contains("protected by a passphrase") == true)
    }

    /// Device permissions are only real for a user who is not root: doctor runs as `nobody` on a
    /// fixture tree (PASSPORT_DOCTOR_ROOT) whose reader node and camera are root's, mode 0600.
    @Test func devicesThisUserCannotOpen() throws {
        let root = work.appendingPathComponent("root")
        let device = root.appendingPathComponent("sys/bus/usb/devices/1-1")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        for (name, value) in [("idVendor", "04e6"), ("idProduct", "5591"), ("busnum", "1"), ("devnum", "4")] {
            try Data("\(value)\n".utf8).write(to: device.appendingPathComponent(name))
        }
        let nodes = root.appendingPathComponent("dev/bus/usb/001")
        try FileManager.default.createDirectory(at: nodes, withIntermediateDirectories: true)
        for node in [nodes.appendingPathComponent("004"), root.appendingPathComponent("dev/video0")] {
            #expect(FileManager.default.createFile(atPath: node.path, contents: nil, attributes: [.posixPermissions: 0o600]))
        }
        for folder in [work, work.appendingPathComponent("root")] { chmod(folder.path, 0o755) }
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                ["--reuid=nobody", "--regid=nogroup", "--clear-groups", Harness.passportExecutable.path, "doctor", "--json"],
                                environment: ["PASSPORT_DOCTOR_ROOT": root.path, "HOME": "/nonexistent",
                                              "XDG_CONFIG_HOME": "/nonexistent/config"], timeout: 60)
        try Harness.expectShape(r, "doctor")
        let checks = try #require(r.json?["checks"] as? [[String: Any]], "\(r.stdout) \(r.stderr)")
        let reader = try #require(find(checks, area: "usb"))
        #expect(reader["name"] as? String == "SCM SCL3711 (04e6:5591) at /dev/bus/usb/001/004")
        #expect(reader["status"] as? String == "fail")
        #expect((reader["seen"] as? String)?.contains("may not open /dev/bus/usb/001/004 (mode 0600, root:root)") == true, "\(reader)")
        let camera = try #require(find(checks, area: "camera", name: "/dev/video0"))
        #expect(camera["status"] as? String == "warn" && (camera["fix"] as? String)?.contains("usermod -aG video") == true)
        #expect(r.status == 1)
    }
}
}
