import Foundation
import LDS
import Testing
import TestSupport

/// Extended Access Control (issue 32): terminal authentication with the TEST-ONLY EAC PKI of
/// Fixtures/pki/eac against the virtual passport, whose chip side verifies the chain and the
/// signature with OpenPACE and guards DG3/DG4 by the effective authorization.
extension VirtualPassportStack {
@Suite(.serialized)
final class TerminalAuthenticationScans {
    static let fixture = TestPaths.fixtures.appendingPathComponent("passport-eac")
    static let eac = TestPaths.fixtures.appendingPathComponent("pki/eac")
    static let key = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    let work = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: work) }

    static func terminal(_ name: String) -> String { eac.appendingPathComponent(name).path }

    func scan(_ terminal: [String], chip: [String] = [], password: [String] = TerminalAuthenticationScans.key) throws -> (Harness.Result, URL) {
        try Harness.startVirtualPassport(Self.fixture, chip)
        let out = work.appendingPathComponent("dump-\(UUID().uuidString)")
        let r = try Harness.passport(["scan", "--json", "--no-default-trust", "--csca", Self.csca, "--out", out.path] + password + terminal)
        return (r, out)
    }

    /// Every file of the fixture, DG3 and DG4 included, byte for byte.
    func expectEverything(_ out: URL) throws {
        let read = try DumpFolder(reading: out), original = try DumpFolder(reading: Self.fixture)
        for (file, bytes) in original.files where file != .cardAccess && file != .cardSecurity {
            #expect(read.files[file] == bytes, "\(file) differs from the fixture (\(read.files[file]?.count ?? 0) of \(bytes.count) bytes read)")
        }
    }

    func terminalAuthentication(_ r: Harness.Result) -> [String: Any]? {
        r.json?["terminal_authentication"] as? [String: Any]
    }

    func unavailable(_ r: Harness.Result) -> [String: String] {
        var reasons: [String: String] = [:]
        for entry in r.json?["unavailable"] as? [[String: Any]] ?? [] {
            if let name = entry["name"] as? String { reasons[name] = entry["reason"] as? String }
        }
        return reasons
    }

    // MARK: a plain answer under secure messaging (issue 48, item 1)

    /// The chip answers READ BINARY of EF.CVCA by short identifier with a plain 6F00 that it does
    /// not count: a reader that counts it and sends the SELECT in the same session is one step
    /// ahead of the chip, fails its MAC check and never authenticates. A new session (access
    /// control, chip authentication again) is opened; EF.CVCA is selected; DG3 and DG4 are read.
    @Test(arguments: [([String](), "BAC"), (["--pace", "--no-bac"], "PACE"), (["--pace", "--mapping", "cam", "--no-bac"], "PACE ECDH-CAM")])
    func plainAnswerToEFCVCAReopensTheSession(chip: [String], access: String) throws {
        let (r, out) = try scan(["--eac", Self.terminal("terminal")], chip: chip + ["--quirk", "sfi-plain:CVCA"])
        try #require(r.status == 0, "\(access): \(r.stderr)")
        try Harness.expectShape(r, "scan")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "passed", "\(access): \(ta)")
        #expect(unavailable(r).isEmpty, "\(unavailable(r))")
        try expectEverything(out)
        #expect((r.json?["chip_authentication"] as? [String: Any])?["status"] as? String == "passed")
        let reopened = try #require(r.json?["reopened_sessions"] as? [[String: Any]], "\(r.json ?? [:])")
        #expect(reopened.count == 1)
        #expect(reopened.first?["after"] as? String == "READ BINARY 00 B0 9C 00")
        #expect(reopened.first?["status_word"] as? String == "6F00")
        #expect(r.stderr.contains("without secure messaging (6F00); opening a new session"), "\(r.stderr)")
        let evidence = try ChipEvidence(json: Array(Data(contentsOf: out.appendingPathComponent("evidence.json"))))
        #expect(evidence.reopenedSessions == [ChipEvidence.ReopenedSession(after: "READ BINARY 00 B0 9C 00", statusWord: "6F00")])
    }

    // MARK: EAC version 2's order (issue 48, item 3)

    /// Fixtures/passport-eac without DG14 (EF.COM and EF.SOD made again without it), as an
    /// eID-style document holds its chip authentication key in EF.CardSecurity only.
    func dumpWithoutDG14() throws -> URL {
        let folder = work.appendingPathComponent("eac2-\(UUID().uuidString)")
        let script = """
            import sys
            from tr03105.dataset import DataSet
            d = DataSet("passport-eac")
            del d.files["DG14"]
            d.com([0x61, 0x75, 0x63, 0x76, 0x6B, 0x6C, 0x6F])
            d.resign().write(sys.argv[1])
            """
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, folder.path],
                                environment: ["PYTHONPATH": TestPaths.projectRoot.appendingPathComponent("emulator").path])
        try #require(r.status == 0, "the dump without DG14: \(r.stderr)")
        return folder
    }

    func scanEAC2(_ terminal: [String], chip: [String] = []) throws -> (Harness.Result, URL) {
        try Harness.startVirtualPassport(try dumpWithoutDG14(), ["--pace", "--no-bac", "--quirk", "eac2"] + chip)
        let out = work.appendingPathComponent("dump-\(UUID().uuidString)")
        let r = try Harness.passport(["scan", "--json", "--no-default-trust", "--csca", Self.csca, "--out", out.path] + Self.key + terminal)
        return (r, out)
    }

    /// EF.CardAccess announces terminal and chip authentication version 2; no DG14; EF.CardSecurity
    /// withheld until terminal authentication. Read as PACE → terminal authentication version 2
    /// (the ephemeral key in MSE:Set AT) → EF.CardSecurity → chip authentication version 2 (nonce and
    /// token) → DG3/DG4. Before: "the chip has no DG14", terminal authentication never tried.
    @Test func eacVersion2IsReadInItsOrder() throws {
        let (r, out) = try scanEAC2(["--eac", Self.terminal("terminal")])
        try #require(r.status == 0, "\(r.stderr.suffix(1500))")
        try Harness.expectShape(r, "scan")
        #expect(r.json?["chip_authentication_method"] as? String == "chip_authentication_v2")
        #expect((r.json?["chip_authentication"] as? [String: Any])?["status"] as? String == "passed", "\(r.json?["chip_authentication"] ?? "")")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "passed", "\(ta)")
        #expect(unavailable(r).isEmpty, "\(unavailable(r))")
        let read = try DumpFolder(reading: out), original = try DumpFolder(reading: Self.fixture)
        for file in [LDSFile.dataGroup(3), .dataGroup(4), .dataGroup(1), .dataGroup(2)] {
            #expect(read.files[file] == original.files[file], "\(file)")
        }
        #expect(read.files[.cardSecurity] != nil, "EF.CardSecurity, read after terminal authentication")
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
        print("EAC version 2: \(r.json?["apdus"] ?? "?") APDUs")
    }

    /// A copy without EF.CardSecurity's private key: terminal authentication passes (it proves
    /// the terminal), but the chip's token does not verify, so chip authentication fails and DG3
    /// and DG4 stay unread.
    @Test func eacVersion2CatchesACopy() throws {
        let (r, _) = try scanEAC2(["--eac", Self.terminal("terminal")], chip: ["--ca-wrong-key"])
        #expect(r.status == 1, "\(r.stderr.suffix(1200))")
        let ca = r.json?["chip_authentication"] as? [String: Any]
        #expect(ca?["status"] as? String == "failed" && (ca?["detail"] as? String)?.contains("token does not verify") == true, "\(ca ?? [:])")
        #expect(unavailable(r)["DG3"] != nil && unavailable(r)["DG4"] != nil, "\(unavailable(r))")
    }

    /// Without the inspection system's certificates the outcome says what the chip announces and
    /// what would run it, not "no DG14" (issue 48, item 4).
    @Test func eacVersion2WithoutCertificatesIsNamed() throws {
        let (r, _) = try scanEAC2([])
        #expect(r.status == 0, "\(r.stderr.suffix(1200))")
        let detail = (r.json?["chip_authentication"] as? [String: Any])?["detail"] as? String ?? ""
        #expect(detail.contains("chip authentication version 2") && detail.contains("--eac") && !detail.contains("no DG14"), "\(detail)")
    }

    // MARK: success: BAC and PACE, ECDSA and RSA terminals

    @Test(arguments: [
        ([], "terminal", "BAC"),
        ([], "terminal-rsa", "BAC"),
        (["--pace", "--no-bac"], "terminal", "PACE"),
        (["--pace", "--no-bac"], "terminal-rsa", "PACE"),
        (["--pace", "--mapping", "cam", "--no-bac"], "terminal", "PACE ECDH-CAM"),
    ])
    func validChainReadsDG3AndDG4(chip: [String], terminal: String, access: String) throws {
        let (r, out) = try scan(["--eac", Self.terminal(terminal)], chip: chip)
        try #require(r.status == 0, "\(access) with \(terminal): \(r.stderr)")
        try Harness.expectShape(r, "scan")
        #expect((r.json?["access_protocol"] as? String)?.hasPrefix(access) == true)
        if access.hasSuffix("CAM") {
            // No chip authentication afterwards: TA is bound to PACE's ephemeral keys.
            #expect(r.json?["chip_authentication_method"] as? String == "pace_cam")
        }
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "passed", "\(ta)")
        #expect(ta["chip_trust_points"] as? [String] == ["UTCVCA00001"])
        #expect((ta["sent"] as? [String])?.first == "UTCVCA00002", "the link certificate goes first: \(ta)")
        #expect(unavailable(r).isEmpty, "\(unavailable(r))")
        try expectEverything(out)
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true)
        // The dump records it and verifies again offline, DG3 and DG4 hashed.
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(manifest?["terminal_authentication"] as? String == "passed")
        let evidence = try ChipEvidence(json: Array(Data(contentsOf: out.appendingPathComponent("evidence.json"))))
        #expect(evidence.terminalAuthentication?.status == "passed")
        print("EAC \(access) × \(terminal): \(r.json?["apdus"] ?? "?") APDUs")
    }

    @Test func theChainCanBeGivenFileByFile() throws {
        let folder = Self.eac.appendingPathComponent("terminal")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let file = { (prefix: String, suffix: String) in
            folder.appendingPathComponent(names.first { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) } ?? "missing").path
        }
        let (r, out) = try scan(["--link-cert", file("UTCVCA", ".cvcert"), "--dv-cert", file("UTDV", ".cvcert"),
                                 "--terminal-cert", file("UTIS", ".cvcert"), "--terminal-key", file("UTIS", ".pkcs8")])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(terminalAuthentication(r)?["status"] as? String == "passed")
        try expectEverything(out)
    }

    // MARK: faults independent chips showed (issue 39)

    /// A chip that takes no short file identifiers answers READ BINARY of EF.CVCA by SFI with
    /// 6F00: EF.CVCA is then selected by its file identifier (011C), as data groups are.
    @Test func efCVCAIsSelectedWhenShortFileIdentifiersAreRefused() throws {
        let (r, out) = try scan(["--eac", Self.terminal("terminal")], chip: ["--quirk", "sfi-refused:6F00"])
        try #require(r.status == 0, "\(r.stderr.suffix(800))")
        #expect(terminalAuthentication(r)?["status"] as? String == "passed", "\(terminalAuthentication(r) ?? [:])")
        #expect(terminalAuthentication(r)?["chip_trust_points"] as? [String] == ["UTCVCA00001"])
        try expectEverything(out)
    }

    /// A terminal folder that also holds the self-signed CVCA certificate the chip trusts: the
    /// chain sent starts after it (a chip may refuse to verify its own trust point again).
    @Test func theChipsOwnTrustPointIsNeverSentBack() throws {
        let folder = work.appendingPathComponent("terminal-with-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let terminal = URL(fileURLWithPath: Self.terminal("terminal"))
        for name in try FileManager.default.contentsOfDirectory(atPath: terminal.path) {
            try FileManager.default.copyItem(at: terminal.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: Self.eac.appendingPathComponent("TEST-ONLY-UTCVCA00001.cvcert"),
                                         to: folder.appendingPathComponent("UTCVCA00001.cvcert"))
        let (r, out) = try scan(["--eac", folder.path], chip: ["--quirk", "ta-trust-point-refused"])
        try #require(r.status == 0, "\(r.stderr.suffix(800))")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "passed", "\(ta)")
        #expect(ta["sent"] as? [String] == ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"], "\(ta)")
        try expectEverything(out)
    }

    // MARK: without a chain

    @Test func withoutAChainDG3AndDG4AreReportedNotFailed() throws {
        let (r, out) = try scan([])
        try #require(r.status == 0, "\(r.stderr)")
        for group in ["DG3", "DG4"] {
            #expect(unavailable(r)[group] == "protected by EAC: needs an inspection system certificate (not given)")
        }
        #expect(terminalAuthentication(r)?["status"] as? String == "not_attempted")
        let read = try DumpFolder(reading: out)
        #expect(read.files[.dataGroup(3)] == nil && read.files[.dataGroup(1)] != nil)
        // Passive authentication covers what was read; DG3/DG4 are unread, not wrong.
        #expect((r.json?["passive_authentication"] as? [String: Any])?["passed"] as? Bool == true, "\(r.stdout)")
    }

    // MARK: refusals: the step, the status word, the rest saved, exit 0

    @Test(arguments: [
        ("expired", "PSO:Verify Certificate of UTISTEST00002", "6A80", "expired on 2025-06-30"),
    ])
    func refusedChains(terminal: String, step: String, status: String, explanation: String) throws {
        let (r, out) = try scan(["--eac", Self.terminal(terminal)])
        try #require(r.status == 0, "a refused terminal still saves the rest: \(r.stderr)")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "failed")
        #expect(ta["step"] as? String == step, "\(ta)")
        #expect(ta["status_word"] as? String == status, "\(ta)")
        #expect((ta["detail"] as? String)?.contains(explanation) == true, "\(ta)")
        #expect(unavailable(r)["DG3"]?.hasPrefix("protected by EAC: terminal authentication failed") == true, "\(unavailable(r))")
        #expect(r.stderr.contains("Terminal authentication failed"), "\(r.stderr)")
        let read = try DumpFolder(reading: out)
        #expect(read.files[.dataGroup(2)] != nil && read.files[.dataGroup(3)] == nil)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(manifest?["terminal_authentication"] as? String == "failed")
    }

    /// A chain from a CVCA the chip's EF.CVCA does not name is not sent (TR-03105 5.1 ISO7816_E_08).
    @Test func aChainFromAnotherCVCAIsNotSent() throws {
        let (r, out) = try scan(["--eac", Self.terminal("wrong-cvca")])
        try #require(r.status == 0, "a refused terminal still saves the rest: \(r.stderr)")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["status"] as? String == "failed")
        #expect(ta["step"] as? String == "EF.CVCA", "\(ta)")
        #expect((ta["detail"] as? String)?.contains("the chip trusts UTCVCA00001 (EF.CVCA)") == true, "\(ta)")
        #expect(unavailable(r)["DG3"]?.hasPrefix("protected by EAC: terminal authentication failed") == true, "\(unavailable(r))")
        let read = try DumpFolder(reading: out)
        #expect(read.files[.dataGroup(2)] != nil && read.files[.dataGroup(3)] == nil)
    }

    @Test func aCHATWithoutTheDG3RightReadsDG4Only() throws {
        let (r, out) = try scan(["--eac", Self.terminal("no-dg3-right")])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(terminalAuthentication(r)?["status"] as? String == "passed")
        #expect(unavailable(r)["DG3"] == "protected by EAC: UTISTEST00003's CHAT does not grant reading DG3 (it grants DG4)")
        let read = try DumpFolder(reading: out), original = try DumpFolder(reading: Self.fixture)
        #expect(read.files[.dataGroup(4)] == original.files[.dataGroup(4)])
        #expect(read.files[.dataGroup(3)] == nil)
    }

    @Test func aKeyThatIsNotTheTerminalsIsRefusedAtExternalAuthenticate() throws {
        let valid = Self.eac.appendingPathComponent("terminal"), other = Self.eac.appendingPathComponent("expired")
        let names = try FileManager.default.contentsOfDirectory(atPath: valid.path)
        let otherKey = try #require(try FileManager.default.contentsOfDirectory(atPath: other.path).first { $0.hasSuffix(".pkcs8") })
        let certs = names.filter { $0.hasSuffix(".cvcert") }.sorted()
        let arguments = ["--link-cert", valid.appendingPathComponent(certs.first { $0.hasPrefix("UTCVCA") }!).path,
                         "--dv-cert", valid.appendingPathComponent(certs.first { $0.hasPrefix("UTDV") }!).path,
                         "--terminal-cert", valid.appendingPathComponent(certs.first { $0.hasPrefix("UTIS") }!).path,
                         "--terminal-key", other.appendingPathComponent(otherKey).path]
        let (r, _) = try scan(arguments)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: the terminal private key does not belong to UTISTEST00001"), "\(r.stderr)")
        let ta = try #require(terminalAuthentication(r))
        #expect(ta["step"] as? String == "EXTERNAL AUTHENTICATE")
        #expect(ta["status_word"] as? String == "6300")
        #expect((ta["detail"] as? String)?.contains("does not belong to UTISTEST00001") == true, "\(ta)")
    }

    // MARK: the terminal's own files are checked before the chip is touched

    @Test func unusableTerminalFilesAreUsageErrors() throws {
        let empty = work.appendingPathComponent("empty-eac")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let r = try Harness.passport(["scan", "--json", "--eac", empty.path] + Self.key)
        #expect(r.status == 2)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "terminal_credentials")
        #expect(r.stderr.contains("holds no terminal private key"), "\(r.stderr)")
        let both = try Harness.passport(["scan", "--eac", empty.path, "--terminal-key", "x"] + Self.key)
        #expect(both.status == 2)
        // An RSA key for an ECDSA terminal certificate cannot sign at all: refused before the chip.
        let folder = Self.eac.appendingPathComponent("terminal"), rsa = Self.eac.appendingPathComponent("terminal-rsa/UTISRSA00001.pkcs8")
        let mixed = try Harness.passport(["scan", "--link-cert", folder.appendingPathComponent("UTCVCA00002.cvcert").path,
                                          "--dv-cert", folder.appendingPathComponent("UTDVTEST00001.cvcert").path,
                                          "--terminal-cert", folder.appendingPathComponent("UTISTEST00001.cvcert").path,
                                          "--terminal-key", rsa.path] + Self.key)
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("is for id-TA-ECDSA-SHA-256 but the private key is not an EC key"), "\(mixed.stderr)")
    }

    // MARK: other transports: libnfc (PN532), and an ACR122U through pcscd's CCID driver

    @Test func throughLibNFCWithPACEAndShortAPDUs() throws {
        let r0 = try Harness.run(Harness.virtualPassportScript, ["start", Self.fixture.path, "--pn532", "--pace", "--no-extended-length"], timeout: 60)
        try #require(r0.status == 0, "virtual-passport --pn532 failed: \(r0.stderr)")
        let connstring = try #require(r0.stdout.split(separator: "\n").last.map(String.init))
        let out = work.appendingPathComponent("nfc-eac")
        // RSA: the certificates and the 256-byte signature go as command chains.
        let r = try Harness.passport(["scan", "--nfc", connstring, "--json", "--no-default-trust", "--csca", Self.csca, "--out", out.path,
                                      "--eac", Self.terminal("terminal-rsa")] + Self.key, timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.json?["extended_length"] as? Bool == false)
        #expect((r.json?["access_protocol"] as? String)?.hasPrefix("PACE") == true)
        #expect(terminalAuthentication(r)?["status"] as? String == "passed", "\(String(describing: terminalAuthentication(r)))")
        try expectEverything(out)
    }

    @Test func throughAnACR122UOnLibCCID() throws {
        defer { _ = try? Harness.run(Harness.virtualPassportScript, ["stop", "--usb"], timeout: 60) }
        let started = try Harness.run(Harness.virtualPassportScript, ["start", Self.fixture.path, "--usb", "acr122u"], timeout: 90)
        try #require(started.status == 0, "virtual-passport start --usb acr122u failed: \(started.stderr)")
        let out = work.appendingPathComponent("acr122u-eac")
        let r = try Harness.passport(["scan", "--json", "--reader", "ACS ACR122U", "--no-default-trust", "--csca", Self.csca,
                                      "--out", out.path, "--eac", Self.terminal("terminal-rsa")] + Self.key, timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.json?["extended_length"] as? Bool == false)
        #expect(terminalAuthentication(r)?["status"] as? String == "passed", "\(String(describing: terminalAuthentication(r)))")
        try expectEverything(out)
    }

    // MARK: DG3 and DG4 shown and saved

    @Test func showListsEachFingerAndIrisAndPhotoSavesThem() throws {
        let shown = try Harness.passport(["show", Self.fixture.path])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("Finger         right index finger, PNG, 300×400 at 500 ppi, quality 82/100, live-scan plain"), "\(shown.stdout)")
        #expect(shown.stdout.contains("Finger         right thumb, WSQ"))
        #expect(shown.stdout.contains("Iris           left eye, image 1, monochrome JPEG 2000, 640×480"))
        let json = try Harness.passport(["show", "--json", Self.fixture.path])
        try Harness.expectShape(json, "show")
        #expect((json.json?["dg3"] as? [Any])?.count == 3 && (json.json?["dg4"] as? [Any])?.count == 2)

        let fingers = work.appendingPathComponent("fingers")
        let photo = try Harness.passport(["photo", "--json", "--dg3", "--out", fingers.path, Self.fixture.path])
        try #require(photo.status == 0, "\(photo.stderr)")
        try Harness.expectShape(photo, "photo")
        let images = try #require(photo.json?["images"] as? [[String: Any]])
        #expect(images.map { ($0["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? "" }
                == ["DG3-1-right-index-finger.png", "DG3-2-left-index-finger.png", "DG3-3-right-thumb.wsq"])
        #expect(images.map { $0["converted"] as? Bool } == [true, true, false])
        // The WSQ record is saved byte for byte; the PNGs decode to the record's size.
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture.appendingPathComponent("expected.json"))) as? [String: Any]
        let records = (expected?["dg3"] as? [String: Any])?["records"] as? [[String: Any]] ?? []
        let wsq = try Data(contentsOf: fingers.appendingPathComponent("DG3-3-right-thumb.wsq"))
        #expect(records.contains { ($0["imageSha256"] ?? $0["sha256"]) as? String == hex(SHA256Test.digest(Array(wsq))).lowercased() }, "\(records)")
        let irises = try Harness.passport(["photo", "--dg4", "--out", work.appendingPathComponent("irises").path, Self.fixture.path])
        #expect(irises.status == 0 && irises.stdout.contains("DG4-2-left-eye.png"), "\(irises.stdout)\(irises.stderr)")
        let none = try Harness.passport(["photo", "--dg3", "--out", work.appendingPathComponent("none").path,
                                         TestPaths.fixtures.appendingPathComponent("passport").path])
        #expect(none.status == 1 && none.stderr.contains("The dump has no DG3"), "\(none.stderr)")
    }

    // MARK: a recorded dump with DG3/DG4

    @Test func aDumpWithDG3VerifiesOfflineAndOneChangedByteFails() throws {
        let verified = try Harness.passport(["verify", "--json", "--no-default-trust", "--csca", Self.csca, Self.fixture.path])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        let copy = work.appendingPathComponent("tampered")
        try FileManager.default.copyItem(at: Self.fixture, to: copy)
        let dg3 = copy.appendingPathComponent("DG3.bin")
        var bytes = try Array(Data(contentsOf: dg3))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: dg3)
        let tampered = try Harness.passport(["verify", "--json", "--no-default-trust", "--csca", Self.csca, copy.path])
        #expect(tampered.status == 1)
        #expect(tampered.stdout.contains("DG3"), "\(tampered.stdout)")
    }
}
}
