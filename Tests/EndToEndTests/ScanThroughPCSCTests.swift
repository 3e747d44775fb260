import Foundation
import LDS
import Testing
import TestSupport

/// End to end through the real stack: pcscd + vpcd + the virtual passport (an independent
/// Python chip on python3-virtualsmartcard) + the `passport` executable.
extension VirtualPassportStack {
@Suite(.serialized)
final class ScanThroughPCSC {
    static let fixture = TestPaths.fixtures.appendingPathComponent("passport")
    static let keyArguments = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
    let work = Harness.temporaryFolder()

    // The virtual passport keeps running between tests (each start replaces the card);
    // scripts/test stops it at the end.
    deinit { try? FileManager.default.removeItem(at: work) }

    func expectDumpEqualsFixture(_ dump: URL, fixture: URL = ScanThroughPCSC.fixture) throws {
        let read = try DumpFolder(reading: dump)
        let original = try DumpFolder(reading: fixture)
        #expect(read.files.keys.sorted() == original.files.keys.sorted())
        for (file, bytes) in original.files {
            #expect(read.files[file] == bytes, "\(file) differs from the fixture")
        }
        let manifest = try #require(read.manifest)
        for (file, bytes) in original.files {
            let entry = try #require(manifest.files[file.fileName])
            #expect(entry.size == bytes.count)
            #expect(entry.sha256.count == 64)
        }
        // Personal data at rest: the folder 0700, its files 0600 (the test runs with umask 022).
        #expect(try Self.mode(dump) == 0o700, "dump folder mode")
        for name in try FileManager.default.contentsOfDirectory(atPath: dump.path) {
            #expect(try Self.mode(dump.appendingPathComponent(name)) == 0o600, "\(name) mode")
        }
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test(arguments: [true, false])
    func scanMatchesFixtureByteForByte(extendedLength: Bool) throws {
        try Harness.startVirtualPassport(Self.fixture, extendedLength ? [] : ["--no-extended-length"])
        let out = work.appendingPathComponent("dump")
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        let r = try Harness.passport(["scan", "--json", "--no-default-trust", "--csca", csca, "--out", out.path] + Self.keyArguments)
        try #require(r.status == 0, "scan failed: \(r.stderr)")
        try Harness.expectShape(r, "scan")
        let json = try #require(r.json)
        #expect(json["ok"] as? Bool == true)
        #expect(json["extended_length"] as? Bool == extendedLength)
        #expect(json["access_protocol"] as? String == "BAC")
        let document = try #require(json["document"] as? [String: Any])
        #expect(document["primary_identifier"] as? String == "SPECIMEN")
        #expect(document["birth_date"] as? String == "1988-04-12")
        #expect(document["expiry_date"] as? String == "2034-09-30")
        try expectDumpEqualsFixture(out)
        let apdus = try #require(json["apdus"] as? Int)
        // EF.CardAccess and EF.ATR/INFO (2, absent) + select + BAC (3) + one read per file with
        // extended length (8) + chip authentication (2) + active authentication (1); DG2 alone
        // needs ~100 short reads.
        if extendedLength { #expect(apdus <= 16) } else { #expect(apdus > 90) }
        #expect((json["chip_authentication"] as? [String: Any])?["status"] as? String == "passed")
        #expect((json["active_authentication"] as? [String: Any])?["status"] as? String == "passed")
        print("scan extended=\(extendedLength): \(apdus) APDUs, \(json["seconds"] ?? "?") s")
    }

    @Test func mrzOptionGivesTheSameKey() throws {
        try Harness.startVirtualPassport(Self.fixture)
        let mrz = try String(contentsOf: Self.fixture.appendingPathComponent("mrz.txt"), encoding: .utf8)
            .split(separator: "\n").joined(separator: "\\n")
        let out = work.appendingPathComponent("dump-mrz")
        let r = try Harness.passport(["scan", "--mrz", mrz, "--out", out.path])
        try #require(r.status == 0, "scan failed: \(r.stderr)")
        #expect(r.stdout.contains("SPECIMEN, ALEX MARIE"))
        #expect(r.stdout.contains(out.path))
        #expect(r.stderr.contains("Read DG2"))
        try expectDumpEqualsFixture(out)
    }

    @Test func photoOfTheDataPageGivesTheKey() throws {
        // A generated photo of this passport's data page (scripts/ocr/make-dataset --mrz ...):
        // camera image → Tesseract → MRZ → BAC → the same dump.
        try Harness.startVirtualPassport(Self.fixture)
        let photo = TestPaths.fixtures.appendingPathComponent("ocr/datapage-td3-uto.jpg")
        let out = work.appendingPathComponent("dump-photo")
        // A debug build is several times slower than the release build the default budget is for.
        let r = try Harness.passport(["scan", "--json", "--mrz-image", photo.path, "--time-budget", "20", "--out", out.path])
        try #require(r.status == 0, "scan failed: \(r.stderr)")
        #expect(r.stderr.contains("Read the MRZ from"))
        try expectDumpEqualsFixture(out)
    }

    @Test func scanVerifiesWhenTrustAnchorsAreGiven() throws {
        try Harness.startVirtualPassport(Self.fixture)
        let out = work.appendingPathComponent("verified")
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        let r = try Harness.passport(["scan", "--json", "--no-default-trust", "--csca", csca, "--out", out.path] + Self.keyArguments)
        #expect(r.status == 0, "\(r.stderr)")
        try Harness.expectShape(r, "scan")
        let pa = try #require(r.json?["passive_authentication"] as? [String: Any])
        #expect(pa["passed"] as? Bool == true)
        #expect(pa["chain"] as? String == "passed")

        // A passport whose data group was altered after signing: read fine, verification fails.
        try Harness.startVirtualPassport(TestPaths.fixtures.appendingPathComponent("pa/tampered-dg"))
        let out2 = work.appendingPathComponent("tampered")
        let r2 = try Harness.passport(["scan", "--no-default-trust", "--csca", csca, "--out", out2.path] + Self.keyArguments)
        #expect(r2.status == 1)
        #expect(r2.stdout.contains("Passive authentication: FAILED"))
        #expect(r2.stdout.contains("DG11: its SHA-256 hash does not match"))
        #expect(FileManager.default.fileExists(atPath: out2.path), "the recording is kept for inspection")
    }

    @Test func wrongBirthDateIsRefusedAndNothingIsSaved() throws {
        try Harness.startVirtualPassport(Self.fixture)
        let out = work.appendingPathComponent("wrong-key")
        let r = try Harness.passport(["scan", "--out", out.path, "--document-number", "C01X00T47",
                                      "--birth", "880413", "--expiry", "340930"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("refused the access key"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
        // The access key must not leak into the output.
        #expect(!r.stderr.contains("880413") && !r.stdout.contains("880413"))
    }

    @Test func cardPulledDuringDG2LeavesNoDump() throws {
        try Harness.startVirtualPassport(Self.fixture, ["--drop-during", "DG2", "--no-extended-length"])
        let out = work.appendingPathComponent("pulled")
        let r = try Harness.passport(["scan", "--json", "--resume-wait", "0", "--out", out.path] + Self.keyArguments, timeout: 60)
        #expect(r.status == 1)
        #expect(r.stderr.contains("left the reader while DG2"))
        try Harness.expectShape(r, "error")
        let json = try #require(r.json)
        #expect(json["ok"] as? Bool == false)
        #expect((json["error"] as? [String: Any])?["code"] as? String == "card_removed")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
    }

    @Test func noCardWithinTimeout() throws {
        try Harness.startVirtualPassport(Self.fixture)
        try Harness.virtualPassport("eject")
        let r = try Harness.passport(["scan", "--timeout", "2"] + Self.keyArguments, timeout: 30)
        #expect(r.status == 1)
        #expect(r.stderr.contains("No passport on"))
        #expect(r.seconds < 10)
    }

    @Test func readersListsTheVirtualReader() throws {
        try Harness.startVirtualPassport(Self.fixture)
        let r = try Harness.passport(["readers", "--json"])
        #expect(r.status == 0)
        try Harness.expectShape(r, "readers")
        let readers = try #require(r.json?["readers"] as? [[String: Any]])
        #expect(readers.contains { ($0["name"] as? String)?.contains("Virtual PCD") == true && $0["card_present"] as? Bool == true })
    }

    /// A data group over 32 KB: short reads must switch to READ BINARY B1 past offset 32767.
    @Test(arguments: [true, false])
    func largeFileNeedsOddInsReadBinary(extendedLength: Bool) throws {
        let dump = work.appendingPathComponent("large-src")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        for name in ["DG1.bin", "DG2.bin", "SOD.bin"] {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: dump.appendingPathComponent(name))
        }
        // EF.COM listing DG1, DG2 and a 40 KB DG5 (displayed portrait) of patterned bytes.
        try Data(hex("6015 5F0104 30313037 5F3606 303430303030 5C03 617565")).write(to: dump.appendingPathComponent("COM.bin"))
        let content = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try Data(TLV.encode(tag: 0x65, value: content)).write(to: dump.appendingPathComponent("DG5.bin"))

        try Harness.startVirtualPassport(dump, extendedLength ? [] : ["--no-extended-length"])
        let out = work.appendingPathComponent("large-out")
        let r = try Harness.passport(["scan", "--json", "--out", out.path] + Self.keyArguments)
        try #require(r.status == 0, "scan failed: \(r.stderr)")
        try expectDumpEqualsFixture(out, fixture: dump)
        print("40 KB DG5, extended=\(extendedLength): \(r.json?["apdus"] ?? "?") APDUs, \(r.json?["seconds"] ?? "?") s")
    }
}
}
