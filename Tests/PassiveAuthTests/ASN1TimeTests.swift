import Foundation
@testable import PassiveAuth
import Testing

/// ASN.1 times as certificates and signing times carry them (RFC 5280 §4.1.2.5): UTCTime's
/// century rule, GeneralizedTime with and without seconds and fraction, and what is refused.
@Suite struct ASN1TimeReading {
    func utc(_ text: String) -> Date? { ASN1Time.parse(tag: 0x17, ArraySlice(text.utf8)) }
    func generalized(_ text: String) -> Date? { ASN1Time.parse(tag: 0x18, ArraySlice(text.utf8)) }
    func at(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    @Test func timesAreRead() {
        #expect(utc("240930100000Z") == at("2024-09-30T10:00:00Z"))
        #expect(utc("2409301000Z") == at("2024-09-30T10:00:00Z"))
        #expect(utc("491231235959Z") == at("2049-12-31T23:59:59Z"))
        #expect(utc("500101000000Z") == at("1950-01-01T00:00:00Z"))
        #expect(generalized("20240229120000Z") == at("2024-02-29T12:00:00Z"))
        #expect(generalized("205001010000Z") == at("2050-01-01T00:00:00Z"))
        #expect(generalized("20240930100000.123Z") == at("2024-09-30T10:00:00Z"))
        #expect(generalized("99991231235959Z") == at("9999-12-31T23:59:59Z"))
    }

    @Test func otherTextIsRefused() {
        for text in ["240930100000", "240930100000+0200", "24093010000Z", "2409301000000Z", "2409a0100000Z", "241330100000Z",
                     "", "Z", "+40930100000Z", "٢٠٢٤٠٩٣٠١٠٠٠٠٠Z"] {
            #expect(utc(text) == nil, "\(text)")
        }
        for text in ["2024093010Z", "202409301000000Z", "20241301000000Z", "2024-09-30T10:00:00Z"] {
            #expect(generalized(text) == nil, "\(text)")
        }
    }
}
