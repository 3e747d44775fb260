import FoundationEssentials // Data, URL and Decimal only: the types JSONEncoder writes its own way

// Codable values as the bytes FoundationEssentials' JSONEncoder writes, in 40% of its time
// (`verify --json --recursive` spent a seventh of each dump in it): one encoder object serves every
// nested value (its state saved and restored around each), an object is an array of members sorted
// once when written, and numbers stay numbers until then.

extension JSON {
    /// `value` as the tree `parse` reads back from `encoded(value)`'s text: `[String: Any]`,
    /// `[Any]`, `String`, `Bool`, `Int` or `Double`, and `JSON.null`.
    public static func encode(_ value: some Encodable) throws -> Any { try TreeEncoder.root(value).any }

    /// The bytes FoundationEssentials' JSONEncoder writes for `value` with its default strategies
    /// (Data as base64, URL as its absolute string, Date as its own Double, a non-finite number
    /// refused) and the same formatting: `.sortedKeys`, `.prettyPrinted`, and `.escapingSlashes`
    /// where JSONEncoder is not given `.withoutEscapingSlashes`.
    public static func encoded(_ value: some Encodable, style: Style = [.sortedKeys]) throws -> [UInt8] {
        let node = try TreeEncoder.root(value)
        var writer = Writer(style: style, capacity: 2048)
        writer.write(node, indent: 0)
        return writer.out
    }
}

/// A value being encoded. Objects and arrays are references: a container outlives the call that
/// made it, and a nested value's container is filled after the member that holds it was added.
enum Node {
    case string(String), number(String), int(Int64), uint(UInt64), double(Double), float(Float), bool(Bool), null
    case array(Elements), object(Members)

    var any: Any {
        switch self {
        case .string(let text): return text
        case .int(let number): return Int(number)
        case .bool(let flag): return flag
        case .null: return JSON.null
        case .array(let elements): return elements.items.map(\.any)
        case .object(let members): return Dictionary(members.items.lazy.map { ($0.name, $0.value.any) }, uniquingKeysWith: { $1 })
        default: // as `parse` reads the number's spelling: Int when written as one, else Double
            var writer = Writer(style: [], capacity: 32)
            writer.write(self, indent: 0)
            let text = String(decoding: writer.out, as: UTF8.self)
            return Int(text) ?? Double(text)!
        }
    }
}

// `@exclusivity(unchecked)`: these few properties are touched for every value, and their
// run-time access checks (a thread-local set) cost a tenth of the time; no access overlaps.
final class Elements { @exclusivity(unchecked) var items: [Node] = [] }
/// Members in the order encoded; a name encoded twice is written once, with the later value (as JSONEncoder).
final class Members {
    @exclusivity(unchecked) var items: [(name: String, value: Node)] = []
    init() { items.reserveCapacity(8) } // a report's objects have a few members to a few dozen
}

/// A step of the coding path, kept as plain values (no existential box per step); an index's
/// "Index N" name is spelled only if someone asks for the path.
enum PathKey: CodingKey {
    case name(String, Int?), index(Int)
    init(stringValue: String) { self = .name(stringValue, nil) }
    init(intValue: Int) { self = .index(intValue) }
    var stringValue: String { switch self { case .name(let name, _): name; case .index(let index): "Index \(index)" } }
    var intValue: Int? { switch self { case .name(_, let number): number; case .index(let index): index } }
}

/// The `Encoder` (and single-value container) handed to every `encode(to:)` of one encoding; a
/// superEncoder is another one, which places its value when it is released (as JSONEncoder).
final class TreeEncoder: Encoder, SingleValueEncodingContainer, NodeSink {
    enum Target { case member(Members, String), element(Elements, Int) }
    /// What the `encode(to:)` running now has encoded.
    @exclusivity(unchecked) var value: Node?
    @exclusivity(unchecked) var path: [PathKey]
    let target: Target?
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(path: [PathKey], target: Target? = nil) { self.path = path; self.target = target }

    deinit {
        switch target {
        case .member(let members, let name): members.items.append((name, value ?? .object(Members())))
        case .element(let elements, let index): elements.items.insert(value ?? .object(Members()), at: min(index, elements.items.count))
        case nil: break
        }
    }

    static func root<T: Encodable>(_ value: T) throws -> Node {
        guard let node = try TreeEncoder(path: []).box(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return node
    }

    /// What JSONEncoder writes its own way rather than as the type encodes itself (Date is left
    /// to its own encoding, JSONEncoder's default). A comparison of types, not a cast per value.
    static func special<T: Encodable>(_ value: T) -> Node? {
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return .number((value as! Decimal).description) }
        return nil
    }

    /// A nested value, encoded by this same object between a save and a restore of its state;
    /// nil if it encoded nothing (`{}` below the top, as in JSONEncoder).
    func box<T: Encodable>(_ value: T) throws -> Node? {
        if let special = Self.special(value) { return special }
        let saved = self.value
        self.value = nil
        defer { self.value = saved }
        try value.encode(to: self)
        return self.value
    }

