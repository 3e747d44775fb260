import FoundationEssentials

/// One LDIF record (RFC 2849): a content record, or a change record of a delta file.
public struct LDIFRecord: Sendable, Equatable {
    public enum ChangeType: String, Sendable {
        case add, modify, delete, modrdn, moddn
    }
    /// One modification of a `changetype: modify` record (`add:`/`replace:`/`delete:` … `-`).
    public struct Modification: Sendable, Equatable {
        public enum Operation: String, Sendable { case add, replace, delete }
        public let operation: Operation
        public let attribute: String
        public let values: [LDIFValue]
    }

    public let dn: String
    /// The line the record starts on (its `dn:` line), 1-based.
    public let line: Int
    /// nil for a content record (full download files).
    public let changeType: ChangeType?
    /// Attributes of a content or `add` record.
    public let attributes: [(name: String, value: LDIFValue)]
    public let modifications: [Modification]

    public static func == (a: LDIFRecord, b: LDIFRecord) -> Bool {
        a.dn == b.dn && a.line == b.line && a.changeType == b.changeType && a.modifications == b.modifications
            && a.attributes.map(\.name) == b.attributes.map(\.name) && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    /// Values of an attribute (name compared case-insensitively, options included: `userCertificate;binary`).
    public func values(_ name: String) -> [LDIFValue] {
        attributes.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// An attribute value and the line it started on, for error messages about its content.
public struct LDIFValue: Sendable, Equatable {
    public let bytes: [UInt8]
    public let line: Int
}

/// Malformed LDIF: the file, the line and what was wrong there.
public struct LDIFError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let reason: String
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }
    public var description: String { "\(file) line \(line): \(reason)" }
}

/// An RFC 2849 reader for ICAO PKD downloads: folded lines, `::` base64 values, comments,
/// `version:`, and change records (add, modify with `-` separators, delete). URL values (`:<`)
/// are refused: a trust import reads nothing but the file it was given.
public enum LDIFParser {
    /// No logical line may exceed this: the largest PKD value (a master list) is a few MB.
    public static let maximumLineLength = 16 << 20

    public static func parse(_ bytes: [UInt8], file: String) throws -> [LDIFRecord] {
        var records: [LDIFRecord] = []
        var block: [(text: [UInt8], line: Int)] = []
        func flush() throws {
            if !block.isEmpty, let record = try record(from: block, file: file) { records.append(record) }
            block.removeAll(keepingCapacity: true)
        }
        for logical in try logicalLines(bytes, file: file) {
            if logical.text.isEmpty { try flush(); continue }
            if logical.text.first == UInt8(ascii: "#") { continue }
            block.append(logical)
        }
        try flush()
        return records
    }

    /// Physical lines joined where a continuation line (one leading space) follows (RFC 2849 note 2).
    static func logicalLines(_ bytes: [UInt8], file: String) throws -> [(text: [UInt8], line: Int)] {
        var result: [(text: [UInt8], line: Int)] = []
        var lineNumber = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            lineNumber += 1
            let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var line = bytes[index..<end]
            if line.last == 0x0D { line = line.dropLast() }
            index = end < bytes.endIndex ? end + 1 : end
            if line.first == 0x20, !result.isEmpty, !result[result.count - 1].text.isEmpty {
                guard result[result.count - 1].text.count + line.count <= maximumLineLength else {
                    throw LDIFError(file: file, line: result[result.count - 1].line,
                                    reason: "a value longer than \(maximumLineLength >> 20) MiB (huge length); refusing it")
                }
                result[result.count - 1].text += line.dropFirst()
            } else if line.first == 0x20 && line.allSatisfy({ $0 == 0x20 }) {
                result.append(([], lineNumber)) // a line of spaces only separates records too
            } else if line.first == 0x20 {
                throw LDIFError(file: file, line: lineNumber, reason: "a continuation line (leading space) with no line to continue")
            } else {
                guard line.count <= maximumLineLength else {
                    throw LDIFError(file: file, line: lineNumber, reason: "a line longer than \(maximumLineLength >> 20) MiB (huge length); refusing it")
                }
                result.append((Array(line), lineNumber))
            }
        }
        return result
    }

