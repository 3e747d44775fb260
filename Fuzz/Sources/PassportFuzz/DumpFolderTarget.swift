import Foundation
import LDS
import PassiveAuth
#if canImport(Glibc)
import Glibc
#endif

/// The `dumpfolder` target: a whole dump folder as a stranger might hand it over, its names,
/// kinds and sizes drawn from the input, read and verified as `passport verify` does. Besides
/// crashes and hangs it fails on an error that is not one of ours (Foundation's or the OS's raw
/// text would reach the user).
///
/// Input: byte 0 even → the folder is the dump, odd → its first entry is. Then entries of
/// [kind] [name] [length: 2 bytes, big-endian] [content]; kind % 6: 0 a file with the content,
/// 1 a link to another entry's name, 2 a link out of the folder, 3 a named pipe, 4 a folder,
/// 5 a link to /dev/zero. Names come from the three naming styles and the JSON files.
enum DumpFolderFuzz {
    static let names = ["COM.bin", "DG1.bin", "DG2.bin", "DG11.bin", "DG12.bin", "DG14.bin", "DG15.bin", "SOD.bin",
                        "CardAccess.bin", "CardSecurity.bin", "manifest.json", "evidence.json", "Datagroup1.bin", "EF_SOD.bin",
                        "EF_COM.bin", "ef0101.bin", "ef011D.bin", "ef011E.bin", "export.json", "DG2.BIN"]
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent("passport-fuzz-dump-\(getpid())")
    static let outside: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passport-fuzz-outside-\(getpid())")
        FileManager.default.createFile(atPath: url.path, contents: Data([0x77, 0x03, 0x30, 0x01, 0x00]))
        return url
    }()

    static func run(_ bytes: [UInt8]) {
        let fm = FileManager.default
        try? fm.removeItem(at: root)
        guard (try? fm.createDirectory(at: root, withIntermediateDirectories: true)) != nil, let mode = bytes.first else { return }
        var first: URL?
        var index = 1
        while index + 4 <= bytes.count {
            let kind = bytes[index] % 6, name = names[Int(bytes[index + 1]) % names.count]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 4
            let content = Array(bytes[index..<min(bytes.count, index + length)])
            index += content.count
            let url = root.appendingPathComponent(name)
            guard !fm.fileExists(atPath: url.path) else { continue }
            first = first ?? url
            switch kind {
            case 0: fm.createFile(atPath: url.path, contents: Data(content))
            case 1: _ = symlink(names[Int(content.first ?? 0) % names.count], url.path)
            case 2: _ = symlink(outside.path, url.path)
            case 3: _ = mkfifo(url.path, 0o600)
            case 4: try? fm.createDirectory(at: url, withIntermediateDirectories: false)
            default: _ = symlink("/dev/zero", url.path)
            }
        }
        let dump = mode % 2 == 1 ? (first ?? root) : root
        do {
            let folder = try DumpSource.read(dump)
            _ = try DumpVerifier.verify(dump: folder, trust: TrustStore())
        } catch {
            let text = String(describing: error)
            if text.contains("Error Domain=") || text.contains("NSCocoaErrorDomain") {
                fatalError("a raw error reached the caller: \(text)")
            }
        }
    }
}
