import TextSupport
/// A BER-TLV data object (ISO 7816-4 / X.690) as found in LDS files and secure-messaging
/// responses. `value` is a slice of the parsed buffer, so nested parsing copies nothing.
public struct TLV: Sendable, Equatable {
    /// The tag bytes read as one big-endian number (e.g. 0x5F1F, 0x7F61).
    public let tag: UInt32
    /// The bytes of the whole object, header included.
    public let encoded: ArraySlice<UInt8>
    /// Where the value lies in `encoded`'s buffer: the value is not a second slice, so that a
    /// copy of a TLV (parsing an EF.SOD makes hundreds) retains one buffer reference, not two.
    private let valueBounds: Range<Int>

    public var value: ArraySlice<UInt8> { encoded[valueBounds] }

    init(tag: UInt32, value: ArraySlice<UInt8>, encoded: ArraySlice<UInt8>) {
        self.tag = tag
        self.encoded = encoded
        self.valueBounds = value.indices
    }

    public static func == (lhs: TLV, rhs: TLV) -> Bool {
        lhs.tag == rhs.tag && lhs.encoded == rhs.encoded && lhs.value == rhs.value
    }

    public var isConstructed: Bool {
        var first = tag
        while first > 0xFF { first >>= 8 }
        return first & 0x20 != 0
    }

    /// The objects inside a constructed value.
    public func children() throws -> [TLV] { try TLV.parseAll(value) }

    /// The objects inside, read one at a time: `children()` without its array, for the loops
    /// that every dump of a batch runs (an EF.SOD's hashes, a SignerInfo's attributes).
    public func childReader() -> ChildReader { ChildReader(reader: TLVReader(value)) }

    public struct ChildReader {
        var reader: TLVReader

        /// The next child, or nil after the last (padding skipped as `parseAll` does).
        public mutating func next() throws -> TLV? {
            reader.skipPadding() ? try reader.next() : nil
        }

        /// How many children are left, each parsed (and so checked) as `children()` would.
        public mutating func remaining() throws -> Int {
            var count = 0
            while try next() != nil { count += 1 }
            return count
        }
    }

    /// The first child with `tag`, if any (every child parsed, as `children()` would).
    public func child(_ tag: UInt32) throws -> TLV? {
        var reader = childReader()
        var found: TLV?
        while let child = try reader.next() {
            if found == nil && child.tag == tag { found = child }
        }
        return found
    }

    /// Parses exactly one object at the start of `bytes`; `bytes` may hold more after it.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws -> TLV {
        var reader = TLVReader(bytes)
        return try reader.next()
    }

    public static func parse(_ bytes: [UInt8]) throws -> TLV { try parse(bytes[...]) }

    /// Parses a run of consecutive objects that must fill `bytes` exactly (0x00/0xFF padding
    /// between objects is skipped, as ISO 7816-4 allows).
    public static func parseAll(_ bytes: ArraySlice<UInt8>) throws -> [TLV] {
        var reader = TLVReader(bytes)
        var result: [TLV] = []
        // Room for the usual few children at once: growing from one element by doubling was a
        // visible share of parsing a SOD and its certificates.
        if bytes.count > 2 { result.reserveCapacity(min(8, bytes.count / 2)) }
        while reader.skipPadding() { result.append(try reader.next()) }
        return result
    }

    /// How many bytes the object at the start of `bytes` occupies in total, once its header is
    /// complete (the first 2-6 bytes); nil while the header is still incomplete.
    public static func totalLength(ofObjectStartingWith bytes: ArraySlice<UInt8>) throws -> Int? {
        var reader = TLVReader(bytes)
        do {
            let (_, headerLength, valueLength) = try reader.header()
            guard let valueLength else { throw TLVError.indefiniteLength(offset: 0) }
            return headerLength + valueLength
        } catch TLVError.truncated {
            return nil
        }
    }

    /// The total length of the object at the start of `bytes` as soon as it can be known: from
    /// the header for a definite length, at its end-of-contents octets for an indefinite one (BER,
    /// as some chips store EF.SOD: `77 80 … 00 00`); nil until then.
    public static func knownLength(ofObjectStartingWith bytes: ArraySlice<UInt8>) throws -> Int? {
        do { return try totalLength(ofObjectStartingWith: bytes) } catch TLVError.indefiniteLength(offset: 0) {
            do { return try parse(bytes).encoded.count } catch TLVError.truncated { return nil }
        }
    }

    /// Encodes a tag and value (definite length, shortest form).
    public static func encode(tag: UInt32, value: some Collection<UInt8>) -> [UInt8] {
        var out = tagBytes(tag)
        out += encodeLength(value.count)
        out += value
        return out
    }

    public static func tagBytes(_ tag: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        var t = tag
        repeat { bytes.insert(UInt8(t & 0xFF), at: 0); t >>= 8 } while t > 0
        return bytes
    }

    public static func encodeLength(_ length: Int) -> [UInt8] {
        precondition(length >= 0)
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var l = length
        while l > 0 { bytes.insert(UInt8(l & 0xFF), at: 0); l >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}

/// A malformed BER-TLV encoding; offsets count from the start of the buffer being parsed.
public enum TLVError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(offset: Int)
    case tagTooLong(offset: Int)
    case lengthTooLong(offset: Int)
    case indefiniteLength(offset: Int)
    case unexpectedTag(expected: UInt32, found: UInt32)
    case missing(String)
    /// A present but invalid field, described with where it is and what was found.
    case malformed(String)

    public var description: String {
        switch self {
        case .truncated(let o): return "Malformed TLV data: truncated at byte \(o)."
        case .tagTooLong(let o): return "Malformed TLV data: tag longer than 4 bytes at byte \(o)."
        case .lengthTooLong(let o): return "Malformed TLV data: length field too long at byte \(o)."
        case .indefiniteLength(let o): return "Malformed TLV data: indefinite length at byte \(o) where a definite one is required."
        case .unexpectedTag(let e, let f):
            return "Malformed TLV data: expected tag \(hexTag(e)), found \(hexTag(f))."
        case .missing(let what): return "Malformed data: \(what) is missing."
        case .malformed(let what): return "Malformed data: \(what)."
        }
    }
}

