import FoundationEssentials

/// A time as the reports spell it, "2024-09-30T10:00:00Z" (ISO 8601, UTC, whole seconds): the
/// same text as Foundation's ISO8601DateFormatter, computed with integer arithmetic. Building
/// that formatter loads ICU's calendar and locale data for every call, which was nearly half of
/// a batch verification's work (issue 47).
public func iso8601(_ date: Date) -> String {
    let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
    let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civilDate(daysSince1970: days)
    guard (0...9999).contains(year) else {
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
            + padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":" + padded(secondOfDay % 60, 2) + "Z"
    }
    // Twenty bytes written in place: a batch verification spells five times per dump.
    return String(unsafeUninitializedCapacity: 20) { text in
        func digits(_ value: Int64, _ width: Int, at offset: Int) {
            var rest = value
            for index in (offset..<offset + width).reversed() {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        digits(year, 4, at: 0)
        digits(month, 2, at: 5)
        digits(day, 2, at: 8)
        digits(secondOfDay / 3600, 2, at: 11)
        digits(secondOfDay / 60 % 60, 2, at: 14)
        digits(secondOfDay % 60, 2, at: 17)
        (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
        (text[13], text[16], text[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
        return 20
    }
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's civil_from_days).
private func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

/// The instant of a UTC date and time; nil when the month is not 1 to 12. A day, hour, minute or
/// second past its range carries into the next unit, as Foundation's lenient Calendar does.
public func utcDate(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
    guard (1...12).contains(month) else { return nil }
    let days = daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
    let seconds = days * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    return Date(timeIntervalSince1970: Double(seconds))
}

/// The day count from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
private func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

private func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// "2026-11-24T12:00:00Z" (or with an offset, ±hh:mm) as a Date; nil when it is not such a time.
/// FoundationEssentials' ISO 8601 style parses without ICU.
public func parseISO8601(_ text: String) -> Date? {
    try? Date.ISO8601FormatStyle().parse(text)
}

/// "2026-11-24" as the start of that day in UTC; nil when it is not such a date.
public func parseISO8601Day(_ text: String) -> Date? {
    try? Date.ISO8601FormatStyle().year().month().day().parse(text)
}