    /// A nested value at `key` below a container `suffix` deeper than this encoder's path.
    func box<T: Encodable>(_ value: T, at key: PathKey, _ suffix: [PathKey]) throws -> Node {
        if !suffix.isEmpty { path.append(contentsOf: suffix) }
        path.append(key)
        defer { if suffix.isEmpty { path.removeLast() } else { path.removeLast(suffix.count + 1) } }
        return try box(value) ?? .object(Members())
    }

    static func number<F: BinaryFloatingPoint>(_ value: F, _ node: Node, at path: @autoclosure () -> [PathKey]) throws -> Node {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
        }
        return node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let members: Members
        switch value {
        case .object(let existing): members = existing // asked again, or after a single value that was an object
        case nil: members = Members(); value = .object(members)
        default: preconditionFailure("a keyed container where a value was encoded already, at \(codingPath)")
        }
        return KeyedEncodingContainer(KeyedContainer(encoder: self, members: members, suffix: []))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let elements: Elements
        switch value {
        case .array(let existing): elements = existing
        case nil: elements = Elements(); value = .array(elements)
        default: preconditionFailure("an unkeyed container where a value was encoded already, at \(codingPath)")
        }
        return UnkeyedContainer(encoder: self, elements: elements, suffix: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// A single value replaces what was encoded before it (as JSONEncoder).
    func add(_ node: Node) { value = node }
    var nextPath: [PathKey] { path }
    // Not in NodeSink: there the standard library's defaults (which throw) would be taken.
    @available(macOS 15, *) func encode(_ v: Int128) { add(.number(String(v))) }
    @available(macOS 15, *) func encode(_ v: UInt128) { add(.number(String(v))) }
    func encode<T: Encodable>(_ v: T) throws { value = try box(v) ?? .object(Members()) }
}

/// The single-value and unkeyed containers' calls, which have the same shape: one `add` each.
protocol NodeSink {
    func add(_ node: Node)
    /// Where the next value goes, for an error.
    var nextPath: [PathKey] { get }
}

extension NodeSink {
    func encodeNil() { add(.null) }
    func encode(_ v: Bool) { add(.bool(v)) }
    func encode(_ v: String) { add(.string(v)) }
    func encode(_ v: Double) throws { add(try TreeEncoder.number(v, .double(v), at: nextPath)) }
    func encode(_ v: Float) throws { add(try TreeEncoder.number(v, .float(v), at: nextPath)) }
    func encode(_ v: Int) { add(.int(Int64(v))) }
    func encode(_ v: Int8) { add(.int(Int64(v))) }
    func encode(_ v: Int16) { add(.int(Int64(v))) }
    func encode(_ v: Int32) { add(.int(Int64(v))) }
    func encode(_ v: Int64) { add(.int(v)) }
    func encode(_ v: UInt) { add(.uint(UInt64(v))) }
    func encode(_ v: UInt8) { add(.uint(UInt64(v))) }
    func encode(_ v: UInt16) { add(.uint(UInt64(v))) }
    func encode(_ v: UInt32) { add(.uint(UInt64(v))) }
    func encode(_ v: UInt64) { add(.uint(v)) }
}

struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TreeEncoder
    let members: Members
    /// The keys from the encoder's path to this container (a nested container's), usually none.
    let suffix: [PathKey]
    var codingPath: [any CodingKey] { encoder.path + suffix }
    func path(_ key: Key) -> [PathKey] { encoder.path + suffix + [.name(key.stringValue, key.intValue)] }

    func put(_ node: Node, _ key: Key) { members.items.append((key.stringValue, node)) }
    func encodeNil(forKey key: Key) { put(.null, key) }
    func encode(_ v: Bool, forKey key: Key) { put(.bool(v), key) }
    func encode(_ v: String, forKey key: Key) { put(.string(v), key) }
    func encode(_ v: Double, forKey key: Key) throws { put(try TreeEncoder.number(v, .double(v), at: path(key)), key) }
    func encode(_ v: Float, forKey key: Key) throws { put(try TreeEncoder.number(v, .float(v), at: path(key)), key) }
    func encode(_ v: Int, forKey key: Key) { put(.int(Int64(v)), key) }
    func encode(_ v: Int8, forKey key: Key) { put(.int(Int64(v)), key) }
    func encode(_ v: Int16, forKey key: Key) { put(.int(Int64(v)), key) }
    func encode(_ v: Int32, forKey key: Key) { put(.int(Int64(v)), key) }
    func encode(_ v: Int64, forKey key: Key) { put(.int(v), key) }
    @available(macOS 15, *) func encode(_ v: Int128, forKey key: Key) { put(.number(String(v)), key) }
    func encode(_ v: UInt, forKey key: Key) { put(.uint(UInt64(v)), key) }
    func encode(_ v: UInt8, forKey key: Key) { put(.uint(UInt64(v)), key) }
    func encode(_ v: UInt16, forKey key: Key) { put(.uint(UInt64(v)), key) }
    func encode(_ v: UInt32, forKey key: Key) { put(.uint(UInt64(v)), key) }
    func encode(_ v: UInt64, forKey key: Key) { put(.uint(v), key) }
    @available(macOS 15, *) func encode(_ v: UInt128, forKey key: Key) { put(.number(String(v)), key) }

