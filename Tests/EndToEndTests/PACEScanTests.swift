import Foundation
import LDS
import Testing
import TestSupport

/// PACE through pcscd against the virtual passport, whose PACE side is OpenPACE: every offered
/// profile, MRZ and CAN, gives the same data as BAC.
extension VirtualPassportStack {
@Suite(.serialized)
final class PACEScans {
    static let fixture = TestPaths.fixtures.appendingPathComponent("passport-pace")
    static let mrzArguments = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
    let work = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: work) }

    func scan(_ chipOptions: [String], _ password: [String]) throws -> (Harness.Result, URL) {
        try Harness.startVirtualPassport(Self.fixture, ["--pace"] + chipOptions)
        let out = work.appendingPathComponent("dump-\(UUID().uuidString)")
        let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
        return (try Harness.passport(["scan", "--json", "--no-default-trust", "--csca", csca, "--out", out.path] + password), out)
    }

    @Test(arguments: [
        (["--no-bac"], "ECDH-GM brainpoolP256r1 AES-128"),
        (["--dh", "--no-bac"], "DH-GM MODP-1024/160 AES-128"),
        (["--mapping", "cam", "--no-bac"], "ECDH-CAM brainpoolP256r1 AES-128"),
        (["--mapping", "im", "--no-bac"], "ECDH-IM brainpoolP256r1 AES-128"),
        (["--mapping", "im", "--dh", "--no-bac"], "DH-IM MODP-1024/160 AES-128"),
    ])
    func everyProfileWithMRZAndCAN(options: [String], profile: String) throws {
        for (password, name) in [(Self.mrzArguments, "MRZ"), (["--can", "123456"], "CAN")] {
            let (r, out) = try scan(options, password)
            try #require(r.status == 0, "\(profile) with \(name): \(r.stderr)")
            try Harness.expectShape(r, "scan")
            let json = try #require(r.json)
            #expect(json["access_protocol"] as? String == "PACE \(profile) (\(name))")
            // Same data as the BAC fixture, plus EF.CardAccess (and EF.CardSecurity with CAM).
            let read = try DumpFolder(reading: out)
            let bac = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
            for (file, bytes) in bac.files { #expect(read.files[file] == bytes, "\(file) differs (\(profile), \(name))") }
            #expect(read.files[.cardAccess] != nil)
            if profile.contains("CAM") {
                #expect(read.files[.cardSecurity] != nil)
                #expect((json["chip_authentication"] as? [String: Any])?["status"] as? String == "passed")
            }
            print("PACE \(profile) (\(name)): \(json["apdus"] ?? "?") APDUs, \(json["seconds"] ?? "?") s")
        }
    }

    @Test func wrongCANSaysHowManyTriesAreLeft() throws {
        let (first, out) = try scan(["--no-bac"], ["--can", "654321"])
        #expect(first.status == 1)
        #expect(first.stderr.contains("The chip refused the CAN (63C2)"))
        #expect(first.stderr.contains("2 tries left"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let second = try Harness.passport(["scan", "--can", "654321", "--out", work.appendingPathComponent("x").path])
        #expect(second.stderr.contains("1 tries left"))
    }

    @Test func bacStillWorksOnAChipThatOffersPACE() throws {
        // PACE is preferred whenever it is offered; --no-extended-length on our side too.
        try Harness.startVirtualPassport(Self.fixture, ["--pace"])
        let out = work.appendingPathComponent("short")
        let r = try Harness.passport(["scan", "--json", "--no-extended-length", "--out", out.path] + Self.mrzArguments)
        #expect(r.status == 0, "\(r.stderr)")
        #expect((r.json?["access_protocol"] as? String)?.hasPrefix("PACE ECDH-GM") == true)
        #expect(r.json?["extended_length"] as? Bool == false)
    }
}
}
