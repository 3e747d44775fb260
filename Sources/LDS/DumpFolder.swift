import LocalFiles
import FoundationEssentials
import PassportCrypto
import JSONCore

/// A recorded chip: one file per elementary file plus `manifest.json` (ARCHITECTURE.md).
/// Reading accepts the plain (`DG1.bin`), BSI (`Datagroup1.bin`) and FID (`ef0101.bin`) styles.
public struct DumpFolder: Sendable {
    /// The folder (or single file) the dump was read from.
    public let path: String
    public let files: [LDSFile: [UInt8]]
    public let manifest: DumpManifest?
    /// evidence.json as stored (nil when the dump has none); `ChipEvidence(json:)` reads it.
    public let evidence: [UInt8]?

    public static let manifestName = "manifest.json"

    public var url: URL { URL(fileURLWithPath: path) }

    /// Reads every recognised file of the folder. A single EF.SOD file (tag 77) is accepted too,
    /// as a dump that holds only the SOD.
    public init(reading url: URL) throws {
        guard let isFolder = DumpFileReader.isFolder(url) else { throw DumpError.notAFolder(url.path) }
        if !isFolder {
            self = try DumpFolder(sodFile: url, bytes: DumpFileReader.read(url, limit: FileSizeLimits.limit(for: .sod)))
            return
        }
        try self.init(folder: DumpFileReader.openFolder(url.path))
    }

    /// Reads the recognised files of the folder `listing` lists: regular files are opened with
    /// no look at each path first.
    public init(listing: FolderListing) throws {
        try self.init(path: listing.path, entries: listing.entries) { entry, limit in
            try DumpFileReader.read(entry, of: listing, limit: limit)
        }
    }

    /// Reads the recognised files of an open folder (a batch's search opened and listed it
    /// already), regular files by name relative to it.
    public init(folder: OpenFolder) throws {
        try self.init(path: folder.path, entries: folder.listing.entries) { entry, limit in
            try DumpFileReader.read(entry, in: folder, limit: limit)
        }
    }

    /// A dump given as named files in memory (an upload, a zip's entries): the same names are
    /// recognised as in a folder, each file within its `FileSizeLimits` bound; others are ignored.
    public init(url: URL, namedFiles: [String: [UInt8]]) throws {
        let entries = namedFiles.keys.map { FolderListing.Entry(name: $0, kind: .regular) }
        try self.init(path: url.path, entries: entries) { entry, limit in
            guard let bytes = namedFiles[entry.name] else { throw DumpError.empty(url.path) }
            guard bytes.count <= limit else { throw DumpFileError.tooLarge(path: entry.name, size: bytes.count, limit: limit) }
            return bytes
        }
    }

    /// What a file name in a dump means, by its lower-case spelling: an LDS file in one of the
    /// three naming styles (`preference`: the plain name first, then the others in order), the
    /// manifest or the evidence.
    enum FileName {
        /// `file` is `LDSFile.all[file]`.
        case lds(file: Int, preference: Int)
        case manifest
        case evidence
    }

    /// Every recognised name, lower case, made once: matching a listing is one lookup per name.
    static let recognisedNames: [String: FileName] = {
        var names: [String: FileName] = [manifestName: .manifest, ChipEvidence.fileName.lowercased(): .evidence]
        for (index, file) in LDSFile.all.enumerated() {
            for (preference, name) in ([file.fileName] + file.alternativeFileNames).enumerated() where names[name.lowercased()] == nil {
                names[name.lowercased()] = .lds(file: index, preference: preference)
            }
        }
        return names
    }()

    /// The bound on a file of this name when a dump folder holds such a file (matched without
    /// regard to case, in any of the three naming styles; manifest.json and evidence.json too).
    public static func sizeLimit(forName name: String) -> Int? {
        switch recognisedNames[name.lowercased()] {
        case .lds(let file, _): return FileSizeLimits.limit(for: LDSFile.all[file])
        case .manifest, .evidence: return FileSizeLimits.recordFile
        case nil: return nil
        }
    }

