import CardIO
@testable import ChipProtocols
@testable import LDS
import MRZ
import Testing
import TestSupport

/// ICAO 9303-11 Appendix G.1: PACE generic mapping, ECDH on brainpoolP256r1, AES-128, MRZ
/// password, every APDU byte for byte with the terminal's published private keys.
@Suite struct ICAOAppendixG1 {
    static let vector = TestPaths.icaoVectors()?["pace_G1_gm_ecdh_brainpoolP256r1_aes128"]
    static let apdus = TestPaths.icaoAPDUs("pace_G1_gm_ecdh_brainpoolP256r1_aes128")

    @Test(.enabled(if: vector != nil && apdus != nil, "reference vectors absent"))
    func genericMappingECDHBrainpoolP256r1() throws {
        let v = try #require(Self.vector)
        let exchange = try #require(Self.apdus)
        let infos = try SecurityInfos(bytes: hex(v["card_access_security_infos"]!))
        let info = try #require(infos.paceInfos.first)
        let key = MRZAccessKey(documentNumber: v["document_number"]!, birthDate: v["date_of_birth"]!, expiryDate: v["date_of_expiry"]!)
        let pace = try PACE(info: info, password: .mrz(key),
                            fixedPrivateKeys: [hex(v["terminal_mapping_private_key"]!), hex(v["terminal_ephemeral_private_key"]!)])
        let chip = RecordingChannel(responses: exchange.map { hex($0.response) })
        let outcome = Result { try pace.perform(over: chip) }
        for (index, (sent, expected)) in zip(chip.sent, exchange).enumerated() where hex(sent) != expected.command.uppercased() {
            Issue.record("APDU \(index + 1): sent \(hex(sent)), expected \(expected.command.uppercased())")
        }
        let result = try outcome.get()
        #expect(chip.sent.count == exchange.count)
        for (index, (sent, expected)) in zip(chip.sent, exchange).enumerated() {
            #expect(hex(sent) == expected.command.uppercased(), "APDU \(index + 1)")
        }
        #expect(hex(result.keys.encryptionKeyForTesting) == v["ks_enc"]!.uppercased())
        #expect(hex(result.keys.macKeyForTesting) == v["ks_mac"]!.uppercased())
        #expect(result.keys.suite == .aes)
        #expect(result.ssc == [UInt8](repeating: 0, count: 16))
        #expect(result.description == "PACE ECDH-GM brainpoolP256r1 AES-128 (MRZ)")
    }

    @Test(.enabled(if: vector != nil && apdus != nil, "reference vectors absent"))
    func wrongPasswordIsRefusedByTheChip() throws {
        let v = try #require(Self.vector)
        let exchange = try #require(Self.apdus)
        let info = try #require(try SecurityInfos(bytes: hex(v["card_access_security_infos"]!)).paceInfos.first)
        // The chip's answers stay the same, but our nonce decryption (wrong CAN) and token differ:
        // the chip would answer 63C2 to our token.
        let pace = try PACE(info: info, password: .can("123456"),
                            fixedPrivateKeys: [hex(v["terminal_mapping_private_key"]!), hex(v["terminal_ephemeral_private_key"]!)])
        var responses = exchange.map { hex($0.response) }
        responses[4] = hex("63C2")
        #expect(throws: SecurityError.accessDenied(status: StatusWord(0x63C2))) {
            try pace.perform(over: RecordingChannel(responses: responses))
        }
    }

    @Test(.enabled(if: vector != nil && apdus != nil, "reference vectors absent"))
    func forgedChipTokenIsRejected() throws {
        let v = try #require(Self.vector)
        let exchange = try #require(Self.apdus)
        let info = try #require(try SecurityInfos(bytes: hex(v["card_access_security_infos"]!)).paceInfos.first)
        let key = MRZAccessKey(documentNumber: v["document_number"]!, birthDate: v["date_of_birth"]!, expiryDate: v["date_of_expiry"]!)
        let pace = try PACE(info: info, password: .mrz(key),
                            fixedPrivateKeys: [hex(v["terminal_mapping_private_key"]!), hex(v["terminal_ephemeral_private_key"]!)])
        var responses = exchange.map { hex($0.response) }
        responses[4][5] ^= 0x01
        #expect(throws: SecurityError.self) { try pace.perform(over: RecordingChannel(responses: responses)) }
    }
}

