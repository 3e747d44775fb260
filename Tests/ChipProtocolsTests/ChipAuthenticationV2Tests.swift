@testable import ChipProtocols
import LDS
import Testing

/// Chip authentication version 2's answer (BSI TR-03110-3: 7C { 81 nonce, 82 token }) and what a
/// malformed one gives; the whole exchange runs end to end against the virtual passport
/// (TerminalAuthenticationScans, --quirk eac2).
@Suite struct ChipAuthenticationV2Answer {
    @Test func nonceAndTokenAreTaken() throws {
        let answer = TLV.encode(tag: 0x7C, value: TLV.encode(tag: 0x81, value: [UInt8](repeating: 1, count: 8))
            + TLV.encode(tag: 0x82, value: [UInt8](repeating: 2, count: 8)))
        let (nonce, token) = try ChipAuthenticationV2.nonceAndToken(answer)
        #expect(nonce == [UInt8](repeating: 1, count: 8) && token == [UInt8](repeating: 2, count: 8))
    }

    @Test(arguments: [
        [0x7C, 0x00],                                                   // empty: version 1's answer
        [0x7C, 0x0A, 0x81, 0x08, 1, 2, 3, 4, 5, 6, 7, 8],               // no token
        [0x7C, 0x0E, 0x81, 0x02, 1, 2, 0x82, 0x08, 1, 2, 3, 4, 5, 6, 7, 8] + [0x00], // bytes after DO'7C'
        [0x7C, 0x0A, 0x81, 0x02, 1, 2, 0x82, 0x04, 1, 2, 3, 4],         // a 4-byte token
    ] as [[UInt8]])
    func aMalformedAnswerIsRefused(answer: [UInt8]) {
        #expect(throws: SecurityError.self) { try ChipAuthenticationV2.nonceAndToken(answer) }
    }

    /// The terminal's key pair is made on the curve EF.CardAccess names, before terminal
    /// authentication signs its compressed form (the x coordinate).
    @Test func theEphemeralKeyIsOnTheAnnouncedCurve() throws {
        let info = ChipAuthenticationInfo(protocolOID: "0.4.0.127.0.7.2.2.3.2.2", version: 2, keyID: nil)
        let ca = try ChipAuthenticationV2(info: info, standardizedParameter: 13)   // brainpoolP256r1
        #expect(ca.ephemeralPublicKey.count == 65 && ca.ephemeralPublicKey.first == 0x04)
        #expect(ca.compressedEphemeralKey == Array(ca.ephemeralPublicKey[1...32]))
        let threeDES = ChipAuthenticationInfo(protocolOID: "0.4.0.127.0.7.2.2.3.2.1", version: 2, keyID: nil)
        #expect(throws: SecurityError.self) { try ChipAuthenticationV2(info: threeDES, standardizedParameter: 13) }
    }
}