    /// The recognised files among `entries` (matched without regard to case; of two spellings of
    /// one file the preferred one, of two equal ones the first listed), read by `read` with each
    /// one's bound; manifest.json and evidence.json beside them.
    private init(path: String, entries: [FolderListing.Entry],
                 read: (FolderListing.Entry, Int) throws -> [UInt8]) throws {
        // For each LDS file (in the order of LDSFile.all), the index in `entries` of the spelling
        // chosen (-1: none) and its preference. Arrays of Int: an array of a type of ours asked
        // the runtime for its type's metadata again in every dump.
        var chosen = [Int](repeating: -1, count: LDSFile.all.count)
        var preferences = [Int](repeating: Int.max, count: LDSFile.all.count)
        var count = 0
        var manifestEntry: FolderListing.Entry?
        var evidenceEntry: FolderListing.Entry?
        for (index, entry) in entries.enumerated() {
            switch Self.recognisedNames[entry.name.lowercased()] {
            case .lds(let file, let preference):
                guard preference < preferences[file] else { continue }
                if chosen[file] < 0 { count += 1 }
                chosen[file] = index
                preferences[file] = preference
            case .manifest: manifestEntry = manifestEntry ?? entry
            case .evidence: evidenceEntry = evidenceEntry ?? entry
            case nil: continue
            }
        }
        var files: [LDSFile: [UInt8]] = [:]
        files.reserveCapacity(count)
        for (file, index) in zip(LDSFile.all, chosen) where index >= 0 {
            files[file] = try read(entries[index], FileSizeLimits.limit(for: file))
        }
        guard !files.isEmpty else { throw DumpError.empty(path) }
        self.path = path
        self.files = files
        if let manifestEntry {
            let data = Data(try read(manifestEntry, FileSizeLimits.recordFile))
            do {
                manifest = try JSONDecoder().decode(DumpManifest.self, from: data)
            } catch {
                throw DumpError.badManifest(path, String(describing: error))
            }
        } else {
            manifest = nil
        }
        evidence = try evidenceEntry.map { try read($0, FileSizeLimits.recordFile) }
    }

    /// A single EF.SOD file (tag 77) as a dump that holds only the SOD.
    init(sodFile url: URL, bytes: [UInt8]) throws {
        guard bytes.first == 0x77 else { throw DumpError.notAFolder(url.path) }
        self.init(url: url, files: [.sod: bytes], manifest: nil)
    }

    /// A dump in memory (e.g. a modified copy for mutation tests).
    public init(url: URL, files: [LDSFile: [UInt8]], manifest: DumpManifest?, evidence: [UInt8]? = nil) {
        self.path = url.path
        self.files = files
        self.manifest = manifest
        self.evidence = evidence
    }

    /// Writes `files` and `manifest` into `destination` atomically: everything goes into a
    /// temporary sibling folder that is renamed into place only when complete, so an
    /// interrupted write never leaves a folder that looks like a finished dump.
    public static func write(files: [LDSFile: [UInt8]], manifest: DumpManifest, evidence: [UInt8]? = nil,
                             to destination: URL) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: destination.path) {
            throw DumpError.destinationExists(destination.path)
        }
        let parent = destination.deletingLastPathComponent()
        do { try fm.createDirectory(at: parent, withIntermediateDirectories: true) } catch {
            throw PrivateFiles.WriteError(path: parent.path, error)
        }
        let temporary = parent.appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString)")
        // Personal data: the folder 0700 and its files 0600, whatever the umask.
        do { try PrivateFiles.createFolder(temporary) } catch let error as PrivateFiles.WriteError {
            throw PrivateFiles.WriteError(path: parent.path, reason: error.reason)
        }
        do {
            for (file, bytes) in files {
                try PrivateFiles.write(bytes, to: temporary.appendingPathComponent(file.fileName))
            }
            if let evidence { try PrivateFiles.write(evidence, to: temporary.appendingPathComponent(ChipEvidence.fileName)) }
            // JSONEncoder's bytes with [.prettyPrinted, .sortedKeys] (slashes escaped).
            try PrivateFiles.write(JSON.encoded(manifest, style: [.prettyPrinted, .sortedKeys, .escapingSlashes]), to: temporary.appendingPathComponent(manifestName))
            do { try fm.moveItem(at: temporary, to: destination) } catch { throw PrivateFiles.WriteError(path: destination.path, error) }
        } catch {
            try? fm.removeItem(at: temporary)
            throw error
        }
    }
}

/// What `manifest.json` records about a scan. Holds no personal data.
public struct DumpManifest: Codable, Sendable, Equatable {
    public struct FileEntry: Codable, Sendable, Equatable {
        /// The SHA-256 a manifest records for `bytes`: lower-case hex.
        public static func sha256(of bytes: [UInt8]) -> String { hexString(OpenSSLCrypto.sha256(bytes)).lowercased() }

