import Foundation
import JSONCore
import TestSupport
import Testing

/// `JSON.encoded` against FoundationEssentials' JSONEncoder, which wrote every report before:
/// the same bytes for the same options, compared as text so that a failure shows where.
@Suite struct JSONEncodedAgainstJSONEncoder {
    /// Each JSONEncoder formatting we use, next to the JSONCore style that must give its bytes.
    static let styles: [(JSONEncoder.OutputFormatting, JSON.Style)] = [
        ([.sortedKeys], [.sortedKeys, .escapingSlashes]),
        ([.sortedKeys, .withoutEscapingSlashes], [.sortedKeys]),
        ([.prettyPrinted, .sortedKeys], [.prettyPrinted, .sortedKeys, .escapingSlashes]),
        ([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes], [.prettyPrinted, .sortedKeys]),
    ]

    static func expectSameBytes<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (formatting, style) in styles {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
            let actual = String(decoding: try JSON.encoded(value, style: style), as: UTF8.self)
            #expect(actual == expected, "formatting \(formatting.rawValue)", sourceLocation: sourceLocation)
        }
        // The tree is what `parse` reads back from the text.
        let tree = try JSON.serialize(try JSON.encode(value), style: [.sortedKeys])
        let parsed = try JSON.serialize(try JSON.parse(try JSON.encoded(value), fragmentsAllowed: true), style: [.sortedKeys])
        #expect(tree == parsed, sourceLocation: sourceLocation)
    }

    struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// A single value that is null when absent, as PassportKit's `NullEncoded`.
    struct NullBox<Value: Encodable>: Encodable {
        var value: Value?
        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value { try container.encode(value) } else { try container.encodeNil() }
        }
    }

    struct Empty: Encodable {}
    /// Asks for no container: `{}` when nested.
    struct Nothing: Encodable { func encode(to encoder: Encoder) throws {} }
    struct Base: Encodable { var tag: String; var level = 1 }

    /// Every container kind and the ways of reaching one.
    struct Containers: Encodable {
        func encode(to encoder: Encoder) throws {
            var keyed = encoder.container(keyedBy: Key.self)
            try keyed.encode(1, forKey: Key("twice"))
            try keyed.encode("the later value", forKey: Key("twice"))
            try keyed.encodeNil(forKey: Key("nil"))
            try keyed.encodeIfPresent(Int?.none, forKey: Key("absent"))
            try keyed.encodeIfPresent(Int?.some(7), forKey: Key("present"))
            try keyed.encode(Int??.some(nil), forKey: Key("someNil"))
            var inner = keyed.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
            try inner.encode(true, forKey: Key("x"))
            var list = keyed.nestedUnkeyedContainer(forKey: Key("list"))
            try list.encode(1.5)
            try list.encodeNil()
            try list.encode(Int??.some(nil))
            try list.encode(Int??.some(3))
            var deeper = list.nestedContainer(keyedBy: Key.self)
            try deeper.encode("d/e", forKey: Key("y"))
            var deepList = list.nestedUnkeyedContainer()
            try deepList.encode(Int8(-8))
            try deepList.encode(UInt16.max)
            try Base(tag: "list's super").encode(to: list.superEncoder())
            try list.encode("after")
            try Base(tag: "super").encode(to: keyed.superEncoder())
            try Base(tag: "by key").encode(to: keyed.superEncoder(forKey: Key("sup")))
            try Nothing().encode(to: keyed.superEncoder(forKey: Key("emptySuper")))
            var again = keyed.nestedContainer(keyedBy: Key.self, forKey: Key("inner")) // continues "inner"
            try again.encode(false, forKey: Key("y"))
            try again.encode(Float(2.5), forKey: Key("x")) // the later "x" wins
            var single = keyed.superEncoder(forKey: Key("single")).singleValueContainer()
            try single.encode(-0.0)
            try keyed.encode(Nothing(), forKey: Key("nothing"))
            try keyed.encode(Empty(), forKey: Key("empty"))
            try keyed.encode([Empty(), Empty()], forKey: Key("empties"))
        }
    }

    /// A single value that is an object, then a keyed container on the same encoder: one object.
    struct Merged: Encodable {
        func encode(to encoder: Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(["a": 1, "z": 26])
            var keyed = encoder.container(keyedBy: Key.self)
            try keyed.encode(2, forKey: Key("b"))
        }
    }

    struct Everything: Encodable {
        var text = "quote \" backslash \\ slash / https://x.example/a?b=c </script> controls \u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}\u{1F} del \u{7F} separators \u{2028}\u{2029} é € \u{FEFF} \u{E000} \u{FFFF} 😀 👩‍👩‍👧"
        var emptyText = ""
        var flags = [true, false]
        var int = Int.min, int8 = Int8.min, int16 = Int16.min, int32 = Int32.min, int64 = Int64.min
        var maxInt = Int.max, maxInt8 = Int8.max, maxInt16 = Int16.max, maxInt32 = Int32.max, maxInt64 = Int64.max
        var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64.max
        var zero = 0, zeroUnsigned: UInt = 0
        var int8s: [Int8] = [-128, -1, 0, 127], uint64s: [UInt64] = [0, 1, UInt64.max], ints: [Int] = [Int.min, Int.max]
        var doubles: [Double] = [0.1, 1e-7, 1e21, -0.0, 0, 9_007_199_254_740_992, 9_007_199_254_740_994, 1.5, 1e15, 1e16, -1e16,
                                 123_456_789.125, 0.000_1, 0.000_01, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                 .leastNormalMagnitude, 100, -3, 1 / 3, 2.5e-5, 1_700_000_000.123]
        var double = -0.0, whole = 2.0, fraction = 0.1
        var floats: [Float] = [0.1, 1e10, 16_777_216, 16_777_218, -0.0, 3.4e38, 1.5, 1e-7, .leastNonzeroMagnitude, 1 / 3]
        var float: Float = 0.1
        var none: Int? = nil
        var some: Int? = 3
        var optionals: [Int??] = [nil, .some(nil), 5]
        var someNil: Int?? = .some(nil)
        var nullBox = NullBox<String>(value: nil), fullBox = NullBox(value: "x"), nullBoxes = [NullBox<Int>(value: nil)]
        var empty = Empty(), nothing = Nothing(), nothings = [Nothing()]
        var emptyArray: [String] = [], emptyDoubles: [Double] = [], emptyObject: [String: Int] = [:], emptyNested: [[Int]] = [[], []]
        var map: [String: Int] = ["b": 1, "a": 2, "B": 3, "_": 4, "a_": 5, "aB": 6, "é": 7, "\u{E000}": 8, "😀": 9, "": 10, "10": 11,
                                  "2": 12, "a/b": 13, "q\"": 14, "\u{1}": 15]
        var intKeyed: [Int: String] = [1: "a", 10: "b", 2: "c", -1: "d"]
        var data = Data([0, 1, 2, 0xFF, 0xFE, 0xFD, 0x3E]), emptyData = Data(), datas = [Data([1])]
        var url = URL(string: "c/d?e=f#g", relativeTo: URL(string: "https://example.org/a/b/"))!
        var fileURL = URL(fileURLWithPath: "/tmp/a b/é")
        var urls = [URL(string: "https://example.org")!]
        var date = Date(timeIntervalSinceReferenceDate: 123.456), dates = [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSinceReferenceDate: 0)]
        var decimal = Decimal(string: "12.50")!
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var containers = Containers()
        var merged = Merged()
        var deep: [[String: [Base?]]] = [["k": [Base(tag: "t"), nil]], [:]]
    }

    @Test func everyContainerAndValueKind() throws {
        try Self.expectSameBytes(Everything())
        try Self.expectSameBytes(Containers())
        try Self.expectSameBytes([Everything(), Everything()])
    }

    @Test func topLevelValues() throws {
        try Self.expectSameBytes("a/\"b\"")
        try Self.expectSameBytes(1.5)
        try Self.expectSameBytes(-0.0)
        try Self.expectSameBytes(Float(0.1))
        try Self.expectSameBytes(Int8.min)
        try Self.expectSameBytes(UInt64.max)
        try Self.expectSameBytes(true)
        try Self.expectSameBytes(Int?.none)
        try Self.expectSameBytes(NullBox<Int>(value: nil))
        try Self.expectSameBytes(Data([1, 2, 3]))
        try Self.expectSameBytes(URL(string: "https://example.org/a")!)
        try Self.expectSameBytes(Date(timeIntervalSinceReferenceDate: -1.25))
        try Self.expectSameBytes([Int]())
        try Self.expectSameBytes([String: Int]())
        try Self.expectSameBytes(Empty())
        try Self.expectSameBytes(Merged())
    }

    @available(macOS 15, *)
    struct Wide: Encodable {
        var signed = Int128.min, unsigned = UInt128.max, list: [Int128] = [-1, 0], optional: UInt128? = 7
    }

    @Test func integersWiderThan64Bits() throws {
        guard #available(macOS 15, *) else { return }
        try Self.expectSameBytes(Wide())
        try Self.expectSameBytes(Int128.max)
    }

    @Test func aValueThatEncodesNothingAtTheTopIsRefused() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Nothing()) }
        #expect(throws: EncodingError.self) { try JSON.encoded(Nothing()) }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteNumberIsRefused(number: Double) {
        struct Keyed: Encodable { var number: Double }
        struct InArray: Encodable { var numbers: [Float] }
        for value in [Keyed(number: number) as any Encodable, InArray(numbers: [1, Float(number)]), [number], number, Float(number)] {
            #expect(throws: EncodingError.self) { try JSONEncoder().encode(value) }
            #expect(throws: EncodingError.self) { try JSON.encoded(value) }
            #expect(throws: EncodingError.self) { try JSON.encode(value) }
        }
    }

    @Test func theErrorNamesThePath() throws {
        struct Inner: Encodable { var values: [Double] }
        struct Outer: Encodable { var inner: Inner }
        do {
            _ = try JSON.encoded(Outer(inner: Inner(values: [1, .nan])))
            Issue.record("a NaN was written")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["inner", "values", "Index 1"])
        }
    }

    @Test func codingPathIsTheEncodersDuringEncoding() throws {
        struct Probe: Encodable {
            final class Seen: @unchecked Sendable { var paths: [[String]] = [] }
            let seen: Seen
            let depth: Int
            func encode(to encoder: Encoder) throws {
                seen.paths.append(encoder.codingPath.map(\.stringValue))
                var keyed = encoder.container(keyedBy: Key.self)
                guard depth > 0 else { return }
                try keyed.encode(Probe(seen: seen, depth: depth - 1), forKey: Key("k"))
                var list = keyed.nestedUnkeyedContainer(forKey: Key("l"))
                try list.encode(Probe(seen: seen, depth: 0))
                seen.paths.append(list.codingPath.map(\.stringValue))
            }
        }
        // JSONEncoder leaves a nested unkeyed container's key out of its elements' encoders'
        // paths (["k", "Index 0"] for the first below): not copied.
        let seen = Probe.Seen()
        _ = try JSON.encoded(Probe(seen: seen, depth: 2))
        #expect(seen.paths == [[], ["k"], ["k", "k"], ["k", "l", "Index 0"], ["k", "l"], ["l", "Index 0"], ["l"]])
    }

    // MARK: seeded random values

    /// A random Codable value, written through every kind of container call.
    indirect enum Random: Encodable {
        case text(String), flag(Bool), signed(Int64, width: Int), unsigned(UInt64, width: Int), double(Double), float(Float), null
        case maybe(Random?), data(Data), date(Date)
        /// `nested`: members that are lists or objects are written through nested containers.
        case list([Random], nested: Bool), object([(String, Random)], nested: Bool), map([String: Random])

        func encode(to encoder: Encoder) throws {
            switch self {
            case .list(let items, let nested):
                var container = encoder.unkeyedContainer()
                for item in items { try item.add(to: &container, nested: nested) }
            case .object(let members, let nested):
                var container = encoder.container(keyedBy: Key.self)
                for (name, member) in members { try member.add(to: &container, Key(name), nested: nested) }
            case .map(let map):
                var container = encoder.singleValueContainer()
                try container.encode(map)
            case .maybe(let value):
                var container = encoder.singleValueContainer()
                if let value { try container.encode(value) } else { try container.encodeNil() }
            default:
                var container = encoder.singleValueContainer()
                switch self {
                case .text(let text): try container.encode(text)
                case .flag(let flag): try container.encode(flag)
                case .signed(let number, 8): try container.encode(Int8(truncatingIfNeeded: number))
                case .signed(let number, 16): try container.encode(Int16(truncatingIfNeeded: number))
                case .signed(let number, 32): try container.encode(Int32(truncatingIfNeeded: number))
                case .signed(let number, 64): try container.encode(number)
                case .signed(let number, _): try container.encode(Int(number))
                case .unsigned(let number, 8): try container.encode(UInt8(truncatingIfNeeded: number))
                case .unsigned(let number, 16): try container.encode(UInt16(truncatingIfNeeded: number))
                case .unsigned(let number, 32): try container.encode(UInt32(truncatingIfNeeded: number))
                case .unsigned(let number, 64): try container.encode(number)
                case .unsigned(let number, _): try container.encode(UInt(number))
                case .double(let number): try container.encode(number)
                case .float(let number): try container.encode(number)
                case .data(let data): try container.encode(data)
                case .date(let date): try container.encode(date)
                default: try container.encodeNil()
                }
            }
        }

        func add(to container: inout some UnkeyedEncodingContainer, nested: Bool) throws {
            switch self {
            case .text(let text): try container.encode(text)
            case .flag(let flag): try container.encode(flag)
            case .signed(let number, 8): try container.encode(Int8(truncatingIfNeeded: number))
            case .signed(let number, 16): try container.encode(Int16(truncatingIfNeeded: number))
            case .signed(let number, 32): try container.encode(Int32(truncatingIfNeeded: number))
            case .signed(let number, 64): try container.encode(number)
            case .signed(let number, _): try container.encode(Int(number))
            case .unsigned(let number, 8): try container.encode(UInt8(truncatingIfNeeded: number))
            case .unsigned(let number, 16): try container.encode(UInt16(truncatingIfNeeded: number))
            case .unsigned(let number, 32): try container.encode(UInt32(truncatingIfNeeded: number))
            case .unsigned(let number, 64): try container.encode(number)
            case .unsigned(let number, _): try container.encode(UInt(number))
            case .double(let number): try container.encode(number)
            case .float(let number): try container.encode(number)
            case .null: try container.encodeNil()
            case .data(let data): try container.encode(data)
            case .date(let date): try container.encode(date)
            case .list(let items, let inner) where nested:
                var list = container.nestedUnkeyedContainer()
                for item in items { try item.add(to: &list, nested: inner) }
            case .object(let members, let inner) where nested:
                var object = container.nestedContainer(keyedBy: Key.self)
                for (name, member) in members { try member.add(to: &object, Key(name), nested: inner) }
            default: try container.encode(self)
            }
        }

        func add(to container: inout KeyedEncodingContainer<Key>, _ key: Key, nested: Bool) throws {
            switch self {
            case .text(let text): try container.encode(text, forKey: key)
            case .flag(let flag): try container.encode(flag, forKey: key)
            case .signed(let number, 8): try container.encode(Int8(truncatingIfNeeded: number), forKey: key)
            case .signed(let number, 16): try container.encode(Int16(truncatingIfNeeded: number), forKey: key)
            case .signed(let number, 32): try container.encode(Int32(truncatingIfNeeded: number), forKey: key)
            case .signed(let number, 64): try container.encode(number, forKey: key)
            case .signed(let number, _): try container.encode(Int(number), forKey: key)
            case .unsigned(let number, 8): try container.encode(UInt8(truncatingIfNeeded: number), forKey: key)
            case .unsigned(let number, 16): try container.encode(UInt16(truncatingIfNeeded: number), forKey: key)
            case .unsigned(let number, 32): try container.encode(UInt32(truncatingIfNeeded: number), forKey: key)
            case .unsigned(let number, 64): try container.encode(number, forKey: key)
            case .unsigned(let number, _): try container.encode(UInt(number), forKey: key)
            case .double(let number): try container.encode(number, forKey: key)
            case .float(let number): try container.encode(number, forKey: key)
            case .null: try container.encodeNil(forKey: key)
            case .maybe(nil): try container.encodeIfPresent(Random?.none, forKey: key) // absent: no member
            case .list(let items, let inner) where nested:
                var list = container.nestedUnkeyedContainer(forKey: key)
                for item in items { try item.add(to: &list, nested: inner) }
            case .object(let members, let inner) where nested:
                var object = container.nestedContainer(keyedBy: Key.self, forKey: key)
                for (name, member) in members { try member.add(to: &object, Key(name), nested: inner) }
            default: try container.encode(self, forKey: key)
            }
        }

        static let names = ["a", "b", "B", "_", "a_", "aB", "é", "\u{E000}", "😀", "", "10", "2", "a/b", "q\"", "\u{1}", "twice", "ok", "dump"]
        static let pieces = ["a", "Z", "0", " ", "/", "\\", "\"", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "\u{2028}", "\u{E000}",
                             "😀", "https://x.example/a?b=c", "<", "&"]

        static func make(_ rng: inout SplitMix, depth: Int = 0) -> Random {
            func text() -> String { (0..<Int.random(in: 0..<6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() }
            switch Int.random(in: 0..<(depth > 3 ? 9 : 14), using: &rng) {
            case 0: return .text(text())
            case 1: return .flag(Bool.random(using: &rng))
            case 2: return .signed([Int64.min, Int64.max, 0, -1, Int64.random(in: .min ... .max, using: &rng)].randomElement(using: &rng)!,
                                   width: [8, 16, 32, 64, 0].randomElement(using: &rng)!)
            case 3: return .unsigned([UInt64.max, 0, UInt64.random(in: .min ... .max, using: &rng)].randomElement(using: &rng)!,
                                     width: [8, 16, 32, 64, 0].randomElement(using: &rng)!)
            case 4:
                let bits = Double(bitPattern: rng.next())
                return .double([bits.isFinite ? bits : 1, Double.random(in: -1e6...1e6, using: &rng), Double(Int.random(in: -1000...1000, using: &rng)),
                                Double(Int.random(in: -1000...1000, using: &rng)) / 8, 0.1, -0.0, 1e21, 1e-7].randomElement(using: &rng)!)
            case 5:
                let bits = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
                return .float([bits.isFinite ? bits : 1, Float.random(in: -1e6...1e6, using: &rng), 0.1, -0.0].randomElement(using: &rng)!)
            case 6: return .null
            case 7: return .data(Data((0..<Int.random(in: 0..<7, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
            case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000...1_000_000_000, using: &rng)) / 1000))
            case 9: return .maybe(Bool.random(using: &rng) ? nil : make(&rng, depth: depth + 1))
            case 10: return .list((0..<Int.random(in: 0..<5, using: &rng)).map { _ in make(&rng, depth: depth + 1) }, nested: Bool.random(using: &rng))
            case 11:
                var map: [String: Random] = [:]
                for _ in 0..<Int.random(in: 0..<5, using: &rng) { map[names.randomElement(using: &rng)!] = make(&rng, depth: depth + 1) }
                return .map(map)
            default:
                // Names repeat, and the later value must win; not where members are written through
                // nested containers, which continue a name's container (JSONEncoder stops if the
                // name holds another kind of value).
                let nested = Bool.random(using: &rng)
                let count = Int.random(in: 0..<6, using: &rng)
                let chosen = nested ? Array(names.shuffled(using: &rng).prefix(count)) : (0..<count).map { _ in names.randomElement(using: &rng)! }
                return .object(chosen.map { ($0, make(&rng, depth: depth + 1)) }, nested: nested)
            }
        }
    }

    @Test func seededRandomValues() throws {
        var rng = SplitMix(seed: 0x4A53_4F4E)
        for _ in 0..<1500 { try Self.expectSameBytes(Random.make(&rng, depth: 3 - Int.random(in: 0...3, using: &rng))) }
    }
}
