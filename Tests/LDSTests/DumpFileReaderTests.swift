import Foundation
import LDS
import LocalFiles
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
        #expect(throws: DumpFileError.notARegularFile(path: fifo.path, kind: "a named pipe")) { try DumpFileReader.read(fifo, limit: 1 << 20, inside: root) }
        #expect(throws: DumpFileError.notARegularFile(path: root.path, kind: "a folder")) { try DumpFileReader.read(root, limit: 1 << 20) }
        #expect(throws: DumpFileError.notARegularFile(path: "/dev/null", kind: "a character device")) {
            try DumpFileReader.read(URL(fileURLWithPath: "/dev/null"), limit: 1 << 20)
        }
    }

    @Test func linksAreFollowedOnlyInsideTheFolder() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let real = root.appendingPathComponent("real")
        try Data([1, 2, 3]).write(to: real)
        let inside = root.appendingPathComponent("inside")
        try FileManager.default.createSymbolicLink(atPath: inside.path, withDestinationPath: "real")
        #expect(try DumpFileReader.read(inside, limit: 1 << 20, inside: root) == [1, 2, 3])
        let elsewhere = try folder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let target = elsewhere.resolvingSymlinksInPath().appendingPathComponent("secret")
        try Data([9]).write(to: target)
        let outside = root.appendingPathComponent("outside")
        try FileManager.default.createSymbolicLink(atPath: outside.path, withDestinationPath: target.path)
        #expect(throws: DumpFileError.linkLeavesFolder(path: outside.path, target: target.path)) {
            try DumpFileReader.read(outside, limit: 1 << 20, inside: root)
        }
        // A file the user names directly may be a link: it is the user's own choice.
        #expect(try DumpFileReader.read(outside, limit: 1 << 20) == [9])
    }

    /// A file larger than its bound is refused from its size, before a byte is read (a sparse
    /// file: the test does not write the bytes either).
    @Test func sizesAreBoundedBeforeReading() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("DG2.bin")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data([0x75])))
        #expect(truncate(file.path, 300_000_000) == 0)
        #expect(throws: DumpFileError.tooLarge(path: file.path, size: 300_000_000, limit: 1 << 20)) {
            try DumpFolder(reading: root)
        }
        #expect(truncate(file.path, 10) == 0)
        #expect(try DumpFileReader.read(file, limit: 10).count == 10)
        #expect(throws: DumpFileError.tooLarge(path: file.path, size: 10, limit: 9)) { try DumpFileReader.read(file, limit: 9) }
        let message = DumpFileError.tooLarge(path: "DG2.bin", size: 300_000_000, limit: 1 << 20).description
        #expect(message.contains("1 MiB") && message.contains("300000000 bytes"))
    }

    /// The structured files have the smaller bound; an EF.SOD given alone, or any file given
    /// alone that is not a JSON export, is held to EF.SOD's.
    @Test func structuredFilesHaveTheSmallerBound() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let dg1 = root.appendingPathComponent("DG1.bin")
        #expect(FileManager.default.createFile(atPath: dg1.path, contents: Data([0x61])))
        #expect(truncate(dg1.path, off_t(FileSizeLimits.structuredFile + 1)) == 0)
        #expect(throws: DumpFileError.tooLarge(path: dg1.path, size: FileSizeLimits.structuredFile + 1, limit: 64 << 10)) {
            try DumpFolder(reading: root)
        }
        let sod = root.appendingPathComponent("big.sod")
        #expect(FileManager.default.createFile(atPath: sod.path, contents: Data([0x77])))
        #expect(truncate(sod.path, 1 << 20) == 0)
        #expect(throws: DumpFileError.tooLarge(path: sod.path, size: 1 << 20, limit: 64 << 10)) { try DumpSource.read(sod) }
        #expect(truncate(sod.path, off_t(FileSizeLimits.export + 1)) == 0)
        #expect(throws: DumpFileError.tooLarge(path: sod.path, size: FileSizeLimits.export + 1, limit: FileSizeLimits.export)) {
            try DumpSource.read(sod)
        }
    }

    /// The bounds add up as documented: eleven 1 MiB groups, ten 64 KiB files, two records.
    @Test func theDumpBoundIsTheSumOfItsFiles() {
        #expect(FileSizeLimits.dumpFolder == 11 * (1 << 20) + 10 * (64 << 10) + 2 * (256 << 10))
        #expect(FileSizeLimits.export > (FileSizeLimits.dumpFolder - 2 * FileSizeLimits.recordFile) * 4 / 3)
        #expect(FileSizeLimits.describe(1 << 20) == "1 MiB" && FileSizeLimits.describe(64 << 10) == "64 KiB")
        #expect(FileSizeLimits.describe(FileSizeLimits.export) == "15.7 MiB" && FileSizeLimits.describe(100) == "100 bytes")
    }

    /// A folder's listing gives each entry's kind from the folder itself (no stat per name), and
    /// reading a dump from a listing judges each entry as reading by path does: a regular file is
    /// read relative to the folder, a link inside it is followed, a named pipe is refused by kind.
    @Test func listingsGiveKindsAndReadAsPathsDo() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data([0x60, 0x00]).write(to: root.appendingPathComponent("COM.bin"))
        try Data([0x61, 0x01, 0x05]).write(to: root.appendingPathComponent("real"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("dg1.BIN").path, withDestinationPath: "real")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: false)
        #expect(mkfifo(root.appendingPathComponent("fifo").path, 0o600) == 0)
        let listing = try DumpFileReader.listing(of: root.path)
        let kinds = Dictionary(uniqueKeysWithValues: listing.entries.map { ($0.name, $0.kind) })
        #expect(kinds == ["COM.bin": .regular, "real": .regular, "dg1.BIN": .symbolicLink, "sub": .folder, "fifo": .other])
        let dump = try DumpFolder(listing: listing)
        #expect(dump.files == [.com: [0x60, 0x00], .dataGroup(1): [0x61, 0x01, 0x05]])
        #expect(dump.path == root.path)

        #expect(mkfifo(root.appendingPathComponent("DG2.bin").path, 0o600) == 0)
        let pipe = root.appendingPathComponent("DG2.bin").path
        #expect(throws: DumpFileError.notARegularFile(path: pipe, kind: "a named pipe")) {
            try DumpFolder(listing: DumpFileReader.listing(of: root.path))
        }
        #expect(throws: DumpFileError.unreadable(path: root.appendingPathComponent("none").path, reason: "No such file or directory")) {
            try DumpFileReader.listing(of: root.appendingPathComponent("none").path)
        }
    }

    /// A folder read through one open descriptor reads its regular files relative to it: once
    /// listed, swapping another folder in at its path changes nothing read (each file opened by
    /// its whole path would have read the other folder's). A link inside is still followed (by its
    /// path, as `read(path:)` does), and a named pipe listed as a file still refused by kind.
    @Test func anOpenFolderIsReadRelativeToItself() throws {
        let parent = try folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let root = parent.appendingPathComponent("dump")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
        try Data([0x60, 0x00]).write(to: root.appendingPathComponent("COM.bin"))
        try Data([0x75, 0x00]).write(to: root.appendingPathComponent("DG2.bin"))
        let open = try DumpFileReader.openFolder(root.path)
        try FileManager.default.moveItem(at: root, to: parent.appendingPathComponent("moved"))
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
        try Data([0x60, 0x01, 0x02]).write(to: root.appendingPathComponent("COM.bin"))
        try Data([0x75, 0x01, 0x02]).write(to: root.appendingPathComponent("DG2.bin"))
        let dump = try DumpFolder(folder: open)
        #expect(dump.files[.com] == [0x60, 0x00] && dump.files[.dataGroup(2)] == [0x75, 0x00])
        #expect(dump.path == root.path)
        // Closed (as a batch's search closes each folder on the thread that opened it), it reads
        // nothing more, with the system's reason, and closing again does no harm.
        open.close()
        open.close()
        #expect(throws: DumpFileError.unreadable(path: root.appendingPathComponent("COM.bin").path, reason: "Bad file descriptor")) {
            try DumpFolder(folder: open)
        }

        let piped = try folder()
        defer { try? FileManager.default.removeItem(at: piped) }
        try Data([0x60, 0x00]).write(to: piped.appendingPathComponent("COM.bin"))
        try Data([0x61, 0x01, 0x05]).write(to: piped.appendingPathComponent("real"))
        try FileManager.default.createSymbolicLink(atPath: piped.appendingPathComponent("DG1.bin").path, withDestinationPath: "real")
        #expect(try DumpFolder(folder: DumpFileReader.openFolder(piped.path)).files == [.com: [0x60, 0x00], .dataGroup(1): [0x61, 0x01, 0x05]])
        #expect(mkfifo(piped.appendingPathComponent("DG2.bin").path, 0o600) == 0)
        #expect(throws: DumpFileError.notARegularFile(path: piped.appendingPathComponent("DG2.bin").path, kind: "a named pipe")) {
            try DumpFolder(folder: DumpFileReader.openFolder(piped.path))
        }
        #expect(throws: DumpFileError.unreadable(path: piped.appendingPathComponent("none").path, reason: "No such file or directory")) {
            try DumpFileReader.openFolder(piped.appendingPathComponent("none").path)
        }
    }

    /// Of two spellings of one file the plain name wins, whatever the listing's order; of two
    /// names that differ only in case, the first listed; the BSI name before the FID one.
    @Test func thePlainSpellingIsPreferred() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let contents: [String: [UInt8]] = ["Datagroup1.bin": [1], "DG1.bin": [2], "ef0101.bin": [3], "dg1.bin": [4]]
        for (name, bytes) in contents { try Data(bytes).write(to: root.appendingPathComponent(name)) }
        func dg1(_ names: [String]) throws -> [UInt8]? {
            let listing = FolderListing(path: root.path, entries: names.map { FolderListing.Entry(name: $0, kind: .regular) })
            return try DumpFolder(listing: listing).files[.dataGroup(1)]
        }
        #expect(try dg1(["Datagroup1.bin", "dg1.bin", "DG1.bin"]) == [4])
        #expect(try dg1(["Datagroup1.bin", "DG1.bin", "dg1.bin"]) == [2])
        #expect(try dg1(["ef0101.bin", "Datagroup1.bin"]) == [1])
        #expect(try dg1(["ef0101.bin"]) == [3])
        #expect(DumpFolder.sizeLimit(forName: "EF_SOD.BIN") == FileSizeLimits.limit(for: .sod))
        #expect(DumpFolder.sizeLimit(forName: "MANIFEST.json") == FileSizeLimits.recordFile)
        #expect(DumpFolder.sizeLimit(forName: "notes.txt") == nil)
    }

    /// Images, biometrics and open-ended groups (DG2–DG10, DG12, DG13) may be 1 MiB; the
    /// structured files 64 KiB.
    @Test func eachFileHasTheBoundOfItsContent() {
        let large = LDSFile.all.filter { FileSizeLimits.limit(for: $0) == FileSizeLimits.largeFile }
        #expect(large == [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13].map { LDSFile.dataGroup($0) })
        #expect(LDSFile.all.allSatisfy { large.contains($0) || FileSizeLimits.limit(for: $0) == FileSizeLimits.structuredFile })
    }
}
