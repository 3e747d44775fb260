@testable import Diagnostics
import Foundation
import PassiveAuth
import Testing
import TestSupport

/// The trust store's states, made with the real importer from the fixture PKI and judged at
/// chosen dates: empty, self-anchored, CSCAs expiring and expired, a CRL past its next update.
@Suite struct TrustChecksTests {
    let store = TrustMaterial.temporaryFolder()

    func importFixtures() throws {
        let folder = TrustMaterial.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("UTO.ml")
        try Data(try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem")], in: folder)).write(to: list)
        let crl = folder.appendingPathComponent("UTO.crl")
        try Data(try TrustMaterial.crl()).write(to: crl)
        let editor = try TrustStoreEditor(store: store)
        try editor.importFile(list)
        try editor.importFile(crl)
        try editor.commit()
    }

    func csca() throws -> Certificate { try #require(try Certificate.load(file: TrustMaterial.pki.appendingPathComponent("TEST-ONLY-csca-UTO.pem")).first) }

    @Test func anEmptyStoreWarns() throws {
        defer { try? FileManager.default.removeItem(at: store) }
        let checks = TrustChecks.checks(folder: store)
        #expect(checks.count == 1 && checks[0].status == .warn && checks[0].seen.contains("holds no CSCA"))
    }

    @Test func aSelfAnchoredMasterListWarns() throws {
        defer { try? FileManager.default.removeItem(at: store) }
        try importFixtures()
        let csca = try csca()
        let checks = TrustChecks.checks(folder: store, now: csca.notBefore.addingTimeInterval(86400))
        #expect(checks.first?.status == .ok && checks.first?.seen == "1 CSCA(s): UTO 1")
        let list = try #require(checks.first { $0.name == "master list UTO.ml" })
        #expect(list.status == .warn && list.fix?.contains("--masterlist-signer") == true)
    }

    @Test func expiringAndExpiredCSCAsAreNamed() throws {
        defer { try? FileManager.default.removeItem(at: store) }
        try importFixtures()
        let csca = try csca()
        let soon = TrustChecks.checks(folder: store, now: csca.notAfter.addingTimeInterval(-30 * 86400))
        #expect(soon.first { $0.name == "CSCAs expiring within 90 days" }?.seen == "UTO 1")
        let after = TrustChecks.checks(folder: store, now: csca.notAfter.addingTimeInterval(86400))
        #expect(after.first { $0.name == "expired CSCAs" }?.status == .ok)
        #expect(after.first { $0.name == "countries without a valid CSCA" }?.status == .warn)
        // Long after, the fixture CRL's next update has passed too.
        #expect(after.first { $0.name == "CRL of UTO" }?.status == .warn)
        let before = TrustChecks.checks(folder: store, now: csca.notBefore.addingTimeInterval(86400))
        #expect(!before.contains { $0.name == "CRL of UTO" || $0.name.hasPrefix("CSCAs expiring") || $0.name == "expired CSCAs" })
    }
}
