import Foundation
import LDS
import PassiveAuth
import Testing
import TestSupport

/// EF.CardSecurity is passively authenticated like EF.SOD (signature, DSC → CSCA) and must name
/// DG14's chip-authentication keys: PACE-CAM relies on the key in it, and a clone would put its
/// own there (Fixtures/passport-pace-clone, Fixtures/passport-pace-wrongkey).
@Suite struct CardSecurityVerification {
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem")

    func trust() throws -> TrustStore {
        let store = TrustStore()
        try store.addCSCA(at: Self.csca)
        return store
    }

    func files(_ name: String) throws -> [LDSFile: [UInt8]] {
        try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent(name)).files
    }

    @Test func anAuthenticCardSecurityPasses() throws {
        let report = PassiveAuthentication.verify(files: try files("passport-pace"), trust: try trust())
        #expect(report.passed, "\(report.failures)")
        let cardSecurity = try #require(report.cardSecurity)
        #expect(cardSecurity.passed && cardSecurity.signature == .passed && cardSecurity.chain == .passed)
        #expect(cardSecurity.matchesDG14 == true)
    }

    @Test func aCloneSignedByARogueDSCFails() throws {
        let report = PassiveAuthentication.verify(files: try files("passport-pace-clone"), trust: try trust())
        #expect(!report.passed)
        #expect(report.signature == .passed && report.chain == .passed, "EF.SOD itself is genuine")
        let cardSecurity = try #require(report.cardSecurity)
        #expect(cardSecurity.signature == .passed, "the rogue DSC's own signature holds")
        #expect(cardSecurity.chain == .failed)
        #expect(cardSecurity.matchesDG14 == false)
        #expect(report.failures.contains { $0.hasPrefix("EF.CardSecurity: No trusted CSCA") }, "\(report.failures)")
        #expect(report.failures.contains { $0.contains("differs from DG14's") })
    }

    @Test func aGenuinelySignedCardSecurityWithAnotherKeyFails() throws {
        let report = PassiveAuthentication.verify(files: try files("passport-pace-wrongkey"), trust: try trust())
        #expect(!report.passed)
        let cardSecurity = try #require(report.cardSecurity)
        #expect(cardSecurity.chain == .passed)
        #expect(cardSecurity.matchesDG14 == false)
        #expect(report.failures == ["EF.CardSecurity: its chip-authentication public key differs from DG14's: the chip may be a copy"])
    }

    @Test func withoutDG14OnlyTheSignatureAndChainCount() throws {
        let files = try files("passport-pace")
        let check = PassiveAuthentication.verifyCardSecurity(try #require(files[.cardSecurity]), dg14: nil,
                                                             documentState: "UTO", trust: try trust())
        #expect(check.passed)
        #expect(check.matchesDG14 == nil)
    }

    @Test func withoutTrustAnchorsTheSignatureIsStillChecked() throws {
        let files = try files("passport-pace")
        let check = PassiveAuthentication.verifyCardSecurity(try #require(files[.cardSecurity]), dg14: files[.dataGroup(14)],
                                                             documentState: "UTO", trust: TrustStore())
        #expect(!check.passed)
        #expect(check.signatureValid)
        #expect(check.chain == .failed)
    }

    /// EF.CardAccess offering PACE with the given mapping (ECDH, AES-128, brainpoolP256r1): 6 is
    /// chip authentication mapping, as the fixture's EF.CardSecurity holds it; 2 is generic mapping.
    static func cardAccess(mapping: UInt8, extra: [UInt8] = []) -> [UInt8] {
        let paceInfo: [UInt8] = [0x30, 0x12, 0x06, 0x0A, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04, mapping, 0x02,
                                 0x02, 0x01, 0x02, 0x02, 0x01, 0x0D]
        return [0x31, UInt8(paceInfo.count + extra.count)] + paceInfo + extra
    }

    /// EF.CardSecurity signs EF.CardAccess's SecurityInfos: one it lacks means the PACE
    /// parameters offered are not the issuer's (TR-03105 5.1 LDS_J_02, LDS_J_03).
    @Test func anEFCardAccessWhoseSecurityInfosItHoldsPasses() throws {
        var files = try files("passport-pace")
        files[.cardAccess] = Self.cardAccess(mapping: 6)
        let report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(report.passed, "\(report.failures)")
        #expect(report.cardSecurity?.holdsCardAccess == true)
    }

    @Test(arguments: [
        (Self.cardAccess(mapping: 2), "0.4.0.127.0.7.2.2.4.2.2"),
        (Self.cardAccess(mapping: 6, extra: [0x30, 0x0F, 0x06, 0x0A, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x03, 0x02, 0x02,
                                             0x02, 0x01, 0x02]), "0.4.0.127.0.7.2.2.3.2.2"),
    ])
    func anEFCardAccessWithASecurityInfoItLacksFails(cardAccess: [UInt8], missing: String) throws {
        var files = try files("passport-pace")
        files[.cardAccess] = cardAccess
        let report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(!report.passed)
        #expect(report.cardSecurity?.holdsCardAccess == false)
        #expect(report.signature == .passed && report.cardSecurity?.signature == .passed, "only the comparison fails")
        #expect(report.failures == ["EF.CardSecurity: it does not hold 1 of EF.CardAccess's \(cardAccess == Self.cardAccess(mapping: 2) ? 1 : 2) "
            + "SecurityInfos as EF.CardAccess has them (\(missing)): the PACE parameters the chip offered are not the signed ones"])
    }

    @Test func anUnparsableEFCardAccessFails() throws {
        var files = try files("passport-pace")
        files[.cardAccess] = [0x31, 0x05, 0x30, 0x09]
        let report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(report.cardSecurity?.holdsCardAccess == false)
        #expect(report.failures.contains { $0.hasPrefix("EF.CardSecurity: its SecurityInfos and EF.CardAccess's cannot be compared") })
    }

    /// Every single-byte change of EF.CardSecurity fails verification of the dump.
    @Test func everySingleByteChangeOfCardSecurityIsCaught() throws {
        let files = try files("passport-pace")
        let original = try #require(files[.cardSecurity])
        let accepted = MutationTest.acceptedSingleByteChanges(of: .cardSecurity, in: files, trust: try trust())
        #expect(accepted.isEmpty, "\(accepted.count) of \(original.count) changes passed, at \(accepted.prefix(10))")
    }
}

