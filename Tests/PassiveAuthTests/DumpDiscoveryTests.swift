import Foundation
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
}
