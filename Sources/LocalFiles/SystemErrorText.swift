import Foundation

/// Foundation's and the operating system's errors told in words a person can act on. Printed as
/// they are, they read `Error Domain=NSCocoaErrorDomain Code=257 "…" UserInfo={…}`; every path
/// that knows its step wraps them in a typed error of its own, and this is the last line behind
/// those for any that slip through.
public enum SystemErrorText {
    /// "PATH: Permission denied", or nil when `error` is not Foundation's or the OS's.
    public static func describe(_ error: Error) -> String? {
        let nsError = error as NSError
        guard error is CocoaError || error is POSIXError
                || [NSCocoaErrorDomain, NSPOSIXErrorDomain].contains(nsError.domain) else { return nil }
        let reason = nsError.domain == NSPOSIXErrorDomain
            ? String(cString: strerror(Int32(nsError.code))) : PrivateFiles.reasonText(error)
        let path = nsError.userInfo[NSFilePathErrorKey] as? String ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path
        return path.map { "\($0): \(reason)" } ?? reason
    }
}
