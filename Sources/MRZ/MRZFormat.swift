/// The machine-readable-zone layouts of ICAO 9303 (parts 4-6).
public enum MRZFormat: String, Sendable, Codable, CaseIterable {
    /// ID-1 size cards: three lines of 30 characters.
    case td1
    /// ID-2 size documents: two lines of 36 characters.
    case td2
    /// Passports: two lines of 44 characters.
    case td3

    public var lineCount: Int { self == .td1 ? 3 : 2 }
    public var lineLength: Int {
        switch self {
        case .td1: return 30
        case .td2: return 36
        case .td3: return 44
        }
    }
    public var characterCount: Int { lineCount * lineLength }

    /// The format whose total length is `count`, if any (DG1 stores the lines without separators).
    public init?(characterCount count: Int) {
        guard let format = MRZFormat.allCases.first(where: { $0.characterCount == count }) else { return nil }
        self = format
    }
}
