import Foundation
import LDS
import MRZ
import Testing
import TestSupport

@Suite struct BERTLV {
    @Test func parsesNestedObjectsAndMultiByteTags() throws {
        let bytes = hex("75 0B 7F61 08 02 01 01 5F2E 02 AB CD")
        let outer = try TLV.parse(bytes)
        #expect(outer.tag == 0x75)
        let inner = try #require(try outer.child(0x7F61))
        #expect(inner.isConstructed)
        let kids = try inner.children()
        #expect(kids.map(\.tag) == [0x02, 0x5F2E])
        #expect(Array(kids[1].value) == [0xAB, 0xCD])
    }

    @Test func longFormLengthsRoundTrip() throws {
        for length in [0, 1, 127, 128, 255, 256, 40_000, 70_000] {
            let value = [UInt8](repeating: 0x5A, count: length)
            let encoded = TLV.encode(tag: 0x5F2E, value: value)
            let parsed = try TLV.parse(encoded)
            #expect(parsed.value.count == length)
            #expect(parsed.encoded.count == encoded.count)
            #expect(try TLV.totalLength(ofObjectStartingWith: encoded.prefix(6)) == encoded.count)
        }
    }

    @Test func headerLengthNeedsCompleteHeader() throws {
        #expect(try TLV.totalLength(ofObjectStartingWith: hex("75 82 01")[...]) == nil)
        #expect(try TLV.totalLength(ofObjectStartingWith: hex("75 82 01 00")[...]) == 260)
    }

    @Test func indefiniteLengthBER() throws {
        // SEQUENCE (indefinite) { INTEGER 1, OCTET STRING 'AA' } end-of-contents
        let parsed = try TLV.parse(hex("30 80 02 01 01 04 01 AA 00 00"))
        #expect(try parsed.children().map(\.tag) == [0x02, 0x04])
        #expect(parsed.encoded.count == 10)
    }

    @Test func malformedInputThrowsInsteadOfCrashing() {
        let cases = ["75", "75 05 01", "5F", "75 85 01 02 03 04 05", "30 80 02 01", "04 80 00 00", "1F FF FF FF 7F 00"]
        for c in cases {
            #expect(throws: TLVError.self, "\(c)") { _ = try TLV.parseAll(hex(c)[...]) }
        }
    }

    /// Children read one at a time are `children()`'s, padding skipped alike; `child(_:)` is the
    /// first of a tag, and like `children()` it refuses a value whose later objects are malformed.
    @Test func childrenReadOneAtATimeAreTheSame() throws {
        let outer = try TLV.parse(hex("30 0F 02 01 01 00 FF 04 01 AA 02 01 02 A0 02 05 00"))
        var reader = outer.childReader()
        var read: [TLV] = []
        while let child = try reader.next() { read.append(child) }
        #expect(read == (try outer.children()))
        #expect(read.map(\.tag) == [0x02, 0x04, 0x02, 0xA0])
        var counted = outer.childReader()
        _ = try counted.next()
        #expect(try counted.remaining() == 3)
        #expect(try outer.child(0x02).map { Array($0.value) } == [0x01])
        #expect(try outer.child(0x05) == nil)
        let brokenLater = try TLV.parse(hex("30 06 02 01 01 04 05 AA"))
        #expect(throws: TLVError.self) { try brokenLater.child(0x02) }
        #expect(throws: TLVError.self) { try brokenLater.children() }
    }

    @Test func deeplyNestedIndefiniteLengthsAreBounded() {
        let bytes = [UInt8](repeating: 0x30, count: 1) + Array([0x80, 0x30].repeated(200).joined()) + [0x80]
        #expect(throws: TLVError.self) { _ = try TLV.parse(bytes) }
    }
}

extension Array {
    func repeated(_ n: Int) -> [[Element]] { Array<[Element]>(repeating: self, count: n) }
}

@Suite struct FixturePassport {
    let dump: DumpFolder
    let expected: [String: Any]