    func encode<T: Encodable>(_ v: T, forKey key: Key) throws {
        let name = key.stringValue
        members.items.append((name, try encoder.box(v, at: .name(name, key.intValue), suffix)))
    }

    /// A nested container for a name that already has one continues it (as JSONEncoder).
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let name = key.stringValue
        let nested: Members
        if case .object(let existing)? = members.items.last(where: { $0.name == name })?.value { nested = existing } else {
            nested = Members()
            members.items.append((name, .object(nested)))
        }
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, members: nested, suffix: suffix + [.name(name, key.intValue)]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = key.stringValue
        let nested: Elements
        if case .array(let existing)? = members.items.last(where: { $0.name == name })?.value { nested = existing } else {
            nested = Elements()
            members.items.append((name, .array(nested)))
        }
        return UnkeyedContainer(encoder: encoder, elements: nested, suffix: suffix + [.name(name, key.intValue)])
    }

    func superEncoder() -> any Encoder {
        TreeEncoder(path: encoder.path + suffix + [.name("super", nil)], target: .member(members, "super"))
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(path: path(key), target: .member(members, key.stringValue))
    }
}

struct UnkeyedContainer: UnkeyedEncodingContainer, NodeSink {
    let encoder: TreeEncoder
    let elements: Elements
    let suffix: [PathKey]
    var codingPath: [any CodingKey] { encoder.path + suffix }
    var count: Int { elements.items.count }

    func add(_ node: Node) { elements.items.append(node) }
    var nextPath: [PathKey] { encoder.path + suffix + [.index(count)] }
    @available(macOS 15, *) func encode(_ v: Int128) { add(.number(String(v))) }
    @available(macOS 15, *) func encode(_ v: UInt128) { add(.number(String(v))) }
    func encode<T: Encodable>(_ v: T) throws { add(try encoder.box(v, at: .index(count), suffix)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = Members()
        add(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, members: nested, suffix: suffix + [.index(count - 1)]))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = Elements()
        add(.array(nested))
        return UnkeyedContainer(encoder: encoder, elements: nested, suffix: suffix + [.index(count - 1)])
    }

    func superEncoder() -> any Encoder {
        TreeEncoder(path: encoder.path + suffix + [.index(count)], target: .element(elements, count))
    }
}

extension Writer {
    /// JSONEncoder's layout: as `serialize`'s, except that an empty object or array is written
    /// on three lines when pretty-printed, and names are sorted by UTF-8 (not UTF-16) code units.
    mutating func write(_ node: Node, indent: Int) {
        let pretty = style.contains(.prettyPrinted)
        switch node {
        case .string(let text): writeString(text)
        case .number(let text): append(text)
        case .int(let number): append(String(number))
        case .uint(let number): append(String(number))
        case .double(let number): appendTrimmed(number.description)
        case .float(let number): appendTrimmed(number.description)
        case .bool(let flag): append(flag ? "true" : "false")
        case .null: append("null")
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            if pretty, elements.items.isEmpty { out.append(0x0A) }
            for (position, element) in elements.items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            if pretty, members.items.isEmpty { out.append(0x0A) }
            if style.contains(.sortedKeys) { // stable: a repeated name's values stay in the order encoded
                members.items.sort { Self.precedes($0.name, $1.name) }
            }
            var items = members.items
            if !style.contains(.sortedKeys), Set(items.map(\.name)).count < items.count { // of a repeated name only the last
                var seen = Set<String>()
                items = items.reversed().filter { seen.insert($0.name).inserted }.reversed()
            }
            var first = true
            for position in items.indices {
                if position + 1 < items.count, items[position + 1].name == items[position].name { continue } // sorted: the later value wins
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(indent + 1)
                writeString(items[position].name)
                if pretty { append(" : ") } else { out.append(UInt8(ascii: ":")) }
                write(items[position].value, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// By UTF-8 code units, over the strings' contiguous bytes (faster than their `utf8` views).
    static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { a in b.utf8.withContiguousStorageIfAvailable { b in a.lexicographicallyPrecedes(b) } }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A floating-point number as JSONEncoder spells it: Swift's shortest `description`, less a
    /// trailing ".0" (so 2^53 is 9007199254740992 and -0.0 is -0, where `serialize` differs).
    mutating func appendTrimmed(_ text: String) {
        out.append(contentsOf: text.utf8)
        if out.count >= 2, out[out.count - 2] == UInt8(ascii: "."), out[out.count - 1] == UInt8(ascii: "0") { out.removeLast(2) }
    }
}
