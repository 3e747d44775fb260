import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Personal data at rest (dumps, credentials, saved requests, debug images, proof inputs):
/// folders 0700 and files 0600 whatever the umask, set with fchmod/chmod after creation.
public enum PrivateFiles {
    /// Why a private file or folder could not be written.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "Cannot write \(path): \(reason)" }
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
        /// A Foundation file error, told as the operating system's own words.
        public init(path: String, _ error: Error) { self.init(path: path, reason: PrivateFiles.reasonText(error)) }
    }

    /// Creates `url` (and missing parents, with the usual modes) as a folder only the owner can
    /// enter. An existing folder is left as it is: it may be one the person chose to share
    /// (PASSPORT_OCR_DEBUG=/tmp), and the files written into it are 0600 anyway.
    public static func createFolder(_ url: URL) throws {
        var isFolder = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder { return }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: url.path, error)
        }
        guard chmod(url.path, 0o700) == 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
    }

    /// Writes `bytes` to `url` readable by the owner only (mode 0600, also when the file existed).
    public static func write(_ bytes: some Collection<UInt8>, to url: URL) throws {
        try write(bytes, to: url, durably: false)
    }

    private static func write(_ bytes: some Collection<UInt8>, to url: URL, durably: Bool) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
        let data = Array(bytes)
        var written = 0
        while written < data.count {
            let result = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, data.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
            written += result
        }
        if durably { guard fsync(descriptor) == 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) } }
    }

    /// Writes `bytes` to a private temporary file beside `url`, flushed to disk, then renames it
    /// over `url`: a reader (or a crash) sees the old file or the new one, never half of one.
    public static func replace(_ url: URL, with bytes: some Collection<UInt8>) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        do {
            try write(bytes, to: temporary, durably: true)
            guard rename(temporary.path, url.path) == 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Whether users other than the owner (its group or everyone) may list `url`.
    public static func isReadableByOthers(_ url: URL) -> Bool {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return false }
        return status.st_mode & 0o044 != 0
    }

    /// A Foundation file error in the operating system's own words ("Permission denied"), not as
    /// Foundation's domain, code and user-info dump.
    public static func reasonText(_ error: Error) -> String {
        if let posix = error as? POSIXError ?? (error as? CocoaError)?.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let cocoa = error as? CocoaError { return cocoaReason(cocoa.code) }
        return String(describing: error)
    }

    /// Foundation's file error codes in words, for the errors that carry no POSIX error.
    private static func cocoaReason(_ code: CocoaError.Code) -> String {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: "No such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: "Permission denied"
        case .fileWriteOutOfSpace: "No space left on device"
        case .fileWriteFileExists: "File exists"
        case .fileReadCorruptFile: "The file is damaged or not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: "The text is not in the expected encoding"
        case .fileWriteVolumeReadOnly: "Read-only file system"
        default: "file error \(code.rawValue)"
        }
    }
}
