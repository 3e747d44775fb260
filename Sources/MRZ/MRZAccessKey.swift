/// The three MRZ fields that form the chip's access key (ICAO 9303-11 §4.3.2 "MRZ_information"),
/// used by BAC and by PACE with the MRZ password. Treat as a secret: never log it.
public struct MRZAccessKey: Sendable, Hashable {
    public let documentNumber: String
    public let birthDate: String
    public let expiryDate: String

    /// Builds a key from user input; upper-cases and validates the fields.
    public init(documentNumber: String, birthDate: String, expiryDate: String) {
        self.documentNumber = documentNumber.uppercased().filter { $0 != " " && $0 != "<" }
        self.birthDate = birthDate
        self.expiryDate = expiryDate
    }

    /// Checks the field shapes so a typo gets a clear message before any chip is touched.
    public func validate() throws {
        guard !documentNumber.isEmpty, documentNumber.allSatisfy({ CheckDigit.value(of: $0) != nil }) else {
            throw MRZError.invalidField("The document number must be letters A-Z and digits 0-9.")
        }
        for (name, value) in [("birth date", birthDate), ("expiry date", expiryDate)] {
            // ICAO 9303-3: an unknown year, month or day is two fillers; some states print 00.
            let pairs = value.count == 6 ? (0..<3).map { Array(value)[($0 * 2)..<($0 * 2 + 2)] } : []
            let valid = pairs.count == 3 && zip(pairs, [99, 12, 31]).allSatisfy { pair, limit in
                pair == ["<", "<"] || (pair.allSatisfy(\.isASCIIDigit) && Int(String(pair))! <= limit)
            }
            guard valid else {
                throw MRZError.invalidField("The \(name) must be six digits YYMMDD, e.g. 880412.")
            }
        }
    }

    /// "MRZ_information": document number (filled to 9 characters) + check digit, birth date +
    /// check digit, expiry date + check digit. A longer document number is used whole.
    public var mrzInformation: String {
        var number = documentNumber
        while number.count < 9 { number += "<" }
        // `validate()` rejects characters without a check-digit value; '<' stands in for them here.
        func digit(_ field: String) -> String { CheckDigit.compute(field).map { String($0) } ?? "<" }
        return number + digit(number) + birthDate + digit(birthDate) + expiryDate + digit(expiryDate)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
