import Foundation
import LDS
import PassiveAuth
import Testing

/// `verify --recursive` finds dumps without following links to folders: a link back up the tree
/// once made the search go round until the path was too long, and end in the OS's raw error.
@Suite struct DumpDiscoveryTests {
    @Test func linksToFoldersAreNotFollowed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-\(UUID().uuidString)")
        let dump = root.appendingPathComponent("a")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data([0x77, 0x00]).write(to: dump.appendingPathComponent("SOD.bin"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("again").path, withDestinationPath: "a")
        #expect(try DumpDiscovery.dumps(under: root) == [dump.path])
    }

    /// Dumps at several depths come out sorted by path, whatever level the search found them at;
    /// hidden folders and folders without an EF.SOD are not dumps, and a dump folder is not
    /// searched further. Each is handed over open and listed.
    @Test func dumpsAtEveryDepthInPathOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for dump in ["b", "a/x", "a/y/z", ".hidden/d", "b/inner", "c-sod/EF_SOD"] {
            let folder = root.appendingPathComponent(dump)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data([0x77, 0x00]).write(to: folder.appendingPathComponent(dump.hasSuffix("EF_SOD") ? "ef_sod.BIN" : "SOD.bin"))
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty/deeper"), withIntermediateDirectories: true)
        let expected = ["a/x", "a/y/z", "b", "c-sod/EF_SOD"].map { root.appendingPathComponent($0).path }
        #expect(try DumpDiscovery.dumps(under: root) == expected)
        let listed = try DumpDiscovery.search(under: root) { found -> [String] in
            guard case .folder(let open) = found else { return [] }
            return open.listing.entries.map(\.name).sorted()
        }
        #expect(listed == [["SOD.bin"], ["SOD.bin"], ["SOD.bin", "inner"], ["ef_sod.BIN"]])
        #expect(throws: DumpError.notAFolder(root.appendingPathComponent("b/SOD.bin").path)) {
            try DumpDiscovery.dumps(under: root.appendingPathComponent("b/SOD.bin"))
        }
    }
}