    init() throws {
        dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        let data = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("passport/expected.json"))
        expected = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    @Test func efCOMListsTheDataGroups() throws {
        let com = try EFCOM(bytes: try #require(dump.files[.com]))
        #expect(com.ldsVersion == "0107")
        #expect(com.unicodeVersion == "040000")
        #expect(com.dataGroups == [.dataGroup(1), .dataGroup(2), .dataGroup(11), .dataGroup(12), .dataGroup(14), .dataGroup(15)])
    }

    @Test func dg1HoldsTheTD3MRZ() throws {
        let dg1 = try DataGroup1(bytes: try #require(dump.files[.dataGroup(1)]))
        let mrz = try #require(expected["mrz"] as? [String: Any])
        #expect(dg1.mrz.format == .td3)
        #expect(dg1.mrz.lines == mrz["lines"] as? [String])
        #expect(dg1.mrz.primaryIdentifier == mrz["surname"] as? String)
        #expect(dg1.mrz.secondaryIdentifier == mrz["givenNames"] as? String)
        #expect(dg1.mrz.documentNumber == mrz["documentNumber"] as? String)
        #expect(dg1.mrz.accessKey.mrzInformation == mrz["bacKeySeedInput"] as? String)
        #expect(dg1.mrz.isValid)
    }

    @Test func issuingStateAloneAgreesWithTheFullParse() throws {
        let bytes = try #require(dump.files[.dataGroup(1)])
        #expect(DataGroup1.issuingState(in: bytes) == (try DataGroup1(bytes: bytes)).mrz.issuingState)
        func dg1(_ mrz: String) -> [UInt8] {
            let text = Array(mrz.utf8)
            return [0x61, UInt8(text.count + 3), 0x5F, 0x1F, UInt8(text.count)] + text
        }
        let german = "P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4"
        #expect(DataGroup1.issuingState(in: dg1(german)) == "D")
        #expect((try DataGroup1(bytes: dg1(german))).mrz.issuingState == "D")
        #expect(DataGroup1.issuingState(in: dg1("P<u7O")) == nil)   // not an MRZ code
        #expect(DataGroup1.issuingState(in: dg1("P<<<<")) == nil)   // no state at all
        #expect(DataGroup1.issuingState(in: [0x61, 0x03, 0x5F, 0x1F, 0x05]) == nil) // truncated
    }

    @Test func sodListsAHashForEveryDataGroup() throws {
        let sod = try SecurityObject(bytes: try #require(dump.files[.sod]))
        #expect(sod.contentType == "2.23.136.1.1.1")
        #expect(sod.hashAlgorithm == .sha256)
        #expect(sod.version == 0)
        #expect(sod.dataGroupHashes.keys.sorted() == [1, 2, 11, 12, 14, 15])
        #expect(sod.dataGroupHashes.values.allSatisfy { $0.count == 32 })
        #expect(sod.cms.count > 1000)
    }

    @Test func securityObjectVersionMustMatchItsVersionInformation() throws {
        // The fixture's LDSSecurityObject is version 0 without ldsVersionInfo: "02 01 00" before
        // its hash AlgorithmIdentifier "30 0B 06 09". Version 2, or 1 without the version
        // information (TR-03105 5.1 LDS_H_39, LDS_H_88), is not an LDSSecurityObject.
        let bytes = try #require(dump.files[.sod])
        let marker: [UInt8] = [0x02, 0x01, 0x00, 0x30, 0x0B, 0x06, 0x09]
        let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
        for version: UInt8 in [1, 2] {
            var changed = bytes
            changed[at + 2] = version
            #expect(throws: TLVError.self) { _ = try SecurityObject(bytes: changed) }
        }
        #expect(try SecurityObject(bytes: bytes).version == 0)
    }

    @Test func truncatedFilesAreRejected() throws {
        for file in [LDSFile.com, .dataGroup(1), .sod] {
            let bytes = try #require(dump.files[file])
            for cut in [1, bytes.count / 2, bytes.count - 1] {
                let truncated = Array(bytes.prefix(cut))
                #expect(throws: (any Error).self) {
                    switch file {
                    case .com: _ = try EFCOM(bytes: truncated)
                    case .sod: _ = try SecurityObject(bytes: truncated)
                    default: _ = try DataGroup1(bytes: truncated)
                    }
                }
            }
        }
    }
}

@Suite struct DumpFolders {
    @Test func writeIsAtomicAndReadsBack() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let destination = root.appendingPathComponent("scan")
        let files: [LDSFile: [UInt8]] = [.com: hex("6003 5C0161"), .dataGroup(1): [0x61, 0x00], .sod: [0x77, 0x00]]
        let manifest = DumpManifest(toolVersion: "test", createdAt: "2026-01-01T00:00:00Z", reader: "r",
                                    accessProtocol: "BAC", extendedLength: false, apdus: 3, seconds: 0.1,
                                    files: ["COM.bin": .init(size: 5, sha256: "x", apdus: 1, seconds: 0)])
        try DumpFolder.write(files: files, manifest: manifest, to: destination)
        let back = try DumpFolder(reading: destination)
        #expect(back.files == files)
        #expect(back.manifest == manifest)
        // Nothing else is left beside the dump (no temporary folder).
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["scan"])
        #expect(throws: DumpError.destinationExists(destination.path)) {
            try DumpFolder.write(files: files, manifest: manifest, to: destination)
        }
    }

    @Test(.enabled(if: TestPaths.reference != nil, "reference data absent"))
    func readsBSIAndFIDNamingStyles() throws {
        let reference = try #require(TestPaths.reference)
        let bsi = try DumpFolder(reading: reference.appendingPathComponent("lds/bsi-tr03105-5"))
        #expect(bsi.files.keys.sorted() == [.com, .dataGroup(1), .dataGroup(2), .dataGroup(3), .dataGroup(4), .dataGroup(14), .dataGroup(15), .sod])
        let fid = try DumpFolder(reading: reference.appendingPathComponent("lds/nl-specimen-2006"))
        #expect(fid.files.keys.sorted() == [.com, .dataGroup(1), .dataGroup(2), .dataGroup(15), .sod])
        for dump in [bsi, fid] {
            let com = try EFCOM(bytes: try #require(dump.files[.com]))
            #expect(!com.dataGroups.isEmpty)
            let dg1 = try DataGroup1(bytes: try #require(dump.files[.dataGroup(1)]))
            #expect(dg1.mrz.format == .td3)
            let sod = try SecurityObject(bytes: try #require(dump.files[.sod]))
            #expect(sod.dataGroupHashes[1] != nil)
        }
    }

    @Test(.enabled(if: TestPaths.reference != nil, "reference data absent"))
    func parsesRealWorldSODs() throws {
        let folder = try #require(TestPaths.reference).appendingPathComponent("sod-realworld")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".bin") }
        #expect(names.count == 12)  // the twelve states of ../shared/reference/README.md
        for name in names {
            let sod = try SecurityObject(bytes: [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))))
            #expect(sod.hashAlgorithm != nil, "\(name)")
            #expect(!sod.dataGroupHashes.isEmpty, "\(name)")
        }
    }
}
