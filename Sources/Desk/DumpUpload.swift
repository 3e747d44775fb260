import CZlib
import FoundationEssentials
import LDS

/// Why an upload was refused; nothing of it is kept.
public enum UploadError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAZip(String)
    case unsafeName(String)
    case specialFile(String)
    case tooManyEntries(Int, limit: Int)
    case tooLarge(name: String, limit: Int)
    case totalTooLarge(limit: Int)
    case encrypted(String)
    case unsupportedMethod(name: String, method: Int)
    case damaged(name: String, why: String)
    case duplicate(String)
    case empty
    case badRequest(String)
    case zlibMissing(String)

    public var description: String {
        switch self {
        case .notAZip(let why): return "The upload is not a zip archive a dump can be read from: \(why)."
        case .unsafeName(let name): return "Refused: the entry \"\(name)\" names a place outside the dump folder (an absolute path or ..). Nothing was read."
        case .specialFile(let name): return "Refused: \"\(name)\" is a link or a special file; a dump holds regular files only. Nothing was read."
        case .tooManyEntries(let count, let limit): return "Refused: the archive has \(count) entries; a dump has at most \(limit)."
        case .tooLarge(let name, let limit):
            return "Refused: \(name) is larger than such a file may be (\(FileSizeLimits.describe(limit))); nothing was read."
        case .totalTooLarge(let limit): return "Refused: the files together are larger than a dump may be (\(FileSizeLimits.describe(limit)))."
        case .encrypted(let name): return "Refused: \(name) is encrypted in the archive; zip the dump without a password."
        case .unsupportedMethod(let name, let method):
            return "Refused: \(name) is compressed with method \(method); only stored and deflated entries are read."
        case .damaged(let name, let why): return "The archive is damaged at \(name): \(why)."
        case .duplicate(let name): return "Refused: two entries hold \(name); give one dump at a time."
        case .empty: return "The upload holds no file a dump has (EF.SOD, DG1.bin …, or an NFCPassportReader export)."
        case .badRequest(let why): return "The upload could not be read: \(why)."
        case .zlibMissing(let why): return "Zip archives need zlib (Debian package zlib1g): \(why)."
        }
    }
}

/// Uploads of recorded dumps, bounded like hostile dumps: a zip of a dump folder, or the files
/// themselves (a folder, an EF.SOD with data groups, an NFCPassportReader export). Only names a
/// dump holds are read, each within its `FileSizeLimits` bound; paths leaving the folder, links,
/// special files, encrypted entries and bombs are refused before anything is inflated past a bound.
public enum DumpUpload {
    public static let maxEntries = 256

    /// The dump in `files` (base names → bytes); a single file that is no dump folder's is read as
    /// an export or an EF.SOD.
    public static func dump(named files: [String: [UInt8]], label: String) throws -> DumpFolder {
        let url = URL(fileURLWithPath: label)
        guard !files.isEmpty else { throw UploadError.empty }
        if files.count == 1, let (name, bytes) = files.first, DumpFolder.sizeLimit(forName: name) == nil {
            return try DumpSource.read(singleFile: bytes, url: url)
        }
        guard files.keys.contains(where: { DumpFolder.sizeLimit(forName: $0) != nil }) else { throw UploadError.empty }
        return try DumpFolder(url: url, namedFiles: files)
    }

