import Foundation
import Testing
import TestSupport

/// BSI TR-03105 Part 5.1, the field's test plan for inspection systems, run against `passport`:
/// every case of the plan is a chip configuration of the virtual passport (emulator/tr03105),
/// scanned through pcscd by this build's executable and judged against the plan's verdict. The
/// table it produces must be the one in docs/tr03105.md, so that the published result, every
/// case's verdict and every open "wrong 'passed'" among them, is this build's: a case that
/// changes, for better or worse, fails this test until the table is updated with it.
extension VirtualPassportStack {
@Suite(.serialized)
final class TR03105Plan {
    let work = Harness.temporaryFolder()
    deinit { try? FileManager.default.removeItem(at: work) }

    static let published = TestPaths.projectRoot.appendingPathComponent("docs/tr03105.md")
    /// docs/tr03105.md holds the table after this line.
    static let marker = "<!-- results: emulator/tr03105, written by `scripts/tr03105 --table docs/tr03105.md` -->"

    @Test func everyCaseGivesTheVerdictThePlanExpects() throws {
        let table = work.appendingPathComponent("tr03105.md"), summary = work.appendingPathComponent("summary.json")
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"),
                                ["-m", "tr03105", "run", "--table", table.path, "--json", summary.path,
                                 "--passport", Harness.passportExecutable.path],
                                environment: ["PYTHONPATH": TestPaths.projectRoot.appendingPathComponent("emulator").path],
                                timeout: 7200) // a runaway stop only: 5-8 min here, a slow or loaded machine takes longer
        let result = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any],
                                  "no summary: exit \(r.status), \(r.stderr.suffix(2000))")
        let produced = try String(contentsOf: table, encoding: .utf8)
        let document = try String(contentsOf: Self.published, encoding: .utf8)
        let publishedTable = try #require(document.components(separatedBy: Self.marker + "\n").last, "docs/tr03105.md lacks the marker line")
        #expect(publishedTable == produced, """
            docs/tr03105.md is not this build's result; update it with scripts/tr03105 --table docs/tr03105.md. \
            Cases: \(r.stderr.suffix(6000))
            """)
        print("TR-03105 5.1: \(result["pass"] ?? "?") pass, \(result["fail"] ?? "?") fail, \(result["not_built"] ?? "?") not built, "
              + "\(result["not_applicable"] ?? "?") not applicable; read and verified against the plan: \(result["wrong_passes"] ?? "?")")
    }
}
}
