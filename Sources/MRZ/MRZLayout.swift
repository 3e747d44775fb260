/// Where one field stands in an MRZ: its line and the character positions it covers there
/// (both counted from 0).
public struct MRZField: Sendable, Equatable {
    public let line: Int
    public let range: Range<Int>

    public init(line: Int, range: Range<Int>) {
        self.line = line
        self.range = range
    }

    /// A single character, such as a check digit.
    public init(line: Int, position: Int) {
        self.init(line: line, range: position..<(position + 1))
    }

    /// The field's positions in the lines joined without separators (as DG1 stores them).
    public func joinedRange(lineLength: Int) -> Range<Int> {
        let start = line * lineLength + range.lowerBound
        return start..<(start + range.count)
    }
}

/// The fields of one MRZ layout (ICAO 9303 parts 4-7): the one table the parser, the corrector
/// and DG1 readers take positions from.
public struct MRZLayout: Sendable, Equatable {
    public let lineLength: Int
    public let documentCode: MRZField
    public let issuingState: MRZField
    /// Primary and secondary identifier, separated by "<<".
    public let name: MRZField
    /// The first nine characters of the document number.
    public let documentNumber: MRZField
    public let documentNumberCheck: MRZField
    /// TD1 and TD2: a longer number has '<' as its check digit and continues, with its check
    /// digit, in the first optional-data field.
    public let documentNumberMayContinue: Bool
    public let nationality: MRZField
    public let birthDate: MRZField
    public let birthDateCheck: MRZField
    public let sex: MRZField
    public let expiryDate: MRZField
    public let expiryDateCheck: MRZField
    /// In MRZ order; TD1 has two fields.
    public let optionalData: [MRZField]
    /// TD3 only: TD1/TD2 optional data is covered by the composite check alone, a visa's by none.
    public let optionalDataCheck: MRZField?
    /// What the composite check digit covers, in order; empty for visas.
    public let compositeData: [MRZField]
    /// Nil for visas.
    public let compositeCheck: MRZField?

    /// `field`'s positions in the lines joined without separators.
    public func joinedRange(of field: MRZField) -> Range<Int> {
        field.joinedRange(lineLength: lineLength)
    }
}

extension MRZFormat {
    /// Where this format's fields stand.
    public var layout: MRZLayout {
        switch self {
        case .td1: return MRZLayout.td1
        case .td2: return MRZLayout.td2
        case .td3: return MRZLayout.td3
        case .mrvA: return MRZLayout.mrvA
        case .mrvB: return MRZLayout.mrvB
        }
    }
}

extension MRZLayout {
    // Built once: the corrector parses thousands of candidate readings.
    static let td1 = MRZLayout(
        lineLength: 30,
        documentCode: MRZField(line: 0, range: 0..<2),
        issuingState: MRZField(line: 0, range: 2..<5),
        name: MRZField(line: 2, range: 0..<30),
        documentNumber: MRZField(line: 0, range: 5..<14),
        documentNumberCheck: MRZField(line: 0, position: 14),
        documentNumberMayContinue: true,
        nationality: MRZField(line: 1, range: 15..<18),
        birthDate: MRZField(line: 1, range: 0..<6),
        birthDateCheck: MRZField(line: 1, position: 6),
        sex: MRZField(line: 1, range: 7..<8),
        expiryDate: MRZField(line: 1, range: 8..<14),
        expiryDateCheck: MRZField(line: 1, position: 14),
        optionalData: [MRZField(line: 0, range: 15..<30), MRZField(line: 1, range: 18..<29)],
        optionalDataCheck: nil,
        compositeData: [MRZField(line: 0, range: 5..<30), MRZField(line: 1, range: 0..<7),
                        MRZField(line: 1, range: 8..<15), MRZField(line: 1, range: 18..<29)],
        compositeCheck: MRZField(line: 1, position: 29))

    static let td2 = twoLine(lineLength: 36, optionalDataEnd: 35, optionalDataCheck: nil, compositeCheck: 35,
                             documentNumberMayContinue: true)
    static let td3 = twoLine(lineLength: 44, optionalDataEnd: 42, optionalDataCheck: 42, compositeCheck: 43,
                             documentNumberMayContinue: false)
    static let mrvA = twoLine(lineLength: 44, optionalDataEnd: 44, optionalDataCheck: nil, compositeCheck: nil,
                              documentNumberMayContinue: false)
    static let mrvB = twoLine(lineLength: 36, optionalDataEnd: 36, optionalDataCheck: nil, compositeCheck: nil,
                              documentNumberMayContinue: false)

    /// TD2, TD3 and the visas share their positions up to the expiry date's check digit; they
    /// differ in what follows it.
    private static func twoLine(lineLength: Int, optionalDataEnd: Int, optionalDataCheck: Int?, compositeCheck: Int?,
                                documentNumberMayContinue: Bool) -> MRZLayout {
        func second(_ range: Range<Int>) -> MRZField { MRZField(line: 1, range: range) }
        return MRZLayout(
            lineLength: lineLength,
            documentCode: MRZField(line: 0, range: 0..<2),
            issuingState: MRZField(line: 0, range: 2..<5),
            name: MRZField(line: 0, range: 5..<lineLength),
            documentNumber: second(0..<9),
            documentNumberCheck: MRZField(line: 1, position: 9),
            documentNumberMayContinue: documentNumberMayContinue,
            nationality: second(10..<13),
            birthDate: second(13..<19),
            birthDateCheck: MRZField(line: 1, position: 19),
            sex: second(20..<21),
            expiryDate: second(21..<27),
            expiryDateCheck: MRZField(line: 1, position: 27),
            optionalData: [second(28..<optionalDataEnd)],
            optionalDataCheck: optionalDataCheck.map { MRZField(line: 1, position: $0) },
            // Document number, birth date, and expiry date through optional data, each with its check digit.
            compositeData: compositeCheck.map { [second(0..<10), second(13..<20), second(21..<$0)] } ?? [],
            compositeCheck: compositeCheck.map { MRZField(line: 1, position: $0) })
    }
}
