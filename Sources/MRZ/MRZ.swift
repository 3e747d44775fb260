/// A parsed machine-readable zone (ICAO 9303 parts 4-7). Fields keep the MRZ's own spelling
/// (dates as YYMMDD, fillers removed at the ends); `checks` tells which check digits hold.
public struct MRZ: Sendable, Equatable {
    public let format: MRZFormat
    /// The lines exactly as read, without separators.
    public let lines: [String]
    public let documentCode: String
    public let issuingState: String
    /// The full document number without fillers (TD1/TD2 numbers longer than 9 characters
    /// continue in the optional data).
    public let documentNumber: String
    public let nationality: String
    public let birthDate: String
    public let sex: String
    public let expiryDate: String
    public let optionalData: String
    public let primaryIdentifier: String
    public let secondaryIdentifier: String
    /// Every check digit of the layout, in MRZ order, with its status.
    public let checks: [CheckDigitResult]

    /// True when every check digit (including the composite one) holds.
    public var isValid: Bool { checks.allSatisfy(\.isValid) }

    /// The access-key fields for BAC and PACE-MRZ.
    public var accessKey: MRZAccessKey {
        MRZAccessKey(documentNumber: documentNumber, birthDate: birthDate, expiryDate: expiryDate)
    }

    /// The access key of an MRZ a person typed or pasted, once the check digits of its fields hold
    /// (the composite and optional-data ones are not needed for the key).
    public func checkedAccessKey() throws -> MRZAccessKey {
        if let bad = checks.first(where: { !$0.isValid && $0.field != .composite && $0.field != .optionalData }) {
            throw MRZError.invalidField("The MRZ check digit of the \(bad.field.rawValue.replacing("_", with: " ")) does not match; check the MRZ for typos.")
        }
        return accessKey
    }

