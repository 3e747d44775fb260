import CardIO
@testable import ChipProtocols
import Foundation
import LDS
@testable import PassportKit
import Testing
import TestSupport

/// Chip behaviours reported from the field (issue trackers of JMRTD, gmrtd, NFCPassportReader),
/// played by a scripted card to the step they concern.
@Suite struct FieldQuirks {
    /// A file reader over a plain channel (no secure messaging: the quirks are in the commands).
    func reader(_ steps: [ScriptedTransport.Step], chunk: Int = 223) -> (ChipFileReader, ScriptedTransport) {
        let card = ScriptedTransport(steps)
        let reader = ChipFileReader(channel: ISO7816Channel(transport: card), maxShortPlaintext: chunk, maxExtendedPlaintext: nil)
        return (reader, card)
    }

    static let selectCOM = hex("00A4020C02011E")
    static let sfiReadCOM: [UInt8] = [0x00, 0xB0, 0x80 | LDSFile.com.shortFID, 0x00]

    func read(_ reader: ChipFileReader, _ file: LDSFile) throws -> ChipFileReader.Outcome {
        try reader.read(file) { _, _ in }
    }

    /// Older applets answer READ BINARY by short file identifier with 6985 ("no current EF") or
    /// 6986: the file is there, and is read after SELECT by file identifier.
    @Test(arguments: ["6985", "6986", "6A82"])
    func refusedShortFileIdentifierFallsBackToSelect(status: String) throws {
        let com = try ReadTestData.fixture("passport/COM.bin")
        let (reader, card) = reader([
            .prefix(Self.sfiReadCOM, hex(status)),
            .init(Self.selectCOM, hex("9000")),
            .prefix(hex("00B00000"), com + hex("9000")),
        ])
        guard case .read(let bytes) = try read(reader, .com) else { Issue.record("COM not read"); return }
        #expect(bytes == com)
        try card.assertComplete()
    }

    /// Only SELECT's 6A82 says a file is absent.
    @Test func absenceIsConcludedFromSelect() throws {
        let (reader, card) = reader([.prefix(Self.sfiReadCOM, hex("6A82")), .init(Self.selectCOM, hex("6A82"))])
        guard case .unavailable(let status) = try read(reader, .com) else { Issue.record("expected unavailable"); return }
        #expect(status == .fileNotFound)
        try card.assertComplete()
    }

    /// EF.SOD stored with an indefinite outer length (`77 80 … 00 00`, reported for US passports)
    /// is read to its end-of-contents octets; padding after them is not part of the file.
    @Test func indefiniteLengthIsReadToTheEndOfContents() throws {
        let inner = TLV.encode(tag: 0x30, value: [UInt8](repeating: 0xAB, count: 10))
        let file: [UInt8] = [0x77, 0x80] + inner + [0x00, 0x00]
        let stored = file + [0xFF, 0xFF, 0xFF]
        let sod: [UInt8] = [0x00, 0xB0, 0x80 | LDSFile.sod.shortFID, 0x00]
        let (reader, card) = reader([
            .prefix(sod, Array(stored[0..<6]) + hex("9000")),
            .prefix(hex("00B00006"), Array(stored[6..<12]) + hex("9000")),
            .prefix(hex("00B0000C"), Array(stored[12..<18]) + hex("9000")),
        ], chunk: 6)
        guard case .read(let bytes) = try read(reader, .sod) else { Issue.record("SOD not read"); return }
        #expect(bytes == file)
        try card.assertComplete()
    }

    /// A chip announcing a DG2 larger than any DG2 may be (a hostile or broken chip) is refused
    /// after the first answer: nothing more is read, and the message gives the bound.
    @Test func anAnnouncedLengthBeyondTheFileLimitIsRefused() throws {
        let announced = FileSizeLimits.limit(for: .dataGroup(2)) + 1
        let header: [UInt8] = [0x75, 0x83, UInt8(announced >> 16), UInt8((announced >> 8) & 0xFF), UInt8(announced & 0xFF)]
        let (reader, card) = reader([
            .prefix([0x00, 0xB0, 0x80 | LDSFile.dataGroup(2).shortFID, 0x00], header + [UInt8](repeating: 0, count: 218) + hex("9000")),
        ])
        #expect(throws: ReadError.tooLarge(file: .dataGroup(2), announced: announced + 5, limit: 1 << 20)) { try read(reader, .dataGroup(2)) }
        try card.assertComplete()
        // At the bound itself the file is read (the first answer holds its start).
        let small = FileSizeLimits.limit(for: .com)
        #expect(throws: Never.self) { try ChipFileReader.requireWithinLimit(.com, small) }
    }