/// A dump's recorded Active Authentication answer (evidence.json) checked again offline.
@Suite struct RecordedActiveAuthentication {
    func dump(evidence: ChipEvidence?) throws -> DumpFolder {
        let folder = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        return DumpFolder(url: folder.url, files: folder.files, manifest: nil, evidence: evidence?.json)
    }

    func trust() throws -> TrustStore {
        let store = TrustStore()
        try store.addCSCA(at: CardSecurityVerification.csca)
        return store
    }

    @Test func noEvidenceIsNotRecorded() throws {
        let report = try DumpVerifier.verify(dump: try dump(evidence: nil), trust: try trust())
        #expect(report.passed)
        #expect(report.activeAuthentication == .notRecorded)
    }

    @Test func aSignatureThatIsNotTheChipsFails() throws {
        let forged = ChipEvidence(activeAuthentication: .init(status: "passed", algorithm: "RSA ISO/IEC 9796-2 scheme 1",
                                                              challenge: "0102030405060708",
                                                              signature: String(repeating: "5A", count: 128)))
        let report = try DumpVerifier.verify(dump: try dump(evidence: forged), trust: try trust())
        #expect(!report.passed)
        guard case .failed = report.activeAuthentication else {
            Issue.record("expected a failed re-check, got \(report.activeAuthentication)")
            return
        }
    }

    @Test func evidenceThatIsNotJSONIsAFailure() throws {
        let folder = try dump(evidence: nil)
        let broken = DumpFolder(url: folder.url, files: folder.files, manifest: nil, evidence: Array("not json".utf8))
        let report = try DumpVerifier.verify(dump: broken, trust: try trust())
        #expect(report.failures.contains { $0.hasPrefix("evidence.json is unreadable") })
    }
}
