@testable import MRZ
import Testing

/// Everything ICAO 9303-3 lets an MRZ hold must come out of the corrector as it was printed, and
/// nothing may be "corrected" into a different valid value: only the character class of a position
/// (a letter where a digit must stand) and the check digits may change a character.
@Suite struct MRZPermittedContent {
    /// Valid lines built from fields, check digits computed (filled to the field widths).
    static func td3(code: String = "P<", state: String, name: String = "TESTER<<ANNA", number: String,
                    nationality: String, birth: String, sex: String = "F", expiry: String, optional: String = "") -> [String] {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: "<", count: max(0, n - s.count)) }
        let first = pad(code + pad(state, 3) + name, 44)
        let num = pad(number, 9), opt = pad(optional, 14)
        let optCheck: String = opt.allSatisfy { $0 == "<" } ? "<" : String(CheckDigit.compute(opt)!)
        let d = { (s: String) in String(CheckDigit.compute(s)!) }
        let composite = num + d(num) + birth + d(birth) + expiry + d(expiry) + opt + optCheck
        let second = num + d(num) + pad(nationality, 3) + birth + d(birth) + sex + expiry + d(expiry) + opt + optCheck + d(composite)
        return [first, second]
    }

    static func td1(state: String, number: String, nationality: String, birth: String, expiry: String,
                    name: String = "TESTER<<ANNA") -> [String] {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: "<", count: max(0, n - s.count)) }
        let d = { (s: String) in String(CheckDigit.compute(s)!) }
        let num = pad(number, 9)
        let first = pad("I<" + pad(state, 3) + num + d(num), 30)
        let secondHead = birth + d(birth) + "F" + expiry + d(expiry) + pad(nationality, 3) + String(repeating: "<", count: 11)
        let composite = String(first.dropFirst(5)) + birth + d(birth) + expiry + d(expiry) + String(repeating: "<", count: 11)
        return [first, secondHead + d(composite), pad(name, 30)]
    }

    static func td2(state: String, number: String, nationality: String, birth: String, expiry: String,
                    optional: String = "") -> [String] {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: "<", count: max(0, n - s.count)) }
        let d = { (s: String) in String(CheckDigit.compute(s)!) }
        let num = pad(number, 9), opt = pad(optional, 7)
        let first = pad("ID" + pad(state, 3) + "TESTER<<ANNA", 36)
        let composite = num + d(num) + birth + d(birth) + expiry + d(expiry) + opt
        return [first, num + d(num) + pad(nationality, 3) + birth + d(birth) + "M" + expiry + d(expiry) + opt + d(composite)]
    }

    static func visa(long: Bool, state: String, number: String, nationality: String, birth: String, expiry: String) -> [String] {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: "<", count: max(0, n - s.count)) }
        let d = { (s: String) in String(CheckDigit.compute(s)!) }
        let length = long ? 44 : 36
        let num = pad(number, 9)
        return [pad("V<" + pad(state, 3) + "TESTER<<ANNA", length),
                pad(num + d(num) + pad(nationality, 3) + birth + d(birth) + "F" + expiry + d(expiry) + "AB12", length)]
    }

    /// The lines come back unchanged, valid, unambiguous.
    static func expectKept(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try MRZ(lines: lines).isValid, "test data: \(lines)", sourceLocation: sourceLocation)
        let result = try MRZCorrector.correct(lines)
        #expect(result.mrz.lines == lines, sourceLocation: sourceLocation)
        #expect(result.changes.isEmpty, "\(result.changes)", sourceLocation: sourceLocation)
        #expect(result.isValid, "violations \(result.grammarViolations)", sourceLocation: sourceLocation)
        #expect(!result.ambiguous, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["BDR", "INP", "COU", "BOS", "QQQ", "ZZZ"])
    func unknownThreeLetterCodesAreKept(code: String) throws {
        let lines = Self.td3(state: code, number: "CA0000004", nationality: code, birth: "640812", expiry: "310221")
        try Self.expectKept(lines)
        let mrz = try MRZCorrector.correct(lines).mrz
        #expect(mrz.issuingState == code)
        #expect(mrz.nationality == code)
        #expect(mrz.primaryIdentifier == "TESTER")
    }

    @Test func unknownCodeIsNotCorrectedIntoAKnownOne() throws {
        // BDR is one letter from BRN (Brunei): the old corrector made it BRN.
        let lines = Self.td3(state: "BDR", number: "CA0000004", nationality: "D", birth: "640812", expiry: "310221")
        let result = try MRZCorrector.correct(lines)
        #expect(result.mrz.issuingState == "BDR")
        #expect(result.mrz.nationality == "D")
        #expect(result.mrz.lines == lines)
        // Even when one letter of a known code is in doubt (UTC could be UTO), it stays as read.
        let utc = Self.td3(state: "UTC", number: "L898902C3", nationality: "UTC", birth: "740812", expiry: "120415")
        #expect(try MRZCorrector.correct(utc).mrz.issuingState == "UTC")
    }

    @Test func codesWithFillers() throws {
        try Self.expectKept(Self.td1(state: "SI<", number: "099991001", nationality: "SI<", birth: "660607", expiry: "080727"))
        try Self.expectKept(Self.td3(state: "D<<", number: "C01X00T47", nationality: "D<<", birth: "640812", expiry: "310221"))
    }

    @Test func emptyNationality() throws {
        let lines = Self.td3(state: "UTO", number: "L898902C3", nationality: "<<<", birth: "740812", expiry: "120415")
        try Self.expectKept(lines)
        #expect(try MRZCorrector.correct(lines).mrz.nationality == "")
    }

    @Test func numericCodes() throws {
        let lines = Self.td2(state: "ROU", number: "HD198025", nationality: "132", birth: "850509", expiry: "130509",
                             optional: "1204994")
        try Self.expectKept(lines)
        #expect(try MRZCorrector.correct(lines).mrz.nationality == "132")
    }

    @Test func digitInALetterCodeIsTheCharacterClassFix() throws {
        // UT0: two letters and a digit; a code is letters or digits, so the 0 is an O.
        let truth = Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: "740812", expiry: "120415")
        var read = truth
        read[0] = read[0].replacingOccurrences(of: "P<UTO", with: "P<UT0")
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.lines == truth)
        #expect(result.isValid)
    }

    @Test func zeroAndUnknownDates() throws {
        try Self.expectKept(Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: "000000", expiry: "000000"))
        try Self.expectKept(Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: "6408<<", expiry: "310221"))
        try Self.expectKept(Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: "64<<<<", expiry: "310221"))
        // Runs of fillers satisfy any check digit: an unknown year of birth, or expiry date, would let a
        // misread zone through, and ICAO 9303-3 has the year printed: not accepted as such (a lone
        // filler in a digit position is read as the 0 the character class forces).
        for (birth, expiry) in [("<<<<<<", "310221"), ("640812", "<<<<<<"), ("640812", "3102<<"), ("64<<12", "310221")] {
            let lines = Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: birth, expiry: expiry)
            let result = try MRZCorrector.correct(lines)
            #expect(!(result.isValid && result.mrz.lines == lines), "\(birth) \(expiry)")
        }
        try Self.expectKept(Self.td1(state: "UTO", number: "D23145890", nationality: "UTO", birth: "740800", expiry: "120415"))
        // The access key of such a document passes the key's own validation.
        let key = try MRZCorrector.correct(Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO",
                                                    birth: "6408<<", expiry: "000000")).mrz.accessKey
        try key.validate()
        // A single filler in a date is a misread digit, and a month 13 stays impossible.
        let impossible = Self.td3(state: "UTO", number: "L898902C3", nationality: "UTO", birth: "741312", expiry: "120415")
        #expect(!(try MRZCorrector.correct(impossible)).isValid)
    }

    @Test func visasWithUnknownCodes() throws {
        let mrvA = Self.visa(long: true, state: "INP", number: "555123ABC", nationality: "COU", birth: "650205", expiry: "041223")
        try Self.expectKept(mrvA)
        #expect(try MRZCorrector.correct(mrvA).mrz.format == .mrvA)
        let mrvB = Self.visa(long: false, state: "BOS", number: "PL0000000", nationality: "<<<", birth: "600208", expiry: "050501")
        try Self.expectKept(mrvB)
        #expect(try MRZCorrector.correct(mrvB).mrz.format == .mrvB)
    }

    /// The wrong key the old corrector returned: `10779TW3R` for `779TW31R<`, a line read with
    /// characters too many, and a realignment satisfying the check digits. A realigned reading is
    /// taken only when no other realignment gives a valid MRZ with another key: over TD3, TD2 and
    /// TD1 lines with one or two characters put in around the number (the line's fillers kept or
    /// dropped to its length), the corrector gives the truth or no valid reading, never another key.
    /// (The corrector before this rule returned a wrong key for about 7% of these readings.)
    @Test func realignmentNeverGivesAnotherKey() throws {
        var wrong: [String] = []
        var exact = 0
        for birth in ["400615", "730615"] {
            for layout in 0..<3 {
                let truth: [String], line: Int
                switch layout {
                case 0: truth = Self.td3(state: "UTO", number: "779TW31R", nationality: "UTO", birth: birth, expiry: "300214"); line = 1
                case 1: truth = Self.td2(state: "UTO", number: "779TW31R", nationality: "UTO", birth: birth, expiry: "300214"); line = 1
                default: truth = Self.td1(state: "UTO", number: "779TW31R", nationality: "UTO", birth: birth, expiry: "300214"); line = 0
                }
                let key = try MRZ(lines: truth).accessKey
                let start = line == 1 ? 0 : 5
                for insert in ["1", "10", "I"] {
                    for position in start...(start + 9) {
                        for dropFillers in [false, true] {
                            var characters = Array(truth[line])
                            characters.insert(contentsOf: Array(insert), at: position)
                            if dropFillers {
                                for _ in insert { if let i = characters.lastIndex(of: "<") { characters.remove(at: i) } }
                            }
                            var read = truth
                            read[line] = String(characters)
                            guard let result = try? MRZCorrector.correct(read), result.isValid, !result.ambiguous else { continue }
                            if result.mrz.accessKey == key { exact += 1 } else { wrong.append("\(read) → \(result.mrz.lines)") }
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong keys, e.g. \(wrong.prefix(3))")
        #expect(exact > 0)
    }

    @Test func keyValidationStillRefusesImpossibleDates() {
        #expect(throws: MRZError.self) { try MRZAccessKey(documentNumber: "C01", birthDate: "881312", expiryDate: "340930").validate() }
        #expect(throws: MRZError.self) { try MRZAccessKey(documentNumber: "C01", birthDate: "88<412", expiryDate: "340930").validate() }
        #expect(throws: MRZError.self) { try MRZAccessKey(documentNumber: "C01", birthDate: "880432", expiryDate: "340930").validate() }
    }
}
