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
        let weights = [7, 3, 1]
        var sum = 0
        for (index, character) in field.enumerated() {
            guard let v = value(of: character) else { return nil }
            sum += v * weights[index % 3]
        }
        return Character(String(sum % 10))
    }
}
