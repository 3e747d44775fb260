import Foundation
import LDS
import PassiveAuth
import PassportCrypto
import Testing
import TestSupport

@Suite struct TrustStoreDirectoryTests {
    let folder = TrustMaterial.temporaryFolder()
    var store: URL { folder.appendingPathComponent("trust") }

    func importing(_ files: [(String, [UInt8])], roots: [Certificate] = []) throws -> TrustStoreEditor {
        let editor = try TrustStoreEditor(store: store, signerRoots: roots)
        for (name, bytes) in files { try editor.importBytes(bytes, name: name) }
        try editor.commit()
        return editor
    }

    func trust() throws -> TrustStore {
        let trust = TrustStore()
        trust.add(directory: try #require(try TrustDirectory.open(store)))
        return trust
    }

    func files(_ name: String) throws -> [LDSFile: [UInt8]] {
        try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent(name)).files
    }

    @Test func masterListImportVerifiesThroughTheIndex() throws {
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem"), try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem")], in: folder)
        let editor = try importing([("UTO.ml", ml)])
        #expect(editor.changes.first?.masterLists == 1)
        #expect(editor.changes.first?.cscas == 2)
        let report = PassiveAuthentication.verify(files: try files("passport"), trust: try trust())
        #expect(report.passed, "\(report.failures)")
        #expect(report.csca?.source.contains("UTO.ml") == true)
        let directory = try #require(try TrustDirectory.open(store))
        #expect(directory.masterLists.first?.anchor.hasPrefix("its own CSCA") == true)
    }

    @Test func alteredMasterListIsRefusedAndNothingIsAdded() throws {
        let csca = try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")
        let ml = try TrustMaterial.masterList([csca], in: folder)
        _ = try importing([("first.pem", Array("-----BEGIN CERTIFICATE-----\n\(Data(try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem")).base64EncodedString())\n-----END CERTIFICATE-----\n".utf8))])
        // One byte of the signed content (inside the CSCA's public key) changed.
        let position = try #require(findSubsequence(Array(csca.suffix(40)), in: ml))
        var altered = ml
        altered[position + 5] ^= 0x01
        let editor = try TrustStoreEditor(store: store)
        try editor.importBytes(try TrustMaterial.masterList([csca], in: folder), name: "good.ml")
        #expect {
            try editor.importBytes(altered, name: "altered.ml")
        } throws: { error in
            guard case TrustStoreError.refusedMasterList(let name, let why)? = error as? TrustStoreError else { return false }
            return name == "altered.ml" && why.contains("messageDigest")
        }
        // The failed import is not committed: the store still holds only the first import.
        let directory = try #require(try TrustDirectory.open(store))
        #expect(directory.masterLists.isEmpty)
        #expect(directory.countryCodes == ["UTO"])
        #expect(directory.certificates(of: "UTO").count == 1)
    }

    @Test func masterListWhoseSignerIsAnchoredNowhereIsRefused() throws {
        // Signed by the UTO CSCA but carrying only the bp384 CSCA: its signer chains to nothing known.
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem")], in: folder)
        #expect(throws: TrustStoreError.self) { try importing([("orphan.ml", ml)]) }
        #expect(try TrustDirectory.open(store) == nil)
        // With the signer's root given, the same list is accepted.
        let root = try Certificate(der: try TrustMaterial.der("TEST-ONLY-csca-UTO.pem"))
        let editor = try importing([("orphan.ml", ml)], roots: [root])
        #expect(editor.changes.first?.cscas == 1)
    }

    @Test func sodWithoutCertificateVerifiesOnlyThroughAnImportedDSC() throws {
        var dump = try files("passport")
        dump[.sod] = try TrustMaterial.withoutCertificates(try #require(dump[.sod]))
        let csca = try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")
        _ = try importing([("csca.der", csca)])
        let without = PassiveAuthentication.verify(files: dump, trust: try trust())
        #expect(!without.passed)
        #expect(without.failures.contains { $0.contains("nor in the trust store") })

        let dscs = try ["TEST-ONLY-dsc-UTO.pem", "TEST-ONLY-dsc-UTO-p256.pem", "TEST-ONLY-dsc-UTO-rsapss.pem"].map(TrustMaterial.der)
        let editor = try importing([("icaopkd-001-complete-000001.ldif", TrustMaterial.ldif(dscs.map { ("dsc", "userCertificate;binary", $0) }))])
        #expect(editor.changes.first?.dscs == 3)
        let with = PassiveAuthentication.verify(files: dump, trust: try trust())
        #expect(with.passed, "\(with.failures)")
        #expect(with.documentSigner?.source.contains("icaopkd-001") == true)
    }

    @Test func crlFromLDIFRevokesTheDSC() throws {
        _ = try importing([("csca.der", try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")),
                           ("icaopkd-001-crl.ldif", TrustMaterial.ldif([("crl", "certificateRevocationList;binary", try TrustMaterial.crl())]))])
        let revoked = PassiveAuthentication.verify(files: try files("pa/revoked-dsc"), trust: try trust())
        #expect(!revoked.passed)
        #expect(revoked.revocation == .failed)
        #expect(revoked.failures.contains { $0.contains("is revoked by") })
        let good = PassiveAuthentication.verify(files: try files("pa/rsa-pkcs1-sha256"), trust: try trust())
        #expect(good.passed, "\(good.failures)")
        #expect(good.revocation == .passed)
    }

    @Test func duplicatesMergeAndDeltaDeletesRemove() throws {
        let dsc = try TrustMaterial.der("TEST-ONLY-dsc-UTO.pem")
        _ = try importing([("full.ldif", TrustMaterial.ldif([("dsc", "userCertificate;binary", dsc)]))])
        let again = try importing([("dsc.der", dsc)])
        #expect(again.changes.first?.merged == 1)
        let directory = try #require(try TrustDirectory.open(store))
        #expect(directory.certificates(of: "UTO").first?.origins == ["full.ldif", "dsc.der"])
        let delta = "version: 1\n\ndn: cn=entry0,o=dsc,c=UTO,\(TrustMaterial.base)\nchangetype: delete\n"
        let removed = try importing([("delta.ldif", Array(delta.utf8))])
        #expect(removed.changes.first?.removed == 1)
        #expect(try TrustDirectory.open(store)?.countryCodes == [])
    }

    @Test func exportImportRoundTrip() throws {
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")], in: folder)
        _ = try importing([("UTO.ml", ml), ("bp384.pem", try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem")),
                           ("dsc.der", try TrustMaterial.der("TEST-ONLY-dsc-UTO.pem")), ("uto.crl", try TrustMaterial.crl())])
        let before = try #require(try TrustDirectory.open(store))
        let exported = try before.exportLDIF()
        let editor = try TrustStoreEditor(store: store)
        #expect(editor.remove(.all) > 0)
        try editor.commit()
        #expect(try TrustDirectory.open(store)?.countryCodes == [])
        _ = try importing([("export.ldif", exported)])
        let after = try #require(try TrustDirectory.open(store))
        #expect(after.masterLists.map(\.sha256) == before.masterLists.map(\.sha256))
        #expect(Set(after.certificates(of: "UTO").map(\.sha256)) == Set(before.certificates(of: "UTO").map(\.sha256)))
        let kindsAfter: [String] = after.certificates(of: "UTO").map(\.kind.rawValue).sorted()
        let kindsBefore: [String] = before.certificates(of: "UTO").map(\.kind.rawValue).sorted()
        #expect(kindsAfter == kindsBefore)
        #expect(after.revocationLists(of: "UTO").map(\.sha256) == before.revocationLists(of: "UTO").map(\.sha256))
    }

    @Test func removeBySourceKeepsWhatOtherSourcesBrought() throws {
        let dsc = try TrustMaterial.der("TEST-ONLY-dsc-UTO.pem")
        _ = try importing([("a.der", dsc), ("b.der", dsc), ("csca.der", try TrustMaterial.der("TEST-ONLY-csca-UTO.pem"))])
        let editor = try TrustStoreEditor(store: store)
        #expect(editor.remove(.source("a.der")) == 0)
        #expect(editor.remove(.source("csca.der")) == 1)
        try editor.commit()
        let directory = try #require(try TrustDirectory.open(store))
        #expect(directory.certificates(of: "UTO").map(\.origins) == [["b.der"]])
    }

    func findSubsequence(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