func hexTag(_ tag: UInt32) -> String {
    TLV.tagBytes(tag).map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Sequential reader over BER-TLV bytes. Bounds are checked before every access.
struct TLVReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    private var offset: Int { position - bytes.startIndex }

    /// Skips 00/FF filler bytes; returns false at the end of the buffer.
    mutating func skipPadding() -> Bool {
        while position < bytes.endIndex, bytes[position] == 0x00 || bytes[position] == 0xFF {
            position += 1
        }
        return position < bytes.endIndex
    }

    private mutating func byte() throws -> UInt8 {
        guard position < bytes.endIndex else { throw TLVError.truncated(offset: offset) }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads tag and length; a nil length means indefinite (BER, constructed only).
    mutating func header() throws -> (tag: UInt32, headerLength: Int, valueLength: Int?) {
        let start = position
        let first = try byte()
        var tag = UInt32(first)
        if first & 0x1F == 0x1F {
            var count = 0
            while true {
                let b = try byte()
                count += 1
                guard count <= 3 else { throw TLVError.tagTooLong(offset: start - bytes.startIndex) }
                tag = tag << 8 | UInt32(b)
                if b & 0x80 == 0 { break }
            }
        }
        let lengthOffset = offset
        let l = try byte()
        var length: Int?
        if l < 0x80 {
            length = Int(l)
        } else if l == 0x80 {
            guard first & 0x20 != 0 else { throw TLVError.indefiniteLength(offset: lengthOffset) }
            length = nil
        } else {
            let n = Int(l & 0x7F)
            guard n <= 4 else { throw TLVError.lengthTooLong(offset: lengthOffset) }
            var value = 0
            for _ in 0..<n { value = value << 8 | Int(try byte()) }
            length = value
        }
        return (tag, position - start, length)
    }

    /// Nesting limit for indefinite-length objects, so hostile input cannot exhaust the stack.
    static let maximumDepth = 64
    private var depth = 0

    mutating func next() throws -> TLV {
        let start = position
        let (tag, _, length) = try header()
        let valueStart = position
        let valueEnd: Int
        let end: Int
        if let length {
            guard length <= bytes.endIndex - position else { throw TLVError.truncated(offset: offset) }
            valueEnd = position + length
            end = valueEnd
        } else {
            // Indefinite length: children up to the end-of-contents octets 00 00.
            depth += 1
            defer { depth -= 1 }
            guard depth <= TLVReader.maximumDepth else { throw TLVError.lengthTooLong(offset: offset) }
            while true {
                guard position + 1 < bytes.endIndex else { throw TLVError.truncated(offset: offset) }
                if bytes[position] == 0 && bytes[position + 1] == 0 { break }
                _ = try next()
            }
            valueEnd = position
            end = position + 2
        }
        position = end
        return TLV(tag: tag, value: bytes[valueStart..<valueEnd], encoded: bytes[start..<end])
    }
}
