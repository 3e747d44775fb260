import PassiveAuth
import Foundation
import LDS

/// Mutation testing of verification: change one byte of one file at a time and check that the
/// dump no longer verifies. A verifier that accepts one forged dump is worthless.
public enum MutationTest {
    /// The positions of `file` whose single-bit change still passes passive authentication
    /// (every position, flipping the lowest bit): empty for a sound verifier.
    public static func acceptedSingleByteChanges(of file: LDSFile, in files: [LDSFile: [UInt8]], trust: TrustStore) -> [Int] {
        guard let original = files[file] else { return [] }
        return original.indices.filter { position in
            var changed = files
            var bytes = original
            bytes[position] ^= 0x01
            changed[file] = bytes
            return PassiveAuthentication.verify(files: changed, trust: trust).passed
        }
    }

    public struct Outcome: Sendable {
        public var mutations = 0
        /// (file, byte position) pairs whose change still verified.
        public var falseAccepts: [(String, Int)] = []
        public var perFile: [String: Int] = [:]
    }

    /// Mutates every position of files up to `fullUpTo` bytes and `samplePerFile` random
    /// positions of larger ones (always including the first and last bytes).
    public static func run(dump: DumpFolder, trust: TrustStore, samplePerFile: Int = 2000, fullUpTo: Int = 4096,
                           seed: UInt64 = 1) throws -> Outcome {
        let baseline = try DumpVerifier.verify(dump: dump, trust: trust)
        guard baseline.passed else { throw BaselineError(failures: baseline.failures) }
        var generator = SplitMix(seed: seed)
        var outcome = Outcome()
        for (file, bytes) in dump.files.sorted(by: { $0.key < $1.key }) {
            var positions = Array(0..<bytes.count)
            if bytes.count > fullUpTo {
                positions = [0, bytes.count - 1] + (0..<samplePerFile).map { _ in Int(generator.next() % UInt64(bytes.count)) }
            }
            for position in positions {
                var files = dump.files
                var changed = bytes
                changed[position] ^= UInt8(1 + generator.next() % 255) // never zero: always a real change
                files[file] = changed
                let mutated = DumpFolder(url: dump.url, files: files, manifest: dump.manifest)
                outcome.mutations += 1
                outcome.perFile[file.fileName, default: 0] += 1
                if (try? DumpVerifier.verify(dump: mutated, trust: trust))?.passed == true {
                    outcome.falseAccepts.append((file.fileName, position))
                }
            }
        }
        return outcome
    }
}

/// The unmodified dump must verify, or the mutation test means nothing.
public struct BaselineError: Error, CustomStringConvertible {
    public let failures: [String]
    public var description: String { "The unmodified dump does not verify: " + failures.joined(separator: " ") }
}

/// A small deterministic generator (SplitMix64), so runs are repeatable.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
