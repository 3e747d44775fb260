import MRZ
@testable import MRZScanner
import Testing

/// When one reader's reading of a zone is not sure enough to stand alone, another reading of the
/// zone must agree; a line realigned by two characters gives no such agreement.
@Suite struct ReadingJudgeAgreement {
    static let specimen = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]

    /// The verdict on the specimen read by the cell model at 97% (not enough alone), then on a
    /// second reading whose second line is `second`.
    static func accepts(after second: String) -> Bool {
        var judge = ReadingJudge(skewDegrees: 0, maxCorrectionCost: 2)
        judge.startZone()
        if case .accept = judge.consider(specimen, minimumKeyConfidence: 99.9, keyConfidence: { _ in 97 }) { return true }
        let verdict = judge.consider([specimen[0], second], minimumKeyConfidence: 90, keyConfidence: { _ in 95 })
        if case .accept(let result) = verdict { return result.mrz.lines == specimen }
        return false
    }

    @Test func aReadingAsPrintedConfirms() {
        #expect(Self.accepts(after: Self.specimen[1]))
    }

    @Test func aLineOneCharacterLongRealignedConfirms() {
        // A digit of the birth date read twice: dropped again, the same key.
        #expect(Self.accepts(after: "L898902C36UTO7408122" + "2" + "F1204159ZE184226B<<<<<10"))
    }

    @Test func aLineTwoCharactersLongRealignedDoesNotConfirm() {
        // Two characters dropped anywhere in a line: so many ways to satisfy the check digits
        // that the agreement proves nothing (a generated page gave a wrong key this way).
        #expect(!Self.accepts(after: "L898902C36UTO7408122" + "22" + "F1204159ZE184226B<<<<<10"))
    }
}
