import CardIO
import ChipProtocols
import PassiveAuth
import PassportCrypto
import MRZ
import Testing
import TestSupport

/// ICAO 9303-11 Appendix D, reproduced byte for byte from the published vectors
/// (`../shared/reference/vectors/icao9303-part11.json`; skipped when that folder is absent).
@Suite struct ICAOAppendixD {
    static let vectors = TestPaths.icaoVectors()

    func section(_ name: String) throws -> [String: String] {
        try #require(Self.vectors?[name])
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func d2KeyDerivationFromMRZ() throws {
        let v = try section("bac_D2_key_derivation")
        let key = MRZAccessKey(documentNumber: "L898902C", birthDate: v["date_of_birth"]!, expiryDate: v["date_of_expiry"]!)
        #expect(key.mrzInformation == v["mrz_information"])
        let keys = BAC.DocumentKeys(accessKey: key)
        #expect(hex(keys.seed.bytesForTesting) == v["k_seed"]!.uppercased())
        #expect(hex(keys.encryption.bytesForTesting) == v["k_enc_parity_adjusted"]!.uppercased())
        #expect(hex(keys.mac.bytesForTesting) == v["k_mac_parity_adjusted"]!.uppercased())
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func d3MutualAuthentication() throws {
        let d2 = try section("bac_D2_key_derivation")
        let v = try section("bac_D3_mutual_authentication")
        let bac = BAC(documentKeys: BAC.DocumentKeys(mrzInformation: d2["mrz_information"]!))
        let data = try bac.externalAuthenticationData(rndICC: hex(v["rnd_icc"]!), rndIFD: hex(v["rnd_ifd"]!), kIFD: hex(v["k_ifd"]!))
        #expect(hex(data) == v["external_authenticate_data_eifd_mifd"]!.uppercased())

        let session = try bac.session(fromChipResponse: hex(v["chip_response_eicc_micc"]!),
                                      rndICC: hex(v["rnd_icc"]!), rndIFD: hex(v["rnd_ifd"]!), kIFD: hex(v["k_ifd"]!))
        #expect(hex(session.ssc) == v["ssc"]!.uppercased())
        #expect(hex(session.keys.encryptionKeyForTesting) == v["ks_enc"]!.uppercased())
        #expect(hex(session.keys.macKeyForTesting) == v["ks_mac"]!.uppercased())
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func d3RejectsTamperedChipAnswer() throws {
        let d2 = try section("bac_D2_key_derivation")
        let v = try section("bac_D3_mutual_authentication")
        let bac = BAC(documentKeys: BAC.DocumentKeys(mrzInformation: d2["mrz_information"]!))
        var answer = hex(v["chip_response_eicc_micc"]!)
        answer[5] ^= 0x01
        #expect(throws: SecurityError.self) {
            try bac.session(fromChipResponse: answer, rndICC: hex(v["rnd_icc"]!), rndIFD: hex(v["rnd_ifd"]!), kIFD: hex(v["k_ifd"]!))
        }
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func d4SelectEFCOMUnderSecureMessaging() throws {
        let v = try section("sm_D4_select_ef_com_3des")
        let keys = SessionKeys(suite: .tripleDES, encryptionKey: hex(v["ks_enc"]!), macKey: hex(v["ks_mac"]!))
        let recorder = RecordingChannel(responses: [hex(v["protected_response"]!)])
        let sm = SecureMessagingChannel(over: recorder, keys: keys, ssc: hex(v["ssc_before"]!))
        let response = try sm.transmit(CommandAPDU(encoded: hex(v["plain_command"]!)))
        #expect(hex(recorder.sent[0]) == v["protected_command"]!.uppercased())
        #expect(response.status == .success)
        #expect(response.data.isEmpty)
        // One increment for the command, one for the response.
        #expect(hex(sm.ssc) == "887022120C06C228")
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func d4RejectsResponseWithBadMAC() throws {
        let v = try section("sm_D4_select_ef_com_3des")
        let keys = SessionKeys(suite: .tripleDES, encryptionKey: hex(v["ks_enc"]!), macKey: hex(v["ks_mac"]!))
        var response = hex(v["protected_response"]!)
        response[8] ^= 0x80
        let sm = SecureMessagingChannel(over: RecordingChannel(responses: [response]), keys: keys, ssc: hex(v["ssc_before"]!))
        #expect(throws: SecurityError.badMAC) { try sm.transmit(CommandAPDU(encoded: hex(v["plain_command"]!))) }
    }

    @Test(.enabled(if: vectors != nil, "reference vectors absent"))
    func aesSecureMessagingWrap() throws {
        let v = try section("sm_aes_example")
        let keys = SessionKeys(suite: .aes, encryptionKey: hex(v["ks_enc"]!), macKey: hex(v["ks_mac"]!))
        let sm = SecureMessagingChannel(over: RecordingChannel(responses: []), keys: keys, ssc: hex(v["ssc_before"]!))
        let wrapped = try sm.wrap(CommandAPDU(encoded: hex(v["plain_command"]!)))
        #expect(hex(wrapped.encoded()) == v["protected_command"]!.uppercased())
    }
}

/// A channel double that records what it is sent and plays back canned responses
/// (a stand-in for the card at the unit-test boundary).
final class RecordingChannel: CardChannel {
    var sent: [[UInt8]] = []
    var responses: [[UInt8]]
    var supportsExtendedLength: Bool { false }
    init(responses: [[UInt8]]) { self.responses = responses }
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU {
        sent.append(command.encoded())
        return try ResponseAPDU(encoded: responses.removeFirst())
    }
}

/// Key material kept apart from Swift arrays (SecretBytes) and wiped temporaries.
@Suite struct SecretKeyMaterial {
    @Test func secretBytesKeepTheirValueAndConsumingWipesTheSource() {
        var source: [UInt8] = Array(1...24)
        let secret = SecretBytes(consuming: &source)
        #expect(secret.count == 24)
        #expect(secret.bytesForTesting == Array(1...24))
        #expect(source == [UInt8](repeating: 0, count: 24), "the array handed over is wiped")
        var temporary: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        temporary.wipe()
        #expect(temporary == [0, 0, 0, 0])
        #expect(SecretBytes([]).count == 0)
    }
}

/// A protected response's data objects are read back to back: filler between them (which the
/// MAC would not cover) and a truncated object are refused before the MAC is checked.
@Suite struct SecureMessagingResponseObjects {
    static let keys = SessionKeys(suite: .tripleDES, encryptionKey: [UInt8](repeating: 1, count: 16),
                                  macKey: [UInt8](repeating: 2, count: 16))
    static let status: [UInt8] = [0x99, 0x02, 0x90, 0x00]
    static let mac: [UInt8] = [0x8E, 0x08] + [UInt8](repeating: 0, count: 8)

    func unwrap(_ data: [UInt8]) throws -> ResponseAPDU {
        let sm = SecureMessagingChannel(over: RecordingChannel(responses: []), keys: Self.keys, ssc: [UInt8](repeating: 0, count: 8))
        return try sm.unwrap(ResponseAPDU(data: data, status: .success))
    }

    @Test func fillerAndTruncationAreMalformed() {
        for data in [Self.status + [0x00] + Self.mac, Self.status + Array(Self.mac.dropLast()), Self.status + [0x8E]] {
            let error = #expect(throws: SecurityError.self) { try unwrap(data) }
            guard case .malformedSecureMessaging = error else { Issue.record("\(String(describing: error)) for \(data)"); continue }
        }
    }

    @Test func wellFormedObjectsReachTheMACCheck() {
        #expect(throws: SecurityError.badMAC) { try unwrap(Self.status + Self.mac) }
    }
}