    /// The base name of an uploaded path; refuses absolute paths, `..` and back slashes.
    static func baseName(_ path: String) throws -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if path.hasPrefix("/") || path.contains("\\") || path.contains("\0") || parts.contains(where: { $0 == ".." }) {
            throw UploadError.unsafeName(path)
        }
        return String(parts.last ?? "")
    }

    /// The files of a page's upload: `{"files": [{"name": …, "data": base64}, …]}`.
    public static func files(json body: [UInt8]) throws -> [String: [UInt8]] {
        struct Body: Decodable {
            struct File: Decodable { let name: String; let data: String }
            let files: [File]
        }
        let decoded: Body
        do { decoded = try JSONDecoder().decode(Body.self, from: Data(body)) } catch {
            throw UploadError.badRequest("expected {\"files\": [{\"name\", \"data\"}]}")
        }
        guard decoded.files.count <= maxEntries else { throw UploadError.tooManyEntries(decoded.files.count, limit: maxEntries) }
        var files: [String: [UInt8]] = [:]
        var total = 0
        for file in decoded.files {
            let name = try baseName(file.name)
            let limit = DumpFolder.sizeLimit(forName: name) ?? (decoded.files.count == 1 ? FileSizeLimits.export : nil)
            guard let limit else { continue }  // not a file a dump holds: not read
            // Its length is bounded before it is decoded (base64: 4 characters for 3 bytes).
            guard file.data.utf8.count <= (limit + 2) / 3 * 4 else { throw UploadError.tooLarge(name: name, limit: limit) }
            guard let bytes = Data(base64Encoded: file.data) else { throw UploadError.badRequest("\(name) is not base64") }
            guard bytes.count <= limit else { throw UploadError.tooLarge(name: name, limit: limit) }
            if files.keys.contains(where: { $0.lowercased() == name.lowercased() }) { throw UploadError.duplicate(name) }
            total += bytes.count
            guard total <= FileSizeLimits.dumpFolder else { throw UploadError.totalTooLarge(limit: FileSizeLimits.dumpFolder) }
            files[name] = Array(bytes)
        }
        return files
    }

    /// The files of a zip archive (its central directory): base names → inflated bytes.
    public static func files(zip archive: [UInt8]) throws -> [String: [UInt8]] {
        let entries = try ZipDirectory.entries(of: archive)
        guard entries.count <= maxEntries else { throw UploadError.tooManyEntries(entries.count, limit: maxEntries) }
        var files: [String: [UInt8]] = [:]
        var total = 0
        let single = entries.filter { !$0.isDirectory }.count == 1
        for entry in entries {
            let name = try baseName(entry.name)
            if entry.isDirectory { continue }
            if entry.isSpecial { throw UploadError.specialFile(entry.name) }
            guard let limit = DumpFolder.sizeLimit(forName: name) ?? (single ? FileSizeLimits.export : nil) else { continue }
            if files.keys.contains(where: { $0.lowercased() == name.lowercased() }) { throw UploadError.duplicate(name) }
            if entry.encrypted { throw UploadError.encrypted(entry.name) }
            guard entry.uncompressedSize <= limit else { throw UploadError.tooLarge(name: entry.name, limit: limit) }
            let bytes = try entry.contents(in: archive, limit: limit)
            total += bytes.count
            guard total <= FileSizeLimits.dumpFolder else { throw UploadError.totalTooLarge(limit: FileSizeLimits.dumpFolder) }
            files[name] = bytes
        }
        return files
    }
}

/// A zip archive's central directory (PKWARE APPNOTE 4.3), read without trusting its sizes.
struct ZipDirectory {
    struct Entry {
        let name: String
        let method: Int
        let flags: Int
        let crc: UInt32
        let compressedSize: Int
        let uncompressedSize: Int
        let localHeader: Int
        let madeBy: Int
        let externalAttributes: UInt32

        var isDirectory: Bool { name.hasSuffix("/") }
        var encrypted: Bool { flags & 1 != 0 }
        /// A Unix link, device, pipe or socket (the file type in the high bits of the attributes).
        var isSpecial: Bool {
            guard madeBy >> 8 == 3 else { return false }
            let type = (externalAttributes >> 16) & 0o170000
            return type != 0 && type != 0o100000 && type != 0o040000
        }

