/// Turns MRZ lines as an OCR engine read them into the most plausible MRZ: the layout's field
/// grammar fixes characters that cannot be right where they stand (a letter in a date is a
/// misread digit), and the check digits choose between the readings that could be (O or 0 in a
/// document number). Among the readings whose check digits all hold, the one with the fewest and
/// most likely substitutions wins.
public enum MRZCorrector {
    /// One character the corrector changed.
    public struct Change: Sendable, Equatable, CustomStringConvertible {
        public let line: Int      // 1-based
        public let position: Int  // 1-based
        public let from: Character
        public let to: Character
        /// The field's grammar left no other reading (a letter in a date is its digit twin): the
        /// check digits did not choose it among alternatives.
        public var forced = false
        public var description: String { "line \(line) position \(position): \(from) → \(to)" }
    }

    public struct Result: Sendable {
        /// The chosen reading.
        public let mrz: MRZ
        public let changes: [Change]
        /// Characters that break the layout's grammar (a letter in a date, a digit in a name, a
        /// month 13); check digits computed over such text prove nothing.
        public let grammarViolations: Int
        /// How much the chosen reading departs from what was read (0: only forced fixes).
        public let cost: Int
        /// A character had to be dropped or put back somewhere other than in a run of fillers.
        public var realigned: Bool { !realignedLines.isEmpty }
        /// The lines (1-based) where that happened.
        public var realignedLines: Set<Int> = []
        /// The most characters a line was read with too many or too few.
        public var lengthError: Int { lineLengthErrors.max() ?? 0 }
        /// Per line, how many characters it was read with too many or too few.
        public var lineLengthErrors: [Int] = []

        /// The lines (1-based) holding the access-key fields: the document number and the dates.
        public var keyLines: Set<Int> {
            let layout = mrz.format.layout
            let fields = [layout.documentNumber, layout.documentNumberCheck, layout.birthDate, layout.birthDateCheck,
                          layout.expiryDate, layout.expiryDateCheck]
            return Set(fields.map { $0.line + 1 })
        }

        /// Whether the access-key lines were read as they stand: no substitution, no realignment,
        /// at most two fillers miscounted. Corrections elsewhere (a name) cannot change the key.
        public var keyLinesReadAsIs: Bool {
            let lines = keyLines
            return changes.allSatisfy { !lines.contains($0.line) } && realignedLines.isDisjoint(with: lines)
                && lines.allSatisfy { $0 - 1 < lineLengthErrors.count && lineLengthErrors[$0 - 1] <= 2 }
        }
        /// Every check digit holds and the text fits the layout's grammar.
        public var isValid: Bool { mrz.isValid && grammarViolations == 0 }
        /// An access-key field (document number, birth or expiry date) had two different cheapest
        /// corrections that both satisfy its check digit: the one chosen is a guess.
        public var ambiguous = false
    }

    /// How many characters a line may have too many or too few.
    public static let maxLengthError = 6
    /// How many realigned readings of a line (the likeliest by a quick look at the grammar and the
    /// check digits) get the full search.
    static let maxRealignments = 8

