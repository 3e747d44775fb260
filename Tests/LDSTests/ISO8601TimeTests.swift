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
}
