import PassiveAuth
import Foundation
import LDS
import Testing
import TestSupport

/// Every row of ../shared/reference/README.md that concerns passive authentication, with the
/// stated outcome. Skipped with a message when the reference folder is absent.
@Suite(.enabled(if: TestPaths.reference != nil, "../shared/reference is absent"))
struct ReferenceConformance {
    static let root = TestPaths.reference ?? URL(fileURLWithPath: "/nonexistent")
    /// Pinned so that results do not change as real certificates expire.
    static let today = ISO8601DateFormatter().date(from: "2026-11-21T00:00:00Z")!

    static let masterListTrust: TrustStore? = {
        let store = TrustStore()
        let ml = root.appendingPathComponent("masterlists")
        let roots = (try? ["DE", "NL"].flatMap { try Certificate.load(file: ml.appendingPathComponent("\($0)_masterlist_signer_root.cer")) }) ?? []
        do {
            try store.addMasterList(at: ml.appendingPathComponent("DE_masterlist.ml"), signerRoots: roots)
            try store.addMasterList(at: ml.appendingPathComponent("NL_masterlist.ml"), signerRoots: roots)
        } catch { return nil }
        return store
    }()

    func dump(_ path: String) throws -> [LDSFile: [UInt8]] {
        try DumpFolder(reading: Self.root.appendingPathComponent(path)).files
    }

    @Test func bsiTR03105SignatureAndHashesVerifyDG15NotListedCSCAUnknown() throws {
        let report = PassiveAuthentication.verify(files: try dump("lds/bsi-tr03105-5"), trust: TrustStore(), now: Self.today)
        #expect(report.signature == .passed)
        #expect(report.signatureScheme?.hasPrefix("RSA-PSS") == true)
        for n in [1, 2, 3, 4, 14] { #expect(report.dataGroups.first { $0.number == n }?.status == .valid) }
        #expect(report.dataGroups.first { $0.number == 15 }?.status == .notListed)
        #expect(report.chain == .failed)
        #expect(report.failures.contains { $0.hasPrefix("No trusted CSCA") })
    }

    @Test(arguments: ["lds/bsi-2008", "lds/nl-specimen-2006"])
    func olderSpecimensVerifyButCSCAIsNotPublic(path: String) throws {
        let report = PassiveAuthentication.verify(files: try dump(path), trust: TrustStore(), now: Self.today)
        #expect(report.signature == .passed, "\(report.failures)")
        #expect(!report.dataGroups.contains { $0.status == .mismatch })
        #expect(report.dataGroups.contains { $0.status == .valid })
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.hasPrefix("No trusted CSCA") == true)
    }

    @Test(arguments: [("lds/etsi-tr103200-de/EF_SOD.bin", "lds/etsi-tr103200-de/csca.der"),
                      ("lds/si-real-sod/EF_SOD.bin", "lds/si-real-sod/csca.cer")])
    func sodOnlyFullChainVerifies(sod: String, csca: String) throws {
        let store = TrustStore()
        try store.addCSCA(at: Self.root.appendingPathComponent(csca))
        let report = PassiveAuthentication.verify(files: try dump(sod), trust: store, now: Self.today)
        #expect(report.passed, "\(report.failures)")
        #expect(!report.hashesChecked)
    }

    @Test func masterListsLoadHundredsOfCSCAs() throws {
        let store = try #require(Self.masterListTrust, "master lists did not load")
        #expect(store.cscas.count > 900)
        #expect(store.notes.allSatisfy { $0.contains("signature verified") && $0.contains("anchored") })
    }

    @Test func tamperedMasterListIsRejected() throws {
        var bytes = [UInt8](try Data(contentsOf: Self.root.appendingPathComponent("masterlists/NL_masterlist.ml")))
        bytes[bytes.count / 2] ^= 0x01
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tampered-\(UUID().uuidString).ml")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: PassiveAuthenticationError.self) { try TrustStore().addMasterList(at: url) }
    }

    @Test(arguments: ["DE", "NZ", "SG", "MY", "US", "PH"])
    func realWorldSODsVerifyAgainstMasterLists(country: String) throws {
        let store = try #require(Self.masterListTrust)
        let report = PassiveAuthentication.verify(files: try dump("sod-realworld/\(country).EF_SOD.bin"), trust: store, now: Self.today)
        #expect(report.passed, "\(country): \(report.failures)")
        #expect(report.csca?.subject.contains("C=\(country)") == true)
    }
}
