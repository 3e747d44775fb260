/// Why a text could not be read as a machine-readable zone.
public enum MRZError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownLayout(lineLengths: [Int])
    case invalidCharacter(line: Int, position: Int)
    case invalidField(String)

    public var description: String {
        switch self {
        case .unknownLayout(let lengths):
            return "The MRZ has lines of \(lengths.map(String.init).joined(separator: ", ")) characters; "
                + "expected 3×30 (TD1), 2×36 (TD2) or 2×44 (TD3)."
        case .invalidCharacter(let line, let position):
            return "The MRZ has a character outside A-Z, 0-9 and '<' in line \(line), position \(position)."
        case .invalidField(let message):
            return message
        }
    }
}
