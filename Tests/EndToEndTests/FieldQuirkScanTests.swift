import Foundation
import LDS
import Testing
import TestSupport

/// Chip behaviours reported from the field (`--quirk`, listed with their sources in
/// emulator/vpassport/README.md), read end to end through pcscd and through libnfc: each ends in
/// a dump byte-identical to what the chip serves (exit 0), or, for a broken access-control
/// answer, in a message naming the step and the status (exit 1, nothing saved).
extension VirtualPassportStack {
@Suite(.serialized)
final class FieldQuirkScans {
    static let fixture = TestPaths.fixtures.appendingPathComponent("passport")
    static let paceFixture = TestPaths.fixtures.appendingPathComponent("passport-pace")
    static let keyArguments = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
    static let trustArguments = ["--no-default-trust", "--csca", TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path]
    let work = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: work) }

    enum Reader: String, CaseIterable, Sendable { case pcsc, libnfc }

    /// Starts the chip on `reader` and scans it (verbose, so every APDU's status is on stderr).
    func scan(_ chip: [String], _ options: [String] = [], on reader: Reader = .pcsc,
              dump: URL = FieldQuirkScans.fixture, timeout: Double = 60) throws -> (Harness.Result, URL) {
        var readerArguments: [String] = []
        switch reader {
        case .pcsc:
            try Harness.startVirtualPassport(dump, chip)
        case .libnfc:
            let r = try Harness.run(Harness.virtualPassportScript, ["start", dump.path, "--pn532"] + chip, timeout: 60)
            try #require(r.status == 0, "virtual-passport --pn532 failed: \(r.stderr)")
            readerArguments = ["--nfc", try #require(r.stdout.split(separator: "\n").last.map(String.init))]
        }
        let out = work.appendingPathComponent(UUID().uuidString)
        let r = try Harness.passport(["scan", "--json", "--verbose", "--out", out.path] + readerArguments + options
                                     + (options.contains("--can") ? [] : Self.keyArguments), timeout: timeout)
        return (r, out)
    }

    /// Exit 0 and the dump holds exactly the files the chip serves: the fixture's, with `served`
    /// replacing those the quirk changes, without `notRead` (EF.CardSecurity after BAC).
    /// A PACE chip builds EF.CardAccess from its options and signs its SecurityInfos into
    /// EF.CardSecurity again (`resigned`: read, not compared with the fixture's); EF.ATR/INFO
    /// comes from `--quirk atr-info`.
    func expectServedFiles(_ r: Harness.Result, _ out: URL, fixture: URL = FieldQuirkScans.fixture,
                           served: [LDSFile: [UInt8]] = [:], notRead: Set<LDSFile> = [], resigned: Set<LDSFile> = [],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(r.status == 0, "scan failed (exit \(r.status)): \(r.stderr.suffix(1500))", sourceLocation: sourceLocation)
        let read = try DumpFolder(reading: out), original = try DumpFolder(reading: fixture)
        #expect(Set(read.files.keys).subtracting([.cardAccess, .atrInfo]) == Set(original.files.keys).subtracting(notRead), sourceLocation: sourceLocation)
        for (file, bytes) in original.files where !notRead.contains(file) && !resigned.contains(file) {
            #expect(read.files[file] == (served[file] ?? bytes), "\(file) is not what the chip serves", sourceLocation: sourceLocation)
        }
    }

    /// The same object with its outer length in indefinite form: tag, 80, value, 00 00.
    static func indefinite(_ bytes: [UInt8]) throws -> [UInt8] {
        let object = try TLV.parse(bytes)
        let tagLength = bytes[0] & 0x1F == 0x1F ? 2 : 1
        return Array(bytes.prefix(tagLength)) + [0x80] + Array(object.value) + [0x00, 0x00]
    }

    static func fixtureFile(_ file: LDSFile, of dump: URL = fixture) throws -> [UInt8] {
        try #require(try DumpFolder(reading: dump).files[file])
    }

    /// Exchanges of `instruction` (as the verbose log names it) answered with `status`.
    static func answers(_ r: Harness.Result, _ instruction: String, _ status: String) -> Int {
        r.stderr.split(separator: "\n").filter { $0.hasPrefix("APDU ") && $0.contains(": \(instruction)") && $0.contains("→ \(status)") }.count
    }

    // MARK: files as real chips store them

    /// US passports store EF.SOD with an indefinite outer length; the scan keeps it as stored and
    /// passive authentication still passes.
    @Test(arguments: Reader.allCases)
    func indefiniteLengthSOD(reader: Reader) throws {
        let (r, out) = try scan(["--quirk", "indefinite-length"], Self.trustArguments, on: reader)
        try expectServedFiles(r, out, served: [.sod: try Self.indefinite(try Self.fixtureFile(.sod))])
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true, "\(r.stdout)")
    }

    @Test func indefiniteLengthCOMStillListsTheDataGroups() throws {
        let (r, out) = try scan(["--quirk", "indefinite-length:COM"])
        try expectServedFiles(r, out, served: [.com: try Self.indefinite(try Self.fixtureFile(.com))])
    }

    /// Older applets answer READ BINARY by short EF identifier with 6985 or 6986: every file,
    /// EF.CardAccess too, is selected by its identifier and read.
    @Test(arguments: ["sfi-refused", "sfi-refused:6986"])
    func shortFileIdentifiersRefused(quirk: String) throws {
        let (r, out) = try scan(["--quirk", quirk])
        try expectServedFiles(r, out)
        #expect(Self.answers(r, "SELECT", "9000") >= 8, "files not selected by identifier")
        // EF.CardAccess is tried twice in plain (before and after selecting the master file),
        // EF.ATR/INFO once (its absence and a refused SFI look alike), EF.COM once; learned from
        // that, later files are selected without trying the SFI first.
        #expect(Self.answers(r, "READ BINARY", quirk == "sfi-refused" ? "6985" : "6986") == 4)
    }

    @Test func shortFileIdentifiersRefusedOnAPACEChip() throws {
        let (r, out) = try scan(["--pace", "--quirk", "sfi-refused"], ["--can", "123456"], dump: Self.paceFixture)
        try expectServedFiles(r, out, fixture: Self.paceFixture, resigned: [.cardSecurity])
        #expect((r.json?["access_protocol"] as? String)?.hasPrefix("PACE") == true, "EF.CardAccess was not found: \(r.stderr.suffix(800))")
    }

    /// A chip whose EF.ATR/INFO says it answers at most 1024 bytes (and refuses longer answers
    /// with 6700): every read stays within that, the file is saved, and it is no problem.
    @Test func efATRInfoBoundsEveryRead() throws {
        let atrInfo = "7F66080202040002020400"
        let (r, out) = try scan(["--quirk", "atr-info:" + atrInfo])
        try expectServedFiles(r, out)
        #expect(try DumpFolder(reading: out).files[.atrInfo] == hex(atrInfo))
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("APDU ") && $0.contains("6700") }.isEmpty,
                "a read beyond the chip's bound: \(r.stderr.suffix(1500))")
        #expect(Self.answers(r, "READ BINARY", "9000") > 15, "DG2 read in answers of 1 KB at most")
        #expect(r.json?["problems"] == nil, "\(r.stdout.prefix(800))")
    }

    @Test func comListsFilesTheChipDoesNotHold() throws {
        let (r, out) = try scan(["--quirk", "com-unknown-tags"])
        try #require(r.status == 0, "\(r.stderr.suffix(800))")
        let read = try DumpFolder(reading: out)
        let com = try EFCOM(bytes: try #require(read.files[.com]))
        #expect(com.dataGroups.contains(.dataGroup(3)) && com.dataGroups.contains(.dataGroup(16)))
        let unavailable = try #require(read.manifest?.unavailable)
        #expect(Set(unavailable.keys) == ["DG3.bin", "DG16.bin"], "\(unavailable)")
        for (file, bytes) in try DumpFolder(reading: Self.fixture).files where file != .com {
            #expect(read.files[file] == bytes, "\(file) differs")
        }
    }

    @Test(arguments: ["no-card-access", "no-card-access:6982"])
    func noCardAccess(quirk: String) throws {
        let (r, out) = try scan(["--quirk", quirk])
        try expectServedFiles(r, out)
        #expect(r.json?["access_protocol"] as? String == "BAC")
    }

    // MARK: read sizes

    /// A chip that refuses READ BINARY above 160 or 192 bytes: one refusal per size tried, then
    /// the size that worked is kept for the rest of the scan, through chip authentication's new
    /// session too.
    @Test(arguments: [(160, 4), (192, 3)])
    func readCap(cap: Int, refusals: Int) throws {
        let (r, out) = try scan(["--quirk", "read-cap:\(cap)"])
        try expectServedFiles(r, out)
        #expect(Self.answers(r, "READ BINARY", "6700") == refusals, "refusals: \(Self.answers(r, "READ BINARY", "6700"))")
    }

    @Test(arguments: Reader.allCases)
    func readCapThroughEitherReader(reader: Reader) throws {
        let (r, out) = try scan(["--quirk", "read-cap:160"], on: reader)
        try expectServedFiles(r, out)
    }

    @Test func shortAnswersAreCompletedWithMoreReads() throws {
        let (r, out) = try scan(["--quirk", "short-answers:100"])
        try expectServedFiles(r, out)
    }

    /// The ATR claims extended length, the card's runtime answers extended APDUs with a plain
    /// 6700 below secure messaging: a new session, short APDUs for the rest of the scan.
    @Test(arguments: Reader.allCases)
    func runtimeRefusesExtendedLength(reader: Reader) throws {
        let (r, out) = try scan(["--quirk", "runtime-6700"], on: reader)
        try expectServedFiles(r, out)
        #expect(r.json?["extended_length"] as? Bool == false)
        #expect(r.stderr.contains("refused an extended-length command (plain 6700) while reading COM"), "\(r.stderr.suffix(800))")
        #expect(Self.answers(r, "READ BINARY", "6700") == 1)
    }

    // MARK: active authentication

    @Test(arguments: Reader.allCases)
    func activeAuthenticationThroughGetResponse(reader: Reader) throws {
        let (r, out) = try scan(["--quirk", "aa-get-response"], on: reader)
        try expectServedFiles(r, out)
        #expect((r.json?["active_authentication"] as? [String: Any])?["status"] as? String == "passed", "\(r.stdout)")
        #expect(Self.answers(r, "INTERNAL AUTHENTICATE", "61") == 1 && r.stderr.contains(": GET RESPONSE"))
    }

    @Test func activeAuthenticationWithoutAnswerToLe0000() throws {
        let (r, out) = try scan(["--quirk", "aa-le"])
        try expectServedFiles(r, out)
        #expect((r.json?["active_authentication"] as? [String: Any])?["status"] as? String == "passed", "\(r.stdout)")
    }

    // MARK: access control

    /// After a failed protocol the chip refuses GET CHALLENGE until it is reset: chip
    /// authentication's retry and a lost session's recovery reset the card first.
    @Test(arguments: Reader.allCases)
    func stickyAuthenticationAfterAFailedChipAuthentication(reader: Reader) throws {
        let (r, out) = try scan(["--quirk", "sticky-auth", "--fault", "bad-mac@DG1/0"], on: reader)
        try expectServedFiles(r, out)
        #expect((r.json?["chip_authentication"] as? [String: Any])?["status"] as? String == "unverified", "\(r.stdout)")
        #expect(Self.answers(r, "GET CHALLENGE", "6982") == 0)
    }

    @Test func stickyAuthenticationAfterALostSession() throws {
        let (r, out) = try scan(["--quirk", "sticky-auth", "--no-extended-length", "--fault", "bad-mac@DG2"])
        try expectServedFiles(r, out)
        #expect(r.stderr.contains("Session lost while reading DG2"))
    }

    /// PACE offered, MSE:Set AT or GENERAL AUTHENTICATE refused: BAC reads the chip (after a
    /// reset, which a sticky chip needs), and the fallback is recorded.
    @Test(arguments: [["--quirk", "pace-refused:6A80"], ["--quirk", "pace-refused:6A80/ga", "--quirk", "sticky-auth"]])
    func paceRefusedFallsBackToBAC(quirks: [String]) throws {
        let (r, out) = try scan(["--pace"] + quirks, dump: Self.paceFixture)
        try expectServedFiles(r, out, fixture: Self.paceFixture, notRead: [.cardSecurity])
        #expect(r.json?["access_protocol"] as? String == "BAC")
        #expect((r.json?["pace_fallback"] as? [String: Any])?["failure"] as? String != nil, "\(r.stdout)")
    }

    /// A chip whose DG14 offers chip authentication and refuses it fails it (a copy without the
    /// private key could refuse too): the step and the status are named, not a file.
    @Test func chipAuthenticationRefused() throws {
        let (r, out) = try scan(["--quirk", "ca-refused:6D00"])
        #expect(r.status == 1)
        let detail = (r.json?["chip_authentication"] as? [String: Any])?["detail"] as? String ?? ""
        #expect(detail.hasPrefix("Chip authentication: the chip answered 6D00"), "\(r.stdout)")
        #expect(detail.contains("to MSE:Set"))
        #expect(!r.stderr.contains("Session lost while reading"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.path), "the dump is kept for inspection")
    }

    /// Only 6300 and 6982 mean a wrong key; 6F00, or the 6A88 German passports of 2020-2023
    /// answer a MUTUAL AUTHENTICATE they do not like with, is named as what it is.
    @Test(arguments: ["6F00", "6A88"])
    func mutualAuthenticateErrorIsNotAWrongKey(status: String) throws {
        let (r, out) = try scan(["--quirk", "mutual-auth-error:\(status)"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("MUTUAL AUTHENTICATE (BAC) with \(status)"), "\(r.stderr)")
        #expect(!r.stderr.contains("does not match"))
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "chip_error")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func mutualAuthenticate6300IsAWrongKey() throws {
        let (r, out) = try scan(["--quirk", "mutual-auth-error:6300"])
        #expect(r.status == 1)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "access_denied", "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: faults independent chips showed (issue 39)

    /// A chip that derived other keys answers the first command under chip authentication's keys
    /// with a bare 6985. Under secure messaging that proves nothing: chip authentication fails,
    /// the rest is read in a new session and saved, exit 1, evidence.json records it.
    @Test func aBareStatusWordUnderTheNewKeysFailsChipAuthentication() throws {
        let (r, out) = try scan(["--ca-wrong-key", "--quirk", "sm-error:6985"], Self.trustArguments)
        #expect(r.status == 1, "\(r.stderr.suffix(800))")
        let detail = (r.json?["chip_authentication"] as? [String: Any])?["detail"] as? String ?? ""
        #expect(detail.hasPrefix("chip authentication failed: the chip answered the first command under the new keys without secure messaging (6985"), "\(detail)")
        #expect(!r.stderr.contains("did not provide"), "\(r.stderr.suffix(800))")
        let read = try DumpFolder(reading: out)
        for (file, bytes) in try DumpFolder(reading: Self.fixture).files {
            #expect(read.files[file] == bytes, "\(file) is missing or differs")
        }
        #expect(try ChipEvidence(json: try #require(read.evidence)).chipAuthentication?.status == "failed")
        #expect(read.manifest?.chipAuthentication == "failed")
    }

    /// EF.CardAccess of an ID card: 600-odd bytes of SecurityInfos. It is read to its encoded
    /// length with short and with extended APDUs, and PACE opens the chip (which has no BAC)
    /// with the CAN and with the MRZ.
    @Test(arguments: [(true, "can"), (false, "can"), (false, "mrz")])
    func aCardAccessOfMoreThan256Bytes(extendedLength: Bool, password: String) throws {
        let chip = ["--pace", "--no-bac", "--quirk", "large-card-access"] + (extendedLength ? [] : ["--no-extended-length"])
        let (r, out) = try scan(chip, (password == "can" ? ["--can", "123456"] : []) + Self.trustArguments, dump: Self.paceFixture)
        try expectServedFiles(r, out, fixture: Self.paceFixture, resigned: [.cardSecurity])
        #expect((r.json?["access_protocol"] as? String)?.hasPrefix("PACE") == true, "\(r.stdout.prefix(400))")
        // The issuer signed all of EF.CardAccess into EF.CardSecurity: passive authentication compares them.
        let cardSecurity = (r.json?["passive_authentication"] as? [String: Any])?["card_security"] as? [String: Any]
        #expect(cardSecurity?["holds_card_access"] as? Bool == true, "\(r.stdout.prefix(1500))")
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
        let cardAccess = try #require(try DumpFolder(reading: out).files[.cardAccess])
        #expect(cardAccess.count > 600, "EF.CardAccess read: \(cardAccess.count) bytes")
        #expect(try TLV.parse(cardAccess).children().count == 6, "the chip's PACEInfo and the five SecurityInfos added")
    }

    /// An ID card without EF.COM (PACE only): EF.SOD lists the data groups, the report says so,
    /// and every file is read and verified.
    @Test func withoutEFCOMTheDataGroupsComeFromEFSOD() throws {
        let (r, out) = try scan(["--pace", "--no-bac", "--quirk", "no-com"], ["--can", "123456"] + Self.trustArguments, dump: Self.paceFixture)
        try expectServedFiles(r, out, fixture: Self.paceFixture, notRead: [.com], resigned: [.cardSecurity])
        let list = r.json?["data_group_list"] as? [String: Any]
        #expect(list?["source"] as? String == "EF.SOD", "\(r.stdout.prefix(600))")
        #expect((list?["com_problem"] as? String)?.contains("6A82") == true)
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
        #expect(try ChipEvidence(json: try #require(try DumpFolder(reading: out).evidence)).dataGroupList?.source == "EF.SOD")
        let text = try Harness.passport(["verify", out.path] + Self.trustArguments)
        #expect(text.status == 0, "the dump without EF.COM verifies offline: \(text.stdout)\(text.stderr)")
    }

    // MARK: a chip without access control (issue 48, item 5; TR-03105 5.1 ISO7816_A_01)

    /// No EF.CardAccess, MUTUAL AUTHENTICATE not supported (6D00), EF.COM readable in plain: read
    /// in plain, saying so; DG14 offers chip authentication, which runs in plain and the rest is
    /// read under its keys; active authentication passes; the dump verifies.
    @Test func aChipWithoutAccessControlIsReadInPlain() throws {
        let (r, out) = try scan(["--quirk", "no-access-control"], Self.trustArguments)
        try expectServedFiles(r, out)
        try Harness.expectShape(r, "scan")
        #expect(r.json?["access_protocol"] as? String == "none")
        #expect((r.json?["chip_authentication"] as? [String: Any])?["status"] as? String == "passed", "\(r.json?["chip_authentication"] ?? "")")
        #expect((r.json?["active_authentication"] as? [String: Any])?["status"] as? String == "passed")
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
        #expect(r.stderr.contains("offers no access control"), "\(r.stderr.suffix(600))")
        let text = try Harness.passport(["scan", "--out", work.appendingPathComponent(UUID().uuidString).path] + Self.keyArguments + Self.trustArguments)
        #expect(text.stdout.contains("Access         none: the chip offers no access control") && text.stdout.contains("travelled unprotected"), "\(text.stdout)")
    }

    /// A copy that poses as a chip without access control to escape chip authentication still
    /// meets it: DG14 (signed in EF.SOD) offers it, and a chip without the key fails it.
    @Test func aCopyWithoutAccessControlStillFailsChipAuthentication() throws {
        let (r, _) = try scan(["--quirk", "no-access-control", "--ca-wrong-key"], Self.trustArguments)
        #expect(r.status == 1, "\(r.stderr.suffix(800))")
        #expect((r.json?["chip_authentication"] as? [String: Any])?["status"] as? String == "failed", "\(r.json?["chip_authentication"] ?? "")")
    }

    // MARK: a file that is not what its identifier holds (issue 48, item 2)

    /// EF.DIR's application templates (several 61 objects, 90 bytes), as a chip answered the
    /// READ BINARY of EF.COM's short identifier.
    static let efDIR: [UInt8] = {
        let first: [UInt8] = [0x4F, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01] + [0x50, 0x27] + Array(repeating: 0x41, count: 39)
        let second: [UInt8] = [0x4F, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x20, 0x01] + [0x50, 0x19] + Array(repeating: 0x42, count: 25)
        return TLV.encode(tag: 0x61, value: first) + TLV.encode(tag: 0x61, value: second)
    }()

    /// EF.COM answered with EF.DIR: not an EF.COM; EF.SOD lists the data groups and the scan goes
    /// on (it stopped with "The chip sent 90 bytes of COM where 52 were expected", no dump).
    @Test func anotherFileAnsweredForEFCOMIsReportedAndSkipped() throws {
        #expect(Self.efDIR.count == 90 && Self.efDIR.prefix(2) == [0x61, 0x32])
        let served = work.appendingPathComponent("EF.DIR.bin")
        try Data(Self.efDIR).write(to: served)
        let (r, out) = try scan(["--quirk", "served-file:COM=\(served.path)"], Self.trustArguments)
        try expectServedFiles(r, out, notRead: [.com])
        let list = try #require(r.json?["data_group_list"] as? [String: Any], "\(r.stdout.prefix(800))")
        #expect(list["source"] as? String == "EF.SOD")
        let problem = list["com_problem"] as? String ?? ""
        #expect(problem.contains("tag 61") && problem.contains("52 bytes") && problem.contains("tag 60"), "\(problem)")
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
    }

    /// DG11 answered with another data group's object (DG12, tag 6C): a problem naming file, tag
    /// and length; DG11 is kept as the chip gave it (so its hash fails against EF.SOD, exit 1),
    /// and every other file is read and saved.
    @Test func aDataGroupWithAnotherTagIsAReportProblem() throws {
        let dg12 = try Data(contentsOf: Self.fixture.appendingPathComponent("DG12.bin"))
        let served = work.appendingPathComponent("DG12-as-DG11.bin")
        try dg12.write(to: served)
        let (r, out) = try scan(["--quirk", "served-file:DG11=\(served.path)"], Self.trustArguments)
        #expect(r.status == 1, "\(r.stderr.suffix(1200))")
        let read = try DumpFolder(reading: out), original = try DumpFolder(reading: Self.fixture)
        #expect(read.files[.dataGroup(11)] == Array(dg12))
        for (file, bytes) in original.files where file != .dataGroup(11) { #expect(read.files[file] == bytes, "\(file)") }
        let problems = r.json?["problems"] as? [String] ?? []
        #expect(problems.contains { $0.contains("DG11") && $0.contains("tag 6C") && $0.contains("\(dg12.count) bytes") && $0.contains("tag 6B") }, "\(problems)")
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == false)
    }

    // MARK: the passport leaves the reader

    /// Taken away in the middle of DG2 and put back 1.5 s later: the scan waits, checks it is the
    /// same document, goes on where it stopped and records the interruption in the manifest.
    @Test(arguments: Reader.allCases)
    func anInterruptedReadResumes(reader: Reader) throws {
        let (r, out) = try scan(["--no-extended-length", "--drop-during", "DG2", "--return-after", "1.5"],
                                ["--resume-wait", "10"], on: reader)
        try expectServedFiles(r, out)
        #expect(r.stderr.contains("hold the passport steady on the reader"), "\(r.stderr.suffix(800))")
        let interruption = try #require(try DumpFolder(reading: out).manifest?.interruptions?.first)
        #expect(interruption.file == "DG2.bin" && interruption.offset > 0 && interruption.offset % 223 == 0, "\(interruption)")
        #expect(interruption.secondsAway >= 1.0 && interruption.secondsAway < 8)
        print("resume over \(reader): noticed after \(interruption.secondsToNotice) s, away \(interruption.secondsAway) s, "
              + "resumed \(interruption.secondsToResume) s after it was back")
    }

    @Test func aPassportThatDoesNotComeBackLeavesNothing() throws {
        let (r, out) = try scan(["--no-extended-length", "--drop-during", "DG2"], ["--resume-wait", "2"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("did not come back within 2 s"), "\(r.stderr.suffix(800))")
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "card_removed")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(r.seconds < 10)
    }
}
}