        /// The entry's bytes, inflated to at most `limit` bytes and checked against its CRC-32.
        func contents(in archive: [UInt8], limit: Int) throws -> [UInt8] {
            let reader = ByteReader(archive)
            guard reader.u32(localHeader) == 0x0403_4b50, let nameLength = reader.u16(localHeader + 26),
                  let extraLength = reader.u16(localHeader + 28) else { throw UploadError.damaged(name: name, why: "no local header") }
            let start = localHeader + 30 + nameLength + extraLength
            guard start + compressedSize <= archive.count else { throw UploadError.damaged(name: name, why: "the data runs past the end") }
            let data = archive[start..<(start + compressedSize)]
            let bytes: [UInt8]
            switch method {
            case 0:
                guard compressedSize <= limit else { throw UploadError.tooLarge(name: name, limit: limit) }
                bytes = Array(data)
            case 8: bytes = try inflate(Array(data), limit: limit)
            default: throw UploadError.unsupportedMethod(name: name, method: method)
            }
            guard bytes.count == uncompressedSize, CRC32.of(bytes) == crc else {
                throw UploadError.damaged(name: name, why: "its size or CRC-32 is not what the directory says")
            }
            return bytes
        }

        func inflate(_ data: [UInt8], limit: Int) throws -> [UInt8] {
            var output = [UInt8](repeating: 0, count: limit + 1)
            var written = 0
            var error = [CChar](repeating: 0, count: 256)
            let rc = data.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    passport_inflate_raw(input.baseAddress ?? UnsafePointer(bitPattern: 1)!, input.count, out.baseAddress!, limit + 1, &written, &error, error.count)
                }
            }
            let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch rc {
            case 0 where written <= limit: return Array(output[0..<written])
            case 0, 1: throw UploadError.tooLarge(name: name, limit: limit)
            case -1: throw UploadError.zlibMissing(why)
            default: throw UploadError.damaged(name: name, why: why)
            }
        }
    }

    static func entries(of archive: [UInt8]) throws -> [Entry] {
        let reader = ByteReader(archive)
        // The end record is in the last 22 + 65535 bytes (its comment is at most 65535 long).
        guard archive.count >= 22 else { throw UploadError.notAZip("too short") }
        var end = -1
        var position = archive.count - 22
        while position >= max(0, archive.count - 22 - 65535) {
            if reader.u32(position) == 0x0605_4b50 { end = position; break }
            position -= 1
        }
        guard end >= 0, let count = reader.u16(end + 10), let size = reader.u32(end + 12), let offset = reader.u32(end + 16) else {
            throw UploadError.notAZip("no end of central directory")
        }
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw UploadError.notAZip("ZIP64 archives are not read") }
        guard count <= DumpUpload.maxEntries else { throw UploadError.tooManyEntries(count, limit: DumpUpload.maxEntries) }
        var entries: [Entry] = []
        var cursor = Int(offset)
        for _ in 0..<count {
            guard reader.u32(cursor) == 0x0201_4b50, let madeBy = reader.u16(cursor + 4), let flags = reader.u16(cursor + 8),
                  let method = reader.u16(cursor + 10), let crc = reader.u32(cursor + 16), let compressed = reader.u32(cursor + 20),
                  let uncompressed = reader.u32(cursor + 24), let nameLength = reader.u16(cursor + 28),
                  let extraLength = reader.u16(cursor + 30), let commentLength = reader.u16(cursor + 32),
                  let attributes = reader.u32(cursor + 38), let local = reader.u32(cursor + 42),
                  cursor + 46 + nameLength <= archive.count else {
                throw UploadError.notAZip("a central directory entry is damaged")
            }
            let name = String(decoding: archive[(cursor + 46)..<(cursor + 46 + nameLength)], as: UTF8.self)
            entries.append(Entry(name: name, method: method, flags: flags, crc: crc, compressedSize: Int(compressed),
                                 uncompressedSize: Int(uncompressed), localHeader: Int(local), madeBy: madeBy, externalAttributes: attributes))
            cursor += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }
}

/// Little-endian fields at absolute offsets; nil past the end.
struct ByteReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }
    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}

/// CRC-32 (ISO-HDLC, as zip uses it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
