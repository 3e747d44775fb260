import Foundation
import LDS
import Testing
import TestSupport

extension VirtualPassportStack {
    /// Chip and active authentication against the virtual passport: our fixture (CA with AES,
    /// AA with RSA-1024) and the BSI TR-03105-5 reference set with its published chip keys
    /// (CA with 3DES through MSE:Set KAT), plus a cloned chip that lacks the keys.
    @Suite(.serialized)
    final class ChipAuthenticity {
        let work = Harness.temporaryFolder()
        deinit { try? FileManager.default.removeItem(at: work) }

        func scan(_ dump: URL, _ chipOptions: [String], _ key: [String]) throws -> [String: Any] {
            try Harness.startVirtualPassport(dump, chipOptions)
            let r = try Harness.passport(["scan", "--json", "--out", work.appendingPathComponent(UUID().uuidString).path] + key)
            try #require(r.status == 0, "scan failed: \(r.stderr)")
            return try #require(r.json)
        }

        func status(_ json: [String: Any], _ key: String) -> String? {
            (json[key] as? [String: Any])?["status"] as? String
        }

        static let fixtureKey = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]

        @Test(.enabled(if: TestPaths.reference != nil, "../shared/reference is absent"))
        func bsiReferenceSetWithItsPublishedKeys() throws {
            let bsi = try #require(TestPaths.reference).appendingPathComponent("lds/bsi-tr03105-5")
            let dg1 = try DataGroup1(bytes: [UInt8](try Data(contentsOf: bsi.appendingPathComponent("Datagroup1.bin"))))
            let key = ["--document-number", dg1.mrz.documentNumber, "--birth", dg1.mrz.birthDate, "--expiry", dg1.mrz.expiryDate]
            // DG14_sk.pkcs8 and DG15_sk.pkcs8 beside the files are picked up by the virtual passport.
            let json = try scan(bsi, [], key)
            #expect(status(json, "chip_authentication") == "passed", "\(json["chip_authentication"] ?? "")")
            #expect(status(json, "active_authentication") == "passed", "\(json["active_authentication"] ?? "")")
        }

        @Test func aClonedChipFailsChipAuthentication() throws {
            let json = try scan(TestPaths.fixtures.appendingPathComponent("passport"), ["--ca-wrong-key"], Self.fixtureKey)
            #expect(status(json, "chip_authentication") == "failed")
            // The read still completes over a fresh BAC session, and says what failed.
            #expect((json["files"] as? [[String: Any]])?.count == 8)
        }

        @Test func aForgedActiveAuthenticationSignatureFails() throws {
            let json = try scan(TestPaths.fixtures.appendingPathComponent("passport"), ["--aa-bad-signature"], Self.fixtureKey)
            #expect(status(json, "active_authentication") == "failed")
            #expect(status(json, "chip_authentication") == "passed")
        }
    }
}
