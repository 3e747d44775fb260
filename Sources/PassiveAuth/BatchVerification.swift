import FoundationEssentials
import Glibc
import Dispatch
import LDS
import LocalFiles

/// The outcome of one dump of a batch. A class: a report is dozens of references, and an outcome
/// is moved about several times on its way to the output (each copy of a struct retained all of
/// them, a tenth of a dump's time).
public final class BatchOutcome: Sendable {
    public enum Result: Sendable {
        case verified(PassiveAuthenticationReport)
        /// The dump could not be read at all (missing, malformed export, no recognised file).
        case unreadable(any Error)
    }
    public let path: String
    public let result: Result
    public let seconds: Double
    /// Kept apart: reading it from `result` copied the whole report out of the enum.
    public let passed: Bool

    init(path: String, report: PassiveAuthenticationReport, seconds: Double) {
        self.path = path
        self.passed = report.passed
        self.result = .verified(report)
        self.seconds = seconds
    }

    init(path: String, error: any Error, seconds: Double) {
        self.path = path
        self.passed = false
        self.result = .unreadable(error)
        self.seconds = seconds
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
    /// Wall-clock time of every `verify` so far.
    public private(set) var seconds = 0.0

    public init(trust: TrustStore, at: Date? = nil, documentSigners: [Certificate] = []) {
        self.trust = trust
        self.at = at
        self.documentSigners = documentSigners
    }

    /// Outcomes in the order of `paths` (each a dump folder, an EF.SOD file or an export).
    public func verify(_ paths: [String]) -> [BatchOutcome] {
        timed { WorkerThreads.map(paths) { path in outcome(path) { try DumpSource.read(URL(fileURLWithPath: path)) } } }
    }

    /// Every dump under `folder` (`DumpDiscovery`), each read while the search has its folder
    /// open; outcomes sorted by path.
    public func verify(under folder: URL) throws -> [BatchOutcome] {
        try timed {
            try DumpDiscovery.search(under: folder) { found in
                switch found {
                case .folder(let open): return self.outcome(open.path) { try DumpFolder(folder: open) }
                case .file(let path): return self.outcome(path) { try DumpSource.read(URL(fileURLWithPath: path)) }
                }
            }
        }
    }

    func timed<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try body()
    }

    func outcome(_ path: String, read: () throws -> DumpFolder) -> BatchOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        do {
            let dump = try read()
            var report = PassiveAuthentication.verify(files: dump.files, trust: trust, at: at, documentSigners: documentSigners)
            DumpVerifier.checkManifest(dump, &report)
            DumpVerifier.recheckActiveAuthentication(dump, &report)
            return BatchOutcome(path: path, report: report, seconds: seconds())
        } catch {
            return BatchOutcome(path: path, error: error, seconds: seconds())
        }
    }
}

/// Finds dumps under a folder: every folder holding an EF.SOD (any naming style; not searched
/// further) and every NFCPassportReader JSON export. Symbolic links to folders are not followed
/// (as `find` does not): a link back up the tree would never end. The search goes a level at a
/// time, the folders of a level in parallel; each folder is opened and listed once, and a dump
/// folder is handed over open, so that its files are read relative to it.
public enum DumpDiscovery {
    public enum Found {
        /// A dump folder, open and listed.
        case folder(OpenFolder)
        /// An NFCPassportReader export.
        case file(String)
    }

    /// EF.SOD's names in every naming style, lower case, as bytes.
    static let sodNames: [[UInt8]] = ([LDSFile.sod.fileName] + LDSFile.sod.alternativeFileNames).map { Array($0.lowercased().utf8) }

    /// Whether `name` is one of EF.SOD's, whatever its case: compared byte by byte, not spelled
    /// in lower case and hashed, since every name of every folder of a batch is looked at.
    static func isSODName(_ name: String) -> Bool {
        sodNames.contains { sod in
            name.utf8.count == sod.count && zip(name.utf8, sod).allSatisfy { byte, lower in
                byte == lower || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == lower)
            }
        }
    }

    /// The dumps under `folder`, sorted by path.
    public static func dumps(under folder: URL) throws -> [String] {
        try search(under: folder) { found in
            switch found {
            case .folder(let open): open.path
            case .file(let path): path
            }
        }
    }

    /// `visit` of every dump under `folder`, several at once on as many threads, in the order of
    /// the dumps' paths. A folder that cannot be listed ends the search with its error.
    public static func search<Result>(under folder: URL, _ visit: @Sendable (Found) -> Result) throws -> [Result] {
        guard DumpFileReader.isFolder(folder) == true else { throw DumpError.notAFolder(folder.path) }
        var found: [(path: String, result: Result)] = []
        var level: [Item] = [.folder(folder.path)]
        while !level.isEmpty {
            let steps = WorkerThreads.map(level) { step($0, visit) }
            level = []
            for step in steps {
                switch step {
                case .visited(let path, let result): found.append((path, result))
                case .descend(let items): level += items
                case .failed(let error): throw error
                }
            }
        }
        // The order sorted, not the results moved about by the sort.
        return found.indices.sorted { found[$0].path < found[$1].path }.map { found[$0].result }
    }

    enum Item: Sendable {
        case folder(String), file(String)
    }

    enum Step<Result> {
        case visited(String, Result)
        case descend([Item])
        case failed(any Error)
    }

    static func step<Result>(_ item: Item, _ visit: @Sendable (Found) -> Result) -> Step<Result> {
        switch item {
        case .file(let path): return .visited(path, visit(.file(path)))
        case .folder(let path):
            let folder: OpenFolder
            do { folder = try DumpFileReader.openFolder(path) } catch { return .failed(error) }
            // Closed here, on the thread that opened it (`WorkerThreads`), whatever `visit` kept.
            defer { folder.close() }
            let entries = folder.listing.entries
            if entries.contains(where: { !$0.name.hasPrefix(".") && isSODName($0.name) }) { return .visited(path, visit(.folder(folder))) }
            var next: [Item] = []
            for entry in entries where !entry.name.hasPrefix(".") {
                let child = Paths.join(path, entry.name)
                if entry.kind == .folder || (entry.kind == .unknown && isRealFolder(child)) {
                    next.append(.folder(child))
                } else if entry.name.lowercased().hasSuffix(".json"), NFCPassportReaderExport.isExport(at: URL(fileURLWithPath: child)) {
                    next.append(.file(child))
                }
            }
            return .descend(next)
        }
    }

    static func isRealFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
