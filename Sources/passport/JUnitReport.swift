import FoundationEssentials
import TextSupport
import PassiveAuth
import PassportCLI

/// A JUnit XML report of a batch verification (the format CI systems show): one test case per
/// dump; a dump that fails verification is a <failure> naming what failed, one that cannot be
/// read an <error>.
enum JUnitReport {
    static func xml(_ outcomes: [BatchOutcome], seconds: Double) -> String {
        let failures = outcomes.filter { if case .verified(let r) = $0.result { return !r.passed } else { return false } }.count
        let errors = outcomes.filter { if case .unreadable = $0.result { return true } else { return false } }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let counts = "tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(format(seconds))\""
        xml += "<testsuites \(counts)>\n  <testsuite name=\"passport verify\" \(counts)>\n"
        for outcome in outcomes {
            xml += "    <testcase classname=\"passport.verify\" name=\"\(escape(outcome.path))\" time=\"\(format(outcome.seconds))\""
            switch outcome.result {
            case .verified(let report) where report.passed:
                xml += "/>\n"
            case .verified(let report):
                xml += ">\n      <failure type=\"verification\" message=\"\(escape(outcome.failureMessage))\">"
                xml += escape(report.failures.joined(separator: "\n")) + "</failure>\n    </testcase>\n"
            case .unreadable(let error):
                xml += ">\n      <error type=\"\(classify(error).code)\" message=\"\(escape(outcome.failureMessage))\"/>\n    </testcase>\n"
            }
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    static func format(_ seconds: Double) -> String { seconds.fixed(3) }

    /// XML character data and attribute values; characters XML 1.0 cannot carry are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t", "\r": out.unicodeScalars.append(scalar)
            default: if scalar.value >= 0x20 { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}

extension BatchOutcome {
    /// 0 passed, 1 failed verification, else the read error's status (ARCHITECTURE.md).
    var exitStatus: Int32 {
        switch result {
        case .verified(let report): return report.passed ? 0 : 1
        case .unreadable(let error): return classify(error).exit.rawValue
        }
    }
}
