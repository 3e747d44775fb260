import CardIO
import LDS
import PassportCrypto
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

/// TR-03105 Part 5.1 ISO7816_F_09: an ActiveAuthenticationInfo naming a signature algorithm that
/// is no ECDSA one fails Active Authentication; without a named algorithm the hashes are tried.
@Suite struct ActiveAuthenticationSignatureOID {
    /// P-256, private key 12345 (any point on the curve does: no signature is checked).
    static let spki: [UInt8] = hexBytes("3059301306072a8648ce3d020106082a8648ce3d0301070342000426efcebd0ee9e34a669187e18b3a9122b2f733945b649cc9f9f921e9f9dad81290238bde9cc7bb330d150c67704dd25ae7055205744b6f31bf4070745872d0e6")

    static func hexBytes(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            out.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test func unknownSignatureAlgorithmIsRefused() throws {
        let signature = ActiveAuthenticationSignature(key: try PublicKey(subjectPublicKeyInfo: Self.spki),
                                                      ecdsaAlgorithmOID: "1.2.840.10045.4.3.99")
        let error = #expect(throws: CryptoError.self) {
            try signature.verify(signature: [UInt8](repeating: 1, count: 64), challenge: [UInt8](repeating: 2, count: 8))
        }
        guard case .invalidSignature(let why) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(why.contains("1.2.840.10045.4.3.99"))
    }

    @Test func withoutNamedAlgorithmAWrongSignatureIsInvalid() throws {
        let signature = ActiveAuthenticationSignature(key: try PublicKey(subjectPublicKeyInfo: Self.spki), ecdsaAlgorithmOID: nil)
        let error = #expect(throws: CryptoError.self) {
            try signature.verify(signature: [UInt8](repeating: 1, count: 64), challenge: [UInt8](repeating: 2, count: 8))
        }
        guard case .invalidSignature = error else { Issue.record("\(String(describing: error))"); return }
    }
}
