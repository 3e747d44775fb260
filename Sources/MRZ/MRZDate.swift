import FoundationEssentials

/// Two-digit-year MRZ dates (YYMMDD) and their century.
public enum MRZDate {
    public enum Kind: Sendable { case birth, expiry }

    /// The four-digit year for a YYMMDD date: birth dates are never in the future, expiry dates
    /// lie at most 50 years ahead (passports are valid for 10 years at most; ID cards vary).
    public static func fullYear(_ yymmdd: String, kind: Kind, now: Date = Date()) -> Int? {
        guard yymmdd.count == 6, let yy = Int(yymmdd.prefix(2)) else { return nil }
        let current = Calendar(identifier: .gregorian).component(.year, from: now)
        let century = current / 100 * 100
        var year = century + yy
        switch kind {
        case .birth: if year > current { year -= 100 }
        case .expiry: if year > current + 50 { year -= 100 } else if year < current - 50 { year += 100 }
        }
        return year
    }

    /// YYYY-MM-DD, or the input unchanged when it is not a valid date (e.g. with fillers).
    public static func isoDate(_ yymmdd: String, kind: Kind, now: Date = Date()) -> String {
        guard let year = fullYear(yymmdd, kind: kind, now: now),
              yymmdd.allSatisfy(\.isNumber) else { return yymmdd }
        let month = yymmdd.dropFirst(2).prefix(2)
        let day = yymmdd.suffix(2)
        return "\(year)-\(month)-\(day)"
    }
}
