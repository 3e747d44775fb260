import Foundation
import JSONCore
import LDS
import PassiveAuth
import PassportKit
import TestSupport
import Testing

/// The reports and files written through `JSON.encoded` are the bytes JSONEncoder wrote before,
/// from real results (the fixture passport verified against its TEST-ONLY CSCA).
@Suite struct ReportsAsJSONEncoderWroteThem {
    static func verifyReport(csca: Bool = true) throws -> VerifyReport {
        let trust = TrustStore()
        if csca { try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem")) }
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        return VerifyReport(dump: dump.url.path, trust: trust, report: try DumpVerifier.verify(dump: dump, trust: trust))
    }

    static func text(_ bytes: some Sequence<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }

    static func jsonEncoder(_ formatting: JSONEncoder.OutputFormatting, _ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return text(try encoder.encode(value))
    }

    /// `ReportEncoding.data` (every command's `--json`) and `.line` (`verify --recursive`).
    static func expectReportBytes(_ report: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(text(try ReportEncoding.data(report)) == (try jsonEncoder([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes], report)),
                sourceLocation: sourceLocation)
        #expect(text(try ReportEncoding.line(report)) == (try jsonEncoder([.sortedKeys, .withoutEscapingSlashes], report)),
                sourceLocation: sourceLocation)
    }

    @Test func verifyReports() throws {
        let passed = try Self.verifyReport()
        #expect(passed.ok)
        try Self.expectReportBytes(passed)
        let unknownCSCA = try Self.verifyReport(csca: false) // nulls where the CSCA would be
        #expect(!unknownCSCA.ok)
        try Self.expectReportBytes(unknownCSCA)
        #expect(Self.text(try ReportEncoding.line(unknownCSCA)).contains("\"csca\":null"))
    }

    /// The lines a batch writes directly (JSONLine) are the Encodable bytes of the same reports,
    /// whichever members are null, empty or filled: passed, no CSCA, a tampered data group (failures),
    /// EF.CardSecurity (its own summary), a clone's card (CardSecurity failing), and an error line.
    @Test func batchLinesWrittenDirectly() throws {
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        var reports = [try Self.verifyReport(), try Self.verifyReport(csca: false)]
        for name in ["passport", "passport-pace", "passport-pace-clone", "passport-eac"] {
            let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent(name))
            reports.append(VerifyReport(dump: dump.path, trust: trust, report: try DumpVerifier.verify(dump: dump, trust: trust)))
            var files = dump.files
            files[.dataGroup(1)]?[10] ^= 1
            let evidence = ChipEvidence(activeAuthentication: .init(status: "passed", algorithm: "RSA/SHA-1", challenge: "0102", signature: "AB"))
            let tampered = DumpFolder(url: dump.url, files: files, manifest: nil, evidence: evidence.json)
            reports.append(VerifyReport(dump: dump.path + "/\"é\t", trust: trust, report: try DumpVerifier.verify(dump: tampered, trust: trust)))
        }
        #expect(reports.contains { $0.passiveAuthentication.cardSecurity != nil })
        #expect(reports.contains { !$0.passiveAuthentication.failures.isEmpty && !$0.passiveAuthentication.warnings.isEmpty || !$0.ok })
        #expect(reports.contains { $0.activeAuthentication.detail != nil })
        for report in reports {
            #expect(Self.text(ReportEncoding.line(report)) == (try Self.jsonEncoder([.sortedKeys, .withoutEscapingSlashes], report)))
        }
        let error = VerifyLineError(dump: "/tmp/dumps/a b/ü", code: "dump_unreadable", message: "not a file\n\u{1} 😀")
        #expect(Self.text(ReportEncoding.line(error)) == (try Self.jsonEncoder([.sortedKeys, .withoutEscapingSlashes], error)))
    }

    @Test func errorReports() throws {
        let message = "cannot read /tmp/a \"b\"/DG1.bin:\tnot a file\nsecond line \u{1} é 😀"
        try Self.expectReportBytes(ErrorReport(code: "dump_file_refused", message: message))
        try Self.expectReportBytes(VerifyLineError(dump: "/tmp/dumps/a b/ü", code: "dump_unreadable", message: message))
    }

    @Test func dumpManifestAsWritten() throws {
        let bytes: [UInt8] = Array(0..<93)
        var manifest = DumpManifest(toolVersion: "0.9.1", createdAt: "2026-11-29T07:00:00Z", reader: "ACS ACR122U PICC Interface 00 00",
                                    accessProtocol: "PACE-CAM/ECDH-GM", extendedLength: true, apdus: 124, seconds: 0.153_4,
                                    files: ["DG1.bin": .init(size: 93, sha256: DumpManifest.FileEntry.sha256(of: bytes), apdus: 3, seconds: 0.012_5),
                                            "EF.SOD": .init(size: 2048, sha256: "ab/cd", apdus: 12, seconds: 1)],
                                    chipAuthentication: "passed", activeAuthentication: nil,
                                    unavailable: ["DG3.bin": "access denied (6982)", "DG4.bin": "terminal authentication / not tried"])
        manifest.interruptions = [.init(file: "DG2.bin", offset: 4096, secondsToNotice: 0.25, secondsAway: 1e-7, secondsToResume: 2)]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try DumpFolder.write(files: [.dataGroup(1): bytes], manifest: manifest, to: folder)
        let written = try Data(contentsOf: folder.appendingPathComponent(DumpFolder.manifestName))
        #expect(Self.text(written) == (try Self.jsonEncoder([.prettyPrinted, .sortedKeys], manifest)))
    }

    @Test func chipEvidence() throws {
        var evidence = ChipEvidence(activeAuthentication: .init(status: "passed", algorithm: "RSA/SHA-1", challenge: "0102", signature: "AB"),
                                    chipAuthentication: .init(status: "passed", method: "CA", protocol: "0.4.0.127.0.7.2.2.3.2.4", keyID: 1),
                                    accessControl: .init(used: "BAC", paceOffered: "0.4.0.127.0.7.2.2.4.2.2", paceFailure: "6A80 / refused"))
        evidence.reopenedSessions = [.init(after: "READ BINARY 00 B0 9C 00", statusWord: "6988")]
        #expect(Self.text(evidence.json) == (try Self.jsonEncoder([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes], evidence)))
    }

    /// Not a timed test: prints JSONEncoder's time and JSONCore's for one `verify --recursive`
    /// line (docs/testing.md, Benchmarks; `-enable-testing` for the suites' @testable imports):
    /// `JSON_ENCODER_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter ReportsAsJSONEncoderWroteThem/benchmark`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["JSON_ENCODER_BENCH"] != nil))
    func benchmark() throws {
        let report = try Self.verifyReport()
        let runs = 20_000
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func microseconds(_ body: () throws -> Int) rethrows -> Double {
            var best = Double.infinity, bytes = 0
            for _ in 0..<5 {
                let start = ContinuousClock.now
                for _ in 0..<runs / 5 { bytes &+= try body() }
                let elapsed = ContinuousClock.now - start
                best = min(best, Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            }
            #expect(bytes > 0)
            return best / Double(runs / 5)
        }
        let foundation = try microseconds { try encoder.encode(report).count }
        let jsonCore = try microseconds { try ReportEncoding.line(report).count }
        let size = try ReportEncoding.line(report).count
        print("VerifyReport line (\(size) bytes): JSONEncoder \(foundation.rounded(toPlaces: 2)) µs, JSON.encoded \(jsonCore.rounded(toPlaces: 2)) µs, \((foundation / jsonCore).rounded(toPlaces: 2))× faster")
    }
}

private extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
        return (self * scale).rounded() / scale
    }
}