/// The chip's token over a DH key with a leading zero octet (one key in 256): OpenPACE MACs it in
/// its minimal encoding, a chip may also MAC it as sent (padded to the size of p); both verify,
/// nothing else does. Seen as "the chip's PACE token does not verify" in TR-03105 ISO7816_G_02.
@Suite struct PACEDiffieHellmanTokens {
    @Test func aKeyWithALeadingZeroVerifiesInEitherEncodingOnly() throws {
        let key = MRZAccessKey(documentNumber: "C01X00T47", birthDate: "880412", expiryDate: "340930")
        let info = PACEInfo(protocolOID: "0.4.0.127.0.7.2.2.4.1.2", version: 2, parameterID: 0)  // DH-GM-AES-128
        let pace = try PACE(info: info, password: .mrz(key))
        let keys = SessionKeys(suite: .aes, encryptionKey: [UInt8](repeating: 1, count: 16), macKey: Array(0..<16))
        let oid = ObjectIdentifier.encode(info.protocolOID)
        let ours = [0x00] + (1...127).map { UInt8($0) }
        let minimal = Array(ours.dropFirst())
        let overMinimal = try pace.token(keys, oid: oid, publicKey: minimal, dh: true)
        let overPadded = try pace.token(keys, oid: oid, publicKey: ours, dh: true)
        #expect(overMinimal != overPadded)
        #expect(try pace.chipTokenVerifies(overMinimal, keys: keys, oid: oid, ourKey: ours, dh: true))
        #expect(try pace.chipTokenVerifies(overPadded, keys: keys, oid: oid, ourKey: ours, dh: true))
        var forged = overMinimal
        forged[0] ^= 1
        #expect(try !pace.chipTokenVerifies(forged, keys: keys, oid: oid, ourKey: ours, dh: true))
        // An EC point is fixed-size: no second encoding.
        let overShortPoint = try pace.token(keys, oid: oid, publicKey: minimal, dh: false)
        #expect(try !pace.chipTokenVerifies(overShortPoint, keys: keys, oid: oid, ourKey: ours, dh: false))
    }
}

/// ICAO 9303-11 Appendix H: integrated mapping's pseudo-random function and mapping, with the
/// worked examples' nonces (H.1: ECDH brainpoolP256r1; H.2: DH 1024/160).
@Suite struct ICAOAppendixH {
    @Test func h1PseudoRandomAndPointEncoding() throws {
        let s = hex("2923BE84 E16CD6AE 529049F1 F1BBE9EB"), t = hex("5DD4CBFC 96F5453B 130D890A 1CDBAE32")
        let group = try PACEGroup(standardizedParameter: 13)
        let r = try PACE.pseudoRandom(s: s, t: t, primeBits: group.primeBits)
        #expect(hex(r) == "E4447E2DFB3586BAC05DDB00156B57FBB2179A3949294C97254189800C517BAA8DA0FF397ED8C445D3E421E4FEB57322")
        let generator = try group.mapIntegrated(pseudoRandom: r)
        #expect(hex(generator) == "04" + "8E82D31559ED0FDE92A4D0498ADD3C23BABA94FB77691E31E90AEA77FB17D427"
                + "4C1AE14BD0C3DBAC0C871B7F3608169364437CA30AC243A089D3F266C1E60FAD")
    }

    @Test func h2DHMapping() throws {
        let s = hex("FA5B7E3E 49753A0D B9178B7B 9BD898C8"), t = hex("B3A6DB3C 870C3E99 245E0D1C 06B747DE")
        let group = try PACEGroup(standardizedParameter: 0)
        let generator = try group.mapIntegrated(pseudoRandom: try PACE.pseudoRandom(s: s, t: t, primeBits: group.primeBits))
        #expect(generator.count == 128)
        #expect(hex(generator.prefix(8)) == "1D7D767F11E333BC")
        #expect(hex(generator.suffix(8)) == "EC25D4E0BBAA16C2")
    }
}

/// The largest protected read a response can carry, for a reader that brings whole short
/// answers and for libnfc's ACR122 drivers (248 bytes of data per answer).
@Suite struct ProtectedReadSizes {
    @Test func readSizesFollowTheReadersLimit() {
        let des = SessionKeys(suite: .tripleDES, encryptionKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16))
        let aes = SessionKeys(suite: .aes, encryptionKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16))
        #expect(des.maxShortResponsePlaintext == 231 && aes.maxShortResponsePlaintext == 223)
        // 3DES: 223 bytes pad to 224; DO'87' 228 + DO'99' 4 + DO'8E' 10 = 242 ≤ 248; 231 would need 250.
        #expect(des.maxShortResponsePlaintext(responseData: 248) == 223)
        #expect(aes.maxShortResponsePlaintext(responseData: 248) == 223)
        #expect(des.maxShortResponsePlaintext(responseData: 1000) == 231)
    }
}
