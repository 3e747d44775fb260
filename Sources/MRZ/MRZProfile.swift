/// What makes an MRZ (as a chip's DG1 stores it) not one ICAO 9303-3/-4/-5/-6 allows: check
/// digits that do not hold, codes and dates that do not fit their field's syntax. The parser itself
/// accepts such text (specimens and worn data pages need reading); a DG1 is held to this.
extension MRZ {
    public var profileProblems: [String] {
        var problems: [String] = []
        for check in checks where !check.isValid {
            let name = check.field.rawValue.replacing("_", with: " ")
            problems.append("the \(name) check digit is \(check.found), not \(check.expected.map(String.init) ?? "computable")")
        }
        let layout = format.layout
        let characters = lines.map { Array($0) }
        func text(_ field: MRZField) -> String { String(characters[field.line][field.range]) }
        let code = text(layout.documentCode)
        if !"PVIAC".contains(code.first ?? "?") {
            problems.append("the document code \(code) is not a known document type (P, V, I, A, C)")
        }
        for (label, value) in [("issuing state", text(layout.issuingState)), ("nationality", text(layout.nationality))] {
            if !value.allSatisfy({ ("A"..."Z").contains($0) || $0 == "<" }) || value.allSatisfy({ $0 == "<" }) {
                problems.append("the \(label) \(value) is not a three-letter code")
            }
        }
        if primaryIdentifier.isEmpty { problems.append("the name is void (no primary identifier)") }
        if !["F", "M", "X", "<"].contains(sex) { problems.append("the sex \(sex) is not F, M, X or <") }
        if let why = MRZ.dateProblem(birthDate, unknownPartsAllowed: true) { problems.append("the birth date \(birthDate) \(why)") }
        if let why = MRZ.dateProblem(expiryDate, unknownPartsAllowed: false) { problems.append("the expiry date \(expiryDate) \(why)") }
        return problems
    }

    /// Nil when `date` (YYMMDD) is a date; '<' may stand for an unknown year, month or day of birth
    /// (ICAO 9303-3 4.6.2), never for part of a known one.
    static func dateProblem(_ date: String, unknownPartsAllowed: Bool) -> String? {
        let parts = stride(from: 0, to: 6, by: 2).map { i -> String in
            let chars = Array(date)
            return chars.count == 6 ? String(chars[i..<(i + 2)]) : ""
        }
        guard date.count == 6 else { return "is not six characters" }
        var numbers: [Int?] = []
        for part in parts {
            if part == "<<" && unknownPartsAllowed { numbers.append(nil); continue }
            guard part.allSatisfy(\.isNumber), let value = Int(part) else { return "is not YYMMDD" }
            numbers.append(value)
        }
        if let month = numbers[1], !(1...12).contains(month) { return "has no month \(month)" }
        if let day = numbers[2] {
            let days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            let limit = numbers[1].map { days[$0 - 1] } ?? 31
            if !(1...limit).contains(day) { return "has no day \(day)" + (numbers[1].map { " in month \($0)" } ?? "") }
        }
        return nil
    }
}
