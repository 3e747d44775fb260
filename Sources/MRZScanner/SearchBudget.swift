import FoundationEssentials
import Dispatch

/// What one image's (or video frame's) search may do: a fixed amount of work, counted, not timed,
/// so that the same image gives the same reading, or the same refusal, on any machine under any
/// load. Each step of the search (a view of the photo prepared, the zones found at an angle, a
/// zone cut into cells and read, a line read by Tesseract) is charged its `Cost` before it runs,
/// and the search stops at the first check after the budget is spent.
///
/// A wall-clock limit stays as an outer safety stop only (`MRZScanner.timeBudget`, 60 s by
/// default): it ends a search on a machine so slow or so starved that the fixed work has not been
/// done after that long. The whole default work takes about 2-3 s on the development machine (a
/// refusal spends all of it; the median image under 0.1 s), so the stop is some twenty times
/// farther than the slowest search there: a machine four times slower and fully loaded still
/// finishes the work well before it, and it never decides the ordinary case; when it does
/// decide, `Summary.stoppedByClock` says so (and the result may then differ from another
/// machine's: `passport-bench ocr` counts such images), and a refusal is `MRZScanError.timeLimit`.
public final class SearchBudget {
    /// The work units each step costs: about its time in milliseconds on the development machine
    /// (release build, one core, a photo at the scanner's working size of 1000-2000 pixels), so
    /// that the budget reads as "about so many milliseconds there". Set once from the steps and
    /// times of pages of the tuning generator (`scripts/ocr/make-dataset`, seed 31001); they are
    /// constants, not measurements: no machine's speed enters the count.
    public enum Cost: Int, CaseIterable, Sendable {
        /// Dark marks and the skew sweep of one view (`MRZBandFinder.prepare`).
        case prepare
        /// The zones found at one angle (`MRZBandFinder.bands`).
        case bands
        /// The region around the zones turned straight (`MRZBandFinder.find`, zones known).
        case find
        /// The same with the zones found first.
        case findAndBands
        /// The photo turned by quarter turns.
        case turn
        /// The photo turned and tilted (a full rotation).
        case tilt
        /// A zone cut into cells and read by the cell model (upright, or upside down).
        case cellZone
        /// One line read by Tesseract at one size…
        case tesseractLine
        /// …and each thousand pixels of its crop, scaled to the size it is read at.
        case tesseractKilopixel

        public var units: Int {
            switch self {
            case .prepare: return 25
            case .bands: return 5
            case .find: return 5
            case .findAndBands: return 10
            case .turn: return 5
            case .tilt: return 25
            case .cellZone: return 5
            case .tesseractLine: return 5
            case .tesseractKilopixel: return 5
            }
        }
    }

    /// The default work per image or frame (chosen on the tuning pages: 1500 and 2000 units read 97%
    /// of them, 3000 98%, 5000 99%; 3000 keeps a refusal within about 3 s here).
    public static let defaultWork = 3000
    /// The default outer safety stop, in seconds.
    public static let defaultOuterSeconds = 60.0

    public let limit: Int
    public private(set) var spent = 0
    /// How many of each step were charged (for the benchmark's calibration).
    public private(set) var steps: [Cost: Int] = [:]
    /// The outer safety stop, in seconds, as given.
    public let outerSeconds: Double
    private let started: UInt64
    private let outerEnd: UInt64
    private var stoppedByClock = false

    public init(work: Int, outerSeconds: Double) {
        limit = work
        self.outerSeconds = outerSeconds
        started = DispatchTime.now().uptimeNanoseconds
        outerEnd = started + UInt64(max(0, min(outerSeconds, 1e6)) * 1e9)
    }

    /// Charges one step.
    func spend(_ step: Cost, times: Int = 1) {
        spent += step.units * times
        steps[step, default: 0] += times
    }

    /// Whether the search must stop: its work is spent (the ordinary bound), or the outer safety
    /// stop has passed.
    var exhausted: Bool {
        if spent >= limit { return true }
        if stoppedByClock || DispatchTime.now().uptimeNanoseconds >= outerEnd {
            stoppedByClock = true
            return true
        }
        return false
    }

    /// Why a search ended (`--json`: `stopped_by`).
    public enum StopReason: String, Sendable, Equatable {
        /// A reading was accepted (the search takes the first the rule accepts).
        case accepted
        /// Every view and zone was tried within the work, and none was accepted.
        case exhausted
        /// The work (`MRZScanner.workBudget`) was spent: the ordinary bound.
        case work
        /// The outer time limit (`MRZScanner.timeBudget`) ran out before the work was spent.
        case time
    }

    /// Why a search that accepted nothing ended. The clock is named only when it stopped the
    /// search before the work did (`exhausted` checks the work first).
    var refusalReason: StopReason {
        if stoppedByClock { return .time }
        return spent >= limit ? .work : .exhausted
    }

    /// What a search spent.
    public struct Summary: Sendable, Equatable {
        /// Work units charged.
        public let spent: Int
        /// The work the search was allowed.
        public let limit: Int
        /// Whether the outer clock, not the work, ended the search (then the result depends on
        /// the machine).
        public let stoppedByClock: Bool
        /// Why the search ended.
        public let stoppedBy: StopReason
        /// Steps charged, by `Cost` (raw value → count).
        public let steps: [Int: Int]
        /// Wall-clock milliseconds from the start of the search (the image's decoding included).
        public let elapsedMilliseconds: Double
        /// The outer time limit the search ran under, in seconds.
        public let outerSeconds: Double

        /// Lines given to Tesseract (each at one size).
        public var tesseractLines: Int { steps[Cost.tesseractLine.rawValue] ?? 0 }
    }

    func summary(stoppedBy: StopReason) -> Summary {
        Summary(spent: spent, limit: limit, stoppedByClock: stoppedByClock, stoppedBy: stoppedBy,
                steps: Dictionary(uniqueKeysWithValues: steps.map { ($0.key.rawValue, $0.value) }),
                elapsedMilliseconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6, outerSeconds: outerSeconds)
    }
}