    /// Corrects `rawLines` (any case, stray spaces allowed). Throws `MRZError.unknownLayout` when the
    /// lines cannot be any MRZ layout, even after fixing their lengths.
    public static func correct(_ rawLines: [String]) throws -> Result {
        let cleaned = rawLines.map(normalise).filter { !$0.isEmpty }
        guard let format = likelyFormat(cleaned) else {
            throw MRZError.unknownLayout(lineLengths: cleaned.map(\.count))
        }
        // Lines far from the layout's length are not a misread MRZ (and would make the search
        // below slow): refuse them.
        guard cleaned.allSatisfy({ abs($0.count - format.lineLength) <= maxLengthError }) else {
            throw MRZError.unknownLayout(lineLengths: cleaned.map(\.count))
        }
        let raw = cleaned.map { Array($0) }
        let fitted = raw.map { fitLength($0, to: format.lineLength) }
        guard var best = correctFitted(fitted, format: format) else {
            throw MRZError.unknownLayout(lineLengths: cleaned.map(\.count))
        }
        // A line read with a character too many or too few (a speck at the edge, a letter read
        // twice, a filler or a thin first letter lost) may be off anywhere, not only in a run of
        // fillers. For such a line (and for every line when the reading above fails), try dropping
        // each character, and putting a filler (or, at the start, a document-code letter) back at
        // each position, and keep the cheapest reading: a misaligned line can satisfy its check
        // digits only with substitutions.
        // A reading with more than two problems is not one character away from an MRZ: skip it
        // (this keeps garbage input fast).
        let closeToValid = best.score < 300
        // Every valid reading found, by access key: a realignment is accepted only when no other
        // realignment (nor the reading as fitted) gives a valid MRZ with another key.
        var validKeys: Set<MRZAccessKey> = best.result.isValid && !best.result.ambiguous ? [best.result.mrz.accessKey] : []
        var anyAmbiguous = best.result.ambiguous
        // Valid as read, but for fillers miscounted in their runs (a filler merged into its
        // neighbours is the commonest misreading), with no substitution: a realignment elsewhere
        // that is valid too would assume a rarer misreading (a digit lost, a stray character), so
        // it is not looked for. (A line shifted by a character passes every check digit as read
        // about once in ten thousand.)
        let validAsRead = best.result.isValid && !best.result.ambiguous && best.result.cost == 0
        for (index, line) in raw.enumerated() where !validAsRead
            && (line.count != format.lineLength || (!best.result.isValid && closeToValid)) {
            var variants: [[Character]] = []
            // A letter read twice is the likeliest extra character: those deletions come first and
            // so win ties.
            let doubled = line.indices.filter { $0 > 0 && line[$0] == line[$0 - 1] && line[$0] != "<" }
            for position in doubled + line.indices.filter({ !doubled.contains($0) }) {
                var shorter = line
                shorter.remove(at: position)
                variants.append(shorter)
            }
            // Two characters too many (the line then lost two fillers elsewhere, or not): a speck
            // or a guilloche read as two characters before the line, or anywhere in it.
            if line.count >= format.lineLength {
                for position in 0..<(line.count - 1) {
                    var shorter = line
                    shorter.removeSubrange(position...(position + 1))
                    variants.append(shorter)
                }
            }
            for position in 0...line.count {
                for character in position == 0 ? ["<", "I", "P"] as [Character] : ["<"] {
                    var longer = line
                    longer.insert(character, at: position)
                    variants.append(longer)
                }
            }
            // Only the few variants that fit the grammar and check digits best as read are worth
            // the full search (which costs milliseconds each).
            let grammar = Grammar(format: format)
            let ranked = variants.map { variant -> (problems: Int, lines: [[Character]]) in
                var lines = fitted
                lines[index] = fitLength(variant, to: format.lineLength)
                return (grammar.quickProblems(in: lines), lines)
            }
            for (_, lines) in ranked.enumerated().sorted(by: { ($0.element.problems, $0.offset) < ($1.element.problems, $1.offset) })
                .prefix(maxRealignments).map(\.element) {
                guard var candidate = correctFitted(lines, format: format) else { continue }
                if candidate.result.isValid {
                    if candidate.result.ambiguous { anyAmbiguous = true } else { validKeys.insert(candidate.result.mrz.accessKey) }
                }
                if candidate.score < best.score {
                    candidate.result.realignedLines = [index + 1]
                    best = candidate
                }
            }
        }
        if best.result.isValid && (validKeys.count > 1 || (best.result.realigned && anyAmbiguous)) {
            best.result.ambiguous = true
        }
        var result = best.result
        result.lineLengthErrors = raw.map { abs($0.count - format.lineLength) }
        return result
    }

