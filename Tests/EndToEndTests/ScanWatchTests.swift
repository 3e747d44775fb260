import Foundation
import LDS
import Testing
import TestSupport

/// `passport scan --watch` at a desk, through pcscd and the virtual passport: documents one after
/// another (the card leaves and comes back), a failing one in between, Ctrl-C in the middle of a
/// read, two readers at once, keys asked per document.
extension VirtualPassportStack {
@Suite(.serialized)
final class ScanWatchTests {
    static let passport = TestPaths.fixtures.appendingPathComponent("passport")
    static let pace = TestPaths.fixtures.appendingPathComponent("passport-pace")
    static let key = "C01X00T47 880412 340930"
    let work = Harness.temporaryFolder()
    deinit {
        _ = try? Harness.run(Harness.virtualPassportScript, ["eject", "--slot", "1"], timeout: 30)
        try? FileManager.default.removeItem(at: work)
    }

    func watch(_ arguments: [String], name: String = "watch") throws -> BackgroundProcess {
        try BackgroundProcess(Harness.passportExecutable.path, ["scan", "--watch", "--json", "--out", work.appendingPathComponent("dumps").path] + arguments,
                              folder: work, name: name)
    }

    func lines(_ process: BackgroundProcess) -> [[String: Any]] {
        process.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits until the watch has printed `count` lines (or `seconds` pass).
    @discardableResult
    func waitForLines(_ process: BackgroundProcess, _ count: Int, seconds: Double = 30) -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        while lines(process).count < count && Date() < deadline && process.isRunning { usleep(50_000) }
        return lines(process)
    }

    /// SIGINT, as Ctrl-C sends it; the exit status once it has ended.
    func interrupt(_ process: BackgroundProcess) -> Int32? {
        kill(process.pid, SIGINT)
        defer { process.stop() }
        return process.waitForExit(seconds: 10)
    }

    /// A watch about 1.5 s into reading the fixture, whose DG2 reads each take `secondsPerRead`.
    func watchInsideDG2(secondsPerRead: Double) throws -> BackgroundProcess {
        try present(Self.passport, ["--no-extended-length", "--fault", "slow:\(secondsPerRead)@DG2/any:always"])
        let process = try watch(["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930", "--no-extended-length"])
        let deadline = Date().addingTimeInterval(20)
        while !process.stderr.contains("Waiting for a document") && Date() < deadline { usleep(50_000) }
        usleep(1_500_000)
        return process
    }

    func present(_ dump: URL, _ options: [String] = [], slot: Int = 0) throws {
        let r = try Harness.run(Harness.virtualPassportScript, ["start", dump.path, "--slot", "\(slot)"] + options, timeout: 60)
        try #require(r.status == 0, "virtual-passport start failed: \(r.stderr)")
    }

