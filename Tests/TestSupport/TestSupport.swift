import Foundation
import PassportCrypto

/// Paths and helpers shared by the test targets.
public enum TestPaths {
    /// The package root (two levels above this file's folder).
    public static let projectRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let fixtures = projectRoot.appendingPathComponent("Fixtures")

    /// Published reference data (`../shared/reference`, or `$PASSPORT_REFERENCE_DIR`); nil when absent,
    /// in which case conformance tests skip.
    public static let reference: URL? = {
        let candidate = ProcessInfo.processInfo.environment["PASSPORT_REFERENCE_DIR"].map { URL(fileURLWithPath: $0) }
            ?? projectRoot.deletingLastPathComponent().appendingPathComponent("shared/reference")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// The ICAO 9303-11 worked examples (section → string fields), when the reference data is present.
    public static func icaoVectors() -> [String: [String: String]]? {
        guard let reference,
              let data = try? Data(contentsOf: reference.appendingPathComponent("vectors/icao9303-part11.json")),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object.compactMapValues { ($0 as? [String: Any])?.compactMapValues { $0 as? String } }
    }

    /// The command/response pairs of a worked example's APDU exchange.
    public static func icaoAPDUs(_ section: String) -> [(command: String, response: String)]? {
        guard let reference,
              let data = try? Data(contentsOf: reference.appendingPathComponent("vectors/icao9303-part11.json")),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let list = (object[section] as? [String: Any])?["apdus"] as? [[String]] else { return nil }
        return list.map { ($0[0], $0[1]) }
    }
}

/// Hex string ↔ bytes for readable test data.
public func hex(_ string: String) -> [UInt8] {
    let digits = Array(string.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02X", $0) }.joined()
}

/// SHA-256 for tests that compare with published digests.
public enum SHA256Test {
    public static func digest(_ data: [UInt8]) -> [UInt8] { OpenSSLCrypto.sha256(data) }
}

/// The mopro TEST DOUBLE (Tests/ProverDouble/mopro_double.c), compiled with gcc once per run.
public enum MoproDouble {
    public static let checksums = ["generate_noir_proof": 11111, "get_noir_verification_key": 22222, "verify_noir_proof": 33333]

    public static let library: String? = {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("libmopro_double-\(getpid()).so").path
        let source = TestPaths.projectRoot.appendingPathComponent("Tests/ProverDouble/mopro_double.c").path
        var argv: [UnsafeMutablePointer<CChar>?] = []
        for argument in ["/usr/bin/gcc", "-shared", "-fPIC", "-O1", "-o", out, source] { argv.append(argument.withCString { strdup($0) }) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/gcc", nil, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status == 0 ? out : nil
    }()
}
