import FoundationEssentials
import Glibc
import Dispatch
import LDS
import LocalFiles

/// The outcome of one dump of a batch.
public struct BatchOutcome: Sendable {
    public enum Result: Sendable {
        case verified(PassiveAuthenticationReport)
        /// The dump could not be read at all (missing, malformed export, no recognised file).
        case unreadable(any Error)
    }
    public let path: String
    public let result: Result
    public let seconds: Double

    public var passed: Bool {
        if case .verified(let report) = result { return report.passed }
        return false
    }

    /// What failed, in one line (JUnit failure message, text output).
    public var failureMessage: String {
        switch result {
        case .verified(let report): return report.failures.first ?? "verification did not pass"
        case .unreadable(let error): return SystemErrorText.describe(error) ?? String(describing: error)
        }
    }
}

/// Verifies many dumps in one process against one trust store, in parallel across cores:
/// the trust anchors are loaded once and each certificate is parsed once for all dumps.
public final class BatchVerifier: @unchecked Sendable {
    let trust: TrustStore
    let at: Date?
    let documentSigners: [Certificate]
    public private(set) var seconds = 0.0

    public init(trust: TrustStore, at: Date? = nil, documentSigners: [Certificate] = []) {
        self.trust = trust
        self.at = at
        self.documentSigners = documentSigners
    }

    /// Outcomes in the order of `paths`.
    public func verify(_ paths: [String]) -> [BatchOutcome] {
        let start = DispatchTime.now().uptimeNanoseconds
        let slots = UnsafeMutableBufferPointer<BatchOutcome?>.allocate(capacity: paths.count)
        slots.initialize(repeating: nil)
        defer { slots.deallocate() }
        // Each iteration writes only its own slot.
        nonisolated(unsafe) let output = slots
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            output[index] = verifyOne(paths[index])
        }
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return slots.map { $0! }
    }

    func verifyOne(_ path: String) -> BatchOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let result: BatchOutcome.Result
        do {
            let dump = try DumpSource.read(URL(fileURLWithPath: path))
            var report = PassiveAuthentication.verify(files: dump.files, trust: trust, at: at, documentSigners: documentSigners)
            DumpVerifier.checkManifest(dump, &report)
            DumpVerifier.recheckActiveAuthentication(dump, &report)
            result = .verified(report)
        } catch {
            result = .unreadable(error)
        }
        return BatchOutcome(path: path, result: result, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

/// Finds dumps under a folder: every folder holding an EF.SOD (any naming style; not searched
/// further) and every NFCPassportReader JSON export. Sorted by path. Symbolic links to folders
/// are not followed (as `find` does not): a link back up the tree would never end.
public enum DumpDiscovery {
    static let sodNames: Set<String> = Set(([LDSFile.sod.fileName] + LDSFile.sod.alternativeFileNames).map { $0.lowercased() })

    public static func dumps(under folder: URL) throws -> [String] {
        guard DumpFileReader.isFolder(folder) == true else { throw DumpError.notAFolder(folder.path) }
        var found: [String] = []
        var pending = [folder]
        while let current = pending.popLast() {
            let names = try DumpFileReader.names(in: current).filter { !$0.hasPrefix(".") }.sorted()
            if names.contains(where: { sodNames.contains($0.lowercased()) }) {
                found.append(current.path)
                continue
            }
            for name in names {
                let url = current.appendingPathComponent(name)
                if isRealFolder(url) {
                    pending.append(url)
                } else if name.lowercased().hasSuffix(".json"), NFCPassportReaderExport.isExport(at: url) {
                    found.append(url.path)
                }
            }
        }
        return found.sorted()
    }

    static func isRealFolder(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
