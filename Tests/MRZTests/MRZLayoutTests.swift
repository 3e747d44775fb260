@testable import MRZ
import Testing

/// The corrector's grammar and DG1's offsets come from `MRZFormat.layout`; these pin what they
/// were when each had its own copy of the positions.
@Suite struct MRZLayoutTable {
    /// One letter per position: L letter or filler, N name, A alphanumeric, 9 digit,
    /// d digit or filler, S sex.
    static func kindLetters(_ grammar: MRZCorrector.Grammar) -> [String] {
        grammar.kinds.map { line in
            String(line.map { kind -> Character in
                switch kind {
                case .letterOrFiller: return "L"
                case .name: return "N"
                case .alphanumeric: return "A"
                case .digit: return "9"
                case .digitOrFiller: return "d"
                case .sex: return "S"
                }
            })
        }
    }

    /// Runs of positions as "line:first-last", e.g. "1:0-9 1:13-19".
    static func runs(_ slots: [MRZCorrector.Grammar.Slot]) -> String {
        var runs: [(line: Int, first: Int, last: Int)] = []
        for slot in slots {
            if let run = runs.last, run.line == slot.line, run.last + 1 == slot.index {
                runs[runs.count - 1].last = slot.index
            } else {
                runs.append((slot.line, slot.index, slot.index))
            }
        }
        return runs.map { "\($0.line):\($0.first)-\($0.last)" }.joined(separator: " ")
    }

    @Test(arguments: [
        (MRZFormat.td1, ["LLLLLAAAAAAAAAdAAAAAAAAAAAAAAA", "9999999S9999999LLLAAAAAAAAAAA9", "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"]),
        (.td2, ["LLLLLNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN", "AAAAAAAAAdLLL9999999S9999999AAAAAAA9"]),
        (.td3, ["LLLLLNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN", "AAAAAAAAA9LLL9999999S9999999AAAAAAAAAAAAAAd9"]),
        (.mrvA, ["LLLLLNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN", "AAAAAAAAA9LLL9999999S9999999AAAAAAAAAAAAAAAA"]),
        (.mrvB, ["LLLLLNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN", "AAAAAAAAA9LLL9999999S9999999AAAAAAAA"]),
    ])
    func grammarKinds(format: MRZFormat, expected: [String]) {
        #expect(Self.kindLetters(MRZCorrector.Grammar(format: format)) == expected)
    }

    @Test(arguments: [
        (MRZFormat.td1, ["0:5-14", "1:0-6", "1:8-14"], ["0:2-4", "1:15-17"], ["1:0-5", "1:8-13"], "0:15-29 1:18-28"),
        (.td2, ["1:0-9", "1:13-19", "1:21-27"], ["0:2-4", "1:10-12"], ["1:13-18", "1:21-26"], "1:28-34"),
        (.td3, ["1:0-9", "1:13-19", "1:21-27", "1:28-42"], ["0:2-4", "1:10-12"], ["1:13-18", "1:21-26"], ""),
        (.mrvA, ["1:0-9", "1:13-19", "1:21-27"], ["0:2-4", "1:10-12"], ["1:13-18", "1:21-26"], ""),
        (.mrvB, ["1:0-9", "1:13-19", "1:21-27"], ["0:2-4", "1:10-12"], ["1:13-18", "1:21-26"], ""),
    ])
    func grammarFields(format: MRZFormat, groups: [String], countries: [String], dates: [String], compositeOnly: String) {
        let grammar = MRZCorrector.Grammar(format: format)
        #expect(grammar.groups.map { Self.runs($0.positions) } == groups)
        // Only TD3's optional-data check digit may be '<' (for empty optional data).
        #expect(grammar.groups.map(\.fillerAllowed) == groups.indices.map { format == .td3 && $0 == 3 })
        #expect(grammar.countryFields.map(Self.runs) == countries)
        #expect(grammar.dates.map(Self.runs) == dates)
        #expect(Self.runs(grammar.compositeOnly) == compositeOnly)
    }

    @Test func joinedOffsetsAsDG1StoresThem() {
        let td3 = MRZFormat.td3.layout, td1 = MRZFormat.td1.layout
        #expect(td3.joinedRange(of: td3.expiryDate) == 65..<71)
        #expect(td1.joinedRange(of: td1.expiryDate) == 38..<44)
        #expect(td3.joinedRange(of: td3.issuingState) == 2..<5)
        #expect(td1.joinedRange(of: td1.name) == 60..<90)
    }

    @Test func everyLayoutFitsItsLines() {
        for format in MRZFormat.allCases {
            let layout = format.layout
            let fields = [layout.documentCode, layout.issuingState, layout.name, layout.documentNumber,
                          layout.documentNumberCheck, layout.nationality, layout.birthDate, layout.birthDateCheck,
                          layout.sex, layout.expiryDate, layout.expiryDateCheck]
                + layout.optionalData + layout.compositeData + [layout.optionalDataCheck, layout.compositeCheck].compactMap { $0 }
            #expect(layout.lineLength == format.lineLength)
            #expect(fields.allSatisfy { $0.line < format.lineCount && $0.range.upperBound <= format.lineLength }, "\(format)")
            #expect(layout.compositeData.isEmpty == format.isVisa && (layout.compositeCheck == nil) == format.isVisa)
        }
    }
}