    /// Only 6300 and 6982 on MUTUAL AUTHENTICATE mean a wrong access key; any other status is
    /// named as what it is, not blamed on the MRZ.
    @Test func aMutualAuthenticateFaultIsNotAWrongKey() throws {
        let bench = ReaderBench()
        try bench.chip.expectBAC(ReadTestData.accessKey, refusal: StatusWord(0x6F00))
        #expect(throws: SecurityError.unexpectedStatus(command: "MUTUAL AUTHENTICATE (BAC)", status: StatusWord(0x6F00))) {
            try bench.control().establish(cardAccess: nil)
        }
        bench.complete()
    }

    /// A chip that caps READ BINARY (160 bytes, as NFCPassportReader reads by default): the
    /// sizes chips are known to take are tried once, and the one that worked is kept by the
    /// readers of later sessions.
    @Test func aReadCapIsFoundOnceAndKept() throws {
        let com = try ReadTestData.fixture("passport/COM.bin")
        let dg1 = try ReadTestData.fixture("passport/DG1.bin")
        let learned = LearnedReadSize()
        let card = ScriptedTransport([
            .init(Self.sfiReadCOM + [0xE7], hex("6700")),
            .init(Self.sfiReadCOM + [0xDF], hex("6700")),
            .init(Self.sfiReadCOM + [0xC0], hex("6700")),
            .init(Self.sfiReadCOM + [0xA0], com + hex("9000")),
            .init([0x00, 0xB0, 0x81, 0x00, 0xA0], dg1 + hex("9000")),
        ])
        let channel = ISO7816Channel(transport: card)
        let first = ChipFileReader(channel: channel, maxShortPlaintext: 231, maxExtendedPlaintext: nil, learned: learned)
        guard case .read(let bytes) = try read(first, .com) else { Issue.record("COM not read"); return }
        #expect(bytes == com && learned.chunk == 0xA0)
        let later = ChipFileReader(channel: channel, maxShortPlaintext: 231, maxExtendedPlaintext: nil, learned: learned)
        guard case .read(let dg1Read) = try read(later, .dataGroup(1)) else { Issue.record("DG1 not read"); return }
        #expect(dg1Read == dg1)
        try card.assertComplete()
    }

    /// Some chips answer INTERNAL AUTHENTICATE with success and no data for an Le they dislike;
    /// asked again with Le 00 they sign. An empty answer is never taken as a (failed) signature.
    @Test func anEmptyActiveAuthenticationAnswerIsAskedAgainWithLe00() throws {
        let dg15 = try DataGroup15(bytes: try ReadTestData.fixture("passport/DG15.bin"))
        let aa = try ActiveAuthentication(dg15: dg15, dg14: nil, random: { [UInt8](repeating: 0x42, count: $0) })
        let header: [UInt8] = [0x00, 0x88, 0x00, 0x00, 0x08] + [UInt8](repeating: 0x42, count: 8)
        let signature = [UInt8](repeating: 0x5A, count: aa.expectedResponseLength)
        let card = ScriptedTransport([
            .init(header + [UInt8(aa.expectedResponseLength & 0xFF)], hex("9000")),
            .init(header + [0x00], signature + hex("9000")),
        ])
        #expect(try aa.exchange(over: ISO7816Channel(transport: card)).signature == signature)
        try card.assertComplete()
        let silent = ScriptedTransport([
            .init(header + [UInt8(aa.expectedResponseLength & 0xFF)], hex("9000")),
            .init(header + [0x00], hex("9000")),
        ])
        #expect(throws: SecurityError.unexpectedStatus(command: "INTERNAL AUTHENTICATE (it answered without a signature)", status: .success)) {
            try aa.exchange(over: ISO7816Channel(transport: silent))
        }
    }

    /// EF.CardAccess on a chip that refuses short EF identifiers: selected by its identifier
    /// (011C), so that PACE is still found; only SELECT's answer says it is absent.
    @Test func cardAccessIsSelectedWhenShortIdentifiersAreRefused() throws {
        let cardAccess = TLV.encode(tag: 0x31, value: TLV.encode(tag: 0x30, value: [0x06, 0x01, 0x00]))
        let card = ScriptedTransport([
            .init(hex("00B09C0000"), hex("6985")),
            .init(hex("00A4000C023F00"), hex("9000")),
            .init(hex("00B09C0000"), hex("6985")),
            .init(hex("00A4020C02011C"), hex("9000")),
            .init(hex("00B0000000"), cardAccess + hex("9000")),
        ])
        let control = AccessControl(channel: ISO7816Channel(transport: card), access: AccessCredentials(mrz: ReadTestData.accessKey),
                                    events: { _ in })
        #expect(try control.readCardAccess() == cardAccess)
        try card.assertComplete()
        let absent = ScriptedTransport([
            .init(hex("00B09C0000"), hex("6985")),
            .init(hex("00A4000C023F00"), hex("9000")),
            .init(hex("00B09C0000"), hex("6985")),
            .init(hex("00A4020C02011C"), hex("6A82")),
        ])
        let none = AccessControl(channel: ISO7816Channel(transport: absent), access: AccessCredentials(mrz: ReadTestData.accessKey),
                                 events: { _ in })
        #expect(try none.readCardAccess() == nil)
        try absent.assertComplete()
    }

    /// EF.COM listing a tag no data group has: ignored, the data groups it lists are kept.
    @Test func comWithAnUnknownTagKeepsTheKnownOnes() throws {
        let com = TLV.encode(tag: 0x60, value: TLV.encode(tag: 0x5F01, value: Array("0107".utf8))
            + TLV.encode(tag: 0x5C, value: [0x61, 0x75, 0x99, 0x70]))
        #expect(try EFCOM(bytes: com).dataGroups == [.dataGroup(1), .dataGroup(2), .dataGroup(16)])
    }

    @Test func aRefusalWith6982IsAWrongKey() throws {
        let bench = ReaderBench()
        try bench.chip.expectBAC(ReadTestData.accessKey, refusal: .securityStatusNotSatisfied)
        #expect(throws: ScanError.accessDenied(status: .securityStatusNotSatisfied)) { try bench.control().establish(cardAccess: nil) }
        bench.complete()
    }
}
