import LocalFiles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A dump file that is refused before it is read, or cannot be read.
public enum DumpFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A named pipe, socket, device or folder where a file was expected.
    case notARegularFile(path: String, kind: String)
    /// A symbolic link in a dump folder that leads out of it.
    case linkLeavesFolder(path: String, target: String)
    /// The operating system refused to list or read it.
    case unreadable(path: String, reason: String)
    /// Larger than any such file may be (`FileSizeLimits`).
    case tooLarge(path: String, size: Int, limit: Int)

    public var description: String {
        switch self {
        case .notARegularFile(let path, let kind):
            return "\(path) is \(kind), not a file: a dump holds regular files only. Nothing was read from it."
        case .linkLeavesFolder(let path, let target):
            return "\(path) is a symbolic link to \(target), outside the dump folder: refused. Copy the file into the folder if it belongs to the dump."
        case .unreadable(let path, let reason):
            return "Cannot read \(path): \(reason)."
        case .tooLarge(let path, let size, let limit):
            return "\(path) is \(size) bytes, more than the \(FileSizeLimits.describe(limit)) such a file may hold: refused unread."
        }
    }
}

/// Opens the files of a dump (a folder, an EF.SOD file, an NFCPassportReader export) as regular
/// files only, checked before a byte is read: a named pipe would block the reader forever and a
/// device such as /dev/zero never ends. Symbolic links inside a dump folder are followed when
/// they stay inside it (a folder of links, as `cp -rs` makes) and refused when they lead out.
public enum DumpFileReader {
    /// The bytes of `url`, refused unread when larger than `limit` (`FileSizeLimits`). `folder`:
    /// the dump folder `url` must stay inside (nil for a file the user named directly, whose
    /// links are the user's own choice).
    public static func read(_ url: URL, limit: Int, inside folder: URL? = nil) throws -> [UInt8] {
        try read(path: url.path, limit: limit, inside: folder)
    }

    /// `read` of the file at `shown`, a path as the person gave or the folder listing named it.
    public static func read(path shown: String, limit: Int, inside folder: URL? = nil) throws -> [UInt8] {
        let path = try resolve(shown, inside: folder)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw DumpFileError.unreadable(path: shown, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        return try readOpened(descriptor, shown: shown, limit: limit)
    }

    /// `read` of an entry of `listing`. An entry the listing says is a regular file is opened
    /// without a look at its path first (and checked on the open file); links and entries of
    /// unknown kind are looked at by path as `read(path:)` does.
    public static func read(_ entry: FolderListing.Entry, of listing: FolderListing, limit: Int) throws -> [UInt8] {
        let path = Paths.join(listing.path, entry.name)
        guard entry.kind == .regular else {
            return try read(path: path, limit: limit, inside: URL(fileURLWithPath: listing.path))
        }
        return try readRegular(open(path, regularFileFlags), shown: path, limit: limit)
    }

    /// `read` of an entry of an open folder, as `read(_:of:limit:)` does, a regular file opened
    /// relative to the folder.
    public static func read(_ entry: FolderListing.Entry, in folder: OpenFolder, limit: Int) throws -> [UInt8] {
        guard entry.kind == .regular else { return try read(entry, of: folder.listing, limit: limit) }
        return try readRegular(folder.open(entry.name, flags: regularFileFlags), shown: Paths.join(folder.path, entry.name), limit: limit)
    }

    /// Never a link's target, and never blocking on a named pipe put where a file was listed.
    static let regularFileFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW

    /// The bytes of the file `open` just gave (or -1 and errno), closed after.
    /// `shown` is spelled only for an error: a batch reads eight files a dump.
    static func readRegular(_ descriptor: Int32, shown path: @autoclosure () -> String, limit: Int) throws -> [UInt8] {
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))   // before the path is spelled, which may set errno
            throw DumpFileError.unreadable(path: path(), reason: reason)
        }
        defer { close(descriptor) }
        return try readOpened(descriptor, shown: path(), limit: limit)
    }

    /// The bytes of an open file, checked to be a regular file of at most `limit` bytes first.
    static func readOpened(_ descriptor: Int32, shown: @autoclosure () -> String, limit: Int) throws -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            throw DumpFileError.unreadable(path: shown(), reason: reason)
        }
        // Checked on the open file: the path may have been swapped since it was looked at.
        if status.st_mode & S_IFMT != S_IFREG { try requireRegular(status, shown()) }
        guard Int(status.st_size) <= limit else { throw DumpFileError.tooLarge(path: shown(), size: Int(status.st_size), limit: limit) }
        let size = Int(status.st_size)
        var count = 0
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while count < size {
                let result = Glibc.read(descriptor, buffer.baseAddress! + count, size - count)
                if result < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if result < 0 { failure = errno; break }
                if result == 0 { break }  // the file shrank while being read: what is there is what it holds
                count += result
            }
            initialized = count
        }
        if failure != 0 { throw DumpFileError.unreadable(path: shown(), reason: String(cString: strerror(failure))) }
        return bytes
    }

    /// The entries of a dump folder, with their kinds.
    public static func listing(of folder: String) throws -> FolderListing {
        try openFolder(folder).listing
    }

    /// A dump folder opened and listed, its files to be read relative to it.
    public static func openFolder(_ folder: String) throws -> OpenFolder {
        do { return try OpenFolder(path: folder) } catch {
            throw DumpFileError.unreadable(path: folder, reason: error.reason)
        }
    }

    /// Whether `url` is a folder (following links); nil when it does not exist.
    public static func isFolder(_ url: URL) -> Bool? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT == S_IFDIR
    }

    /// The path to open: `shown` (a file's path) itself, or where its link leads when that stays inside `folder`.
    static func resolve(_ shown: String, inside folder: URL?) throws -> String {
        var status = stat()
        guard lstat(shown, &status) == 0 else { throw DumpFileError.unreadable(path: shown, reason: String(cString: strerror(errno))) }
        var path = shown
        if status.st_mode & S_IFMT == S_IFLNK {
            guard let target = realpath(shown, nil) else {
                throw DumpFileError.unreadable(path: shown, reason: "its symbolic link leads nowhere (\(String(cString: strerror(errno))))")
            }
            path = String(cString: target)
            free(target)
            if let folder {
                let inside = Paths.join(realFolder(folder), "")
                guard path.hasPrefix(inside) else { throw DumpFileError.linkLeavesFolder(path: shown, target: path) }
            }
            guard stat(path, &status) == 0 else { throw DumpFileError.unreadable(path: shown, reason: String(cString: strerror(errno))) }
        }
        try requireRegular(status, shown)
        return path
    }

    /// `folder` with every symbolic link resolved, as realpath gives the link's target.
    static func realFolder(_ folder: URL) -> String {
        guard let resolved = realpath(folder.path, nil) else { return folder.standardizedFileURL.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func requireRegular(_ status: stat, _ path: String) throws {
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw DumpFileError.notARegularFile(path: path, kind: describe(status.st_mode))
        }
    }

    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }
}
