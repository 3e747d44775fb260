import MRZ
@testable import MRZScanner
import Testing
import TestSupport

/// Each refusal has its own `--json` code (issue 48, item 6): `check_digits_fail` is for check
/// digits only; a reading that breaks the MRZ grammar, one that is not reliable, and a search the
/// outer time limit stopped are told apart.
@Suite struct RefusalCodes {
    /// The judge's refusal after `readings` of one zone (Tesseract's, 95% sure), the zone ended.
    static func refusal(after readings: [[String]]) -> MRZScanError? {
        var judge = ReadingJudge(skewDegrees: 0, maxCorrectionCost: 2)
        judge.startZone()
        for lines in readings {
            if case .accept = judge.consider(lines, minimumKeyConfidence: 90, checkBlindMatters: true, keyConfidence: { _ in 95 }) {
                return nil
            }
        }
        judge.endZone()
        return judge.failure
    }

    @Test func failingCheckDigitsKeepTheirCode() {
        #expect(MRZScanError.checkDigitsFail(lines: [], failing: [.birthDate]).code == "check_digits_fail")
    }

    @Test func aDateThatIsNoDateBreaksTheGrammar() throws {
        // 31 April satisfies its check digit like any digits; the grammar refuses it.
        let lines = [AcceptanceRule.line1(), AcceptanceRule.td3Line2(number: "123456789", birth: "740431")]
        let refusal = try #require(Self.refusal(after: [lines]))
        #expect(refusal.code == "mrz_grammar", "\(refusal)")
        #expect(refusal.description.contains("grammar"))
    }

    @Test func aReadingNoSecondReadingConfirmedIsUnreliable() throws {
        // Valid only after a substitution (I for 1), and read once: not reliable.
        let refusal = try #require(Self.refusal(after: [[AcceptanceRule.line1(), AcceptanceRule.misread]]))
        #expect(refusal.code == "mrz_unreliable", "\(refusal)")
        #expect(refusal.description.contains("not reliably"))
    }

    @Test func noBandAndNoMRZLayoutAreNoMRZFound() {
        #expect(MRZScanError.noZoneFound.code == "no_mrz_found")
        #expect(MRZScanError.unreadable(lines: ["ABC"]).code == "no_mrz_found")
    }

    /// A time limit no machine meets (a microsecond: the image is not even decoded by then), so
    /// this does not depend on the machine's speed.
    @Test func aSearchTheClockStoppedSaysSo() throws {
        let scanner = try MRZScanner(model: MRZModel.locate())
        scanner.timeBudget = 0.000001
        let image = TestPaths.fixtures.appendingPathComponent("ocr/card-td1.jpg").path
        do {
            _ = try scanner.scan(imageAt: image)
            Issue.record("a search stopped at once read an MRZ")
        } catch let error as MRZScanError {
            #expect(error.code == "ocr_time_limit", "\(error)")
            #expect(error.description.contains("0.000001 s"), "\(error)")
        }
        #expect(scanner.lastSearch?.stoppedBy == .time)
    }

    /// Why each search ended, without the clock deciding anything (its stop is far away).
    @Test func theSearchSaysWhyItEnded() throws {
        let scanner = try MRZScanner(model: MRZModel.locate())
        scanner.timeBudget = 600
        let card = TestPaths.fixtures.appendingPathComponent("ocr/card-td1.jpg").path
        _ = try scanner.scan(imageAt: card)
        #expect(scanner.lastSearch?.stoppedBy == .accepted)
        #expect((scanner.lastSearch?.spent ?? 0) > 0)

        scanner.workBudget = 0
        #expect(throws: MRZScanError.self) { try scanner.scan(imageAt: card) }
        #expect(scanner.lastSearch?.stoppedBy == .work)

        // A face and no MRZ: every view is tried well within the work.
        scanner.workBudget = SearchBudget.defaultWork
        let face = TestPaths.fixtures.appendingPathComponent("images/face-160x206.jp2").path
        #expect(throws: MRZScanError.noZoneFound) { try scanner.scan(imageAt: face) }
        #expect(scanner.lastSearch?.stoppedBy == .exhausted, "\(String(describing: scanner.lastSearch))")
    }

    @Test func secondsAreWrittenAsGiven() {
        #expect(MRZScanError.secondsText(60) == "60")
        #expect(MRZScanError.secondsText(0.5) == "0.5")
        #expect(MRZScanError.secondsText(0.000001) == "0.000001")
    }
}
