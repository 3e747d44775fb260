@testable import Desk
import Foundation
import LDS
import Testing
import TestSupport

/// Dumps uploaded to the desk: zips written here byte by byte (stored entries, and raw deflate
/// streams of stored blocks, which zlib inflates), each hostile shape refused with its reason.
@Suite struct DumpUploadTests {
    struct Entry {
        var name: String
        var data: [UInt8]
        var method = 0
        var unixMode: UInt32 = 0o100644
        var flags = 0
        var declaredSize: Int?
        var crc: UInt32?
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }

    /// A raw deflate stream of stored blocks (BTYPE 00, at most 65535 bytes each).
    static func storedDeflate(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let chunk = Array(data[start..<min(start + 65535, data.count)])
            start += chunk.count
            out += [start >= data.count ? 0x01 : 0x00] + le16(chunk.count) + le16(~chunk.count & 0xFFFF) + chunk
        } while start < data.count
        return out
    }

    static func zip(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let payload = entry.method == 8 ? storedDeflate(entry.data) : entry.data
            let crc = entry.crc ?? CRC32.of(entry.data)
            let size = UInt32(entry.declaredSize ?? entry.data.count)
            let name = Array(entry.name.utf8)
            let offset = UInt32(out.count)
            out += le32(0x0403_4b50) + le16(20) + le16(entry.flags) + le16(entry.method) + le16(0) + le16(0)
            out += le32(crc) + le32(UInt32(payload.count)) + le32(size) + le16(name.count) + le16(0) + name + payload
            central += le32(0x0201_4b50) + le16(3 << 8 | 20) + le16(20) + le16(entry.flags) + le16(entry.method) + le16(0) + le16(0)
            central += le32(crc) + le32(UInt32(payload.count)) + le32(size) + le16(name.count) + le16(0) + le16(0) + le16(0) + le16(0)
            central += le32(entry.unixMode << 16) + le32(offset) + name
        }
        let start = UInt32(out.count)
        return out + central + le32(0x0605_4b50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
            + le32(UInt32(central.count)) + le32(start) + le16(0)
    }

    static let fixture = TestPaths.fixtures.appendingPathComponent("passport")
    static func file(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: fixture.appendingPathComponent(name))) }

    @Test func aZipOfADumpFolderIsReadInStoredAndDeflatedEntries() throws {
        var entries: [Entry] = []
        for (index, name) in ["COM.bin", "DG1.bin", "DG2.bin", "SOD.bin"].enumerated() {
            entries.append(Entry(name: "dump/\(name)", data: try Self.file(name), method: index % 2 == 0 ? 8 : 0))
        }
        entries.append(Entry(name: "dump/", data: [], unixMode: 0o040755))
        entries.append(Entry(name: "dump/notes.txt", data: Array("not a dump file".utf8)))
        let files = try DumpUpload.files(zip: Self.zip(entries))
        #expect(Set(files.keys) == ["COM.bin", "DG1.bin", "DG2.bin", "SOD.bin"])
        #expect(files["DG2.bin"] == (try Self.file("DG2.bin")))
        let dump = try DumpUpload.dump(named: files, label: "dump.zip")
        #expect(dump.files[.sod] == (try Self.file("SOD.bin")))
    }

    @Test func hostileEntriesAreRefusedWithTheirReason() throws {
        let sod = try Self.file("SOD.bin")
        let cases: [(Entry, (UploadError) -> Bool)] = [
            (Entry(name: "../SOD.bin", data: sod), { if case .unsafeName = $0 { true } else { false } }),
            (Entry(name: "dump/../../SOD.bin", data: sod), { if case .unsafeName = $0 { true } else { false } }),
            (Entry(name: "/etc/SOD.bin", data: sod), { if case .unsafeName = $0 { true } else { false } }),
            (Entry(name: "dump\\SOD.bin", data: sod), { if case .unsafeName = $0 { true } else { false } }),
            (Entry(name: "dump/SOD.bin", data: Array("/etc/shadow".utf8), unixMode: 0o120777), { if case .specialFile = $0 { true } else { false } }),
            (Entry(name: "dump/SOD.bin", data: [], unixMode: 0o010644), { if case .specialFile = $0 { true } else { false } }),
            (Entry(name: "dump/SOD.bin", data: sod, flags: 1), { if case .encrypted = $0 { true } else { false } }),
            (Entry(name: "dump/SOD.bin", data: sod, method: 12), { if case .unsupportedMethod = $0 { true } else { false } }),
            (Entry(name: "dump/SOD.bin", data: sod, crc: 0x1234_5678), { if case .damaged = $0 { true } else { false } }),
            (Entry(name: "dump/DG1.bin", data: sod, declaredSize: 100 << 20), { if case .tooLarge = $0 { true } else { false } }),
            // A deflated entry that says it is small but inflates past the file's bound.
            (Entry(name: "dump/DG1.bin", data: [UInt8](repeating: 0, count: 65000) + [UInt8](repeating: 1, count: 1000), method: 8, declaredSize: 10),
             { if case .tooLarge = $0 { true } else { false } }),
        ]
        for (entry, expected) in cases {
            #expect(throws: UploadError.self, "\(entry.name)") { try DumpUpload.files(zip: Self.zip([entry])) }
            do { _ = try DumpUpload.files(zip: Self.zip([entry])) } catch let error as UploadError {
                #expect(expected(error), "\(entry.name): \(error)")
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func twoEntriesForOneFileAreRefused() throws {
        let sod = try Self.file("SOD.bin")
        #expect(throws: UploadError.duplicate("sod.bin")) {
            try DumpUpload.files(zip: Self.zip([Entry(name: "a/SOD.bin", data: sod), Entry(name: "b/sod.bin", data: sod)]))
        }
    }

    @Test func notAZipAndTooManyEntries() throws {
        #expect(throws: UploadError.notAZip("no end of central directory")) { try DumpUpload.files(zip: Array(repeating: 0x41, count: 100)) }
        #expect(throws: UploadError.notAZip("too short")) { try DumpUpload.files(zip: [0x50, 0x4B]) }
        let many = (0...DumpUpload.maxEntries).map { Entry(name: "x\($0).txt", data: []) }
        #expect(throws: UploadError.tooManyEntries(DumpUpload.maxEntries + 1, limit: DumpUpload.maxEntries)) { try DumpUpload.files(zip: Self.zip(many)) }
    }

    @Test func filesAsJSONAreBoundedAndNamedByTheirBaseName() throws {
        let sod = try Self.file("SOD.bin"), dg1 = try Self.file("DG1.bin")
        func body(_ files: [(String, String)]) -> [UInt8] {
            Array(try! JSONSerialization.data(withJSONObject: ["files": files.map { ["name": $0.0, "data": $0.1] }]))
        }
        let files = try DumpUpload.files(json: body([("dump/SOD.bin", Data(sod).base64EncodedString()), ("dump/DG1.bin", Data(dg1).base64EncodedString()),
                                                     ("dump/readme.txt", "aGVsbG8=")]))
        #expect(Set(files.keys) == ["SOD.bin", "DG1.bin"])
        #expect(throws: UploadError.unsafeName("../SOD.bin")) { try DumpUpload.files(json: body([("../SOD.bin", "AA==")])) }
        let big = Data(count: FileSizeLimits.structuredFile + 1).base64EncodedString()
        #expect(throws: UploadError.tooLarge(name: "DG1.bin", limit: FileSizeLimits.structuredFile)) { _ = try DumpUpload.files(json: body([("DG1.bin", big)])) }
        #expect(throws: UploadError.self) { try DumpUpload.files(json: Array("{\"files\": 3}".utf8)) }
        // One file that is no folder's: an EF.SOD on its own, read as a dump of the SOD alone.
        let single = try DumpUpload.dump(named: try DumpUpload.files(json: body([("EF.SOD", Data(sod).base64EncodedString())])), label: "EF.SOD")
        #expect(single.files.keys.map(\.name) == ["SOD"])
        #expect(throws: UploadError.empty) { try DumpUpload.dump(named: [:], label: "x") }
    }
}
