/// JSON text (RFC 8259) as Swift values, without Foundation: objects become `[String: Any]`,
/// arrays `[Any]`, strings `String`, `true`/`false` `Bool`, numbers `Int` when written without
/// fraction or exponent and within Int's range (otherwise `Double`), and `null` `JSON.null`.
/// Foundation's JSONSerialization is not in FoundationEssentials (it would bring ICU along).
public enum JSON {
    /// `null` in a parsed or to-be-written value.
    public struct Null: Hashable, Sendable, CustomStringConvertible {
        public var description: String { "null" }
    }
    public static let null = Null()

    /// Text that is not JSON: where, and what was seen.
    public struct SyntaxError: Error, CustomStringConvertible, Equatable {
        public let offset: Int
        public let reason: String
        public var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    /// Parses `bytes` (UTF-8). A bare scalar at the top level only with `fragmentsAllowed`;
    /// objects and arrays nested deeper than `maxDepth` are refused before they are built;
    /// a member name that appears twice in one object is refused (RFC 7515 lets a JWS parser
    /// refuse it, and taking either value would let two readers see two different tokens).
    public static func parse(_ bytes: some Collection<UInt8>, fragmentsAllowed: Bool = false, maxDepth: Int = 512) throws(SyntaxError) -> Any {
        var parser = Parser(bytes: Array(bytes), maxDepth: maxDepth)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 } // a UTF-8 byte order mark (RFC 8259 §8.1 lets a parser ignore it)
        parser.skipWhitespace()
        if !fragmentsAllowed, let first = parser.peek, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            throw parser.error("a JSON object or array was expected")
        }
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.atEnd else { throw parser.error("text after the JSON value") }
        return value
    }

    // Typed reads of a parsed value by its exact type. A plain `as? Int` is not enough: in a
    // process that also links Foundation (the tests), a Bool casts to Int through NSNumber.

    /// A number of a parsed value as a Double (Int or Double; never a Bool).
    public static func double(_ value: Any?) -> Double? {
        guard let value else { return nil }
        if type(of: value) == Int.self { return Double(value as! Int) }
        return type(of: value) == Double.self ? value as? Double : nil
    }

    /// An integer of a parsed value (written without fraction or exponent); never a Bool.
    public static func int(_ value: Any?) -> Int? {
        guard let value, type(of: value) == Int.self else { return nil }
        return value as? Int
    }

    /// `true` or `false` of a parsed value; never a number.
    public static func bool(_ value: Any?) -> Bool? {
        guard let value, type(of: value) == Bool.self else { return nil }
        return value as? Bool
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func error(_ reason: String) -> JSON.SyntaxError { JSON.SyntaxError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func value(depth: Int) throws(JSON.SyntaxError) -> Any {
        guard let byte = peek else { throw error("the text ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        case UInt8(ascii: "n"): try literal("null"); return JSON.null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character \(Self.describe(byte))")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSON.SyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw error("unexpected word (\(word) was expected)")
        }
        index += expected.count
    }

    mutating func object(depth: Int) throws(JSON.SyntaxError) -> [String: Any] {
        guard depth <= maxDepth else { throw error("objects and arrays nest deeper than \(maxDepth) levels") }
        index += 1
        var members: [String: Any] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") { index += 1; return members }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("a member name in quotes was expected") }
            let nameOffset = index
            let name = try string()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("':' was expected after a member name") }
            index += 1
            skipWhitespace()
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: name) == nil else {
                throw JSON.SyntaxError(offset: nameOffset, reason: "the member name \"\(name)\" appears twice in one object")
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return members
            default: throw error("',' or '}' was expected in an object")
            }
        }
    }

    mutating func array(depth: Int) throws(JSON.SyntaxError) -> [Any] {
        guard depth <= maxDepth else { throw error("objects and arrays nest deeper than \(maxDepth) levels") }
        index += 1
        var elements: [Any] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { index += 1; return elements }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return elements
            default: throw error("',' or ']' was expected in an array")
            }
        }
    }

    mutating func string() throws(JSON.SyntaxError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek else { throw error("the text ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &utf8)
            case 0..<0x20:
                throw error("a control character \(Self.describe(byte)) inside a string must be escaped")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    mutating func escape(into utf8: inout [UInt8]) throws(JSON.SyntaxError) {
        guard let byte = peek else { throw error("the text ends inside an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a high surrogate \\u\(String(scalar, radix: 16)) without its low surrogate")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error("a high surrogate followed by \\u\(String(low, radix: 16))") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("a low surrogate \\u\(String(scalar, radix: 16)) without its high surrogate")
            }
            utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw error("unknown escape \\\(Self.describe(byte))")
        }
    }

    mutating func hex4() throws(JSON.SyntaxError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("the text ends inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("\(Self.describe(byte)) in a \\u escape is not a hexadecimal digit")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    mutating func number() throws(JSON.SyntaxError) -> Any {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw error("a digit was expected in a number") }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek, isDigit(next) { throw error("a number with a leading zero") }
        skipDigits()
        var integral = true
        if peek == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let next = peek, isDigit(next) else { throw error("a digit was expected after the decimal point") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            integral = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let next = peek, isDigit(next) else { throw error("a digit was expected in an exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let whole = Int(text) { return whole }
        guard let value = Double(text), value.isFinite else {
            throw JSON.SyntaxError(offset: start, reason: "the number \(text.prefix(40)) is out of range")
        }
        return value
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func skipDigits() {
        while let byte = peek, isDigit(byte) { index += 1 }
    }

    static func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
