import Foundation
import LDS
import Testing
import TestSupport

extension VirtualPassportStack {
    /// Chip and active authentication against the virtual passport: our fixture (CA with AES,
    /// AA with RSA-1024), PACE-CAM, the BSI TR-03105-5 reference set with its published chip keys
    /// (CA with 3DES through MSE:Set KAT), and chips that are copies: without the keys, or with
    /// a key of their own in a self-made EF.CardSecurity. Each case asserts the outcome and the
    /// exit code.
    @Suite(.serialized)
    final class ChipAuthenticity {
        let work = Harness.temporaryFolder()
        deinit { try? FileManager.default.removeItem(at: work) }

        static let fixtureKey = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
        static let trust = ["--no-default-trust", "--csca", TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path]
        static let cloneKey = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-clone-chip-ca-brainpoolP256r1.key.pem").path
        static func fixture(_ name: String) -> URL { TestPaths.fixtures.appendingPathComponent(name) }

        /// Serves `dump`, scans it, and expects `exit`; the dump is saved in every case.
        func scan(_ dump: URL, _ chipOptions: [String], _ scanOptions: [String] = [], key: [String] = fixtureKey,
                  exit: Int32, sourceLocation: SourceLocation = #_sourceLocation) throws -> (json: [String: Any], out: URL) {
            try Harness.startVirtualPassport(dump, chipOptions)
            let out = work.appendingPathComponent(UUID().uuidString)
            let r = try Harness.passport(["scan", "--json", "--out", out.path] + scanOptions + key)
            #expect(r.status == exit, "scan: \(r.stderr)", sourceLocation: sourceLocation)
            try Harness.expectShape(r, "scan", sourceLocation: sourceLocation)
            #expect(FileManager.default.fileExists(atPath: out.path), "the dump is saved", sourceLocation: sourceLocation)
            return (try #require(r.json, sourceLocation: sourceLocation), out)
        }

        func status(_ json: [String: Any], _ key: String) -> String? {
            (json[key] as? [String: Any])?["status"] as? String
        }

        @Test(.enabled(if: TestPaths.reference != nil, "../shared/reference is absent"))
        func bsiReferenceSetWithItsPublishedKeys() throws {
            let bsi = try #require(TestPaths.reference).appendingPathComponent("lds/bsi-tr03105-5")
            let dg1 = try DataGroup1(bytes: [UInt8](try Data(contentsOf: bsi.appendingPathComponent("Datagroup1.bin"))))
            let key = ["--document-number", dg1.mrz.documentNumber, "--birth", dg1.mrz.birthDate, "--expiry", dg1.mrz.expiryDate]
            // DG14_sk.pkcs8 and DG15_sk.pkcs8 beside the files are picked up by the virtual passport.
            // Its CSCA is not public: DG14 cannot be authenticated, so chip authentication is
            // performed but unverified.
            let (json, _) = try scan(bsi, [], key: key, exit: 0)
            #expect(status(json, "chip_authentication") == "unverified", "\(json["chip_authentication"] ?? "")")
            #expect(status(json, "active_authentication") == "passed", "\(json["active_authentication"] ?? "")")
        }

        @Test func genuineChipWithTrustAnchorsPasses() throws {
            let (json, out) = try scan(Self.fixture("passport"), [], Self.trust, exit: 0)
            #expect(status(json, "chip_authentication") == "passed")
            #expect(status(json, "active_authentication") == "passed")
            #expect(json["chip_authentication_method"] as? String == "chip_authentication")
            let manifest = try #require(try DumpFolder(reading: out).manifest)
            #expect(manifest.chipAuthentication == "passed" && manifest.activeAuthentication == "passed")
        }

        @Test func chipAuthenticationWithoutTrustAnchorsIsUnverified() throws {
            let (json, _) = try scan(Self.fixture("passport"), [], exit: 0)
            #expect(status(json, "chip_authentication") == "unverified")
        }

        @Test func aChipWithoutTheChipAuthenticationKeyFails() throws {
            let (json, out) = try scan(Self.fixture("passport"), ["--ca-wrong-key"], Self.trust, exit: 1)
            #expect(status(json, "chip_authentication") == "failed")
            #expect(json["ok"] as? Bool == false)
            // The read still completes over a fresh BAC session, and says what failed.
            #expect((json["files"] as? [[String: Any]])?.count == 8)
            #expect(try DumpFolder(reading: out).manifest?.chipAuthentication == "failed")
        }

        @Test func aForgedActiveAuthenticationSignatureFails() throws {
            let (json, out) = try scan(Self.fixture("passport"), ["--aa-bad-signature"], Self.trust, exit: 1)
            #expect(status(json, "active_authentication") == "failed")
            #expect(status(json, "chip_authentication") == "passed")
            #expect(try DumpFolder(reading: out).manifest?.activeAuthentication == "failed")
        }

        // MARK: PACE-CAM and EF.CardSecurity

        @Test func paceCAMWithAnAuthenticCardSecurityPasses() throws {
            let (json, _) = try scan(Self.fixture("passport-pace"), ["--pace", "--mapping", "cam", "--no-bac"], Self.trust, exit: 0)
            #expect(status(json, "chip_authentication") == "passed")
            #expect(json["chip_authentication_method"] as? String == "pace_cam")
            let cardSecurity = (json["passive_authentication"] as? [String: Any])?["card_security"] as? [String: Any]
            #expect(cardSecurity?["passed"] as? Bool == true && cardSecurity?["matches_dg14"] as? Bool == true)
        }

        @Test func paceCAMWithoutTrustAnchorsIsUnverified() throws {
            let (json, _) = try scan(Self.fixture("passport-pace"), ["--pace", "--mapping", "cam", "--no-bac"], exit: 0)
            #expect(status(json, "chip_authentication") == "unverified")
            let detail = (json["chip_authentication"] as? [String: Any])?["detail"] as? String ?? ""
            #expect(detail.contains("EF.CardSecurity signature valid, chain not checked"), "\(detail)")
        }

        /// A clone: the genuine data, its own chip key in an EF.CardSecurity signed by a rogue DSC.
        @Test(arguments: [true, false])
        func aClonedPACECAMChipFails(withTrustAnchors: Bool) throws {
            let chip = ["--pace", "--mapping", "cam", "--no-bac", "--ca-key", Self.cloneKey]
            let (json, _) = try scan(Self.fixture("passport-pace-clone"), chip, withTrustAnchors ? Self.trust : [], exit: 1)
            #expect(status(json, "chip_authentication") == "failed", "\(json["chip_authentication"] ?? "")")
            let detail = (json["chip_authentication"] as? [String: Any])?["detail"] as? String ?? ""
            #expect(detail.contains("not authentic") && detail.contains("may be a copy"), "\(detail)")
            if withTrustAnchors {
                let cardSecurity = (json["passive_authentication"] as? [String: Any])?["card_security"] as? [String: Any]
                #expect(cardSecurity?["chain"] as? String == "failed")
                #expect(cardSecurity?["matches_dg14"] as? Bool == false)
            }
        }

        /// EF.CardSecurity signed by the genuine DSC (its key leaked) but naming another chip key:
        /// only the comparison with DG14 catches it.
        @Test func aCardSecurityWhoseKeyIsNotDG14sFails() throws {
            let chip = ["--pace", "--mapping", "cam", "--no-bac", "--ca-key", Self.cloneKey]
            let (json, _) = try scan(Self.fixture("passport-pace-wrongkey"), chip, Self.trust, exit: 1)
            #expect(status(json, "chip_authentication") == "failed")
            let cardSecurity = (json["passive_authentication"] as? [String: Any])?["card_security"] as? [String: Any]
            #expect(cardSecurity?["chain"] as? String == "passed")
            #expect(cardSecurity?["matches_dg14"] as? Bool == false)
        }

        // MARK: downgrades

        /// PACE offered and failed, BAC used: recorded in the report, the evidence and the
        /// manifest's access protocol; `--require-pace` refuses it.
        @Test(arguments: [false, true])
        func aPACEFailureFallsBackToBACVisibly(requirePACE: Bool) throws {
            let (json, out) = try scan(Self.fixture("passport-pace"), ["--pace", "--mapping", "gm", "--pace-refuse", "6985"],
                                       Self.trust + (requirePACE ? ["--require-pace"] : []), exit: requirePACE ? 1 : 0)
            #expect(json["access_protocol"] as? String == "BAC")
            let fallback = try #require(json["pace_fallback"] as? [String: Any])
            #expect((fallback["offered"] as? String)?.contains("PACE-ECDH-GM") == true, "\(fallback)")
            #expect((fallback["failure"] as? String)?.contains("6985") == true, "\(fallback)")
            let dump = try DumpFolder(reading: out)
            #expect(dump.manifest?.accessProtocol == "BAC")
            #expect(dump.manifest?.paceFallback?["failure"]?.contains("6985") == true, "\(dump.manifest?.paceFallback ?? [:])")
            let evidence = try ChipEvidence(json: try #require(dump.evidence))
            #expect(evidence.accessControl?.used == "BAC")
            #expect(evidence.accessControl?.paceFailure?.contains("6985") == true)
        }

        // MARK: evidence for later

        /// The Active Authentication answer is kept in evidence.json; `passport verify` checks it
        /// again against DG15, and an edited signature fails, even when the manifest is edited too.
        @Test func activeAuthenticationEvidenceIsRecheckedOffline() throws {
            let (_, out) = try scan(Self.fixture("passport"), [], Self.trust, exit: 0)
            let verify = ["verify", out.path, "--json"] + Self.trust
            let genuine = try Harness.passport(verify)
            #expect(genuine.status == 0, "\(genuine.stderr)")
            #expect((genuine.json?["active_authentication"] as? [String: Any])?["status"] as? String == "passed")

            let evidenceURL = out.appendingPathComponent(ChipEvidence.fileName)
            var evidence = try ChipEvidence(json: [UInt8](try Data(contentsOf: evidenceURL)))
            let signature = try #require(evidence.activeAuthentication?.signature)
            let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
            evidence.activeAuthentication?.signature = flipped
            try Data(evidence.json).write(to: evidenceURL)
            let edited = try Harness.passport(verify)
            #expect(edited.status == 1)
            #expect(edited.stdout.contains("evidence.json differs from the recording"), "the manifest covers evidence.json")

            // The manifest brought in line: the signature check alone still catches it.
            try rewriteManifestEntry(out, name: ChipEvidence.fileName, bytes: evidence.json)
            let forged = try Harness.passport(verify)
            #expect(forged.status == 1)
            #expect((forged.json?["active_authentication"] as? [String: Any])?["status"] as? String == "failed")
        }

        func rewriteManifestEntry(_ dump: URL, name: String, bytes: [UInt8]) throws {
            let url = dump.appendingPathComponent(DumpFolder.manifestName)
            var manifest = try JSONDecoder().decode(DumpManifest.self, from: Data(contentsOf: url))
            manifest.files[name] = DumpManifest.FileEntry(size: bytes.count, sha256: DumpManifest.FileEntry.sha256(of: bytes),
                                                          apdus: 0, seconds: 0)
            try JSONEncoder().encode(manifest).write(to: url)
        }
    }
}
