import LocalFiles
import ArgumentParser
import ImageCodecs
import FoundationEssentials
import JSONCore
import MRZScanner
import PassportKit

/// Exit codes (ARCHITECTURE.md): 0 success, 1 invalid or unreadable document, 2 usage or environment.
public enum Exit {
    public static let invalidDocument = ExitCode(ExitStatus.invalid)
    public static let environment = ExitCode(ExitStatus.environment)
}

/// Writes to stderr (progress, warnings, errors); stdout is reserved for the result.
public func printError(_ text: String) {
    StandardStreams.writeError(text + "\n")
}

/// Text from elsewhere (a verifier's client_id, names, URIs, error_description; a certificate's
/// subject) as data on a terminal: control characters (C0, DEL, C1), line and paragraph
/// separators and bidirectional overrides are written as `\u{XX}`, so that nothing in it can
/// move the cursor, erase, start a new line or reorder what is shown.
public func terminalSafe(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C {
            out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Prints a typed report as one JSON object on stdout (the shapes of docs/schemas).
public func printJSON(_ report: some Encodable) {
    guard let data = try? ReportEncoding.data(report) else {
        printError("error: the report could not be encoded as JSON")
        return
    }
    StandardStreams.writeOutput(data + Data("\n".utf8))
}

/// Prints one JSON object on stdout (benchmark figures, which have no documented shape).
public func printJSON(_ object: [String: Any]) {
    guard let text = try? JSON.serialize(object, style: [.prettyPrinted, .sortedKeys]) else {
        printError("error: the figures could not be encoded as JSON")
        return
    }
    StandardStreams.writeOutput(text + [0x0A])
}

/// A result file that could not be written (missing folder, no permission, full disk).
public struct OutputFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "Cannot write \(path): \(reason)" }
}

/// Writes `data` to `path` readable by the owner only (mode 0600, also when the file existed).
public func writePrivateFile(_ data: Data, to path: String) throws {
    do {
        try PrivateFiles.write(data, to: URL(fileURLWithPath: path))
    } catch let error as PrivateFiles.WriteError {
        throw OutputFileError(path: error.path, reason: error.reason)
    }
}

/// The code is the scanner's own (`MRZScanError.code`), so its tests can check each refusal's.
extension MRZScanError: ReportableError {
    public var exitStatus: Int32 {
        switch self {
        case .undecodableImage, .noZoneFound, .unreadable, .checkDigitsFail, .breaksGrammar, .uncertain, .timeLimit: return ExitStatus.invalid
        case .modelMissing, .engine: return ExitStatus.environment
        }
    }
}

extension ImageConverter.Error: ReportableError {
    public var code: String { "image_error" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

extension OutputFileError: ReportableError {
    public var code: String { "output_error" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

/// A dump folder (or another private file) that could not be written: the folder or the disk.
extension PrivateFiles.WriteError: ReportableError {
    public var code: String { "output_error" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

/// How an error maps to an exit code, and a stable code name for --json.
public func classify(_ error: Error) -> (exit: ExitCode, code: String) {
    (ExitCode(ErrorReport.exitStatus(of: error)), ErrorReport.code(of: error))
}

/// What to print for `error`: our errors as written, Foundation's and the OS's in plain words.
public func userMessage(_ error: Error) -> String { ErrorReport.message(of: error) }

/// Reports `error` (stderr, plus a JSON object on stdout with --json) and returns the exit code.
public func fail(_ error: Error, json: Bool) -> ExitCode {
    fail(error, json: json) { $0 }
}

/// The same, with the command's own JSON object made from the error object (`ocr`: the error
/// and what the search spent).
public func fail<Report: Encodable>(_ error: Error, json: Bool, report: (ErrorReport) -> Report) -> ExitCode {
    let (exit, code) = classify(error)
    let message = userMessage(error)
    printError("error: \(terminalSafe(message))")
    if json { printJSON(report(ErrorReport(code: code, message: message))) }
    return exit
}
