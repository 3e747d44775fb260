import MRZ

/// Turns the cell model's probabilities into MRZ lines, and says how sure it is of the access key.
///
/// Each position is read as the likeliest character its field permits (ICAO 9303-3: a date holds
/// digits, a name letters), the model's probabilities renormalised over those characters. Each
/// access-key field with its check digit (document number, birth date, expiry date) is read as a
/// whole: among the field's readings the model finds likely (every combination of each position's
/// likely characters), those whose check digit holds are kept, and the likeliest is taken. Its
/// share of all the probability that could satisfy the check digit is the chance that it is the
/// printed field. Readings the enumeration left out count against it in full, so the figure errs
/// low. A character the check digit cannot tell from another (G and 6, S and 8, U and 0 are worth
/// the same modulo 10) is weighed like any other alternative that satisfies it.
enum CellDecoder {
    struct Decoded {
        let lines: [String]
        /// The chance (0-100) that the document number, birth date and expiry date are as printed.
        let keyConfidence: Float
    }

    /// How many readings of one field are kept while enumerating them.
    static let beamWidth = 512
    /// Characters less likely than this (after renormalising) are not considered at a position.
    static let leastProbability = 0.0005

    static func decode(_ lines: [CellClassifier.LineReading]) -> Decoded? {
        let guess = lines.map { $0.text }
        guard let format = MRZCorrector.likelyFormat(guess), format.lineCount == lines.count,
              lines.allSatisfy({ $0.cells.count == format.lineLength }) else { return nil }
        let permitted = MRZCorrector.permittedCharacters(in: format)
        // Each position's likely characters among those its field permits, likeliest first.
        let likely: [[[(character: Character, probability: Double)]]] = lines.enumerated().map { line, reading in
            reading.cells.enumerated().map { position, cell in options(cell, permitted: permitted[line][position]) }
        }
        var chosen = likely.map { $0.map { $0.first?.character ?? "<" } }
        let layout = format.layout
        // A state code is letters or digits (and fillers), never a mix: read as a whole.
        for field in [layout.issuingState, layout.nationality] {
            for (position, character) in zip(field.range, likeliestCode(field.range.map { likely[field.line][$0] })) {
                chosen[field.line][position] = character
            }
        }
        var confidence = 1.0
        for (field, check) in [(layout.documentNumber, layout.documentNumberCheck), (layout.birthDate, layout.birthDateCheck),
                               (layout.expiryDate, layout.expiryDateCheck)] {
            let slots = field.range.map { (field.line, $0) } + [(check.line, check.range.lowerBound)]
            let continues = layout.documentNumberMayContinue && field == layout.documentNumber
            guard let best = likeliestValid(slots.map { likely[$0.0][$0.1] }, continues: continues) else {
                confidence = 0
                continue
            }
            for ((line, position), character) in zip(slots, best.characters) { chosen[line][position] = character }
            confidence *= best.posterior
        }
        return Decoded(lines: chosen.map { String($0) }, keyConfidence: Float(100 * confidence))
    }

    /// The likelier of a code's readings in letters and fillers and in digits and fillers.
    static func likeliestCode(_ options: [[(character: Character, probability: Double)]]) -> [Character] {
        func likeliest(_ permitted: (Character) -> Bool) -> (characters: [Character], probability: Double) {
            options.reduce((characters: [Character](), probability: 1.0)) { reading, choices in
                guard let best = choices.first(where: { permitted($0.character) }) else { return (reading.characters + ["<"], 0) }
                return (reading.characters + [best.character], reading.probability * best.probability)
            }
        }
        let letters = likeliest { !$0.isNumber }, digits = likeliest { !$0.isLetter }
        return digits.probability > letters.probability ? digits.characters : letters.characters
    }

    static func options(_ cell: CellClassifier.Reading, permitted: Set<Character>) -> [(character: Character, probability: Double)] {
        let allowed = cell.probabilities.enumerated().filter { permitted.contains(CellClassifier.alphabet[$0.offset]) }
        let total = allowed.reduce(0.0) { $0 + Double($1.element) }
        guard total > 0 else { return [] }
        return allowed.map { (CellClassifier.alphabet[$0.offset], Double($0.element) / total) }
            .filter { $0.1 >= leastProbability }.sorted { $0.1 > $1.1 }
    }

    /// The likeliest reading of a field and its check digit whose check digit holds, and its
    /// posterior (see the type's comment). A field that `continues` (a TD1/TD2 number longer
    /// than nine characters, '<' at its check digit) cannot be judged here: posterior 0.
    static func likeliestValid(_ options: [[(character: Character, probability: Double)]], continues: Bool) -> (characters: [Character], posterior: Double)? {
        var beam: [(characters: [Character], probability: Double)] = [([], 1)]
        for choices in options {
            var next: [(characters: [Character], probability: Double)] = []
            next.reserveCapacity(beam.count * choices.count)
            for reading in beam {
                for choice in choices { next.append((reading.characters + [choice.character], reading.probability * choice.probability)) }
            }
            next.sort { $0.probability > $1.probability }
            guard let top = next.first?.probability else { return nil }
            beam = Array(next.prefix(beamWidth).prefix { $0.probability >= top * 1e-9 })
        }
        let enumerated = beam.reduce(0.0) { $0 + $1.probability }
        let valid = beam.filter { reading in
            let data = reading.characters.dropLast(), digit = reading.characters.last!
            return CheckDigit.compute(characters: data) == digit || (continues && digit == "<")
        }
        guard let best = valid.first else { return nil }
        if continues && best.characters.last == "<" { return (best.characters, 0) }
        let validMass = valid.reduce(0.0) { $0 + $1.probability }
        return (best.characters, best.probability / (validMass + max(0, 1 - enumerated)))
    }
}
