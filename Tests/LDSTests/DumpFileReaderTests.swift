import Foundation
import LDS
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// DumpFileReader refuses what is not a regular file before reading, by kind.
@Suite struct DumpFileReaderTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dump-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func kindsAreRefusedByName() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let fifo = root.appendingPathComponent("DG1.bin")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(throws: DumpFileError.notARegularFile(path: fifo.path, kind: "a named pipe")) { try DumpFileReader.read(fifo, inside: root) }
        #expect(throws: DumpFileError.notARegularFile(path: root.path, kind: "a folder")) { try DumpFileReader.read(root) }
        #expect(throws: DumpFileError.notARegularFile(path: "/dev/null", kind: "a character device")) {
            try DumpFileReader.read(URL(fileURLWithPath: "/dev/null"))
        }
    }

    @Test func linksAreFollowedOnlyInsideTheFolder() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let real = root.appendingPathComponent("real")
        try Data([1, 2, 3]).write(to: real)
        let inside = root.appendingPathComponent("inside")
        try FileManager.default.createSymbolicLink(atPath: inside.path, withDestinationPath: "real")
        #expect(try DumpFileReader.read(inside, inside: root) == [1, 2, 3])
        let elsewhere = try folder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let target = elsewhere.resolvingSymlinksInPath().appendingPathComponent("secret")
        try Data([9]).write(to: target)
        let outside = root.appendingPathComponent("outside")
        try FileManager.default.createSymbolicLink(atPath: outside.path, withDestinationPath: target.path)
        #expect(throws: DumpFileError.linkLeavesFolder(path: outside.path, target: target.path)) {
            try DumpFileReader.read(outside, inside: root)
        }
        // A file the user names directly may be a link: it is the user's own choice.
        #expect(try DumpFileReader.read(outside) == [9])
    }
}
