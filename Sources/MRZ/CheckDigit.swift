/// ICAO 9303-3 §4.9 check digits: weights 7, 3, 1 repeating; digits count as their value,
/// letters A-Z as 10-35 and the filler '<' as 0.
public enum CheckDigit {
    /// The numeric value of one MRZ character, or nil for a character outside the MRZ alphabet.
    public static func value(of character: Character) -> Int? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(ascii - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(ascii - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "<"): return 0
        default: return nil
        }
    }

    /// The check digit of `field`, or nil when the field holds a character outside the MRZ alphabet.
    public static func compute<S: StringProtocol>(_ field: S) -> Character? {
        compute(characters: field)
    }

    /// The same over any sequence of characters (the corrector's candidate readings).
    public static func compute<S: Sequence<Character>>(characters field: S) -> Character? {
        var sum = 0
        var weight = 7
        for character in field {
            guard let v = value(of: character) else { return nil }
            sum += v * weight
            weight = weight == 7 ? 3 : weight == 3 ? 1 : 7
        }
        return digits[sum % 10]
    }

    private static let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
}