    /// The best reading of lines that already have the layout's length, and its score (lower is
    /// better: failing check digits weigh far more than substitutions).
    static func correctFitted(_ lines: [[Character]], format: MRZFormat) -> (result: Result, score: Int)? {
        let grammar = Grammar(format: format)

        // Candidates per position: the reading the grammar forces (cost 0) and plausible alternatives.
        var options: [[[Option]]] = lines.enumerated().map { lineIndex, line in
            line.enumerated().map { position, character in
                grammar.options(for: character, kind: grammar.kinds[lineIndex][position])
            }
        }
        clearFillerRuns(&options, lines: lines, grammar: grammar)
        fixCodes(&options, lines: lines, grammar: grammar)
        keepUnknownDateParts(&options, lines: lines, grammar: grammar)

        // Each check-digit group on its own: readings within a small cost whose digit holds.
        var groupReadings: [[Reading]] = grammar.groups.map { readings(of: $0, options: options) }
        // A group with no such reading stays as read and the parse reports it. (A TD1/TD2 number
        // longer than nine characters has '<' at the check position and its digit in the optional
        // data; the parse judges it.)
        for (index, readings) in groupReadings.enumerated() where readings.isEmpty {
            groupReadings[index] = [Reading(cost: 0, characters: grammar.groups[index].positions.map { options[$0.line][$0.index][0].character })]
        }

        // Combinations come cheapest first: the first valid one wins. The others of the same cost
        // are looked at too: a check digit rejects a wrong correction only nine times in ten, so
        // two equally cheap corrections that both give a valid MRZ with different access keys
        // make the choice a guess.
        var best: (score: Int, mrz: MRZ, lines: [[Character]])?
        var validCost: Int?
        var ambiguous = false
        for combination in combinations(groupReadings, limit: 4) {
            let cost = combination.reduce(0) { $0 + $1.cost }
            if let validCost, cost > validCost { break }
            var chosen = options.map { $0.map { $0[0].character } }
            for (group, reading) in zip(grammar.groups, combination) {
                for (slot, character) in zip(group.positions, reading.characters) {
                    chosen[slot.line][slot.index] = character
                }
            }
            guard let mrz = try? MRZ(lines: chosen.map { String($0) }) else { continue }
            let violations = grammar.violations(in: chosen)
            if mrz.isValid && violations == 0 {
                if validCost == nil {
                    validCost = cost
                    best = (cost, mrz, chosen)
                } else if mrz.accessKey != best!.mrz.accessKey {
                    ambiguous = true
                }
                continue
            }
            let score = cost + (mrz.checks.filter { !$0.isValid }.count + violations) * 100
            if validCost == nil, best == nil || score < best!.score {
                best = (score, mrz, chosen)
            }
        }
        guard var best else { return nil }
        if let repaired = repairComposite(best.lines, score: best.score, grammar: grammar, options: options) {
            best = repaired
        }
        var changes: [Change] = []
        for (lineIndex, line) in best.lines.enumerated() {
            let original = lines[lineIndex]
            for (position, character) in line.enumerated() where original[position] != character {
                changes.append(Change(line: lineIndex + 1, position: position + 1, from: original[position], to: character,
                                      forced: options[lineIndex][position][0].character == character))
            }
        }
        // The score is the substitution cost plus 100 per failing check or grammar violation.
        var result = Result(mrz: best.mrz, changes: changes, grammarViolations: grammar.violations(in: best.lines), cost: best.score % 100)
        result.ambiguous = ambiguous
        return (result, best.score)
    }

