import Foundation
import LDS
import Testing

/// `iso8601` against Foundation's ISO8601DateFormatter, the peer whose text the reports had
/// (issue 47: the formatter loaded ICU on every call): epoch boundaries, leap days, centuries,
/// before 1970, the last second certificates can name, and 2000 instants from a fixed seed, from
/// 1583 on. Before the Gregorian reform Foundation switches to the Julian calendar; ISO 8601 (and
/// `iso8601`) stay proleptic Gregorian there.
@Suite struct ISO8601Time {
    func foundation(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static let chosen: [Double] = [
        0, -1, 1, 59, 86_399, 86_400, -86_400, -86_401, 951_782_400 /* 2000-02-29 */, 4_107_542_399,
        -2_203_891_200 /* 1900-03-01 */, 4_107_456_000 /* 2100-02-28 */, 1_727_690_400.999, -0.5,
        253_402_300_799 /* 9999-12-31T23:59:59 */, -12_212_553_600 /* 1583-01-01 */,
    ]

    @Test(arguments: chosen)
    func chosenInstantsReadAsFoundationWrites(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(iso8601(date) == foundation(date))
    }

    @Test func manyInstantsReadAsFoundationWrites() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double(Int64(bitPattern: state >> 1) % (253_402_300_799 + 12_212_553_600)) - 12_212_553_600
            let date = Date(timeIntervalSince1970: seconds)
            #expect(iso8601(date) == foundation(date), "\(seconds)")
        }
    }

    /// Before 1583: the proleptic Gregorian calendar of ISO 8601 (0001-01-01 is day 1 of it).
    @Test func beforeTheReformTheCalendarIsProlepticGregorian() {
        #expect(iso8601(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(iso8601(Date(timeIntervalSince1970: -12_219_292_800)) == "1582-10-15T00:00:00Z")
        #expect(iso8601(Date(timeIntervalSince1970: -12_219_379_200)) == "1582-10-14T00:00:00Z")
    }

    /// `utcDate` against Foundation's Gregorian calendar in UTC, the peer ASN.1 times were read
    /// with: 2000 seeded dates from 1583 to 9999, days, hours, minutes and seconds past their
    /// range included (the calendar carries them into the next unit, and so must `utcDate`).
    @Test func utcDatesAreFoundationsGregorianDates() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
        for _ in 0..<2000 {
            let (year, month, day) = (next(1583...9999), next(1...12), next(1...31))
            let (hour, minute, second) = (next(0...24), next(0...59), next(0...60))
            let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            #expect(utcDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second) == calendar.date(from: components),
                    "\(year)-\(month)-\(day) \(hour):\(minute):\(second)")
        }
        #expect(utcDate(year: 2024, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(utcDate(year: 2024, month: 0, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(utcDate(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0) == Date(timeIntervalSince1970: 0))
    }
}

/// Object identifiers spelled from their encoding: published encodings (RFC 5280's, ICAO's),
/// the largest arcs that fit 64 bits, and round trips through `encode` from a fixed seed.
@Suite struct ObjectIdentifierSpelling {
    @Test func knownEncodingsAreSpelled() throws {
        #expect(try ObjectIdentifier.dotted([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]) == "1.2.840.113549.1.1.11")
        #expect(try ObjectIdentifier.dotted([0x67, 0x81, 0x08, 0x01, 0x01, 0x01]) == "2.23.136.1.1.1")
        #expect(try ObjectIdentifier.dotted([0x55, 0x1D, 0x0E]) == "2.5.29.14")
        #expect(try ObjectIdentifier.dotted([0x00]) == "0.0")
        #expect(try ObjectIdentifier.dotted([0x27]) == "0.39")
        #expect(try ObjectIdentifier.dotted([0x28]) == "1.0")
        #expect(try ObjectIdentifier.dotted([0x50]) == "2.0")
        let largest: [UInt8] = [0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]   // 2^64 - 1
        #expect(try ObjectIdentifier.dotted(ArraySlice([0x2A] + largest)) == "1.2.18446744073709551615")
        #expect(try ObjectIdentifier.dotted(ArraySlice(largest)) == "2.18446744073709551535")
        #expect(throws: (any Error).self) { try ObjectIdentifier.dotted([0x2A, 0x86]) }
        #expect(throws: (any Error).self) { try ObjectIdentifier.dotted([0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]) }
    }

    /// The table of OIDs spelled once must say what spelling them would: a typo there would
    /// rename an algorithm in every report.
    @Test func wellKnownSpellingsAreTheirEncodingsSpelled() throws {
        #expect(ObjectIdentifier.wellKnown.count >= 40)
        for (packed, dotted) in ObjectIdentifier.wellKnown {
            let content = ArraySlice(ObjectIdentifier.encode(dotted))
            #expect(try ObjectIdentifier.spell(content) == dotted)
            #expect(ObjectIdentifier.Packed(content) == packed)
        }
        // Packed keeps every byte and the length: a prefix or a longer OID is not taken for a
        // known one, and an OID over 16 bytes is spelled.
        let sha256 = ObjectIdentifier.encode("2.16.840.1.101.3.4.2.1")
        #expect(try ObjectIdentifier.dotted(ArraySlice(sha256.dropLast())) == "2.16.840.1.101.3.4.2")
        #expect(try ObjectIdentifier.dotted(ArraySlice(sha256 + [0x00])) == "2.16.840.1.101.3.4.2.1.0")
        #expect(ObjectIdentifier.Packed(ArraySlice(repeating: 0x01, count: 17)) == nil)
        #expect(try ObjectIdentifier.dotted(ArraySlice(repeating: 0x01, count: 17)) == "0." + Array(repeating: "1", count: 17).joined(separator: "."))
    }

    @Test func spellingsRoundTripThroughTheirEncoding() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        for _ in 0..<500 {
            let root = next() % 3
            let second = root < 2 ? next() % 40 : next() % 1_000_000
            let rest = (0..<Int(next() % 8)).map { _ in next() >> (next() % 64) }
            let text = ([root, second] + rest).map(String.init).joined(separator: ".")
            #expect(try ObjectIdentifier.dotted(ArraySlice(ObjectIdentifier.encode(text))) == text)
        }
    }
}
