extension JSON {
    /// How `serialize` spells a value.
    public struct Style: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Object members in the order of their names' UTF-16 code units, as RFC 8785 (JCS) sorts
        /// them. For the names our payloads use (ASCII letters, digits, `_`, `@`, no case pairs
        /// at one level) that is also the order JSONSerialization's locale-aware sort gave.
        public static let sortedKeys = Style(rawValue: 1)
        /// Two-space indentation, one member or element per line, `"name" : value`.
        public static let prettyPrinted = Style(rawValue: 2)
        /// `/` written as `\/` (JSONSerialization's default; HTML-safe). Without it `/` is kept.
        public static let escapingSlashes = Style(rawValue: 4)
    }

    /// A value that `serialize` cannot write: what it is, and where.
    public struct ValueError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// JSON text of `value`, built of `[String: Any]`, `[Any]`, `String`, `Bool`, integers,
    /// finite floating-point numbers and `JSON.null` (any nesting; a scalar at the top level too).
    public static func serialize(_ value: Any, style: Style = [.sortedKeys]) throws(ValueError) -> [UInt8] {
        var writer = Writer(style: style)
        try writer.write(value, indent: 0)
        return writer.out
    }

    /// Whether `serialize` can write `value`.
    public static func isValid(_ value: Any) -> Bool {
        (try? serialize(value, style: [])) != nil
    }
}

/// Also writes `JSON.encoded`'s values (JSONEncoding.swift).
@usableFromInline struct Writer {
    let style: JSON.Style
    var out: [UInt8] = []

    init(style: JSON.Style, capacity: Int = 256) {
        self.style = style
        if capacity > 0 { out.reserveCapacity(capacity) }
    }

    mutating func write(_ value: Any, indent: Int) throws(JSON.ValueError) {
        switch value {
        case let text as String: writeString(text)
        case let flag as Bool where type(of: value) == Bool.self: append(flag ? "true" : "false")
        case is JSON.Null: append("null")
        case let object as [String: Any]: try writeObject(object, indent: indent)
        case let array as [Any]: try writeArray(array, indent: indent)
        case let number as Int: append(String(number))
        case let number as Double: try writeDouble(number)
        case let number as any BinaryInteger: append(String(number))
        case let number as Float: try writeDouble(Double(number))
        case let text as Substring: writeString(String(text))
        default: throw JSON.ValueError(reason: "a \(type(of: value)) cannot be written as JSON")
        }
    }

    mutating func writeObject(_ object: [String: Any], indent: Int) throws(JSON.ValueError) {
        guard !object.isEmpty else { append("{}"); return }
        let names = style.contains(.sortedKeys) ? object.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) } : Array(object.keys)
        out.append(UInt8(ascii: "{"))
        for (position, name) in names.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            newline(indent + 1)
            writeString(name)
            append(style.contains(.prettyPrinted) ? " : " : ":")
            try write(object[name]!, indent: indent + 1)
        }
        newline(indent)
        out.append(UInt8(ascii: "}"))
    }

    mutating func writeArray(_ array: [Any], indent: Int) throws(JSON.ValueError) {
        guard !array.isEmpty else { append("[]"); return }
        out.append(UInt8(ascii: "["))
        for (position, element) in array.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            newline(indent + 1)
            try write(element, indent: indent + 1)
        }
        newline(indent)
        out.append(UInt8(ascii: "]"))
    }

    /// Whole numbers as integers (as JSONSerialization wrote them); others in Swift's shortest
    /// form that reads back to the same Double.
    mutating func writeDouble(_ number: Double) throws(JSON.ValueError) {
        guard number.isFinite else { throw JSON.ValueError(reason: "\(number) is not a JSON number") }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            append(String(Int64(number)))
        } else {
            append(number.description)
        }
    }

    /// Runs of bytes that need no escape are copied whole (most strings are one run).
    mutating func writeString(_ text: String) {
        out.append(UInt8(ascii: "\""))
        let escapes = style.contains(.escapingSlashes) ? Self.escapesWithSlash : Self.escapes
        var text = text
        text.withUTF8 { bytes in
            var run = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                // One table lookup per byte: the test of four conditions was most of a report's writing.
                guard escapes[Int(byte)] else { index += 1; continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                index += 1
                run = index
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case UInt8(ascii: "/"): append("\\/")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    append("\\u00")
                    out.append(Self.hexDigit(byte >> 4))
                    out.append(Self.hexDigit(byte & 0x0F))
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Which bytes a string must escape: control characters, `"` and `\` (and `/` with `.escapingSlashes`).
    static let escapes: [Bool] = (0...255).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    static let escapesWithSlash: [Bool] = (0...255).map { escapes[$0] || $0 == 0x2F }

    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10 }

    mutating func newline(_ indent: Int) {
        guard style.contains(.prettyPrinted) else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    mutating func append(_ text: String) { out.append(contentsOf: text.utf8) }
}