    func expectSame(_ line: [String: Any], as source: URL) throws {
        let scan = try #require(line["scan"] as? [String: Any], "\(line)")
        let dump = try DumpFolder(reading: URL(fileURLWithPath: try #require(scan["dump"] as? String)))
        let original = try DumpFolder(reading: source)
        for (file, bytes) in original.files { #expect(dump.files[file] == bytes, "\(file) differs from \(source.lastPathComponent)") }
        // Beyond the dump's files only EF.CardAccess, which the chip makes from its PACE settings.
        #expect(Set(dump.files.keys).subtracting(original.files.keys).subtracting([.cardAccess]).isEmpty)
    }

    /// Three documents in a row from a file of keys whose first key opens none of them: each is
    /// tried with it, refused, tried with the next; a document whose key is not in the file fails
    /// and the loop goes on; Ctrl-C between documents ends it with exit 0.
    @Test func documentsOneAfterAnother() throws {
        let keys = work.appendingPathComponent("keys.txt")
        try Data("# desk keys\nX00000000 000101 300101\n\(Self.key)\n".utf8).write(to: keys)
        try present(Self.passport)
        let process = try watch(["--access-keys", keys.path])
        try #require(waitForLines(process, 1).count == 1, "\(process.stderr)")
        try present(Self.pace, ["--pace", "--mapping", "cam"])  // another chip: PACE-CAM, with EF.CardSecurity
        try #require(waitForLines(process, 2).count == 2, "\(process.stderr)")
        try present(Self.pace, ["--pace", "--pace-refuse", "6985", "--no-bac"])  // a chip that refuses every key
        let all = waitForLines(process, 3)
        try #require(all.count == 3, "\(process.stderr)")
        #expect(interrupt(process) == 0)
        #expect(all.map { $0["sequence"] as? Int } == [1, 2, 3])
        #expect(all[0]["ok"] as? Bool == true && all[1]["ok"] as? Bool == true)
        try expectSame(all[0], as: Self.passport)
        try expectSame(all[1], as: Self.pace)
        #expect((all[1]["scan"] as? [String: Any])?["access_protocol"] as? String != "BAC")
        let error = try #require(all[2]["error"] as? [String: Any])
        #expect(all[2]["ok"] as? Bool == false && all[2]["scan"] is NSNull)
        #expect((error["message"] as? String)?.isEmpty == false, "\(error)")
        for line in all {
            let r = try Harness.schemaErrors(String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self), schema: "scan-watch-line")
            #expect(r == nil, "\(r ?? "")")
        }
        #expect(process.stderr.contains("Done: remove the document."))
        #expect(process.stderr.contains("3 document(s): 2 read and saved, 1 failed."))
    }

    /// Ctrl-C while a document is being read: nothing of it is saved (no dump, no partial folder),
    /// exit 0.
    @Test func ctrlCDuringAReadSavesNothing() throws {
        let process = try watchInsideDG2(secondsPerRead: 0.2)
        #expect(interrupt(process) == 0, "\(process.stderr)")
        #expect(lines(process).isEmpty, "\(process.stdout)")
        let saved = (try? FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("dumps").path)) ?? []
        #expect(saved.isEmpty, "\(saved)")
        #expect(process.stderr.contains("Stopping"))
        #expect(process.stderr.contains("0 document(s)"))
    }

    /// A second Ctrl-C does not wait for the read to stop: exit 130 at once.
    @Test func aSecondCtrlCLeavesAtOnce() throws {
        let process = try watchInsideDG2(secondsPerRead: 3)
        kill(process.pid, SIGINT)
        usleep(200_000)
        let started = Date()
        #expect(interrupt(process) == 130)
        #expect(Date().timeIntervalSince(started) < 2)
    }

    /// Two readers served at once, each document's line names its reader.
    @Test func twoReadersAtOnce() throws {
        try present(Self.passport)
        try present(Self.passport, slot: 1)
        let process = try watch(["--reader", "Virtual PCD 00 00", "--reader", "Virtual PCD 00 01",
                                 "--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"])
        let all = waitForLines(process, 2)
        #expect(interrupt(process) == 0)
        try #require(all.count == 2, "\(process.stderr)")
        #expect(Set(all.compactMap { $0["reader"] as? String }) == ["Virtual PCD 00 00", "Virtual PCD 00 01"])
        for line in all { try expectSame(line, as: Self.passport) }
    }

    /// The key asked per document on the terminal; the end of the input ends the watch (asked
    /// once the document has been taken away).
    @Test func keysAskedPerDocument() throws {
        try present(Self.passport)
        let eject = try BackgroundProcess("/bin/sh", ["-c", "sleep 4; \(Harness.virtualPassportScript.path) eject"], folder: work, name: "eject")
        defer { eject.stop() }
        let r = try Harness.passport(["scan", "--watch", "--json", "--mrz-prompt", "--out", work.appendingPathComponent("prompted").path],
                                     stdin: "\(Self.key)\n", timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let all = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(all.count == 1 && all.first?["ok"] as? Bool == true, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("MRZ of the next document"))
    }

    @Test func watchOptionsAreChecked() throws {
        let both = try Harness.passport(["scan", "--watch", "--mrz-prompt", "--can", "123456"])
        #expect(both.status == 2 && both.stderr.contains("one source of access keys"))
        let single = try Harness.passport(["scan", "--reader", "a", "--reader", "b", "--can", "123456"])
        #expect(single.status == 2 && single.stderr.contains("for --watch"))
        let badKeys = work.appendingPathComponent("bad.txt")
        try Data("C01X00T47 880412\n".utf8).write(to: badKeys)
        let r = try Harness.passport(["scan", "--watch", "--access-keys", badKeys.path, "--json"])
        #expect(r.status == 2 && (r.json?["error"] as? [String: Any])?["code"] as? String == "access_keys_file", "\(r.stdout)")
    }
}
}
