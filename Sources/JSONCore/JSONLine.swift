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
    @usableFromInline var writer = Writer(style: [.sortedKeys], capacity: 2048)

    public init() {}

    @usableFromInline var output: [UInt8] { writer.out }

    /// `value` written alone.
    @inlinable
    public static func bytes(of value: some JSONLineWritable) -> [UInt8] {
        var line = JSONLine()
        value.write(to: &line)
        return line.output
    }

    /// An object: `members` writes each with `member`, names in sorted order.
    @inlinable
    public mutating func object(_ members: (inout JSONLine) -> Void) {
        raw(UInt8(ascii: "{"))
        members(&self)
        raw(UInt8(ascii: "}"))
    }

    @inlinable
    public mutating func member(_ name: String, _ value: some JSONLineWritable) {
        writeName(name)
        value.write(to: &self)
    }

    /// `"name":`, after a comma unless it is the first member.
    @usableFromInline mutating func writeName(_ name: String) {
        separate(after: UInt8(ascii: "{"))
        writer.writeString(name)
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
