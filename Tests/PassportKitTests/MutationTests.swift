import ChipProtocols
import PassiveAuth
import Foundation
import LDS
import PassportKit
import Testing
import TestSupport

/// Every single-byte change of a recorded dump (every position of every file up to 4 KB, 2000
/// random positions of DG2) must make verification fail.
@Suite struct VerificationMutationTest {
    @Test func noSingleByteChangeVerifies() throws {
        let fixture = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        // A recorded dump: the fixture files with the manifest a scan writes.
        var entries: [String: DumpManifest.FileEntry] = [:]
        for (file, bytes) in fixture.files {
            entries[file.fileName] = .init(size: bytes.count, sha256: hex(SHA256Test.digest(bytes)).lowercased(), apdus: 1, seconds: 0)
        }
        let manifest = DumpManifest(toolVersion: "test", createdAt: "2026-01-01T00:00:00Z", reader: "test", accessProtocol: "BAC",
                                    extendedLength: true, apdus: 0, seconds: 0, files: entries)
        let dump = DumpFolder(url: fixture.url, files: fixture.files, manifest: manifest)
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        let outcome = try MutationTest.run(dump: dump, trust: trust, samplePerFile: 2000)
        #expect(outcome.mutations > 4000)
        #expect(outcome.falseAccepts.isEmpty, "accepted: \(outcome.falseAccepts.prefix(20))")
        print("mutation test: \(outcome.mutations) single-byte changes, \(outcome.falseAccepts.count) accepted; per file \(outcome.perFile.sorted { $0.key < $1.key })")
    }

    @Test func withoutAManifestEFCOMIsUnprotected() throws {
        // EF.COM is not covered by the SOD (ICAO 9303-10): only a recording's manifest protects it.
        let fixture = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        var files = fixture.files
        var com = files[.com]!
        com[com.count - 8] ^= 0x01 // a digit of the Unicode version
        files[.com] = com
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        #expect(try DumpVerifier.verify(dump: DumpFolder(url: fixture.url, files: files, manifest: nil), trust: trust).passed)
    }
}
