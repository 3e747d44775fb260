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
        let l = lines.map { Array($0) }
        func text(_ line: Int, _ range: Range<Int>) -> String { String(l[line][range]) }

        self.format = format
        self.lines = lines
        self.documentCode = text(0, 0..<2).trimmingFillers()
        self.issuingState = text(0, 2..<5).trimmingFillers()

        var checks: [CheckDigitResult] = []
        func check(_ field: CheckDigitResult.Field, _ data: String, _ digit: Character, optional: Bool = false) {
            checks.append(CheckDigitResult(field: field, data: data, found: digit, allowsFiller: optional))
        }

        switch format {
        case .td3, .mrvA, .mrvB:
            // A visa (ICAO 9303-7) has the passport's positions on a line of its own length, no
            // composite check digit, and optional data without a check digit of its own.
            let length = format.lineLength
            (primaryIdentifier, secondaryIdentifier) = MRZ.splitName(text(0, 5..<length))
            let numberField = text(1, 0..<9)
            documentNumber = numberField.trimmingFillers()
            nationality = text(1, 10..<13).trimmingFillers()
            birthDate = text(1, 13..<19)
            sex = text(1, 20..<21)
            expiryDate = text(1, 21..<27)
            let optionalField = text(1, 28..<(format == .td3 ? 42 : length))
            optionalData = optionalField.trimmingFillers()
            check(.documentNumber, numberField, l[1][9])
            check(.birthDate, birthDate, l[1][19])
            check(.expiryDate, expiryDate, l[1][27])
            if format == .td3 {
                check(.optionalData, optionalField, l[1][42], optional: true)
                check(.composite, text(1, 0..<10) + text(1, 13..<20) + text(1, 21..<43), l[1][43])
            }
        case .td2:
            (primaryIdentifier, secondaryIdentifier) = MRZ.splitName(text(0, 5..<36))
            let optional = text(1, 28..<35)
            let number = MRZ.documentNumber(main: text(1, 0..<9), checkDigit: l[1][9], optional: optional)
            documentNumber = number.number
            optionalData = number.optionalRemainder.trimmingFillers()
            nationality = text(1, 10..<13).trimmingFillers()
            birthDate = text(1, 13..<19)
            sex = text(1, 20..<21)
            expiryDate = text(1, 21..<27)
            check(.documentNumber, number.checkedData, number.checkDigit)
            check(.birthDate, birthDate, l[1][19])
            check(.expiryDate, expiryDate, l[1][27])
            check(.composite, text(1, 0..<10) + text(1, 13..<20) + text(1, 21..<35), l[1][35])
        case .td1:
            (primaryIdentifier, secondaryIdentifier) = MRZ.splitName(text(2, 0..<30))
            let number = MRZ.documentNumber(main: text(0, 5..<14), checkDigit: l[0][14], optional: text(0, 15..<30))
            documentNumber = number.number
            birthDate = text(1, 0..<6)
            sex = text(1, 7..<8)
            expiryDate = text(1, 8..<14)
            nationality = text(1, 15..<18).trimmingFillers()
            let secondOptional = text(1, 18..<29).trimmingFillers()
            optionalData = [number.optionalRemainder.trimmingFillers(), secondOptional]
                .filter { !$0.isEmpty }.joined(separator: "<")
            check(.documentNumber, number.checkedData, number.checkDigit)
            check(.birthDate, birthDate, l[1][6])
            check(.expiryDate, expiryDate, l[1][14])
            check(.composite, text(0, 5..<30) + text(1, 0..<7) + text(1, 8..<15) + text(1, 18..<29), l[1][29])
        }
        self.checks = checks
    }

    /// A TD1/TD2 document number: when the check-digit position holds '<', the number continues
    /// in the optional data and its check digit is the last character before the first filler there.
    static func documentNumber(main: String, checkDigit: Character, optional: String)
        -> (number: String, checkedData: String, checkDigit: Character, optionalRemainder: String)
    {
        guard checkDigit == "<", let end = optional.firstIndex(of: "<"), end > optional.startIndex else {
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
