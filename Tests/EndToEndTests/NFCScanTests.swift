import Foundation
import LDS
import Testing
import TestSupport

extension VirtualPassportStack {
    /// End to end through libnfc's real pn532_uart driver and the emulated PN532 on a
    /// pseudo-terminal, in front of the same virtual passport as the PC/SC tests.
    @Suite(.serialized)
    final class NFCScans {
        static let fixture = TestPaths.fixtures.appendingPathComponent("passport")
        static let keyArguments = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
        let work = Harness.temporaryFolder()
        // The emulator keeps running between tests (each start replaces it); scripts/test stops it.
        deinit { try? FileManager.default.removeItem(at: work) }

        func startPN532(_ options: [String] = [], dump: URL = NFCScans.fixture) throws -> String {
            let r = try Harness.run(Harness.virtualPassportScript, ["start", dump.path, "--pn532"] + options, timeout: 60)
            try #require(r.status == 0, "virtual-passport --pn532 failed: \(r.stderr)")
            let connstring = try #require(r.stdout.split(separator: "\n").last.map(String.init))
            try #require(connstring.hasPrefix("pn532_uart:/dev/pts/"))
            return connstring
        }

        @Test(arguments: [true, false])
        func scanThroughLibNFCMatchesTheFixture(extendedLength: Bool) throws {
            let connstring = try startPN532(extendedLength ? [] : ["--no-extended-length"])
            let out = work.appendingPathComponent("nfc-\(extendedLength)")
            let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
            let r = try Harness.passport(["scan", "--nfc", connstring, "--json", "--no-default-trust", "--csca", csca, "--out", out.path]
                                         + Self.keyArguments)
            try #require(r.status == 0, "scan failed: \(r.stderr)")
            let json = try #require(r.json)
            #expect(json["reader"] as? String == connstring || (json["reader"] as? String)?.isEmpty == false)
            #expect(json["extended_length"] as? Bool == extendedLength)
            let read = try DumpFolder(reading: out), original = try DumpFolder(reading: Self.fixture)
            for (file, bytes) in original.files { #expect(read.files[file] == bytes, "\(file) differs") }
            #expect((json["chip_authentication"] as? [String: Any])?["status"] as? String == "passed")
            print("libnfc scan extended=\(extendedLength): \(json["apdus"] ?? "?") APDUs, \(json["seconds"] ?? "?") s")
        }

        @Test func pacethroughLibNFC() throws {
            let connstring = try startPN532(["--pace"], dump: TestPaths.fixtures.appendingPathComponent("passport-pace"))
            let r = try Harness.passport(["scan", "--nfc", connstring, "--json", "--can", "123456",
                                          "--out", work.appendingPathComponent("nfc-pace").path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect((r.json?["access_protocol"] as? String)?.hasPrefix("PACE ECDH-GM") == true)
        }

        @Test func cardPulledDuringDG2() throws {
            let connstring = try startPN532(["--drop-during", "DG2", "--no-extended-length"])
            let out = work.appendingPathComponent("nfc-pulled")
            let r = try Harness.passport(["scan", "--nfc", connstring, "--resume-wait", "0", "--out", out.path] + Self.keyArguments, timeout: 60)
            #expect(r.status == 1)
            #expect(r.stderr.contains("left the reader while DG2"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }

        @Test func noCardWithinTheTimeout() throws {
            let connstring = try startPN532()
            // Take the card out of the field and wait until the emulator says it is gone.
            var gone = false
            for _ in 0..<20 where !gone {
                _ = try Harness.run(Harness.virtualPassportScript, ["eject", "--pn532"])
                gone = try Harness.run(Harness.virtualPassportScript, ["status", "--pn532"]).status == 1
                if !gone { usleep(100_000) }
            }
            try #require(gone, "the emulated card did not leave the field")
            let r = try Harness.passport(["scan", "--nfc", connstring, "--timeout", "2"] + Self.keyArguments, timeout: 30)
            #expect(r.status == 1)
            #expect(r.stderr.contains("No passport on"))
        }
    }
}
