import Foundation
import LDS
import Testing
import TestSupport

/// `passport trust …`, `passport verify` with the store, batches (JSON Lines, JUnit),
/// NFCPassportReader exports and `passport convert`, through the real executable.
@Suite(.serialized) final class TrustCommandTests {
    let home = Harness.temporaryFolder()
    var env: [String: String] {
        ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path]
    }
    static func fixture(_ name: String) -> URL { TestPaths.fixtures.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: home) }

    func passport(_ arguments: [String]) throws -> Harness.Result { try Harness.passport(arguments, environment: env) }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = home.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// XDG base directories: an empty XDG_CONFIG_HOME means ~/.config, not a folder named
    /// `passport` under the current directory; a relative one is ignored the same way.
    @Test(arguments: ["", "relative-config"])
    func emptyOrRelativeConfigHomeMeansDotConfig(value: String) throws {
        let userHome = home.appendingPathComponent("home-\(value.isEmpty ? "empty" : "relative")")
        try FileManager.default.createDirectory(at: userHome, withIntermediateDirectories: true)
        let csca = Self.fixture("pki/TEST-ONLY-csca-UTO.pem").path
        let strayFolder = FileManager.default.currentDirectoryPath + "/" + (value.isEmpty ? "passport" : value)
        #expect(!FileManager.default.fileExists(atPath: strayFolder))
        let r = try Harness.passport(["trust", "import", csca],
                                     environment: ["HOME": userHome.path, "XDG_CONFIG_HOME": value, "XDG_CACHE_HOME": value])
        #expect(r.status == 0, "trust import failed: \(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: userHome.appendingPathComponent(".config/passport/trust/CURRENT").path))
        #expect(!FileManager.default.fileExists(atPath: strayFolder), "the store went under the current directory")
    }

    /// A copy of the fixture passport whose EF.SOD carries no DSC.
    func dscLessDump() throws -> String {
        let folder = home.appendingPathComponent("dsc-less")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, bytes) in try DumpFolder(reading: Self.fixture("passport")).files {
            let content = file == .sod ? try TrustMaterial.withoutCertificates(bytes) : bytes
            try Data(content).write(to: folder.appendingPathComponent(file.fileName))
        }
        return folder.path
    }

    /// The fixture PKI as an ICAO PKD download pair: a master list (icaopkd-002) and DSCs plus
    /// the CRL (icaopkd-001).
    func importFixturePKI() throws {
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")], in: home)
        let ml002 = try write(TrustMaterial.ldif([("ml", "pkdMasterListContent", ml)]), "icaopkd-002-complete-000001.ldif")
        let dscs = try ["TEST-ONLY-dsc-UTO.pem", "TEST-ONLY-dsc-UTO-revoked.pem"].map(TrustMaterial.der)
        let entries = dscs.map { (group: "dsc", attribute: "userCertificate;binary", bytes: $0) }
            + [(group: "crl", attribute: "certificateRevocationList;binary", bytes: try TrustMaterial.crl())]
        let dsc001 = try write(TrustMaterial.ldif(entries), "icaopkd-001-complete-000001.ldif")
        let r = try passport(["trust", "import", ml002, dsc001, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        try Harness.expectShape(r, "trust-change")
    }

    @Test func importListVerifyExportRoundTrip() throws {
        try importFixturePKI()
        let listed = try passport(["trust", "list", "--json"])
        try Harness.expectShape(listed, "trust-list")
        let countries = try #require(listed.json?["countries"] as? [[String: Any]])
        let uto = try #require(countries.first { $0["country"] as? String == "UTO" })
        #expect((uto["cscas"] as? [String: Any])?["total"] as? Int == 1)
        #expect(uto["dscs"] as? Int == 2)
        #expect((uto["crls"] as? [[String: Any]])?.first?["next_update"] as? String == "2039-12-31T00:00:00Z")

        // No trust flags: the store's CSCA, DSCs and CRL are used.
        let dscLess = try passport(["verify", try dscLessDump()])
        #expect(dscLess.status == 0, "\(dscLess.stdout)")
        #expect(dscLess.stdout.contains("trust store: icaopkd-001-complete-000001.ldif"))
        let revoked = try passport(["verify", Self.fixture("pa/revoked-dsc").path])
        #expect(revoked.status == 1)
        #expect(revoked.stdout.contains("is revoked by"))
        let withoutStore = try passport(["verify", try dscLessDump(), "--no-default-trust", "--csca", Self.fixture("pki/TEST-ONLY-csca-UTO.pem").path])
        #expect(withoutStore.status == 1, "a DSC-less EF.SOD verified without the stored DSC")

        let exported = home.appendingPathComponent("export.ldif").path
        #expect(try passport(["trust", "export", exported]).status == 0)
        let removed = try passport(["trust", "remove", "--all", "--json"])
        #expect(removed.status == 0)
        try Harness.expectShape(removed, "trust-change")
        #expect(try passport(["verify", Self.fixture("passport").path]).status == 1)
        #expect(try passport(["trust", "import", exported]).status == 0)
        let again = try passport(["trust", "list", "--json"])
        // The same objects come back (their sources now name the exported file).
        func contents(_ r: Harness.Result) -> [String] {
            ((r.json?["countries"] as? [[String: Any]]) ?? []).map { country in
                let cscas = (country["cscas"] as? [String: Int]) ?? [:]
                return "\(country["country"] ?? "") \(cscas.sorted { $0.key < $1.key }) \(country["dscs"] ?? "") \((country["crls"] as? [Any])?.count ?? 0)"
            }
        }
        #expect(contents(again) == contents(listed))
        #expect(!contents(listed).isEmpty)
        #expect(try passport(["verify", try dscLessDump()]).status == 0)
    }

    @Test func alteredMasterListIsRefused() throws {
        var ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")], in: home)
        ml[ml.count / 3] ^= 0x01
        let altered = try write(ml, "altered.ml")
        let good = try write(try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem"), "bp384.der")
        let r = try passport(["trust", "import", good, altered, "--json"])
        #expect(r.status == 1)
        try Harness.expectShape(r, "error")
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "master_list_refused")
        #expect((error["message"] as? String)?.contains("altered.ml") == true)
        // All or nothing: the good certificate before it was not added either.
        let listed = try passport(["trust", "list", "--json"])
        #expect((listed.json?["countries"] as? [Any])?.isEmpty == true)
    }

    @Test func malformedLDIFNamesTheLine() throws {
        let ldif = try write(Array("version: 1\n\ndn: cn=x,o=dsc,c=DE,dc=data\nuserCertificate;binary:: %%%\n".utf8), "bad.ldif")
        let r = try passport(["trust", "import", ldif])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.ldif line 4"), "\(r.stderr)")
    }

    @Test func batchJSONLinesAndJUnit() throws {
        try importFixturePKI()
        let dumps = ["passport", "pa/rsa-pkcs1-sha256", "pa/tampered-dg"].map { Self.fixture($0).path }
        let junit = home.appendingPathComponent("report.xml").path
        let r = try passport(["verify"] + dumps + ["--json", "--junit", junit])
        #expect(r.status == 1, "one dump is tampered")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        for line in lines { #expect(try Harness.schemaErrors(line, schema: "verify-line") == nil, "\(line)") }
        let oks = lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["ok"] as? Bool }
        #expect(oks == [true, true, false])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 3)
        #expect(xml.contains("failures=\"1\""))
        #expect(xml.contains("<failure type=\"verification\" message=\"DG11: its SHA-256 hash does not match"))

        let good = try passport(["verify", "--recursive", Self.fixture("pa").path, "--json"])
        let found = good.stdout.split(separator: "\n").count
        #expect(found == (try FileManager.default.contentsOfDirectory(atPath: Self.fixture("pa").path).filter { !$0.hasSuffix(".json") }.count))
        let allGood = try passport(["verify", Self.fixture("passport").path, Self.fixture("pa/ecdsa-p256-sha256").path])
        #expect(allGood.status == 0, "\(allGood.stdout)")
    }

    /// NFCPassportReader's export: {"COM": base64, "DG1": base64, …, "SOD": base64}.
    func nfcExport(changing file: LDSFile? = nil) throws -> String {
        var object: [String: String] = [:]
        for (key, bytes) in try DumpFolder(reading: Self.fixture("passport")).files {
            var content = bytes
            if key == file { content[content.count - 3] ^= 0x01 }
            object[key.name] = Data(content).base64EncodedString()
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return try write([UInt8](data), "export-\(file?.name ?? "good").json")
    }

    @Test func nfcPassportReaderExportAndConvert() throws {
        let csca = ["--no-default-trust", "--csca", Self.fixture("pki/TEST-ONLY-csca-UTO.pem").path]
        let export = try nfcExport()
        let verified = try passport(["verify", export, "--json"] + csca)
        #expect(verified.status == 0, "\(verified.stderr)")
        try Harness.expectShape(verified, "verify")
        let tampered = try passport(["verify", try nfcExport(changing: .dataGroup(1))] + csca)
        #expect(tampered.status == 1)
        #expect(tampered.stdout.contains("DG1 MISMATCH"))

        let folder = home.appendingPathComponent("converted").path
        let converted = try passport(["convert", export, folder])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/DG1.bin"))
        #expect(try passport(["verify", folder] + csca).status == 0)
        let bad = try passport(["verify", try write(Array("{\"DG1\": 5}".utf8), "bad.json"), "--json"] + csca)
        #expect(bad.status == 1)
        #expect((bad.json?["error"] as? [String: Any])?["message"] as? String == "bad.json: the entry \"DG1\" is unreadable: its value is not a string.")
    }

    /// `--masterlist` lists are checked once, then read from the content-keyed cache; a changed
    /// list has other bytes, so it is checked (and refused) again.
    @Test func masterListFlagUsesTheCache() throws {
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")], in: home)
        let file = try write(ml, "UTO.ml")
        let arguments = ["verify", Self.fixture("passport").path, "--masterlist", file, "--json"]
        let first = try passport(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect((first.json?["trust"] as? [String])?.first?.hasSuffix("[cached]") == false)
        let second = try passport(arguments)
        #expect(second.status == 0)
        #expect((second.json?["trust"] as? [String])?.first?.hasSuffix("[cached]") == true)
        var altered = ml
        altered[altered.count / 3] ^= 0x01
        try Data(altered).write(to: URL(fileURLWithPath: file))
        let refused = try passport(arguments)
        #expect(refused.status == 2)
        #expect((refused.json?["error"] as? [String: Any])?["code"] as? String == "trust_store_error")
    }

    /// The real German and Dutch master lists as an icaopkd-002 LDIF download.
    @Test(.enabled(if: TestPaths.reference != nil, "../shared/reference absent: real master lists not tested"))
    func realMasterListsFromLDIF() throws {
        let lists = try #require(TestPaths.reference).appendingPathComponent("masterlists")
        let de = [UInt8](try Data(contentsOf: lists.appendingPathComponent("DE_masterlist.ml")))
        let nl = [UInt8](try Data(contentsOf: lists.appendingPathComponent("NL_masterlist.ml")))
        let ldif = try write(TrustMaterial.ldif([("ml", "pkdMasterListContent", de)], country: "DE")
            + TrustMaterial.ldif([("ml", "pkdMasterListContent", nl)], country: "NL").dropFirst("version: 1\n".utf8.count), "icaopkd-002-complete-000325.ldif")
        let r = try passport(["trust", "import", ldif, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let change = try #require((r.json?["changes"] as? [[String: Any]])?.first)
        #expect(change["master_lists"] as? Int == 2)
        #expect((change["cscas"] as? Int ?? 0) > 588)
        let listed = try passport(["trust", "list", "--json"])
        let countries = try #require(listed.json?["countries"] as? [[String: Any]])
        #expect(countries.count > 100)
        let sod = try #require(TestPaths.reference).appendingPathComponent("sod-realworld/DE.EF_SOD.bin").path
        let verified = try passport(["verify", sod])
        #expect(verified.status == 0, "\(verified.stdout)")

        // Every real EF.SOD of the reference set verifies in one batch through the store, once
        // Indonesia's CSCAs (not in these master lists) are imported too.
        let realworld = try #require(TestPaths.reference).appendingPathComponent("sod-realworld")
        let names = try FileManager.default.contentsOfDirectory(atPath: realworld.path).sorted()
        let idn = names.filter { $0.hasPrefix("IDN_") }.map { realworld.appendingPathComponent($0).path }
        #expect(try passport(["trust", "import"] + idn).status == 0)
        let sods = names.filter { $0.hasSuffix(".EF_SOD.bin") }.map { realworld.appendingPathComponent($0).path }
        let junit = home.appendingPathComponent("real.xml").path
        let batch = try passport(["verify"] + sods + ["--junit", junit])
        #expect(batch.status == 0, "\(batch.stdout)")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("tests=\"\(sods.count)\" failures=\"0\" errors=\"0\""))

        // An altered real list is refused, naming its line in the LDIF.
        var altered = nl
        altered[altered.count / 2] ^= 0x01
        let bad = try write(TrustMaterial.ldif([("ml", "pkdMasterListContent", altered)], country: "NL"), "altered-002.ldif")
        let refused = try passport(["trust", "import", bad])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("altered-002.ldif line 5"), "\(refused.stderr)")
    }
}
