import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// stdout, stderr and stdin as file descriptors (FileHandle is not in FoundationEssentials):
/// whole writes, retried on EINTR, and whole reads.
public enum StandardStreams {
    /// Writes all of `bytes` to stderr (progress, warnings, errors). A closed stderr is ignored:
    /// nothing else could report it.
    public static func writeError(_ text: String) { writeAll(Array(text.utf8), to: STDERR_FILENO) }

    /// Writes all of `bytes` to stdout (the result).
    public static func writeOutput(_ bytes: some Collection<UInt8>) { writeAll(Array(bytes), to: STDOUT_FILENO) }

    /// Everything on stdin until end of file; with a `limit`, at most `limit + 1` bytes (more
    /// than `limit` tells the caller there was too much, and the rest is left unread).
    public static func readInput(limit: Int = .max) throws -> [UInt8] {
        try readAll(from: STDIN_FILENO, name: "standard input", limit: limit)
    }

    /// The file at `path` as `readInput` reads stdin, or a clear error naming it.
    public static func readFile(_ path: String, limit: Int = .max) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PrivateFiles.ReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        return try readAll(from: descriptor, name: path, limit: limit)
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return }
            written += result
        }
    }

    static func readAll(from descriptor: Int32, name: String, limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let room = limit - bytes.count                       // one byte past the limit tells "too much"
            let wanted = room >= chunk.count ? chunk.count : room + 1
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw PrivateFiles.ReadError(path: name, reason: String(cString: strerror(errno))) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}

extension PrivateFiles {
    /// Why a file could not be read.
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "Cannot read \(path): \(reason)" }
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
    }
}
