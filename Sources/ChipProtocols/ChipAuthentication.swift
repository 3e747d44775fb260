import PassportCrypto
import CardIO
import LDS

/// Chip Authentication (ICAO 9303-11 §6.2, BSI TR-03110): ephemeral-static key agreement with
/// the chip's key from DG14. Only the genuine chip knows the private key, so only it can
/// continue secure messaging under the keys derived from the shared secret.
public struct ChipAuthentication {
    public let info: ChipAuthenticationInfo
    public let publicKeyInfo: ChipAuthenticationPublicKeyInfo
    let chipKey: PublicKey

    /// Picks the CA protocol and the matching public key (same key id, same DH/ECDH kind).
    public init(dg14: SecurityInfos) throws {
        // ICAO 9303-11 §9.2.5: a DG14 with a key but no ChipAuthenticationInfo means 3DES, version 1.
        let implied = dg14.chipAuthenticationPublicKeys.first.map {
            ChipAuthenticationInfo(protocolOID: $0.isDH ? "0.4.0.127.0.7.2.2.3.1.1" : "0.4.0.127.0.7.2.2.3.2.1", version: 1, keyID: $0.keyID)
        }
        // ChipAuthenticationInfo's version is 1 (ICAO 9303-11 §9.2.5), 2 or 3 in BSI TR-03110's later
        // versions; anything else is a DG14 this reader must not guess at.
        if let odd = dg14.chipAuthenticationInfos.first(where: { !(1...3).contains($0.version) }) {
            throw SecurityError.chipAuthenticationFailed("DG14's ChipAuthenticationInfo (\(odd.protocolOID)) has version \(odd.version), which no standard defines")
        }
        // BSI TR-03110 (EAC, which a DG14 announcing terminal authentication follows) makes the
        // ChipAuthenticationInfo mandatory: such a DG14 without one is not guessed at either.
        let announcesTerminalAuthentication = dg14.infos.contains { if case .terminalAuthentication = $0 { return true } else { return false } }
        if announcesTerminalAuthentication, dg14.chipAuthenticationInfos.isEmpty, !dg14.chipAuthenticationPublicKeys.isEmpty {
            throw SecurityError.chipAuthenticationFailed("DG14 announces terminal authentication but has no ChipAuthenticationInfo, which BSI TR-03110 requires")
        }
        guard let info = dg14.chipAuthenticationInfos.first(where: { $0.cipher != nil }) ?? implied else {
            throw SecurityError.unsupported("Chip Authentication with the protocols DG14 offers")
        }
        guard let keyInfo = dg14.chipAuthenticationPublicKeys.first(where: { $0.isDH == info.isDH && (info.keyID == nil || $0.keyID == info.keyID) })
                ?? dg14.chipAuthenticationPublicKeys.first(where: { $0.isDH == info.isDH }) else {
            throw SecurityError.chipAuthenticationFailed("DG14 has no Chip Authentication public key for \(info.protocolOID)")
        }
        self.info = info
        self.publicKeyInfo = keyInfo
        self.chipKey = try PublicKey(subjectPublicKeyInfo: keyInfo.subjectPublicKeyInfo)
    }

    /// Runs CA over the current secure channel and returns the new secure channel (its keys
    /// derived from the shared secret, SSC zero) and the terminal's ephemeral public key (terminal
    /// authentication signs its compressed form). `channel` is the SM channel the commands go
    /// through; `raw` the plain channel the new session wraps.
    public func perform(over channel: CardChannel, raw: CardChannel) throws -> (channel: SecureMessagingChannel, terminalEphemeralKey: [UInt8]) {
        let ephemeral = try chipKey.generateEphemeral()
        defer { EVP_PKEY_free_wrapper(ephemeral) }
        let publicValue = try PublicKey.encodedPublic(ephemeral)
        let keyID = info.keyID.map { TLV.encode(tag: 0x84, value: Self.integerBytes($0)) } ?? []
        if info.cipher == .tripleDES {
            // 3DES (ICAO 9303-11 §6.2.4): MSE:Set KAT with the ephemeral public key.
            let response = try channel.transmit(CommandAPDU(ins: 0x22, p1: 0x41, p2: 0xA6,
                                                            data: TLV.encode(tag: 0x91, value: publicValue) + keyID))
            guard response.status.isSuccess else {
                throw SecurityError.unexpectedStatus(command: "MSE:Set KAT", status: response.status)
            }
        } else {
            // AES: MSE:Set AT naming the protocol, then GENERAL AUTHENTICATE with the key.
            let protocolOID = TLV.encode(tag: 0x80, value: ObjectIdentifier.encode(info.protocolOID))
            let set = try channel.transmit(CommandAPDU(ins: 0x22, p1: 0x41, p2: 0xA4, data: protocolOID + keyID))
            guard set.status.isSuccess else { throw SecurityError.unexpectedStatus(command: "MSE:Set AT", status: set.status) }
            let data = TLV.encode(tag: 0x7C, value: TLV.encode(tag: 0x80, value: publicValue))
            let response = try channel.transmit(CommandAPDU(ins: 0x86, p1: 0, p2: 0, data: data, ne: 256))
            guard response.status.isSuccess else {
                throw SecurityError.unexpectedStatus(command: "GENERAL AUTHENTICATE", status: response.status)
            }
        }
        var secret = try SecurityError.inChipAuthentication { try chipKey.agree(with: ephemeral) }
        defer { secret.wipe() }
        let keys: SessionKeys
        switch info.cipher! {
        case .tripleDES:
            var encryption = KeyDerivation.tripleDESKey(secret, purpose: .encryption)
            var mac = KeyDerivation.tripleDESKey(secret, purpose: .mac)
            keys = SessionKeys(suite: .tripleDES, consumingEncryptionKey: &encryption, macKey: &mac)
        case .aes128, .aes192, .aes256:
            let length = info.cipher == .aes128 ? 16 : info.cipher == .aes192 ? 24 : 32
            var encryption = KeyDerivation.aesKey(secret, purpose: .encryption, length: length)
            var mac = KeyDerivation.aesKey(secret, purpose: .mac, length: length)
            keys = SessionKeys(suite: .aes, consumingEncryptionKey: &encryption, macKey: &mac)
        }
        return (SecureMessagingChannel(over: raw, keys: keys, ssc: [UInt8](repeating: 0, count: keys.blockSize)), publicValue)
    }

    static func integerBytes(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var v = value
        repeat { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 } while v > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return bytes
    }
}

import COpenSSL
func EVP_PKEY_free_wrapper(_ key: OpaquePointer) { EVP_PKEY_free(key) }