    /// One record from its logical lines; nil for the `version: 1` header.
    static func record(from lines: [(text: [UInt8], line: Int)], file: String) throws -> LDIFRecord? {
        var pairs = try lines.map { (try attribute($0.text, line: $0.line, file: file), $0.line) }
        if pairs.first?.0.name.lowercased() == "version" {
            guard String(decoding: pairs[0].0.value.bytes, as: UTF8.self) == "1" else {
                throw LDIFError(file: file, line: pairs[0].1, reason: "unsupported LDIF version (expected 1)")
            }
            pairs.removeFirst()
            if pairs.isEmpty { return nil }
        }
        guard let first = pairs.first, first.0.name.lowercased() == "dn" else {
            throw LDIFError(file: file, line: lines[0].line, reason: "a record must start with dn: (found \"\(pairs.first?.0.name ?? "")\")")
        }
        let dn = String(decoding: first.0.value.bytes, as: UTF8.self)
        var rest = pairs.dropFirst()
        if rest.first?.0.name.lowercased() == "control" { rest = rest.dropFirst() }
        guard let change = rest.first, change.0.name.lowercased() == "changetype" else {
            return LDIFRecord(dn: dn, line: first.1, changeType: nil, attributes: rest.map { ($0.0.name, $0.0.value) }, modifications: [])
        }
        let typeName = String(decoding: change.0.value.bytes, as: UTF8.self).lowercased()
        guard let type = LDIFRecord.ChangeType(rawValue: typeName) else {
            throw LDIFError(file: file, line: change.1, reason: "unknown changetype \"\(typeName)\"")
        }
        let body = Array(rest.dropFirst())
        switch type {
        case .modify:
            return LDIFRecord(dn: dn, line: first.1, changeType: type, attributes: [],
                              modifications: try modifications(body.map { ($0.0, $0.1) }, file: file))
        case .delete:
            guard body.isEmpty else { throw LDIFError(file: file, line: body[0].1, reason: "a delete record has no attributes") }
            return LDIFRecord(dn: dn, line: first.1, changeType: type, attributes: [], modifications: [])
        default:
            return LDIFRecord(dn: dn, line: first.1, changeType: type, attributes: body.map { ($0.0.name, $0.0.value) }, modifications: [])
        }
    }

    /// `add: attr` / `replace: attr` / `delete: attr`, its values, then `-`.
    static func modifications(_ lines: [((name: String, value: LDIFValue), Int)], file: String) throws -> [LDIFRecord.Modification] {
        var result: [LDIFRecord.Modification] = []
        var index = 0
        while index < lines.count {
            let (head, line) = lines[index]
            guard let operation = LDIFRecord.Modification.Operation(rawValue: head.name.lowercased()) else {
                throw LDIFError(file: file, line: line, reason: "expected add:, replace: or delete: in a modify record, found \"\(head.name)\"")
            }
            let attribute = String(decoding: head.value.bytes, as: UTF8.self)
            var values: [LDIFValue] = []
            index += 1
            while index < lines.count, lines[index].0.name != "-" {
                guard lines[index].0.name.lowercased() == attribute.lowercased() else {
                    throw LDIFError(file: file, line: lines[index].1, reason: "a value of \"\(lines[index].0.name)\" inside the \(operation.rawValue): \(attribute) block")
                }
                values.append(lines[index].0.value)
                index += 1
            }
            guard index < lines.count else {
                throw LDIFError(file: file, line: line, reason: "the \(operation.rawValue): \(attribute) block is not closed by \"-\" (truncated entry?)")
            }
            index += 1
            result.append(.init(operation: operation, attribute: attribute, values: values))
        }
        return result
    }

    /// `name: value`, `name:: base64`; a lone `-` (modify separator) comes back as name "-".
    static func attribute(_ text: [UInt8], line: Int, file: String) throws -> (name: String, value: LDIFValue) {
        if text == [UInt8(ascii: "-")] { return ("-", LDIFValue(bytes: [], line: line)) }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
            throw LDIFError(file: file, line: line, reason: "no \":\" separating attribute and value (truncated entry?)")
        }
        let name = String(decoding: text[..<colon], as: UTF8.self)
        guard !name.isEmpty, name.utf8.allSatisfy(isAttributeCharacter) else {
            throw LDIFError(file: file, line: line, reason: "\"\(name.prefix(40))\" is not an attribute name")
        }
        var rest = text[(colon + 1)...]
        switch rest.first {
        case UInt8(ascii: ":"):
            rest = rest.dropFirst().drop { $0 == 0x20 }
            guard let decoded = Data(base64Encoded: Data(rest)) else {
                throw LDIFError(file: file, line: line, reason: "the value of \(name) is not valid base64")
            }
            return (name, LDIFValue(bytes: [UInt8](decoded), line: line))
        case UInt8(ascii: "<"):
            throw LDIFError(file: file, line: line, reason: "URL values (\(name):<) are not read")
        default:
            return (name, LDIFValue(bytes: Array(rest.drop { $0 == 0x20 }), line: line))
        }
    }

    /// AttributeDescription characters: letters, digits, '-', ';' (options) and '.' (OIDs).
    static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: ".")
    }

    /// Writes one attribute line folded at 76 columns, base64 when the value is binary or unsafe.
    public static func line(_ name: String, _ value: [UInt8], forceBase64: Bool = false) -> String {
        let safe = !forceBase64 && value.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && value.first != 0x20
            && value.first != UInt8(ascii: ":") && value.first != UInt8(ascii: "<") && value.last != 0x20
        let text = safe ? "\(name): \(String(decoding: value, as: UTF8.self))" : "\(name):: \(Data(value).base64EncodedString())"
        var folded = ""
        var remaining = Substring(text)
        folded += remaining.prefix(76)
        remaining = remaining.dropFirst(76)
        while !remaining.isEmpty {
            folded += "\n " + remaining.prefix(75)
            remaining = remaining.dropFirst(75)
        }
        return folded + "\n"
    }
}
