/// A transport that plays a card from a script: an ordered list of expected commands and the
/// answers to give them. Anything off the script (a different command, one too many) fails with
/// a `ScriptError` naming the step, so the code under test can be driven APDU by APDU without a
/// reader or pcscd. Check `assertComplete()` at the end: it also reports a violation the code
/// under test caught and swallowed, and any step never reached.
public final class ScriptedTransport: CardTransport {
    /// One exchange of the script: what the command must look like and how the card answers.
    public struct Step {
        /// How the step shows in messages: the expected command in hex, or a description.
        public let expected: String
        let matches: ([UInt8]) -> Bool
        let answer: ([UInt8]) throws -> [UInt8]

        /// A command expected byte for byte, answered with `response` (data ‖ SW1 SW2).
        public init(_ command: [UInt8], _ response: [UInt8]) {
            expected = hexDigits(command)
            matches = { $0 == command }
            answer = { _ in response }
        }

        /// A command whose first bytes are known and whose rest is random (GET CHALLENGE's Le,
        /// MUTUAL AUTHENTICATE's cryptogram).
        public static func prefix(_ prefix: [UInt8], _ response: [UInt8]) -> Step {
            Step(expected: hexDigits(prefix) + "…", matches: { $0.starts(with: prefix) }, answer: { _ in response })
        }

        /// A command recognised by `predicate`, answered by `answer` from the command's bytes
        /// (a card double that must decrypt or sign what it is sent). `answer` may throw, as a
        /// transport does when the card leaves the reader.
        public static func matching(_ description: String, _ predicate: @escaping ([UInt8]) -> Bool,
                                    answer: @escaping ([UInt8]) throws -> [UInt8]) -> Step {
            Step(expected: description, matches: predicate, answer: answer)
        }

        init(expected: String, matches: @escaping ([UInt8]) -> Bool, answer: @escaping ([UInt8]) throws -> [UInt8]) {
            self.expected = expected
            self.matches = matches
            self.answer = answer
        }
    }

    public let atr: [UInt8]
    public let readerName: String
    private var steps: [Step]
    /// Index of the next step to play.
    public private(set) var position = 0
    /// Every command received, in order (including one that broke the script).
    public private(set) var received: [[UInt8]] = []
    /// The first departure from the script, kept even if the caller swallowed the error.
    public private(set) var violation: ScriptError?

    /// `atr` decides what the channel believes of the card (no extended length by default).
    public init(_ steps: [Step] = [], atr: [UInt8] = [], readerName: String = "Scripted card") {
        self.steps = steps
        self.atr = atr
        self.readerName = readerName
    }

    /// Adds steps to the end of the script (a test can build the card's part as it goes).
    public func append(_ more: [Step]) { steps += more }

    /// Steps not yet played.
    public var remaining: Int { steps.count - position }

    /// Card resets asked for so far; `onReset` lets a card double drop its state.
    public private(set) var resets = 0
    public var onReset: (() -> Void)?
    /// Returns after a removal: nil means the card never comes back.
    public var returnsAfterRemoval: (() -> Bool)?

    public func reset() throws {
        resets += 1
        onReset?()
    }

    public func reconnectAfterRemoval(timeout: Double) throws {
        guard returnsAfterRemoval?() == true else { throw CardIOError.noCard(reader: readerName, seconds: timeout) }
        resets += 1
        onReset?()
    }

    public func transmit(raw: [UInt8]) throws -> [UInt8] {
        received.append(raw)
        guard position < steps.count else {
            throw record(.beyondScript(step: position, actual: hexDigits(raw)))
        }
        let step = steps[position]
        guard step.matches(raw) else {
            throw record(.unexpectedCommand(step: position, expected: step.expected, actual: hexDigits(raw)))
        }
        position += 1
        return try step.answer(raw)
    }

    /// Throws the first violation, or `.unconsumed` when steps remain unplayed.
    public func assertComplete() throws {
        if let violation { throw violation }
        guard position == steps.count else {
            throw ScriptError.unconsumed(remaining: steps.count - position, next: position, expected: steps[position].expected)
        }
    }

    private func record(_ error: ScriptError) -> ScriptError {
        if violation == nil { violation = error }
        return error
    }
}

/// A departure from a `ScriptedTransport`'s script. Steps are numbered from 0.
public enum ScriptError: Error, Equatable, Sendable, CustomStringConvertible {
    case unexpectedCommand(step: Int, expected: String, actual: String)
    case beyondScript(step: Int, actual: String)
    case unconsumed(remaining: Int, next: Int, expected: String)

    public var description: String {
        switch self {
        case .unexpectedCommand(let step, let expected, let actual):
            return "Script step \(step): expected command \(expected), got \(actual)."
        case .beyondScript(let step, let actual):
            return "Script step \(step): the script has ended, got command \(actual)."
        case .unconsumed(let remaining, let next, let expected):
            return "The script was not played to its end: \(remaining) step(s) left, from step \(next) (\(expected))."
        }
    }
}

private func hexDigits(_ bytes: [UInt8]) -> String {
    let digits: [Character] = Array("0123456789ABCDEF")
    var out = ""
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return out
}
