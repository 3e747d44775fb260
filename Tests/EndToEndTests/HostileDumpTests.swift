import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Dumps from strangers (issue 33): a file of a dump that is a named pipe, a link out of the
/// folder or a device is refused before it is read, by every command that reads dumps, with a
/// typed error (exit 1, code dump_file_refused) that names the file; never a hang, never
/// Foundation's own error text.
@Suite struct HostileDumps {
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    let work = Harness.temporaryFolder()

    /// A copy of the fixture passport whose DG2.bin is replaced by `make`.
    func dump(_ name: String, dg2 make: (URL) throws -> Void) throws -> URL {
        let folder = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fixture = TestPaths.fixtures.appendingPathComponent("passport")
        for file in try FileManager.default.contentsOfDirectory(atPath: fixture.path) where file.hasSuffix(".bin") && file != "DG2.bin" {
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        try make(folder.appendingPathComponent("DG2.bin"))
        return folder
    }

    func hostileDumps() throws -> [(URL, String)] {
        [
            (try dump("fifo") { #expect(mkfifo($0.path, 0o600) == 0) }, "named pipe"),
            (try dump("zero") { try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "/dev/zero") }, "outside the dump folder"),
            (try dump("outside") {
                try FileManager.default.createSymbolicLink(atPath: $0.path,
                                                           withDestinationPath: TestPaths.fixtures.appendingPathComponent("passport/DG2.bin").path)
            }, "outside the dump folder"),
            // Sparse: 300 MB long, nothing written; read whole before the size bound.
            (try dump("huge") { url in
                #expect(FileManager.default.createFile(atPath: url.path, contents: Data([0x75])))
                #expect(truncate(url.path, 300_000_000) == 0)
            }, "more than the 1 MiB such a file may hold"),
        ]
    }

    @Test func everyCommandRefusesAHostileFileByName() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        for (folder, kind) in try hostileDumps() {
            let runs: [[String]] = [
                ["verify", folder.path, "--csca", Self.csca, "--json"],
                ["convert", folder.path, work.appendingPathComponent("converted-\(folder.lastPathComponent)").path],
                ["show", folder.path, "--json"],
                ["photo", folder.path, "--out", work.appendingPathComponent("face.png").path, "--json"],
            ]
            for arguments in runs {
                let r = try Harness.passport(arguments, timeout: 30)
                let what = "passport \(arguments[0]) on \(folder.lastPathComponent)"
                #expect(r.status == 1, "\(what): exit \(r.status) \(r.stderr)")
                if arguments.contains("--json") {  // convert has no --json: its message is on stderr
                    let error = try #require(r.json?["error"] as? [String: Any], "\(what): \(r.stdout)")
                    #expect(error["code"] as? String == "dump_file_refused", "\(what)")
                }
                #expect(r.stderr.contains("DG2.bin") && r.stderr.contains(kind), "\(what): \(r.stderr)")
                for raw in ["Error Domain=", "NSCocoaErrorDomain", "NSPOSIXErrorDomain"] {
                    #expect(!r.stdout.contains(raw) && !r.stderr.contains(raw), "\(what): \(r.stderr)")
                }
            }
        }
    }

    /// The error paths of the commands that read or write files a person names: each ends in one
    /// of our messages, never in Foundation's or the OS's raw error text.
    @Test func errorPathsSpeakOurLanguage() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let fifo = work.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let missing = work.appendingPathComponent("missing").path
        let unwritable = "/proc/no-such-folder/out"
        let fixture = TestPaths.fixtures.appendingPathComponent("passport").path
        let environment = ["XDG_CONFIG_HOME": work.appendingPathComponent("config").path,
                           "XDG_CACHE_HOME": work.appendingPathComponent("cache").path]
        let runs: [[String]] = [
            ["trust", "import", missing], ["trust", "import", fifo.path], ["trust", "import", work.path],
            ["verify", missing, "--csca", Self.csca], ["show", fifo.path], ["convert", fixture, unwritable],
            ["photo", fixture, "--out", unwritable], ["convert", missing, work.appendingPathComponent("c").path],
            ["prove", fixture, "--csca", Self.csca, "--export", unwritable, "--current-date", "2026-11-24T12:00:00Z"],
        ]
        for arguments in runs {
            let r = try Harness.passport(arguments, environment: environment, timeout: 30)
            let what = "passport \(arguments.joined(separator: " "))"
            #expect(r.status == 1 || r.status == 2, "\(what): exit \(r.status)")
            #expect(r.stderr.hasPrefix("error: ") || r.stderr.contains("\nerror: "), "\(what): \(r.stderr)")
            for raw in ["Error Domain=", "NSCocoaErrorDomain", "NSPOSIXErrorDomain", "UserInfo="] {
                #expect(!r.stderr.contains(raw), "\(what): \(r.stderr)")
            }
        }
    }

    /// A batch over a tree with a link back up it and a hostile dump: the search ends, the good
    /// dump passes, the hostile one is refused on its own line, the batch exits 1.
    @Test func aBatchOverAHostileTreeEnds() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let tree = work.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("passport"), to: tree.appendingPathComponent("good"))
        let fifo = try dump("tree/fifo") { #expect(mkfifo($0.path, 0o600) == 0) }
        try FileManager.default.createSymbolicLink(atPath: tree.appendingPathComponent("up").path, withDestinationPath: "..")
        let r = try Harness.passport(["verify", "--recursive", tree.path, "--csca", Self.csca, "--json"], timeout: 60)
        #expect(r.status == 1, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 2, "\(r.stdout)")
        #expect(lines.first { $0["dump"] as? String == tree.appendingPathComponent("good").path }?["ok"] as? Bool == true)
        #expect((lines.first { $0["dump"] as? String == fifo.path }?["error"] as? [String: Any])?["code"] as? String == "dump_file_refused", "\(r.stdout)")
    }

    @Test func aLinkInsideTheFolderIsFollowed() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let folder = try dump("inside") { link in
            let real = link.deletingLastPathComponent().appendingPathComponent("dg2-original")
            try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("passport/DG2.bin"), to: real)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "dg2-original")
        }
        let r = try Harness.passport(["verify", folder.path, "--csca", Self.csca], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func aDeviceGivenAsTheDumpIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let r = try Harness.passport(["verify", "/dev/zero", "--csca", Self.csca, "--json"], timeout: 30)
        #expect(r.status == 1)
        #expect((r.json?["error"] as? [String: Any])?["message"] as? String == "/dev/zero is a character device, not a file: a dump holds regular files only. Nothing was read from it.")
    }
}
