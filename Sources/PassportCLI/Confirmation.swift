import FoundationEssentials
import LocalFiles
import TextSupport
import PassportKit

/// The person said no, or nobody could be asked (closed stdin without --yes). Nothing was
/// signed or released.
public struct Declined: ReportableError {
    public let action: String
    public let why: String
    public var description: String { "Not \(action): \(why)." }
    public var code: String { "declined" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

/// Shows what is about to be signed or released (on stderr: stdout holds the result) and asks.
/// `--yes` answers for scripts; a closed stdin never counts as a yes.
/// `question` e.g. "Sign", `action` the past participle for the refusal, e.g. "signed".
public func confirm(_ summary: [String], question: String, action: String, yes: Bool) throws {
    // Each line is one line: whatever a verifier put in it cannot add lines or control the terminal.
    for line in summary { printError(terminalSafe(line)) }
    guard !yes else { return }
    StandardStreams.writeError("\(question)? [y/N] ")
    guard let line = readLine() else { throw Declined(action: action, why: "stdin is closed and --yes was not given, so nobody agreed") }
    guard ["y", "yes"].contains(line.trimmed().lowercased()) else {
        throw Declined(action: action, why: "you answered \"\(line)\"")
    }
}
