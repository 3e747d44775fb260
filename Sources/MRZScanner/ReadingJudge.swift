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
    /// Valid readings of the current zone that need another reading's agreement, each with the
    /// access-key positions it needs another reading to have read as they stand (`needs`) and the
    /// positions the corrector changed in it (`substituted`: it supports no other reading there).
    private var unsure: [(result: MRZScanResult, needs: Set<Int>, substituted: Set<Int>)] = []
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
            failure = .uncertain(lines: first.result.mrz.lines)
        }
    }

    /// Judges one reading of the zone's lines (Tesseract's: how sure it is of each character,
    /// 0-100). A clean reading stands alone when Tesseract is at least `minimumKeyConfidence` sure
    /// of every character of the access-key lines.
    mutating func consider(_ reading: [TesseractLineReader.Reading], minimumKeyConfidence: Float) -> Verdict {
        consider(reading.map(\.text), minimumKeyConfidence: minimumKeyConfidence, checkBlindMatters: true) { keyLines in
            // The corrector drops lines it finds empty; number the rest as it does.
            let kept = reading.filter { !MRZCorrector.normalise($0.text).isEmpty }
            return keyLines.compactMap { $0 - 1 < kept.count ? kept[$0 - 1].confidences.min() : nil }.min() ?? 0
        }
    }

    /// Judges one reading, `keyConfidence` saying how sure (0-100) its reader is of the
    /// access-key lines (1-based line numbers). `checkBlindMatters`: the reader does not weigh the
    /// characters a check digit cannot tell from their look-alike (Tesseract; the cell model's
    /// confidence already counts those alternatives), so such characters of the document number
    /// need a second reading.
    mutating func consider(_ lines: [String], minimumKeyConfidence: Float, checkBlindMatters: Bool = false,
                           keyConfidence confidenceOf: (Set<Int>) -> Float) -> Verdict {
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
            let lines = corrected.mrz.lines
            // Valid but too costly: unreliable. Invalid with every check digit holding: the grammar.
            let refusal: MRZScanError = corrected.isValid ? .uncertain(lines: lines)
                : failing.isEmpty ? .breaksGrammar(lines: lines) : .checkDigitsFail(lines: lines, failing: failing)
            note(problems: problems, refusal)
            return .undecided
        }
        // Every field plausible on its own terms: a date that is no date is refused outright.
        if Self.impossibleDate(corrected.mrz) != nil {
            note(problems: 1, .breaksGrammar(lines: corrected.mrz.lines))
            return .undecided
        }
        let keyConfidence = confidenceOf(corrected.keyLines)
        let result = MRZScanResult(mrz: corrected.mrz, recognisedLines: lines, corrections: corrected.changes,
                                   skewDegrees: skewDegrees, cost: corrected.cost, keyConfidence: keyConfidence)
        // Zeros and fillers satisfy a check digit whatever they stand for: a key with an unknown
        // or zero date part must be read as printed, twice.
        // State codes that are no ICAO 9303-3 code (nor one of its documented exceptions, nor the
        // specimen state UTO) are allowed on documents, but a misread code is the likelier
        // story: such a reading never stands alone.
        let weakKey = MRZScanner.hasWeakDates(corrected.mrz)
        let oddCodes = Self.unknownCodePositions(corrected.mrz)
        if weakKey && !corrected.keyLinesReadAsIs { return .undecided }
        let key = corrected.mrz.accessKey
        keys.insert(key)
        // An unknown state code stands on another reading that has it as printed: one the
        // corrector had to change (a digit made a letter, however forced) supports nothing there.
        let substituted = Self.substitutedKeyPositions(corrected).union(Self.changedPositions(corrected).intersection(oddCodes))
        let blind = checkBlindMatters ? Self.checkBlindPositions(corrected.mrz) : []
        if corrected.keyLinesReadAsIs && keyConfidence >= minimumKeyConfidence && !weakKey && oddCodes.isEmpty
            && blind.isEmpty && keys.count == 1 {
            return .accept(result)
        }
        // A key line read with two characters too many or too few and realigned had hundreds of
        // ways to be put right, and one of them satisfies the check digits by chance too often:
        // such a reading neither stands nor confirms another (it still counts as a rival key).
        let errors = corrected.lineLengthErrors
        if corrected.realignedLines.contains(where: { corrected.keyLines.contains($0) && $0 - 1 < errors.count && errors[$0 - 1] >= 2 }) {
            return .undecided
        }
        var needs = substituted.union(blind)
        if weakKey { needs.formUnion(Self.keyPositions(corrected.mrz)) }
        unsure.append((result, needs, substituted))
        // Two readings agree on the key, no reading of this zone gave another, and what one of
        // them owes to a substitution (or to a character its check digit cannot tell from its
        // look-alike) another read as it stands: check digits satisfied by substitutions alone
        // are no evidence.
        if unsure.count >= 2 && keys.count == 1 && Self.supported(unsure) {
            return .accept(unsure.min { $0.result.cost < $1.result.cost }!.result)
        }
        return .undecided
    }

    /// Whether every position some reading needs is read as it stands by another reading.
    static func supported(_ readings: [(result: MRZScanResult, needs: Set<Int>, substituted: Set<Int>)]) -> Bool {
        readings.indices.allSatisfy { index in
            readings[index].needs.allSatisfy { position in
                readings.indices.contains { $0 != index && !readings[$0].substituted.contains(position) }
            }
        }
    }

    /// The access-key fields' positions (line × 64 + index, 0-based): document number, birth and
    /// expiry date, and their check digits.
    static func keyPositions(_ mrz: MRZ) -> Set<Int> {
        let layout = mrz.format.layout
        return Set([layout.documentNumber, layout.documentNumberCheck, layout.birthDate, layout.birthDateCheck,
                    layout.expiryDate, layout.expiryDateCheck].flatMap { field in field.range.map { field.line * 64 + $0 } })
    }

    /// The access-key positions where the corrector chose a character other than the one read,
    /// among alternatives (a letter in a date, which its grammar turns into its digit twin with
    /// no alternative, is read, not chosen by a check digit). A line realigned by one character
    /// keeps its characters, shifted.
    static func substitutedKeyPositions(_ corrected: MRZCorrector.Result) -> Set<Int> {
        Set(corrected.changes.filter { !$0.forced }.map { ($0.line - 1) * 64 + $0.position - 1 }).intersection(keyPositions(corrected.mrz))
    }

    /// Characters a check digit cannot tell from a look-alike: their values differ by a multiple
    /// of ten (ICAO 9303-3 §4.9: A = 10, G = 16, L = 21, S = 28, U = 30), so every weight gives the
    /// same check digit. Both ways round.
    static let checkBlindTwins: [Character: Character] = ["0": "U", "U": "0", "A": "0", "6": "G", "G": "6", "1": "L", "L": "1", "8": "S", "S": "8"]

    /// The document number's positions holding such a character.
    static func checkBlindPositions(_ mrz: MRZ) -> Set<Int> {
        let field = mrz.format.layout.documentNumber
        let line = Array(mrz.lines[field.line])
        return Set(field.range.filter { $0 < line.count && checkBlindTwins[line[$0]] != nil }.map { field.line * 64 + $0 })
    }

    /// Every position the corrector changed (line × 64 + index, 0-based), forced or chosen.
    static func changedPositions(_ corrected: MRZCorrector.Result) -> Set<Int> {
        Set(corrected.changes.map { ($0.line - 1) * 64 + $0.position - 1 })
    }

    /// The positions of the issuing state and the nationality where the code is no ICAO 9303-3
    /// code nor one of its documented exceptions (`CountryCodes.isKnownMRZCode`: D, the British
    /// categories, RKS, EUE, UNO/UNA/UNK, XOM, the organisations, XXA/XXB/XXC/XXX, and the
    /// specimen state UTO).
    static func unknownCodePositions(_ mrz: MRZ) -> Set<Int> {
        let layout = mrz.format.layout
        return Set([(mrz.issuingState, layout.issuingState), (mrz.nationality, layout.nationality)]
            .filter { !CountryCodes.isKnownMRZCode($0.0) }
            .flatMap { _, field in field.range.map { field.line * 64 + $0 } })
    }

    /// The first date of birth or expiry whose day does not exist in its month (31 April, 30
    /// February), nil when both are dates. 29 February passes in any year (a Czech specimen
    /// prints a birth date of 29 February 2011). Unknown (fillers) and zero parts are judged
    /// elsewhere (weak dates).
    static func impossibleDate(_ mrz: MRZ) -> String? {
        for date in [mrz.birthDate, mrz.expiryDate] {
            let digits = Array(date)
            guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let month = Int(String(digits[2...3])), let day = Int(String(digits[4...5])),
                  (1...12).contains(month), day >= 1 else { continue }
            let lengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            if day > lengths[month - 1] { return date }
        }
        return nil
    }

    private mutating func note(problems: Int, _ error: MRZScanError) {
        if problems < failureProblems {
            failureProblems = problems
            failure = error
        }
    }
}
