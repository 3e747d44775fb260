/// Compact JSON written straight to bytes by a type that knows its members, for the one report a
/// batch writes thousands of times (`verify --json` over many dumps): going through `Encodable`
/// builds a tree of every value first and was a tenth of each dump's cost. The type writes its
/// members in sorted order itself; its tests compare the bytes with its `Encodable` bytes (those of
/// `JSON.encoded(_:style: [.sortedKeys])`, JSONEncoder's), which is what keeps the two in step.
public protocol JSONLineWritable {
    func write(to line: inout JSONLine)
}

/// The bytes of one compact JSON value (no spaces, `/` not escaped): `JSON.encoded`'s with
/// `.sortedKeys` for the same members in the same order.
public struct JSONLine {
    @usableFromInline var writer: Writer

    public init() {
        writer = Writer(style: [.sortedKeys], capacity: 2048)
    }

    /// What has been written so far.
    public var output: [UInt8] { writer.out }

    /// `value` written alone.
    @inlinable
    public static func bytes(of value: some JSONLineWritable) -> [UInt8] {
        var line = JSONLine()
        value.write(to: &line)
        return line.output
    }

    /// `value` written after `output` (a batch's lines so far), with no copy of either.
    @inlinable
    public static func append(_ value: some JSONLineWritable, to output: inout [UInt8]) {
        var line = JSONLine(continuing: output)
        output = []
        value.write(to: &line)
        output = line.output
    }

    @usableFromInline init(continuing output: [UInt8]) {
        writer = Writer(style: [.sortedKeys], capacity: 0)
        writer.out = output
    }

    /// An object: `members` writes each with `member`, names in sorted order.
    @inlinable
    public mutating func object(_ members: (inout JSONLine) -> Void) {
        raw(UInt8(ascii: "{"))
        members(&self)
        raw(UInt8(ascii: "}"))
    }

    /// `name` is a literal of the code: plain ASCII that needs no escape.
    @inlinable
    public mutating func member(_ name: StaticString, _ value: some JSONLineWritable) {
        writeName(name)
        value.write(to: &self)
    }

    /// `"name":`, after a comma unless it is the first member. Copied as it is, not looked at
    /// byte by byte for escapes: a line has dozens of names, and they are the code's own.
    @usableFromInline mutating func writeName(_ name: StaticString) {
        assert(name.withUTF8Buffer { !$0.contains { Writer.escapes[Int($0)] || $0 >= 0x80 } }, "a member name needs no escape")
        separate(after: UInt8(ascii: "{"))
        writer.out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { writer.out.append(contentsOf: $0) }
        writer.out.append(UInt8(ascii: "\""))
        writer.out.append(UInt8(ascii: ":"))
    }

    @inlinable
    public mutating func array<Elements: Sequence>(_ elements: Elements) where Elements.Element: JSONLineWritable {
        raw(UInt8(ascii: "["))
        for element in elements {
            separate(after: UInt8(ascii: "["))
            element.write(to: &self)
        }
        raw(UInt8(ascii: "]"))
    }

    @usableFromInline mutating func raw(_ byte: UInt8) { writer.out.append(byte) }

    /// Bytes a JSONLine wrote before (a value written once and kept), appended as they are.
    public mutating func raw(_ written: [UInt8]) { writer.out.append(contentsOf: written) }

    public mutating func string(_ text: String) { writer.writeString(text) }
    public mutating func int(_ number: Int) { writer.append(String(number)) }
    public mutating func bool(_ flag: Bool) { writer.append(flag ? "true" : "false") }
    public mutating func null() { writer.append("null") }

    /// A comma unless this is the first member or element (the byte before is the opening one).
    @usableFromInline mutating func separate(after opening: UInt8) {
        if writer.out.last != opening { writer.out.append(UInt8(ascii: ",")) }
    }
}

extension String: JSONLineWritable {
    public func write(to line: inout JSONLine) { line.string(self) }
}

extension Int: JSONLineWritable {
    public func write(to line: inout JSONLine) { line.int(self) }
}

extension Bool: JSONLineWritable {
    public func write(to line: inout JSONLine) { line.bool(self) }
}

extension Optional: JSONLineWritable where Wrapped: JSONLineWritable {
    /// `null` when absent, as JSONEncoder writes a `NullEncoded` value.
    public func write(to line: inout JSONLine) {
        if let self { self.write(to: &line) } else { line.null() }
    }
}

extension Array: JSONLineWritable where Element: JSONLineWritable {
    public func write(to line: inout JSONLine) { line.array(self) }
}

extension JSONLineWritable where Self: RawRepresentable, RawValue == String {
    public func write(to line: inout JSONLine) { line.string(rawValue) }
}
