import CardIO
import ChipProtocols
import Credentials
import LDS
import LibraryLoading
import MRZ
import PassiveAuth
import PassportCrypto

/// An error a command line can report as it is: a stable machine-readable code (the `code` of
/// `--json` error objects) and the exit status (ARCHITECTURE.md: 1 for an invalid or unreadable
/// document, chip, image or token; 2 for usage and environment). Every module's error conforms
/// below with an exhaustive switch, so a new case cannot go unclassified.
public protocol ReportableError: Error, CustomStringConvertible {
    var code: String { get }
    var exitStatus: Int32 { get }
}

public enum ExitStatus {
    public static let invalid: Int32 = 1
    public static let environment: Int32 = 2
}

extension CardIOError: ReportableError {
    public var code: String {
        switch self {
        case .serviceUnavailable: return "pcscd_unavailable"
        case .noReaders: return "no_reader"
        case .readerNotFound: return "reader_not_found"
        case .readerBusy: return "reader_busy"
        case .libraryMissing: return "library_missing"
        case .noCard: return "no_card"
        case .cardRemoved: return "card_removed"
        case .stopped: return "stopped"
        case .readerRemoved: return "reader_removed"
        case .cardUnresponsive, .transmissionFailed, .extendedLengthUnsupported, .malformedAPDU,
             .malformedResponse, .protocolViolation:
            return "card_error"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .serviceUnavailable, .noReaders, .readerNotFound, .readerBusy, .libraryMissing: return ExitStatus.environment
        case .noCard, .cardRemoved, .cardUnresponsive, .transmissionFailed, .extendedLengthUnsupported,
             .malformedAPDU, .malformedResponse, .protocolViolation, .readerRemoved:
            return ExitStatus.invalid
        case .stopped: return 0
        }
    }
}

extension ScanError: ReportableError {
    public var code: String {
        switch self {
        case .accessDenied, .passwordRefused: return "access_denied"
        case .canNeedsPACE: return "can_needs_pace"
        case .interrupted: return "card_removed"
        case .differentDocument: return "different_document"
        case .notAPassport: return "not_a_passport"
        case .secureMessagingFailed, .missingRequiredFile, .malformedFile: return "chip_error"
        }
    }

    public var exitStatus: Int32 {
        if case .canNeedsPACE = self { return ExitStatus.environment }
        return ExitStatus.invalid
    }
}

/// A library a command opens when it needs it (pcsc-lite, libnfc, libeac, Leptonica, libsecret)
/// is not installed: the machine's fault, and the message names the package.
extension MissingLibrary: ReportableError {
    public var code: String { "library_missing" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

/// Errors all of whose cases are one kind: the chip (or what it returned) was at fault.
protocol ChipFault: ReportableError {}
extension ChipFault {
    public var code: String { "chip_error" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

extension SecurityError: ChipFault {}
extension ReadError: ChipFault {}
extension TLVError: ChipFault {}
extension CryptoError: ChipFault {}

/// Terminal authentication's errors reach the command line only for the terminal's own files
/// (given before the chip is touched: exit 2); the chip's refusals are outcomes of a scan.
extension TerminalAuthenticationError: ReportableError {
    public var code: String {
        switch self {
        case .badCertificate, .badCredentials: return "terminal_credentials"
        case .refused: return "terminal_authentication_refused"
        case .noChainToChipTrustPoint: return "terminal_authentication_no_chain"
        case .efCVCAElsewhere: return "terminal_authentication_info"
        case .library: return "library_error"
        }
    }
    public var exitStatus: Int32 {
        if case .refused = self { return ExitStatus.invalid }
        if case .noChainToChipTrustPoint = self { return ExitStatus.invalid }
        if case .efCVCAElsewhere = self { return ExitStatus.invalid }
        return ExitStatus.environment
    }
}

extension MRZError: ReportableError {
    public var code: String { "invalid_access_key" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

extension DumpError: ReportableError {
    public var code: String { "dump_error" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

/// A hostile or unreadable file in a dump: the dump is unusable as given.
extension DumpFileError: ReportableError {
    public var code: String { "dump_file_refused" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

extension PassiveAuthenticationError: ReportableError {
    public var code: String { "trust_store_error" }
    public var exitStatus: Int32 { ExitStatus.environment }
}

extension CredentialError: ReportableError {
    public var code: String {
        switch self {
        case .keyStore: return "key_store_error"
        case .keyringLocked: return "keyring_locked"
        case .newerStoreFormat: return "newer_store_format"
        default: return "invalid_credential"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .keyStore, .keyringLocked, .newerStoreFormat: return ExitStatus.environment
        default: return ExitStatus.invalid
        }
    }
}

extension CredentialIssuer.IssueError: ReportableError {
    public var code: String {
        switch self {
        case .notVerified, .missingDG1, .unreadableBirthDate, .documentExpired: return "not_verified"
        case .validityBeyondDocument, .institutionFormat, .badBatch: return "usage"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .notVerified, .missingDG1, .unreadableBirthDate, .documentExpired: return ExitStatus.invalid
        case .validityBeyondDocument, .institutionFormat, .badBatch: return ExitStatus.environment
        }
    }
}

extension TrustStoreError: ReportableError {
    public var code: String {
        switch self {
        case .unreadable: return "unreadable_trust_file"
        case .refusedMasterList: return "master_list_refused"
        case .ldif: return "malformed_ldif"
        case .corrupt, .io: return "trust_store_error"
        case .nothingMatched: return "nothing_matched"
        case .newerFormat: return "newer_store_format"
        }
    }

    /// A refused or malformed file is an invalid document (1); the store itself is environment (2).
    public var exitStatus: Int32 {
        switch self {
        case .unreadable, .refusedMasterList, .ldif: return ExitStatus.invalid
        case .corrupt, .io, .nothingMatched, .newerFormat: return ExitStatus.environment
        }
    }
}

extension DumpImportError: ReportableError {
    public var code: String { "dump_error" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

extension ProofExport.Problem: ReportableError {
    public var code: String {
        switch self {
        case .notProvable: return "not_provable"
        case .cannotWrite: return "cannot_write"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .notProvable: return ExitStatus.invalid
        case .cannotWrite: return ExitStatus.environment
        }
    }
}

extension DeskKeysFile.Problem: ReportableError {
    public var code: String { "access_keys_file" }
    public var exitStatus: Int32 { ExitStatus.environment }
}
