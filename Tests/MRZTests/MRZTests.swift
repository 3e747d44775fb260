import MRZ
import Testing

/// Specimen MRZs of ICAO 9303 parts 4-6 and edge cases of the field rules.
@Suite struct MRZParsing {
    @Test func td3SpecimenFromICAO9303Part4() throws {
        let mrz = try MRZ(lines: ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                                  "L898902C36UTO7408122F1204159ZE184226B<<<<<10"])
        #expect(mrz.format == .td3)
        #expect(mrz.documentCode == "P")
        #expect(mrz.issuingState == "UTO")
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.secondaryIdentifier == "ANNA MARIA")
        #expect(mrz.documentNumber == "L898902C3")
        #expect(mrz.birthDate == "740812")
        #expect(mrz.sex == "F")
        #expect(mrz.expiryDate == "120415")
        #expect(mrz.optionalData == "ZE184226B")
        #expect(mrz.isValid)
        #expect(mrz.checks.map(\.field) == [.documentNumber, .birthDate, .expiryDate, .optionalData, .composite])
    }

    @Test func td1SpecimenFromICAO9303Part5() throws {
        let mrz = try MRZ(lines: ["I<UTOD231458907<<<<<<<<<<<<<<<",
                                  "7408122F1204159UTO<<<<<<<<<<<6",
                                  "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
        #expect(mrz.format == .td1)
        #expect(mrz.documentNumber == "D23145890")
        #expect(mrz.nationality == "UTO")
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.isValid)
    }

    @Test func td2SpecimenFromICAO9303Part6() throws {
        let mrz = try MRZ(lines: ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
                                  "D231458907UTO7408122F1204159<<<<<<<6"])
        #expect(mrz.format == .td2)
        #expect(mrz.documentNumber == "D23145890")
        #expect(mrz.expiryDate == "120415")
        #expect(mrz.isValid)
    }

    @Test func singleRunAsStoredInDG1() throws {
        let mrz = try MRZ(text: "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10")
        #expect(mrz.format == .td3)
        #expect(mrz.isValid)
    }

    @Test func wrongCheckDigitIsReported() throws {
        let mrz = try MRZ(lines: ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                                  "L898902C36UTO7408132F1204159ZE184226B<<<<<10"])
        #expect(!mrz.isValid)
        let failing = mrz.checks.filter { !$0.isValid }.map(\.field)
        #expect(failing == [.birthDate, .composite])
    }

    @Test func fillerAcceptedAsCheckDigitOfEmptyOptionalData() throws {
        // Composite check digit recomputed for this line; '<' as optional-data check digit.
        let line2 = "C01X00T478UTO8804123F3409305<<<<<<<<<<<<<<<8"
        let mrz = try MRZ(lines: ["P<UTOSPECIMEN<<ALEX<MARIE<<<<<<<<<<<<<<<<<<<", line2])
        #expect(mrz.checks.first { $0.field == .optionalData }?.isValid == true)
        #expect(mrz.isValid)
    }

    @Test func td1LongDocumentNumberContinuesInOptionalData() throws {
        // ICAO 9303-5 §4.2.2 rule: '<' in the check-digit position, the rest and its check digit after.
        let number = "D23145890123"
        let main = String(number.prefix(9))
        let rest = String(number.dropFirst(9))
        let digit = CheckDigit.compute(number)!
        var line1 = "I<UTO" + main + "<" + rest + String(digit)
        line1 += String(repeating: "<", count: 30 - line1.count)
        var line2 = "7408122F1204159UTO<<<<<<<<<<<"
        let composite = CheckDigit.compute(String(Array(line1)[5..<30]) + String(Array(line2)[0..<7]) + String(Array(line2)[8..<15]) + String(Array(line2)[18..<29]))!
        line2 += String(composite)
        let mrz = try MRZ(lines: [line1, line2, "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
        #expect(mrz.documentNumber == number)
        #expect(mrz.isValid)
        #expect(mrz.accessKey.mrzInformation.hasPrefix(number + String(digit)))
    }

    @Test func mrvASpecimenFromICAO9303Part7() throws {
        let mrz = try MRZ(lines: ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                                  "L8988901C4XXX4009078F96121096ZE184226B<<<<<<"])
        #expect(mrz.format == .mrvA)
        #expect(mrz.documentNumber == "L8988901C")
        #expect(mrz.nationality == "XXX")
        #expect(mrz.birthDate == "400907")
        #expect(mrz.expiryDate == "961210")
        #expect(mrz.optionalData == "6ZE184226B")
        #expect(mrz.checks.map(\.field) == [.documentNumber, .birthDate, .expiryDate]) // no composite on a visa
        #expect(mrz.isValid)
        #expect(mrz.accessKey.mrzInformation == "L8988901C440090789612109")
    }

    @Test func mrvBSpecimenFromICAO9303Part7() throws {
        let mrz = try MRZ(lines: ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
                                  "L8988901C4XXX4009078F9612109<<<<<<<<"])
        #expect(mrz.format == .mrvB)
        #expect(mrz.secondaryIdentifier == "ANNA MARIA")
        #expect(mrz.optionalData == "")
        #expect(mrz.isValid)
        // The same lines with a document code other than V are a TD2 whose composite fails.
        let td2 = try MRZ(lines: ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F9612109<<<<<<<<"])
        #expect(td2.format == .td2)
        #expect(!td2.isValid)
    }

    @Test func td1LongDocumentNumberSpecimenFromICAO9303Part5() throws {
        // Document number D23145890734 (12 characters), check digit 9 after the continuation.
        let line1 = "I<UTOD23145890<7349<<<<<<<<<<<"
        var line2 = "7408122F1204159UTO<<<<<<<<<<<"
        line2 += String(CheckDigit.compute(String(line1.dropFirst(5)) + "7408122" + "1204159" + "<<<<<<<<<<<")!)
        let mrz = try MRZ(lines: [line1, line2, "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
        #expect(mrz.documentNumber == "D23145890734")
        #expect(mrz.checks.first?.expected == "9")
        #expect(mrz.isValid)
        #expect(mrz.accessKey.mrzInformation == "D23145890734974081221204159")
    }

    @Test func threeLetterCodeWithFillers() throws {
        let mrz = try MRZ(lines: ["P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<",
                                  "C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4"])
        #expect(mrz.issuingState == "D")
        #expect(mrz.nationality == "D")
    }

    @Test func rejectsUnknownLayoutAndCharacters() {
        #expect(throws: MRZError.unknownLayout(lineLengths: [10, 44])) { try MRZ(lines: ["P<UTO<<<<<", String(repeating: "<", count: 44)]) }
        #expect(throws: MRZError.invalidCharacter(line: 1, position: 2)) {
            try MRZ(lines: ["Pa" + String(repeating: "<", count: 42), String(repeating: "<", count: 44)])
        }
    }

    @Test func checkDigitWeights() {
        #expect(CheckDigit.compute("L898902C3") == "6")
        #expect(CheckDigit.compute("740812") == "2")
        #expect(CheckDigit.compute("ZE184226B<<<<<") == "1")
        #expect(CheckDigit.compute("a") == nil)
    }

    @Test func accessKeyValidation() throws {
        try MRZAccessKey(documentNumber: "c01x00t47", birthDate: "880412", expiryDate: "340930").validate()
        #expect(throws: MRZError.self) { try MRZAccessKey(documentNumber: "C01", birthDate: "881312", expiryDate: "340930").validate() }
        #expect(throws: MRZError.self) { try MRZAccessKey(documentNumber: "C0-1", birthDate: "880412", expiryDate: "340930").validate() }
        #expect(MRZAccessKey(documentNumber: "c01x00t47", birthDate: "880412", expiryDate: "340930").mrzInformation
                == "C01X00T47888041233409305")
    }

    @Test func centuryOfTwoDigitYears() {
        let now = ISO8601Date.make("2026-11-21")
        #expect(MRZDate.isoDate("880412", kind: .birth, now: now) == "1988-04-12")
        #expect(MRZDate.isoDate("200101", kind: .birth, now: now) == "2020-01-01")
        #expect(MRZDate.isoDate("340930", kind: .expiry, now: now) == "2034-09-30")
        #expect(MRZDate.isoDate("991231", kind: .expiry, now: now) == "1999-12-31")
    }
}

import Foundation
enum ISO8601Date {
    static func make(_ s: String) -> Date {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        return f.date(from: s)!
    }
}