    /// TD1/TD2 optional data has no check digit of its own, only the composite: when the composite
    /// is all that fails, try letter/digit twins there (one, then two).
    static func repairComposite(_ lines: [[Character]], score: Int, grammar: Grammar, options: [[[Option]]])
        -> (score: Int, mrz: MRZ, lines: [[Character]])?
    {
        guard let mrz = try? MRZ(lines: lines.map { String($0) }),
              mrz.checks.filter({ !$0.isValid }).map(\.field) == [.composite], grammar.violations(in: lines) == 0
        else { return nil }
        let slots = grammar.compositeOnly.filter { options[$0.line][$0.index].count > 1 }
        func attempt(_ changed: [[Character]], cost: Int) -> (score: Int, mrz: MRZ, lines: [[Character]])? {
            guard let candidate = try? MRZ(lines: changed.map { String($0) }), candidate.isValid else { return nil }
            return (score - 100 + cost, candidate, changed)
        }
        for (i, a) in slots.enumerated() {
            var one = lines
            one[a.line][a.index] = options[a.line][a.index][1].character
            if let found = attempt(one, cost: 1) { return found }
            for b in slots[(i + 1)...] {
                var two = one
                two[b.line][b.index] = options[b.line][b.index][1].character
                if let found = attempt(two, cost: 2) { return found }
            }
        }
        return nil
    }

    // MARK: - Layout and length

    public static func normalise(_ line: String) -> String {
        var out = ""
        for character in line.uppercased() {
            switch character {
            case "A"..."Z", "0"..."9", "<": out.append(character)
            case "«": out.append("<<")
            case " ", "\t": continue
            default: out.append("<") // anything else an OCR engine makes of the MRZ font is most likely a filler
            }
        }
        return out
    }

