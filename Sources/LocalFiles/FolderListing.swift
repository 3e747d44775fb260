#if canImport(Glibc)
import Glibc
#endif

/// The names in a folder with each entry's kind as the folder itself records it (readdir's
/// d_type), so that a caller can skip what is not a regular file, or descend into folders,
/// without one stat per name. A file system that does not record kinds gives `.unknown`: the
/// caller then looks at that entry itself.
public struct FolderListing: Sendable {
    public enum Kind: Sendable, Equatable {
        case regular, folder, symbolicLink, other, unknown
    }

    public struct Entry: Sendable, Equatable {
        public let name: String
        public let kind: Kind
        public init(name: String, kind: Kind) {
            self.name = name
            self.kind = kind
        }
    }

    /// The folder as it was named.
    public let path: String
    /// Every entry but `.` and `..`, in the order the folder gives them.
    public let entries: [Entry]

    /// Why a folder could not be listed: the system's reason, in words.
    public struct ReadError: Error, Equatable, Sendable {
        public let path: String
        public let reason: String
    }

    public init(path: String) throws(ReadError) {
        self = try OpenFolder(path: path).listing
    }

    /// The entries of an open folder, read from its start.
    init(path: String, folder: OpaquePointer) throws(ReadError) {
        var entries: [Entry] = []
        entries.reserveCapacity(16)   // a dump's files at once, not grown by doubling from one
        while true {
            errno = 0   // readdir's end and its failure differ only in errno
            guard let entry = readdir(folder) else {
                if errno != 0 { throw ReadError(path: path, reason: String(cString: strerror(errno))) }
                break
            }
            // Read where it lies: `withUnsafeBytes(of:)` would copy the 256-byte array first.
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: field.pointee)) { String(cString: $0) }
            }
            if name != "." && name != ".." { entries.append(Entry(name: name, kind: Self.kind(entry.pointee.d_type))) }
        }
        self.path = path
        self.entries = entries
    }

    /// A listing made elsewhere (tests, an upload's names).
    public init(path: String, entries: [Entry]) {
        self.path = path
        self.entries = entries
    }

    static func kind(_ type: UInt8) -> Kind {
        switch Int32(type) {
        case Int32(DT_REG): return .regular
        case Int32(DT_DIR): return .folder
        case Int32(DT_LNK): return .symbolicLink
        case Int32(DT_UNKNOWN): return .unknown
        default: return .other
        }
    }
}

/// A folder held open while it is listed and its files are opened by name relative to it: the
/// folder's path is walked once, not once more for each file, which a batch of thousands of
/// dumps paid for eight files each. Closed when released.
public final class OpenFolder {
    public let listing: FolderListing
    private var handle: OpaquePointer?

    public var path: String { listing.path }

    public init(path: String) throws(FolderListing.ReadError) {
        guard let handle = opendir(path) else { throw FolderListing.ReadError(path: path, reason: String(cString: strerror(errno))) }
        do { listing = try FolderListing(path: path, folder: handle) } catch {
            closedir(handle)
            throw error
        }
        self.handle = handle
    }

    deinit { close() }

    /// Closes the folder now (a worker thread's descriptors are its own: `WorkerThreads`);
    /// files are no longer opened in it after.
    public func close() {
        if let handle { closedir(handle) }
        handle = nil
    }

    /// `openat` of the entry `name` of this folder: a descriptor, or -1 with errno set (EBADF
    /// once it is closed).
    public func open(_ name: String, flags: Int32) -> Int32 {
        guard let handle else {
            errno = EBADF
            return -1
        }
        // withCString: a String passed as a C string directly is copied into a new array first.
        return name.withCString { openat(dirfd(handle), $0, flags) }
    }
}
