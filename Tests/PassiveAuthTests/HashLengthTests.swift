import LDS
import PassportCrypto
@testable import PassiveAuth
import Testing

/// An EF.SOD whose hash values are shorter than its declared algorithm's output (28-byte values
/// under SHA-256) is malformed, and the failure says so instead of calling the data group altered
/// (issue 48, item 4).
@Suite struct SODHashLength {
    /// 77 { ContentInfo signedData { SignedData { version, {}, LDSSecurityObject, {} } } }: enough
    /// for SecurityObject to parse; nothing here is signed.
    static func sod(sha256Hashes: [Int: [UInt8]]) -> [UInt8] {
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        let entries = sha256Hashes.keys.sorted().flatMap { number in
            TLV.encode(tag: 0x30, value: [0x02, 0x01, UInt8(number)] + TLV.encode(tag: 0x04, value: sha256Hashes[number]!))
        }
        let lso = TLV.encode(tag: 0x30, value: [0x02, 0x01, 0x00] + TLV.encode(tag: 0x30, value: sha256) + TLV.encode(tag: 0x30, value: entries))
        let ldsSecurityObject: [UInt8] = [0x06, 0x06, 0x67, 0x81, 0x08, 0x01, 0x01, 0x01]
        let encapsulated = TLV.encode(tag: 0x30, value: ldsSecurityObject + TLV.encode(tag: 0xA0, value: TLV.encode(tag: 0x04, value: lso)))
        let signedData = TLV.encode(tag: 0x30, value: [0x02, 0x01, 0x03, 0x31, 0x00] + encapsulated + [0x31, 0x00])
        let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        return TLV.encode(tag: 0x77, value: TLV.encode(tag: 0x30, value: signedDataOID + TLV.encode(tag: 0xA0, value: signedData)))
    }

    static let dg1 = TLV.encode(tag: 0x61, value: [UInt8](repeating: 0x3C, count: 91))

    func failures(_ hash: [UInt8]) throws -> [String] {
        let sod = try SecurityObject(bytes: Self.sod(sha256Hashes: [1: hash]))
        var report = PassiveAuthenticationReport()
        PassiveAuthentication.checkHashes(files: [.dataGroup(1): Self.dg1], sod: sod, &report)
        #expect(report.dataGroups.first?.status == .mismatch)
        return report.failures
    }

    @Test func shortHashValuesAreNamedAsSuch() throws {
        let truncated = Array(OpenSSLCrypto.digest(.sha256, Self.dg1).prefix(28))
        let message = try #require(try failures(truncated).first)
        #expect(message.contains("28 bytes") && message.contains("gives 32") && !message.contains("altered"), "\(message)")
    }

    @Test func aWrongValueOfTheRightLengthIsAnAlteredDataGroup() throws {
        var wrong = OpenSSLCrypto.digest(.sha256, Self.dg1)
        wrong[0] ^= 1
        let message = try #require(try failures(wrong).first)
        #expect(message.contains("the data group was altered"), "\(message)")
    }
}
