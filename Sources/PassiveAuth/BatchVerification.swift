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
        verify(paths.map { DumpLocation(path: $0) })
    }

    /// Outcomes in the order of `dumps`.
    public func verify(_ dumps: [DumpLocation]) -> [BatchOutcome] {
        let start = DispatchTime.now().uptimeNanoseconds
        let slots = UnsafeMutableBufferPointer<BatchOutcome?>.allocate(capacity: dumps.count)
        slots.initialize(repeating: nil)
        defer { slots.deallocate() }
        // Each iteration writes only its own slot.
        nonisolated(unsafe) let output = slots
        DispatchQueue.concurrentPerform(iterations: dumps.count) { index in
            output[index] = verifyOne(dumps[index])
        }
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return slots.map { $0! }
    }

    func verifyOne(_ location: DumpLocation) -> BatchOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let result: BatchOutcome.Result
        do {
            let dump = try DumpSource.read(location)
            var report = PassiveAuthentication.verify(files: dump.files, trust: trust, at: at, documentSigners: documentSigners)
            DumpVerifier.checkManifest(dump, &report)
            DumpVerifier.recheckActiveAuthentication(dump, &report)
            result = .verified(report)
        } catch {
            result = .unreadable(error)
        }
        return BatchOutcome(path: location.path, result: result, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

/// Finds dumps under a folder: every folder holding an EF.SOD (any naming style; not searched
/// further) and every NFCPassportReader JSON export. Sorted by path. Symbolic links to folders
/// are not followed (as `find` does not): a link back up the tree would never end. Each folder
/// is listed once: a dump folder's listing goes with it to the reader.
public enum DumpDiscovery {
    static let sodNames: Set<String> = Set(([LDSFile.sod.fileName] + LDSFile.sod.alternativeFileNames).map { $0.lowercased() })

    public static func dumps(under folder: URL) throws -> [String] {
        try locations(under: folder).map(\.path)
    }

    public static func locations(under folder: URL) throws -> [DumpLocation] {
        guard DumpFileReader.isFolder(folder) == true else { throw DumpError.notAFolder(folder.path) }
        var found: [DumpLocation] = []
        var pending = [folder.path]
        while let current = pending.popLast() {
            let listing = try DumpFileReader.listing(of: current)
            let entries = listing.entries.filter { !$0.name.hasPrefix(".") }.sorted { $0.name < $1.name }
            if entries.contains(where: { sodNames.contains($0.name.lowercased()) }) {
                found.append(DumpLocation(path: current, listing: listing))
                continue
            }
            for entry in entries {
                let path = Paths.join(current, entry.name)
                if entry.kind == .folder || (entry.kind == .unknown && isRealFolder(path)) {
                    pending.append(path)
                } else if entry.name.lowercased().hasSuffix(".json"), NFCPassportReaderExport.isExport(at: URL(fileURLWithPath: path)) {
                    found.append(DumpLocation(path: path))
                }
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    static func isRealFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
