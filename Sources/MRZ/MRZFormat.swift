/// The machine-readable-zone layouts of ICAO 9303 (parts 4-7).
public enum MRZFormat: String, Sendable, Codable, CaseIterable {
    /// ID-1 size cards: three lines of 30 characters.
    case td1
    /// ID-2 size documents: two lines of 36 characters.
    case td2
    /// Passports: two lines of 44 characters.
    case td3
    /// Full-size visas (ICAO 9303-7): two lines of 44 characters, document code V, no composite
    /// check digit, optional data without a check digit.
    case mrvA = "mrv-a"
    /// Small visas: two lines of 36 characters, otherwise as MRV-A.
    case mrvB = "mrv-b"

    public var lineCount: Int { self == .td1 ? 3 : 2 }
    public var lineLength: Int {
        switch self {
        case .td1: return 30
        case .td2, .mrvB: return 36
        case .td3, .mrvA: return 44
        }
    }
    public var characterCount: Int { lineCount * lineLength }

    /// True for the visa layouts.
    public var isVisa: Bool { self == .mrvA || self == .mrvB }

    /// The format whose total length is `count`, if any (DG1 stores the lines without separators).
    /// A visa has the length of a TD3 or TD2 layout; `MRZ(lines:)` tells them apart by the
    /// document code.
    public init?(characterCount count: Int) {
        guard let format = MRZFormat.allCases.first(where: { $0.characterCount == count }) else { return nil }
        self = format
    }

    /// The visa layout of the same size as `self` (TD3 → MRV-A, TD2 → MRV-B) when the document
    /// code starts with V (ICAO 9303-7); otherwise `self`.
    func visaVariant(documentCode first: Character?) -> MRZFormat {
        guard first == "V" else { return self }
        switch self {
        case .td3: return .mrvA
        case .td2: return .mrvB
        default: return self
        }
    }
}
