import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Foundation's and the operating system's errors told in words a person can act on. Printed as
/// they are, they read `CocoaError(code: …, userInfo: […])`; every path that knows its step wraps
/// them in a typed error of its own, and this is the last line behind those for any that slip
/// through.
public enum SystemErrorText {
    /// "PATH: Permission denied", or nil when `error` is not Foundation's or the OS's.
    public static func describe(_ error: Error) -> String? {
        if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
        if let error = error as? PrivateFiles.ReadError { return error.description }
        guard let error = error as? CocoaError else { return nil }
        let reason = PrivateFiles.reasonText(error)
        return (error.filePath ?? error.url?.path).map { "\($0): \(reason)" } ?? reason
    }
}