    /// Parses lines separated by newlines (or given as one run of characters, as DG1 stores them).
    public init(text: String) throws {
        let cleaned = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingSpaces() }
            .filter { !$0.isEmpty }
        if cleaned.count == 1, let format = MRZFormat(characterCount: cleaned[0].count) {
            let joined = Array(cleaned[0])
            let lines = (0..<format.lineCount).map {
                String(joined[$0 * format.lineLength ..< ($0 + 1) * format.lineLength])
            }
            try self.init(lines: lines)
        } else {
            try self.init(lines: cleaned)
        }
    }

    public init(lines: [String]) throws {
        let lengths = lines.map(\.count)
        let format: MRZFormat
        switch (lines.count, Set(lengths)) {
        case (3, [30]): format = .td1
        case (2, [36]): format = MRZFormat.td2.visaVariant(documentCode: lines[0].first)
        case (2, [44]): format = MRZFormat.td3.visaVariant(documentCode: lines[0].first)
        default: throw MRZError.unknownLayout(lineLengths: lengths)
        }
        for (lineIndex, line) in lines.enumerated() {
            if let bad = line.firstIndex(where: { CheckDigit.value(of: $0) == nil }) {
                throw MRZError.invalidCharacter(line: lineIndex + 1,
                                                position: line.distance(from: line.startIndex, to: bad) + 1)
            }
        }
        self.format = format
        self.lines = lines
        let layout = format.layout
        let characters = lines.map { Array($0) }
        func text(_ field: MRZField) -> String { String(characters[field.line][field.range]) }
        func character(_ field: MRZField) -> Character { characters[field.line][field.range.lowerBound] }

        documentCode = text(layout.documentCode).trimmingFillers()
        issuingState = text(layout.issuingState).trimmingFillers()
        (primaryIdentifier, secondaryIdentifier) = MRZ.splitName(text(layout.name))
        nationality = text(layout.nationality).trimmingFillers()
        birthDate = text(layout.birthDate)
        sex = text(layout.sex)
        expiryDate = text(layout.expiryDate)

        let optionalFields = layout.optionalData.map(text)
        let number = MRZ.documentNumber(main: text(layout.documentNumber), checkDigit: character(layout.documentNumberCheck),
                                        optional: optionalFields[0], mayContinue: layout.documentNumberMayContinue)
        documentNumber = number.number
        optionalData = ([number.optionalRemainder] + optionalFields.dropFirst()).map { $0.trimmingFillers() }
            .filter { !$0.isEmpty }.joined(separator: "<")

        var checks = [
            CheckDigitResult(field: .documentNumber, data: number.checkedData, found: number.checkDigit, allowsFiller: false),
            CheckDigitResult(field: .birthDate, data: birthDate, found: character(layout.birthDateCheck), allowsFiller: false),
            CheckDigitResult(field: .expiryDate, data: expiryDate, found: character(layout.expiryDateCheck), allowsFiller: false),
        ]
        if let check = layout.optionalDataCheck {
            checks.append(CheckDigitResult(field: .optionalData, data: optionalFields.joined(), found: character(check),
                                           allowsFiller: true))
        }
        if let check = layout.compositeCheck {
            checks.append(CheckDigitResult(field: .composite, data: layout.compositeData.map(text).joined(),
                                           found: character(check), allowsFiller: false))
        }
        self.checks = checks
    }

    /// A TD1/TD2 document number (`mayContinue`): when the check-digit position holds '<', the number
    /// continues in the optional data and its check digit is the last character before the first filler there.
    static func documentNumber(main: String, checkDigit: Character, optional: String, mayContinue: Bool)
        -> (number: String, checkedData: String, checkDigit: Character, optionalRemainder: String)
    {
        guard mayContinue, checkDigit == "<", let end = optional.firstIndex(of: "<"), end > optional.startIndex else {
            return (main.trimmingFillers(), main, checkDigit, optional)
        }
        let continuation = optional[..<end]
        let digit = continuation.last!
        let rest = continuation.dropLast()
        let full = main + rest
        return (full.trimmingFillers(), full, digit, String(optional[end...]))
    }

    static func splitName(_ field: String) -> (String, String) {
        let trimmed = field.trimmingFillers()
        let parts = trimmed.components(separatedByDoubleFiller: ())
        let primary = parts.0.replacingFillers()
        let secondary = parts.1.replacingFillers()
        return (primary, secondary)
    }
}

/// One check digit of an MRZ and whether it holds.
public struct CheckDigitResult: Sendable, Equatable {
    public enum Field: String, Sendable, Codable {
        case documentNumber = "document_number"
        case birthDate = "birth_date"
        case expiryDate = "expiry_date"
        case optionalData = "optional_data"
        case composite
    }
    public let field: Field
    public let expected: Character?
    public let found: Character
    public let isValid: Bool

    init(field: Field, data: String, found: Character, allowsFiller: Bool) {
        self.field = field
        self.found = found
        self.expected = CheckDigit.compute(data)
        // ICAO allows '<' as the check digit of empty optional data.
        let emptyAndFiller = allowsFiller && found == "<" && data.allSatisfy { $0 == "<" }
        self.isValid = emptyAndFiller || expected == found
    }
}

extension StringProtocol {
    /// Without the fillers ('<') at either end ("D<<" → "D").
    public func trimmingFillers() -> String {
        var s = Substring(self)
        while s.last == "<" { s = s.dropLast() }
        while s.first == "<" { s = s.dropFirst() }
        return String(s)
    }
    func trimmingSpaces() -> String {
        String(self.filter { $0 != " " && $0 != "\t" })
    }
    func replacingFillers() -> String {
        self.split(separator: "<", omittingEmptySubsequences: true).joined(separator: " ")
    }
    func components(separatedByDoubleFiller: ()) -> (String, String) {
        let chars = Array(self)
        var i = 0
        while i + 1 < chars.count {
            if chars[i] == "<" && chars[i + 1] == "<" {
                return (String(chars[..<i]), String(chars[(i + 2)...]))
            }
            i += 1
        }
        return (String(self), "")
    }
}
