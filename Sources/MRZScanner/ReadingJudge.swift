import MRZ

/// Decides, reading by reading, whether a zone's MRZ can be trusted: the rules of
/// `MRZScanner.read`, shared by the cell model and Tesseract. It also keeps the least broken
/// failure, which becomes the refusal when nothing is accepted.
struct ReadingJudge {
    enum Verdict {
        case accept(MRZScanResult)
        case undecided
    }

    let skewDegrees: Double
    let maxCorrectionCost: Int
    /// Valid readings of the current zone that need another reading's agreement.
    private var unsure: [MRZScanResult] = []
    /// The access keys of every valid reading of the current zone.
    private var keys: Set<MRZAccessKey> = []
    private(set) var failure: MRZScanError?
    private(set) var failureProblems = Int.max

    init(skewDegrees: Double, maxCorrectionCost: Int) {
        self.skewDegrees = skewDegrees
        self.maxCorrectionCost = maxCorrectionCost
    }

    mutating func startZone() {
        unsure = []
        keys = []
    }

    /// At the end of a zone, an unsure reading that nothing confirmed is the closest failure.
    mutating func endZone() {
        if let first = unsure.first, failureProblems > 0 {
            failureProblems = 0
            failure = .uncertain(lines: first.mrz.lines)
        }
    }

    /// Judges one reading of the zone's lines (Tesseract's: how sure it is of each character,
    /// 0-100). A clean reading stands alone when Tesseract is at least `minimumKeyConfidence` sure
    /// of every character of the access-key lines.
    mutating func consider(_ reading: [TesseractLineReader.Reading], minimumKeyConfidence: Float) -> Verdict {
        consider(reading.map(\.text), minimumKeyConfidence: minimumKeyConfidence) { keyLines in
            // The corrector drops lines it finds empty; number the rest as it does.
            let kept = reading.filter { !MRZCorrector.normalise($0.text).isEmpty }
            return keyLines.compactMap { $0 - 1 < kept.count ? kept[$0 - 1].confidences.min() : nil }.min() ?? 0
        }
    }

    /// Judges one reading, `keyConfidence` saying how sure (0-100) its reader is of the
    /// access-key lines (1-based line numbers).
    mutating func consider(_ lines: [String], minimumKeyConfidence: Float, keyConfidence confidenceOf: (Set<Int>) -> Float) -> Verdict {
        guard let corrected = try? MRZCorrector.correct(lines) else {
            if failure == nil { failure = .unreadable(lines: lines) }
            return .undecided
        }
        if corrected.isValid && corrected.ambiguous {
            // Check digits satisfied by a guess between equally likely corrections.
            note(problems: 0, .uncertain(lines: corrected.mrz.lines))
            return .undecided
        }
        guard corrected.isValid && corrected.cost <= maxCorrectionCost else {
            let failing = corrected.mrz.checks.filter { !$0.isValid }.map(\.field)
            let problems = max(1, failing.count + corrected.grammarViolations)
            note(problems: problems, corrected.isValid ? .uncertain(lines: corrected.mrz.lines)
                : .checkDigitsFail(lines: corrected.mrz.lines, failing: failing))
            return .undecided
        }
        let keyConfidence = confidenceOf(corrected.keyLines)
        let result = MRZScanResult(mrz: corrected.mrz, recognisedLines: lines, corrections: corrected.changes,
                                   skewDegrees: skewDegrees, cost: corrected.cost, keyConfidence: keyConfidence)
        // Zeros and fillers satisfy a check digit whatever they stand for: a key with an unknown
        // or zero date part must be read as printed, twice.
        let weakKey = MRZScanner.hasWeakDates(corrected.mrz)
        if weakKey && !corrected.keyLinesReadAsIs { return .undecided }
        let key = corrected.mrz.accessKey
        keys.insert(key)
        if corrected.keyLinesReadAsIs && keyConfidence >= minimumKeyConfidence && !weakKey && keys.count == 1 {
            return .accept(result)
        }
        // A key line read with two characters too many or too few and realigned had hundreds of
        // ways to be put right, and one of them satisfies the check digits by chance too often:
        // such a reading neither stands nor confirms another (it still counts as a rival key).
        let errors = corrected.lineLengthErrors
        if corrected.realignedLines.contains(where: { corrected.keyLines.contains($0) && $0 - 1 < errors.count && errors[$0 - 1] >= 2 }) {
            return .undecided
        }
        unsure.append(result)
        // Two readings agree on the key and no reading of this zone gave another.
        if unsure.count >= 2 && keys.count == 1 {
            return .accept(unsure.min { $0.cost < $1.cost }!)
        }
        return .undecided
    }

    private mutating func note(problems: Int, _ error: MRZScanError) {
        if problems < failureProblems {
            failureProblems = problems
            failure = error
        }
    }
}
