/// String and number spelling that FoundationEssentials lacks (its NSString-based helpers and
/// `String(format:)` live in the Foundation that brings ICU along): trimming, padding, fixed
/// decimals, hexadecimal and percent-encoding, over the standard library only.

extension StringProtocol {
    /// Without leading and trailing white space and newlines.
    public func trimmed() -> String { trimmed(where: \.isWhitespace) }

    /// Without the leading and trailing characters that `isTrimmed` picks.
    public func trimmed(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }

    /// Padded with `pad` on the right to `width` characters, or cut to it (a table column).
    public func padded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? String(prefix(width)) : String(self) + String(repeating: pad, count: width - count)
    }

    /// Right-aligned in `width` characters (a figure in a column); longer text is kept whole.
    public func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? String(self) : String(repeating: pad, count: width - count) + self
    }
}

extension BinaryFloatingPoint {
    /// `decimals` digits after the point, rounded half away from zero ("%.2f" for figures
    /// people read: times, ratios, percentages).
    public func fixed(_ decimals: Int) -> String {
        let value = Double(self)
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<max(decimals, 0) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return value.description }
        let units = UInt64(scaled)
        let whole = String(units / UInt64(scale))
        let sign = value < 0 && units > 0 ? "-" : ""
        guard decimals > 0 else { return sign + whole }
        let fraction = String(units % UInt64(scale)).leftPadded(to: decimals, with: "0")
        return sign + whole + "." + fraction
    }
}

extension BinaryInteger {
    /// Hexadecimal with at least `digits` digits ("%02X" is `hex(2)`).
    public func hex(_ digits: Int, uppercase: Bool = true) -> String {
        String(self, radix: 16, uppercase: uppercase).leftPadded(to: digits, with: "0")
    }

    /// Decimal with at least `digits` digits, zero-filled ("%04d" is `zeroPadded(4)`).
    public func zeroPadded(_ digits: Int) -> String {
        self < 0 ? "-" + String(0 - self).leftPadded(to: digits - 1, with: "0") : String(self).leftPadded(to: digits, with: "0")
    }
}

/// Percent-encoding (RFC 3986) over UTF-8 bytes.
public enum PercentEncoding {
    /// `component` with each `%XX` as its byte (and `+` as a space when `plusIsSpace`, as in
    /// form bodies and query strings); nil when a `%` is not followed by two hex digits or the
    /// bytes are not UTF-8.
    public static func decode<S: StringProtocol>(_ component: S, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count)
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `text` with every byte but ASCII letters, digits and `-._~` (RFC 3986's unreserved set)
    /// written as `%XX`.
    public static func encodeUnreserved(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + byte.hex(2)
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
