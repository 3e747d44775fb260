@testable import Desk
import MRZScanner
import PassportKit
import Testing

/// The desk has no --time-budget: a search its clock stopped is told in words that work there,
/// with the code `passport ocr` gives it (issue 48, item 6).
@Suite struct DeskOCRWords {
    @Test func aTimeLimitIsToldWithoutTheCommandLineOption() {
        let error = DeskOCR.inDeskWords(.timeLimit(seconds: 60, workSpent: 120, workLimit: 3000))
        #expect(ErrorReport.code(of: error) == "ocr_time_limit")
        #expect(ErrorReport.exitStatus(of: error) == ExitStatus.invalid)
        let message = ErrorReport.message(of: error)
        #expect(message.contains("time limit of 60 s") && !message.contains("--time-budget"), "\(message)")
    }

    @Test func otherRefusalsAreTheScannersOwn() {
        #expect(DeskOCR.inDeskWords(.noZoneFound) as? MRZScanError == .noZoneFound)
    }
}