    /// What each position of `format` may hold by its field's grammar (ICAO 9303-3): letters and
    /// fillers in names, letters or digits and fillers in state codes (a code is letters or digits,
    /// never a mix: `Grammar.violations` judges the whole code), digits in dates and check digits
    /// (a date's unknown parts may be fillers), 'M', 'F', 'X' or '<' for the sex, anything in
    /// document numbers and optional data.
    public static func permittedCharacters(in format: MRZFormat) -> [[Set<Character>]] {
        let grammar = Grammar(format: format)
        let letters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), digits = Set("0123456789")
        return grammar.kinds.enumerated().map { line, kinds in
            kinds.enumerated().map { position, kind in
                switch kind {
                case .letterOrFiller, .name:
                    return grammar.countrySlots.contains(line * 64 + position) ? letters.union(digits).union(["<"]) : letters.union(["<"])
                case .digit: return grammar.dateSlots.contains(line * 64 + position) ? digits.union(["<"]) : digits
                case .digitOrFiller: return digits.union(["<"])
                case .sex: return ["M", "F", "X", "<"]
                case .alphanumeric: return letters.union(digits).union(["<"])
                }
            }
        }
    }

    /// The layout by line count and length; a two-line zone whose document code starts with V
    /// is a visa (no composite check digit to satisfy).
    public static func likelyFormat(_ lines: [String]) -> MRZFormat? {
        let mean = lines.isEmpty ? 0 : lines.map(\.count).reduce(0, +) / lines.count
        switch lines.count {
        case 3: return .td1
        case 2: return (abs(mean - 36) <= abs(mean - 44) ? MRZFormat.td2 : .td3).visaVariant(documentCode: lines[0].first)
        default: return nil
        }
    }

    /// OCR engines mostly miscount characters inside long runs of fillers: take a filler out of, or
    /// add one to, the longest run (the end of the line when there is none).
    static func fitLength(_ line: [Character], to length: Int) -> [Character] {
        var line = line
        while line.count != length {
            let run = longestFillerRun(line)
            if line.count > length {
                if let run { line.remove(at: run.lowerBound) } else { line.removeLast() }
            } else {
                if let run { line.insert("<", at: run.lowerBound) } else { line.append("<") }
            }
        }
        return line
    }

    static func longestFillerRun(_ line: [Character]) -> Range<Int>? {
        var best: Range<Int>?
        var start: Int?
        for index in 0...line.count {
            if index < line.count && line[index] == "<" {
                if start == nil { start = index }
            } else if let s = start {
                if best == nil || index - s >= best!.count { best = s..<index }
                start = nil
            }
        }
        return best
    }

    /// A lone 'K' inside a run of fillers is a misread '<' (the classic OCR-B confusion).
    static func clearFillerRuns(_ options: inout [[[Option]]], lines: [[Character]], grammar: Grammar) {
        for (lineIndex, line) in lines.enumerated() {
            for index in line.indices where line[index] == "K" {
                let kind = grammar.kinds[lineIndex][index]
                guard kind == .name || kind == .alphanumeric || kind == .digitOrFiller else { continue }
                let before = index == 0 || line[index - 1] == "<"
                let after = index == line.count - 1 || line[index + 1] == "<"
                let twoBefore = index < 2 || line[index - 2] == "<"
                let twoAfter = index >= line.count - 2 || line[index + 2] == "<"
                if before && after && (twoBefore || twoAfter) {
                    options[lineIndex][index] = [Option(character: "<", cost: 0), Option(character: "K", cost: 1)]
                }
            }
        }
    }

    /// The document code's first letter is one of A, C, I, P, V (a misread one gets its nearest
    /// such letter). Issuing state and nationality are only fixed where the character class forces
    /// it: ICAO 9303-3 lets a state use codes no list here knows (`BDR`, `INP`), codes padded with
    /// fillers (`D<<`, `SI<`), an empty nationality and, on some national documents, digits (`132`).
    /// A code is read as letters unless most of its characters were read as digits; the country
    /// list never replaces a plausible code with another one.
    static func fixCodes(_ options: inout [[[Option]]], lines: [[Character]], grammar: Grammar) {
        let first = options[0][0][0].character
        if !"ACIPV".contains(first) {
            let fix = (Grammar.letterConfusions[first] ?? []).first { "ACIPV".contains($0) }
                ?? (grammar.format == .td3 ? "P" : grammar.format.isVisa ? "V" : "I")
            options[0][0] = [Option(character: fix, cost: 0)]
        }
        for field in grammar.countryFields {
            let read = field.map { lines[$0.line][$0.index] }
            let digits = read.filter { $0.isASCII && $0.isNumber }.count
            let letters = read.filter { $0 != "<" && !($0.isASCII && $0.isNumber) }.count
            guard digits > letters else { continue } // letters: the options already hold the forced letters
            for (slot, character) in zip(field, read) {
                let digit = character == "<" || (character.isASCII && character.isNumber) ? character
                    : Grammar.digitForLetter[character] ?? character
                options[slot.line][slot.index] = [Option(character: digit, cost: 0)]
            }
        }
    }

    /// An unknown day, or month and day, of birth is given as fillers (`6408<<`, `64<<<<`): a pair
    /// read as two fillers there stays so (one filler alone is a misread digit).
    static func keepUnknownDateParts(_ options: inout [[[Option]]], lines: [[Character]], grammar: Grammar) {
        let birth = grammar.dates[0]
        for pair in [2, 4] {
            let a = birth[pair], b = birth[pair + 1]
            if lines[a.line][a.index] == "<" && lines[b.line][b.index] == "<" {
                options[a.line][a.index] = [Option(character: "<", cost: 0)]
                options[b.line][b.index] = [Option(character: "<", cost: 0)]
            }
        }
    }

    // MARK: - Readings

    struct Option: Sendable { let character: Character; let cost: Int }
    struct Reading: Sendable { let cost: Int; let characters: [Character] }

    /// Readings of one group (field characters plus check digit) costing at most 2 whose check
    /// digit holds, cheapest first.
    static func readings(of group: Grammar.Group, options: [[[Option]]]) -> [Reading] {
        let slots = group.positions.map { options[$0.line][$0.index] }
        var found: [Reading] = []
        var current = slots.map { $0[0].character }
        func consider(_ cost: Int) {
            if group.holds(current) { found.append(Reading(cost: cost, characters: current)) }
        }
        consider(0)
        for i in slots.indices {
            for a in slots[i].dropFirst() {
                current[i] = a.character
                consider(a.cost)
                if a.cost < 2 {
                    for j in slots.indices where j > i {
                        for b in slots[j].dropFirst() where a.cost + b.cost <= 2 {
                            current[j] = b.character
                            consider(a.cost + b.cost)
                        }
                        current[j] = slots[j][0].character
                    }
                }
            }
            current[i] = slots[i][0].character
        }
        // Stable: equal costs keep the order found (left to right).
        return found.enumerated().sorted { ($0.element.cost, $0.offset) < ($1.element.cost, $1.offset) }.map(\.element)
    }

    /// Up to `limit` readings per group, combined; cheapest combinations first.
    static func combinations(_ groups: [[Reading]], limit: Int) -> [[Reading]] {
        var result: [[Reading]] = [[]]
        for readings in groups {
            let choices = readings.isEmpty ? [] : Array(readings.prefix(limit))
            if choices.isEmpty { return [] }
            result = result.flatMap { prefix in choices.map { prefix + [$0] } }
        }
        return result.sorted { $0.reduce(0) { $0 + $1.cost } < $1.reduce(0) { $0 + $1.cost } }
    }

    // MARK: - Field grammar

    enum Kind: Sendable { case letterOrFiller, digit, digitOrFiller, alphanumeric, name, sex }

    struct Grammar: Sendable {
        struct Slot: Sendable { let line: Int; let index: Int }
        struct Group: Sendable {
            let positions: [Slot] // the field's characters, then its check digit
            let fillerAllowed: Bool
            func holds(_ characters: [Character]) -> Bool {
                let data = characters.dropLast()
                let digit = characters.last!
                if fillerAllowed && digit == "<" && data.allSatisfy({ $0 == "<" }) { return true }
                return CheckDigit.compute(characters: data) == digit
            }
        }

        let format: MRZFormat
        let kinds: [[Kind]]
        let groups: [Group]
        /// Issuing state and nationality.
        let countryFields: [[Slot]]
        /// Optional data covered by the composite check digit only.
        let compositeOnly: [Slot]
        /// Birth and expiry date.
        let dates: [[Slot]]
        /// Their positions (line × 64 + index): fillers there are judged a pair at a time.
        let dateSlots: Set<Int>
        let countrySlots: Set<Int>

        init(format: MRZFormat) {
            self.format = format
            let layout = format.layout
            var kinds = Array(repeating: Array(repeating: Kind.alphanumeric, count: format.lineLength), count: format.lineCount)
            for (field, kind) in Grammar.fieldKinds(layout) {
                for index in field.range { kinds[field.line][index] = kind }
            }
            self.kinds = kinds

            func group(_ data: [MRZField], check: MRZField, fillerAllowed: Bool = false) -> Group {
                Group(positions: data.flatMap(Grammar.slots) + Grammar.slots(check), fillerAllowed: fillerAllowed)
            }
            var groups = [group([layout.documentNumber], check: layout.documentNumberCheck),
                          group([layout.birthDate], check: layout.birthDateCheck),
                          group([layout.expiryDate], check: layout.expiryDateCheck)]
            if let check = layout.optionalDataCheck {
                groups.append(group(layout.optionalData, check: check, fillerAllowed: true))
            }
            self.groups = groups
            countryFields = [Grammar.slots(layout.issuingState), Grammar.slots(layout.nationality)]
            dates = [Grammar.slots(layout.birthDate), Grammar.slots(layout.expiryDate)]
            dateSlots = Set(dates.joined().map { $0.line * 64 + $0.index })
            countrySlots = Set(countryFields.joined().map { $0.line * 64 + $0.index })
            let onlyCompositeCoversOptionalData = layout.compositeCheck != nil && layout.optionalDataCheck == nil
            compositeOnly = onlyCompositeCoversOptionalData ? layout.optionalData.flatMap(Grammar.slots) : []
        }

        /// What each field may hold; the rest (document number, optional data) is alphanumeric.
        static func fieldKinds(_ layout: MRZLayout) -> [(MRZField, Kind)] {
            var fields: [(MRZField, Kind)] = [
                (layout.documentCode, .letterOrFiller), (layout.issuingState, .letterOrFiller), (layout.name, .name),
                // '<' there says a TD1/TD2 number continues in the optional data.
                (layout.documentNumberCheck, layout.documentNumberMayContinue ? .digitOrFiller : .digit),
                (layout.nationality, .letterOrFiller),
                (layout.birthDate, .digit), (layout.birthDateCheck, .digit), (layout.sex, .sex),
                (layout.expiryDate, .digit), (layout.expiryDateCheck, .digit),
            ]
            // '<' is the check digit of empty optional data.
            if let check = layout.optionalDataCheck { fields.append((check, .digitOrFiller)) }
            if let check = layout.compositeCheck { fields.append((check, .digit)) }
            return fields
        }

        static func slots(_ field: MRZField) -> [Slot] { field.range.map { Slot(line: field.line, index: $0) } }

        /// Letters OCR engines confuse with digits in OCR-B, both ways.
        static let letterForDigit: [Character: Character] = ["0": "O", "1": "I", "2": "Z", "4": "A", "5": "S", "6": "G", "8": "B", "7": "T"]
        static let digitForLetter: [Character: Character] = ["O": "0", "Q": "0", "D": "0", "U": "0", "I": "1", "L": "1", "J": "1",
                                                              "Z": "2", "S": "5", "G": "6", "B": "8", "T": "7", "A": "4"]
        /// The letter/digit pairs OCR-B readers confuse most (in a field that may hold either, the
        /// cheaper correction); the others (A/4, G/6, T/7, D/0, L/1, …) cost more.
        static let commonTwins: Set<[Character]> = [["O", "0"], ["I", "1"], ["Z", "2"], ["S", "5"], ["B", "8"]]
        /// A cheap estimate of how far lines are from a valid MRZ: grammar violations and failing
        /// check digits after the forced fixes only (no search).
        func quickProblems(in lines: [[Character]]) -> Int {
            let forced = lines.enumerated().map { lineIndex, line in
                line.enumerated().map { forcedReading(of: $1, kind: kinds[lineIndex][$0]) }
            }
            let failing = groups.filter { !$0.holds($0.positions.map { forced[$0.line][$0.index] }) }.count
            return violations(in: forced) + failing
        }

        /// Characters that cannot stand where they are, plus impossible dates.
        func violations(in lines: [[Character]]) -> Int {
            var count = 0
            for (lineIndex, line) in lines.enumerated() {
                for (position, character) in line.enumerated() {
                    let isDigit = character.isASCII && character.isNumber
                    switch kinds[lineIndex][position] {
                    case .digit: if !isDigit && !(character == "<" && dateSlots.contains(lineIndex * 64 + position)) { count += 1 }
                    case .digitOrFiller: if !isDigit && character != "<" { count += 1 }
                    case .letterOrFiller, .name:
                        // A country code may be all digits: judged as a whole below.
                        if isDigit && !countrySlots.contains(lineIndex * 64 + position) { count += 1 }
                    case .sex: if !"MFX<".contains(character) { count += 1 }
                    case .alphanumeric: break
                    }
                }
            }
            // A code is letters and fillers, or digits and fillers; never a mix.
            for field in countryFields {
                let code = field.map { lines[$0.line][$0.index] }.filter { $0 != "<" }
                let digits = code.filter { $0.isASCII && $0.isNumber }.count
                if digits > 0 && digits < code.count { count += 1 }
            }
            for date in dates {
                let text = date.map { lines[$0.line][$0.index] }
                // An unknown day, or month and day, of birth is given as fillers (YYMM<<, YY<<<<);
                // the year is always known and an expiry date always printed; 00 is allowed too.
                // Runs of fillers satisfy their check digit whatever they stand for: nothing more
                // is let through.
                let isBirth = date[0].line == dates[0][0].line && date[0].index == dates[0][0].index
                for (pair, limit) in [(0, 99), (2, 12), (4, 31)] {
                    let part = String(text[pair...(pair + 1)])
                    if part == "<<" {
                        let allowed = isBirth && (pair == 4 || (pair == 2 && text[4] == "<" && text[5] == "<"))
                        if !allowed { count += 1 }
                        continue
                    }
                    guard let value = Int(part), part.allSatisfy({ $0.isASCII && $0.isNumber }), value <= limit else {
                        count += 1; continue
                    }
                }
            }
            return count
        }

        /// Letters OCR-B readers confuse with each other.
        static let letterConfusions: [Character: [Character]] = [
            "O": ["C", "D", "Q", "G"], "C": ["O", "G"], "G": ["C", "O"], "D": ["O"], "Q": ["O"],
            "I": ["L", "T", "J"], "L": ["I"], "T": ["I", "Y"], "J": ["I"], "E": ["F", "B", "I"], "F": ["E", "P"],
            "B": ["E", "R"], "H": ["M", "N"], "M": ["H", "N"], "N": ["M", "H"], "U": ["V"], "V": ["U", "Y"],
            "Y": ["V"], "K": ["X"], "X": ["K"], "P": ["R", "F"], "R": ["P", "B"], "W": ["M"], "A": ["R"],
        ]
        /// Digits misread as other digits, commonest first, for when the check digit says one is wrong.
        static let digitConfusions: [Character: [Character]] = [
            "0": ["8", "6", "9"], "1": ["7", "4"], "2": ["7"], "3": ["8", "9", "5"], "4": ["1"],
            "5": ["6", "3"], "6": ["5", "8", "0"], "7": ["1", "2"], "8": ["3", "6", "0", "9"], "9": ["8", "0", "3"],
        ]

        /// The reading the grammar forces (`options(for:kind:)[0]`), without building the alternatives.
        func forcedReading(of character: Character, kind: Kind) -> Character {
            let isDigit = character.isASCII && character.isNumber
            switch kind {
            case .digit, .digitOrFiller:
                if kind == .digitOrFiller && character == "<" { return "<" }
                return isDigit ? character : (Grammar.digitForLetter[character] ?? (character == "<" ? "0" : character))
            case .letterOrFiller, .name:
                return isDigit ? Grammar.letterForDigit[character] ?? character : character
            case .sex:
                switch character {
                case "M", "F", "<", "X": return character
                case "H", "N", "W": return "M"
                case "E", "P", "R": return "F"
                default: return "<"
                }
            case .alphanumeric:
                return character
            }
        }

        func options(for character: Character, kind: Kind) -> [Option] {
            let isDigit = character.isASCII && character.isNumber
            switch kind {
            case .digit, .digitOrFiller:
                if kind == .digitOrFiller && character == "<" { return [Option(character: "<", cost: 0)] }
                let digit = isDigit ? character : (Grammar.digitForLetter[character] ?? (character == "<" ? "0" : character))
                var options = [Option(character: digit, cost: 0)]
                // The commonest confusion of each digit costs 2, rarer ones 3.
                options += (Grammar.digitConfusions[digit] ?? []).enumerated().map { Option(character: $1, cost: $0 == 0 ? 2 : 3) }
                if kind == .digitOrFiller { options.append(Option(character: "<", cost: 2)) }
                return options
            case .letterOrFiller, .name:
                if isDigit, let letter = Grammar.letterForDigit[character] { return [Option(character: letter, cost: 0)] }
                return [Option(character: character, cost: 0)]
            case .sex:
                switch character {
                case "M", "F", "<", "X": return [Option(character: character, cost: 0)]
                case "H", "N", "W": return [Option(character: "M", cost: 0)]
                case "E", "P", "R": return [Option(character: "F", cost: 0)]
                default: return [Option(character: "<", cost: 0)]
                }
            case .alphanumeric:
                if character == "<" { return [Option(character: "<", cost: 0)] }
                guard let twin = isDigit ? Grammar.letterForDigit[character] : Grammar.digitForLetter[character] else {
                    return [Option(character: character, cost: 0)]
                }
                let common = Grammar.commonTwins.contains([character, twin]) || Grammar.commonTwins.contains([twin, character])
                return [Option(character: character, cost: 0), Option(character: twin, cost: common ? 1 : 2)]
            }
        }
    }
}
