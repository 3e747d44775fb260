import Foundation
import Testing
import TestSupport

/// `passport ocr` says why its search stopped (issue 48, item 6): an outer time limit that ran out
/// is told as such, in words and in `--json`, not as a missing band or failing check digits.
@Suite struct OCRStops {
    static let card = TestPaths.fixtures.appendingPathComponent("ocr/card-td1.jpg").path
    /// A microsecond: no machine decodes the image in that time, so the clock stops every search
    /// here whatever the machine's speed (only the reason is checked, never a duration).
    static let tiny = ["--time-budget", "0.000001"]

    @Test func aSearchStoppedByTheTimeLimitSaysSoInJSON() throws {
        let r = try Harness.passport(["ocr", Self.card, "--json"] + Self.tiny)
        #expect(r.status == 1, "\(r.stderr)")
        try Harness.expectShape(r, "error")
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "ocr_time_limit")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("time limit") && message.contains("--time-budget") && message.contains("0.000001 s"), "\(message)")
        let search = try #require(r.json?["search"] as? [String: Any], "\(r.stdout)")
        #expect(search["stopped_by"] as? String == "time")
        #expect(search["work_units"] is Int && search["tesseract_lines"] is Int && search["elapsed_ms"] is NSNumber)
        #expect(search["work_limit"] as? Int == 3000)
    }

    @Test func theTextMessageNamesTheLimitAndTheOption() throws {
        let r = try Harness.passport(["ocr", Self.card] + Self.tiny)
        #expect(r.status == 1)
        #expect(r.stderr.contains("time limit") && r.stderr.contains("--time-budget") && r.stderr.contains("0.000001 s"), "\(r.stderr)")
        #expect(!r.stderr.contains("No MRZ band found") && !r.stderr.contains("check digits fail"), "\(r.stderr)")
    }

    @Test func aReadingSaysItWasAccepted() throws {
        let r = try Harness.passport(["ocr", Self.card, "--json", "--time-budget", "60"])
        #expect(r.status == 0, "\(r.stderr)")
        try Harness.expectShape(r, "ocr")
        let search = try #require(r.json?["search"] as? [String: Any], "\(r.stdout)")
        #expect(search["stopped_by"] as? String == "accepted")
        #expect((search["work_units"] as? Int ?? 0) > 0)
    }
}
