import FoundationEssentials
import TextSupport
import LDS

extension ScanEvent {
    /// The line a person reads for this event (the scan's progress on stderr, the desk's list of
    /// steps); nil for those that print none: authenticated, a file's progress in bytes.
    public var progressText: String? {
        switch self {
        case .waitingForCard(let reader): return "Waiting for a passport on \(reader)…"
        case .connected(let reader, let extended): return "Connected to \(reader)\(extended ? " (extended length)" : "")"
        case .authenticating(let proto): return "Authenticating with \(proto)…"
        case .authenticated, .reading: return nil
        case .fileRead(let file, let bytes): return "Read \(file.name): \(bytes) bytes"
        case .fileUnavailable(let file, let reason): return "Skipped \(file.name): \(reason)"
        case .recovering(let file, let reason): return "Session lost while reading \(file.name) (\(reason)); re-establishing it and resuming"
        case .paceFailed(let reason): return "PACE failed (\(reason)); trying BAC"
        case .extendedLengthRefused(let file):
            return "The card refused an extended-length command (plain 6700) while reading \(file.name); opening a new session and reading with short APDUs"
        case .interrupted(let file, let read, let wait):
            return "Read interrupted at \(file.name) (\(read) bytes read), hold the passport steady on the reader (waiting up to \(Self.formatted(wait)) s)"
        case .resumed(let file, let offset, let seconds):
            return "The passport is back after \(seconds.fixed(1)) s; same document, resuming \(file.name) at byte \(offset)"
        case .retryingChipAuthentication(let reason):
            return "Chip authentication failed (\(reason)); opening a new session and trying it once more"
        case .noAccessControl:
            return "The chip offers no access control (no PACE, and BAC is not supported): reading it in plain, unprotected"
        case .sessionReopened(let command, let status):
            return "The chip answered \(command) without secure messaging (\(status)); opening a new session before the next command"
        case .terminalAuthenticationFailed(let reason):
            return "Terminal authentication failed: \(reason). DG3 and DG4 stay unread; the rest is saved"
        }
    }

    /// "30" for whole seconds, "2.5" otherwise.
    public static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
