import ArgumentParser
import CardIO
import Credentials
import DocumentSecurity
import ImageCodecs
import Foundation
import LDS
import MRZ
import MRZScanner
import PassportKit

/// Exit codes (ARCHITECTURE.md): 0 success, 1 invalid or unreadable document, 2 usage or environment.
enum Exit {
    static let invalidDocument = ExitCode(1)
    static let environment = ExitCode(2)
}

/// Writes to stderr (progress, warnings, errors); stdout is reserved for the result.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Prints one JSON object on stdout.
func printJSON(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// A result file that could not be written (missing folder, no permission, full disk).
struct OutputFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "Cannot write \(path): \(reason)" }
}

/// Writes `data` to `path` readable by the owner only (mode 0600, also when the file existed).
func writePrivateFile(_ data: Data, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw OutputFileError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    guard fchmod(descriptor, 0o600) == 0 else { throw OutputFileError(path: path, reason: String(cString: strerror(errno))) }
    var written = 0
    while written < data.count {
        let result = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, data.count - written) }
        if result < 0 && errno == EINTR { continue }
        guard result > 0 else { throw OutputFileError(path: path, reason: String(cString: strerror(errno))) }
        written += result
    }
}

/// How an error maps to an exit code, and a stable code name for --json.
func classify(_ error: Error) -> (exit: ExitCode, code: String) {
    switch error {
    case let e as CardIOError:
        switch e {
        case .serviceUnavailable: return (Exit.environment, "pcscd_unavailable")
        case .noReaders: return (Exit.environment, "no_reader")
        case .readerNotFound: return (Exit.environment, "reader_not_found")
        case .readerBusy: return (Exit.environment, "reader_busy")
        case .libraryMissing: return (Exit.environment, "library_missing")
        case .noCard: return (Exit.invalidDocument, "no_card")
        case .cardRemoved: return (Exit.invalidDocument, "card_removed")
        default: return (Exit.invalidDocument, "card_error")
        }
    case let e as ScanError:
        switch e {
        case .accessDenied, .passwordRefused: return (Exit.invalidDocument, "access_denied")
        case .canNeedsPACE: return (Exit.environment, "can_needs_pace")
        case .interrupted: return (Exit.invalidDocument, "card_removed")
        case .notAPassport: return (Exit.invalidDocument, "not_a_passport")
        default: return (Exit.invalidDocument, "chip_error")
        }
    case is MRZError: return (Exit.environment, "invalid_access_key")
    case is SecurityError, is ReadError, is TLVError: return (Exit.invalidDocument, "chip_error")
    case is DumpError: return (Exit.environment, "dump_error")
    case is ImageConverter.Error, is PhotoCommand.PhotoError: return (Exit.invalidDocument, "image_error")
    case is PassiveAuthenticationError: return (Exit.environment, "trust_store_error")
    case let e as MRZScanError:
        switch e {
        case .undecodableImage: return (Exit.invalidDocument, "image_error")
        case .noZoneFound, .unreadable: return (Exit.invalidDocument, "no_mrz_found")
        case .checkDigitsFail, .uncertain: return (Exit.invalidDocument, "check_digits_fail")
        case .modelMissing: return (Exit.environment, "ocr_model_missing")
        case .engine: return (Exit.environment, "ocr_error")
        }
    case let e as CredentialError:
        if case .keyStore = e { return (Exit.environment, "key_store_error") }
        return (Exit.invalidDocument, "invalid_credential")
    case is OutputFileError: return (Exit.environment, "output_error")
    default: return (Exit.invalidDocument, "error")
    }
}

/// Reports `error` (stderr, plus a JSON object on stdout with --json) and returns the exit code.
func fail(_ error: Error, json: Bool) -> ExitCode {
    let (exit, code) = classify(error)
    let message = String(describing: error)
    printError("error: \(message)")
    if json { printJSON(["ok": false, "error": ["code": code, "message": message]]) }
    return exit
}
