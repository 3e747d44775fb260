@testable import MRZ
import Testing

/// OCR readings of the ICAO 9303 specimens with the errors OCR engines make on OCR-B; the corrector
/// must give back the specimen exactly, or say that it could not.
@Suite struct MRZCorrection {
    static let td3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    static let td1 = ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
    static let td2 = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"]

    @Test func readingWithoutErrorsIsKeptAsIs() throws {
        for lines in [Self.td3, Self.td1, Self.td2] {
            let result = try MRZCorrector.correct(lines)
            #expect(result.mrz.lines == lines)
            #expect(result.changes.isEmpty)
            #expect(result.isValid)
        }
    }

    @Test func lettersInDigitFieldsAndDigitsInNamesAreFixed() throws {
        // O for 0 in dates and check digits, S for 5, B for 8, 1 for I in the name, 0 for O in the state.
        let read = ["P<UT0ERIKSSON<<ANNA<MAR1A<<<<<<<<<<<<<<<<<<<", "L898902C36UTO74O8122F12O4lS9ZE184226B<<<<<1O"]
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.lines == Self.td3)
        #expect(result.isValid)
        #expect(result.changes.contains { $0.line == 2 && $0.position == 16 && $0.from == "O" && $0.to == "0" })
    }

    @Test func documentNumberTwinChosenByCheckDigit() throws {
        // The document number may hold letters and digits; only the check digit can tell
        // L898902C3 from L8989O2C3.
        let read = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8989O2C36UTO7408122F1204159ZE184226B<<<<<10"]
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.documentNumber == "L898902C3")
        #expect(result.cost == 1)
    }

    @Test func visaIsCorrectedWithoutACompositeDigit() throws {
        // ICAO 9303-7 MRV-A specimen with O for 0 in the birth date and K for a filler.
        let mrvA = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8988901C4XXX4009078F96121096ZE184226B<<<<<<"]
        let read = [mrvA[0], "L8988901C4XXX4OO9078F96121096ZE184226B<<K<<<"]
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.format == .mrvA)
        #expect(result.mrz.lines == mrvA)
        #expect(result.isValid)
    }

    @Test func aFillerLostFromItsRunIsNoGuess() throws {
        // The German identity card specimen (TD2), read with one filler too few on each line, as
        // OCR engines often read a run of fillers. Putting a filler back between two digits of the
        // expiry date (9<1100 → 901100) would satisfy every check digit too, but that assumes a
        // digit lost where none repeats: the reading valid as read stands, and is no guess.
        let specimen = ["IDD<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<", "1220000016D<<4509121<9110018<<<<<<<0"]
        let read = ["IDD<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<", "1220000016D<<4509121<9110018<<<<<<0"]
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.lines == specimen)
        #expect(result.isValid)
        #expect(!result.ambiguous)
        #expect(result.keyLinesReadAsIs)
    }

    @Test func equallyCheapCorrectionsOfTheKeyAreAGuess() throws {
        // Document number 9N4UM0DEO read with 0 for the last O: the check digit holds both for
        // 9N4UM0DEO and for 9N4UMODE0 (and the composite, with the same weights there, cannot tell).
        let read = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "9N4UM0DE09UTO7408122F1204159<<<<<<<<<<<<<<<2"]
        let result = try MRZCorrector.correct(read)
        #expect(result.isValid)
        #expect(result.ambiguous)
    }

    @Test func commonConfusionsAreCheaperThanRareOnes() throws {
        // A TD1 number whose O was read as 0: A→4 would satisfy the check digit as well, but O/0 is
        // the likelier misreading (a real case from the generated pages).
        let truth = ["IDLBR6QAE1672O6<<<<<<<<<<<<<<<", "2001115M2506241LBR<<<<<<<<<<<0", "KOVACS<LOPEZ<<MICHAEL<<<<<<<<<"]
        let result = try MRZCorrector.correct(["IDLBR6QAE167206<<<<<<<<<<<<<<<", truth[1], truth[2]])
        #expect(result.mrz.lines == truth)
        #expect(result.mrz.documentNumber == "6QAE1672O")
        #expect(!result.ambiguous)
    }

    @Test func forcedReadingIsTheFirstOption() {
        let grammar = MRZCorrector.Grammar(format: .td3)
        let kinds: [MRZCorrector.Kind] = [.letterOrFiller, .digit, .digitOrFiller, .alphanumeric, .name, .sex]
        for character in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<" {
            for kind in kinds {
                #expect(grammar.forcedReading(of: character, kind: kind) == grammar.options(for: character, kind: kind)[0].character,
                        "\(character) as \(kind)")
            }
        }
    }

    @Test func kInsideFillersIsAFiller() throws {
        let read = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<K<<<<<<<<<<", Self.td3[1]]
        #expect(try MRZCorrector.correct(read).mrz.lines == Self.td3)
    }

    @Test func miscountedLinesAreRealigned() throws {
        // A filler too many, a speck before the first character, a lost first 'I'.
        #expect(try MRZCorrector.correct(["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<<", Self.td3[1]]).mrz.lines == Self.td3)
        #expect(try MRZCorrector.correct([Self.td3[0], "1L898902C36UTO7408122F1204159ZE184226B<<<<<10"]).mrz.lines == Self.td3)
        #expect(try MRZCorrector.correct(["<UTOD231458907<<<<<<<<<<<<<<<", Self.td1[1], Self.td1[2]]).mrz.lines == Self.td1)
    }

    @Test func digitMisreadAsAnotherDigitIsFixedByCheckDigits() throws {
        // 3 for 8 in the birth date: the birth-date and composite check digits agree on one fix.
        let read = [Self.td2[0], "D231458907UTO7403122F1204159<<<<<<<6"]
        let result = try MRZCorrector.correct(read)
        #expect(result.mrz.lines == Self.td2)
        #expect(result.isValid)
    }

    @Test func garbledReadingIsNotPassedOffAsValid() throws {
        let read = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8B8Q02C3GUTOZ4O8lZZFlZO4lS9ZEl84ZZ6B<<<<<lO"]
        let result = try MRZCorrector.correct(read)
        #expect(!result.isValid || result.cost > 3)
        let impossible = try MRZCorrector.correct([Self.td1[0], "7413122F1204159UTO<<<<<<<<<<<6", Self.td1[2]])
        #expect(!impossible.isValid) // month 13: no reading with every check digit and a real date
    }

    @Test func unknownLayoutIsRefused() {
        #expect(throws: MRZError.self) { try MRZCorrector.correct(["P<UTOERIKSSON"]) }
        #expect(throws: MRZError.self) { try MRZCorrector.correct([]) }
    }

    @Test func countryCodes() {
        #expect(CountryCodes.isKnownMRZCode("UTO"))
        #expect(CountryCodes.isKnownMRZCode("D<<"))
        #expect(CountryCodes.isKnownMRZCode("XXA"))
        #expect(!CountryCodes.isKnownMRZCode("UT0"))
        #expect(!CountryCodes.isKnownMRZCode("QQQ"))
    }
}