        public var size: Int
        public var sha256: String
        public var apdus: Int
        public var seconds: Double
        public init(size: Int, sha256: String, apdus: Int, seconds: Double) {
            self.size = size; self.sha256 = sha256; self.apdus = apdus; self.seconds = seconds
        }
    }
    public var tool: String
    public var toolVersion: String
    public var createdAt: String
    public var reader: String
    public var accessProtocol: String
    public var extendedLength: Bool
    public var apdus: Int
    public var seconds: Double
    public var files: [String: FileEntry]
    /// "passed", "failed", "not_supported" or "unverified" (nil in dumps from before these were recorded).
    public var chipAuthentication: String?
    public var activeAuthentication: String?
    /// Terminal authentication (EAC, for DG3/DG4): "passed", "failed" or "not_attempted"; nil
    /// when the chip has no EAC-protected data group listed.
    public var terminalAuthentication: String?
    /// Files the chip lists but did not give, with the reason (nil when there were none).
    public var unavailable: [String: String]?
    /// When EF.CardAccess offered PACE and BAC was used: the profile offered (`offered`) and how
    /// PACE failed (`failure`); nil otherwise.
    public var paceFallback: [String: String]?
    /// Reads interrupted by the passport leaving the reader and resumed when it came back
    /// (nil when there were none).
    public var interruptions: [Interruption]?

    /// One interrupted read: the file, the bytes read before (the read went on from there), how
    /// long the reader took to notice, how long the passport was away and how long resuming took
    /// once it was back.
    public struct Interruption: Codable, Sendable, Equatable {
        public var file: String
        public var offset: Int
        public var secondsToNotice: Double
        public var secondsAway: Double
        public var secondsToResume: Double
        public init(file: String, offset: Int, secondsToNotice: Double, secondsAway: Double, secondsToResume: Double) {
            self.file = file; self.offset = offset; self.secondsToNotice = secondsToNotice
            self.secondsAway = secondsAway; self.secondsToResume = secondsToResume
        }
        enum CodingKeys: String, CodingKey {
            case file, offset
            case secondsToNotice = "seconds_to_notice"
            case secondsAway = "seconds_away"
            case secondsToResume = "seconds_to_resume"
        }
    }

    public init(tool: String = "passport", toolVersion: String, createdAt: String, reader: String,
                accessProtocol: String, extendedLength: Bool, apdus: Int, seconds: Double,
                files: [String: FileEntry], chipAuthentication: String? = nil, activeAuthentication: String? = nil,
                unavailable: [String: String]? = nil) {
        self.tool = tool; self.toolVersion = toolVersion; self.createdAt = createdAt; self.reader = reader
        self.accessProtocol = accessProtocol; self.extendedLength = extendedLength
        self.apdus = apdus; self.seconds = seconds; self.files = files
        self.chipAuthentication = chipAuthentication; self.activeAuthentication = activeAuthentication
        self.unavailable = unavailable
    }

    enum CodingKeys: String, CodingKey {
        case tool, reader, apdus, seconds, files, unavailable, interruptions
        case paceFallback = "pace_fallback"
        case toolVersion = "tool_version"
        case createdAt = "created_at"
        case accessProtocol = "access_protocol"
        case extendedLength = "extended_length"
        case chipAuthentication = "chip_authentication"
        case activeAuthentication = "active_authentication"
        case terminalAuthentication = "terminal_authentication"
    }
}

public enum DumpError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAFolder(String)
    case empty(String)
    case badManifest(String, String)
    case destinationExists(String)
    case badEvidence(String)

    public var description: String {
        switch self {
        case .notAFolder(let p): return "\(p) is neither a dump folder nor an EF.SOD file. Give the folder a scan wrote (it holds SOD.bin, DG1.bin, …)."
        case .empty(let p): return "\(p) holds no passport files (COM.bin, DG1.bin, SOD.bin, or the BSI/FID names)."
        case .badManifest(let p, let why): return "\(p)/manifest.json is unreadable: \(why)"
        case .destinationExists(let p): return "\(p) already exists. Choose another --out folder or remove it first."
        case .badEvidence(let why): return "evidence.json is unreadable: \(why)"
        }
    }
}
