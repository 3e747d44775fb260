import FoundationEssentials
import JSONCore
import LocalFiles

/// A chip exported by NFCPassportReader (iOS, `NFCPassportModel.dumpPassportData`): one JSON
/// object with each file's bytes in base64 under its name ("COM", "DG1" … "DG16", "SOD") and,
/// when Active Authentication ran, "AAChallenge" and "AASignature" (base64 too).
public enum NFCPassportReaderExport {
    public static let challengeKey = "AAChallenge"
    public static let signatureKey = "AASignature"

    /// Whether `bytes` look like such an export (a JSON object) rather than an EF.SOD file.
    public static func isCandidate(_ bytes: [UInt8]) -> Bool {
        bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
    }

    /// Whether the file at `url` is such an export: a JSON object with an "SOD" entry (what a
    /// folder search takes as a dump; other JSON files are left alone).
    public static func isExport(at url: URL) -> Bool {
        guard let bytes = try? DumpFileReader.read(url, limit: FileSizeLimits.export), isCandidate(Array(bytes.prefix(64))),
              let object = try? JSON.parse(bytes) as? [String: Any] else { return false }
        return object["SOD"] is String
    }

    /// The dump the export holds; the recorded AA answer becomes evidence.json's, so verify
    /// checks it against DG15 as it does for a scan.
    public static func dump(_ bytes: [UInt8], url: URL) throws -> DumpFolder {
        let name = url.lastPathComponent
        let object: [String: Any]
        do {
            guard let parsed = try JSON.parse(bytes) as? [String: Any] else {
                throw DumpImportError.notNFCPassportReaderJSON(name, "the top level is not a JSON object")
            }
            object = parsed
        } catch let error as DumpImportError { throw error } catch {
            throw DumpImportError.notNFCPassportReaderJSON(name, "\(error)")
        }
        var files: [LDSFile: [UInt8]] = [:]
        for (key, value) in object where key != challengeKey && key != signatureKey {
            guard let file = LDSFile(name: key) else { continue } // e.g. "Unknown": not a file of ours
            files[file] = try decode(value, key: key, file: name)
        }
        guard !files.isEmpty else {
            throw DumpImportError.notNFCPassportReaderJSON(name, "no COM, DG1…DG16 or SOD entry")
        }
        return DumpFolder(url: url, files: files, manifest: nil, evidence: try evidence(object, file: name))
    }

    static func decode(_ value: Any, key: String, file: String) throws -> [UInt8] {
        guard let text = value as? String else { throw DumpImportError.badEntry(file, key, "its value is not a string") }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty || text.isEmpty else {
            throw DumpImportError.badEntry(file, key, "its value is not base64")
        }
        return [UInt8](data)
    }

    static func evidence(_ object: [String: Any], file: String) throws -> [UInt8]? {
        guard let challenge = object[challengeKey], let signature = object[signatureKey] else { return nil }
        let answer = ChipEvidence.ActiveAuthentication(
            status: "recorded", challenge: hexString(try decode(challenge, key: challengeKey, file: file)),
            signature: hexString(try decode(signature, key: signatureKey, file: file)),
            detail: "imported from an NFCPassportReader export")
        return ChipEvidence(activeAuthentication: answer).json
    }
}

/// Reads any supported dump: a folder (plain, BSI or FID names), a single EF.SOD file, or an
/// NFCPassportReader JSON export.
public enum DumpSource {
    public static func read(_ url: URL) throws -> DumpFolder {
        // Anything but a folder is read as one file (refused first unless it is a regular one).
        switch DumpFileReader.isFolder(url) {
        case false?: return try read(singleFile: DumpFileReader.read(url, limit: FileSizeLimits.export), url: url)
        case true?: return try DumpFolder(folder: DumpFileReader.openFolder(url.path))
        case nil: throw DumpError.notAFolder(url.path)
        }
    }

    /// A dump that is one file: an NFCPassportReader export or an EF.SOD (named `url` in messages).
    public static func read(singleFile bytes: [UInt8], url: URL) throws -> DumpFolder {
        guard bytes.count <= FileSizeLimits.export else {
            throw DumpFileError.tooLarge(path: url.path, size: bytes.count, limit: FileSizeLimits.export)
        }
        if NFCPassportReaderExport.isCandidate(Array(bytes.prefix(64))) { return try NFCPassportReaderExport.dump(bytes, url: url) }
        let sodLimit = FileSizeLimits.limit(for: .sod)
        guard bytes.count <= sodLimit else { throw DumpFileError.tooLarge(path: url.path, size: bytes.count, limit: sodLimit) }
        return try DumpFolder(sodFile: url, bytes: bytes)
    }
}

public enum DumpImportError: Error, Equatable, Sendable, CustomStringConvertible {
    case notNFCPassportReaderJSON(String, String)
    case badEntry(String, String, String)

    public var description: String {
        switch self {
        case .notNFCPassportReaderJSON(let file, let why): return "\(file) is not an NFCPassportReader export: \(why)."
        case .badEntry(let file, let key, let why): return "\(file): the entry \"\(key)\" is unreadable: \(why)."
        }
    }
}
