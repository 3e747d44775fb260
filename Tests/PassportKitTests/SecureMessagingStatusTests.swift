import CardIO
import LDS
@testable import ChipProtocols
@testable import PassportKit
import Testing

/// TR-03105 Part 5.1 ISO7816_B_07: a protected response whose MAC is right but which lacks the
/// processing status DO'99' is refused; its outer status word is covered by nothing.
@Suite struct SecureMessagingProcessingStatus {
    final class NoCard: CardChannel {
        var supportsExtendedLength: Bool { false }
        func transmit(_ command: CommandAPDU) throws -> ResponseAPDU { throw CardIOError.cardRemoved }
    }

    static let keys = SessionKeys(suite: .tripleDES, encryptionKey: [UInt8](repeating: 1, count: 16),
                                  macKey: [UInt8](repeating: 2, count: 16))
    static let ssc: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]     // unwrap counts the response first

    func unwrap(_ objects: [UInt8]) throws -> ResponseAPDU {
        let mac = try Self.keys.mac(padISO9797(Self.ssc + objects, blockSize: 8))
        let sm = SecureMessagingChannel(over: NoCard(), keys: Self.keys, ssc: [UInt8](repeating: 0, count: 8))
        return try sm.unwrap(ResponseAPDU(data: objects + [0x8E, 0x08] + mac, status: .success))
    }

    func cryptogram() throws -> [UInt8] {
        let encrypted = try Self.keys.encrypt(padISO9797([0x61, 0x00], blockSize: 8), ssc: Self.ssc)
        return [0x87, UInt8(encrypted.count + 1), 0x01] + encrypted
    }

    @Test func withoutDO99IsMalformed() throws {
        let error = #expect(throws: SecurityError.self) { try unwrap(try cryptogram()) }
        guard case .malformedSecureMessaging(let why) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(why.contains("DO'99'"))
    }

    @Test func withDO99IsOpened() throws {
        let response = try unwrap(try cryptogram() + [0x99, 0x02, 0x90, 0x00])
        #expect(response.data == [0x61, 0x00])
        #expect(response.status == .success)
    }
}

/// TR-03105 Part 5.1 ISO7816_B_06 (a protected answer without its cryptogram): the empty first
/// answer is reported without a made-up expected length.
@Suite struct EmptyFirstAnswerMessage {
    @Test func unknownLengthIsNotPrinted() {
        let text = ReadError.shortFile(file: .dataGroup(1), expected: Int.max, got: 0).description
        #expect(!text.contains(String(Int.max)))
        #expect(text.contains("DG1"))
        #expect(ReadError.shortFile(file: .dataGroup(1), expected: 93, got: 10).description.contains("10 of 93"))
    }
}
