import CardIO
import LDS
import PassportCrypto

/// Chip authentication version 2 as EAC version 2 runs it (BSI TR-03110-2 §3.4; -3 A.2.3, A.2.4):
/// the terminal's ephemeral key pair is made first, on the domain parameters EF.CardAccess names
/// (ChipAuthenticationDomainParameterInfo), so that terminal authentication can sign its
/// compressed form; after it, EF.CardSecurity gives the chip's static key, and MSE:Set AT then
/// GENERAL AUTHENTICATE {7C {80 key}} bring the chip's nonce (81) and authentication token (82).
/// The session keys are KDF(K, nonce, c); the token, a MAC over the terminal's key under them,
/// proves that the chip holds the static private key.
public final class ChipAuthenticationV2 {
    /// The protocol EF.CardAccess announces (version 2 or 3).
    public let info: ChipAuthenticationInfo
    private let group: PACEGroup
    private var privateKey: [UInt8]
    /// The terminal's ephemeral public key (an uncompressed point, or a DH value).
    public let ephemeralPublicKey: [UInt8]

    public init(info: ChipAuthenticationInfo, standardizedParameter id: Int) throws {
        guard info.cipher != nil && info.cipher != .tripleDES else {
            throw SecurityError.unsupported("Chip authentication version 2 with \(info.protocolOID)")
        }
        self.info = info
        group = try PACEGroup(standardizedParameter: id)
        privateKey = try group.privateKey(nil)
        ephemeralPublicKey = try group.publicKey(privateKey)
    }

    deinit { privateKey.wipe() }

    /// Comp(~PK_PCD): what terminal authentication version 2 sends in MSE:Set AT and signs.
    public var compressedEphemeralKey: [UInt8] {
        TerminalAuthenticationBinding.compress(ephemeralPublicKey, isDH: info.isDH)
    }

    /// Runs the protocol with the chip's static public key (`chipPublicKey`, from EF.CardSecurity)
    /// and gives the secure channel of its keys, over `raw`, once the chip's token verifies.
    public func perform(over channel: CardChannel, raw: CardChannel, chipPublicKey: [UInt8], keyID: Int?) throws -> SecureMessagingChannel {
        let oid = ObjectIdentifier.encode(info.protocolOID)
        let reference = keyID.map { TLV.encode(tag: 0x84, value: ChipAuthentication.integerBytes($0)) } ?? []
        let set = try channel.transmit(CommandAPDU(ins: 0x22, p1: 0x41, p2: 0xA4, data: TLV.encode(tag: 0x80, value: oid) + reference))
        guard set.status.isSuccess else { throw SecurityError.unexpectedStatus(command: "MSE:Set AT (chip authentication version 2)", status: set.status) }
        let request = TLV.encode(tag: 0x7C, value: TLV.encode(tag: 0x80, value: ephemeralPublicKey))
        let response = try channel.transmit(CommandAPDU(ins: 0x86, p1: 0, p2: 0, data: request, ne: 256))
        guard response.status.isSuccess else {
            throw SecurityError.unexpectedStatus(command: "GENERAL AUTHENTICATE (chip authentication version 2)", status: response.status)
        }
        let (nonce, token) = try Self.nonceAndToken(response.data)
        let keys = try sessionKeys(chipPublicKey: chipPublicKey, nonce: nonce)
        let expected = try authenticationToken(keys, oid: oid, publicKey: ephemeralPublicKey, dh: info.isDH)
        guard constantTimeEqual(expected, token[...]) else {
            throw SecurityError.chipAuthenticationFailed("chip authentication version 2: the chip's authentication token does not verify under the keys of EF.CardSecurity's key (a chip without its private key)")
        }
        return SecureMessagingChannel(over: raw, keys: keys, ssc: [UInt8](repeating: 0, count: keys.blockSize))
    }

    /// 7C { 81 nonce, 82 token }.
    static func nonceAndToken(_ data: [UInt8]) throws -> (nonce: [UInt8], token: [UInt8]) {
        let outer = try TLV.parse(data)
        guard outer.tag == 0x7C, outer.encoded.count == data.count else {
            throw SecurityError.malformedSecureMessaging("chip authentication version 2's answer is not one DO'7C'")
        }
        let objects = try outer.children()
        guard let nonce = objects.first(where: { $0.tag == 0x81 }).map({ Array($0.value) }), !nonce.isEmpty,
              let token = objects.first(where: { $0.tag == 0x82 }).map({ Array($0.value) }), token.count == 8 else {
            throw SecurityError.chipAuthenticationFailed("chip authentication version 2's answer lacks its nonce (DO'81') or its 8-byte token (DO'82')")
        }
        return (nonce, token)
    }

    private func sessionKeys(chipPublicKey: [UInt8], nonce: [UInt8]) throws -> SessionKeys {
        var shared = try SecurityError.fromGroup { try group.multiply(chipPublicKey, by: privateKey) }
        var secret = group.sharedSecret(shared)
        defer { shared.wipe(); secret.wipe() }
        let length = info.cipher == .aes128 ? 16 : info.cipher == .aes192 ? 24 : 32
        var encryption = KeyDerivation.aesKey(secret, nonce: nonce, purpose: .encryption, length: length)
        var mac = KeyDerivation.aesKey(secret, nonce: nonce, purpose: .mac, length: length)
        return SessionKeys(suite: .aes, consumingEncryptionKey: &encryption, macKey: &mac)
    }
}

extension SecurityError {
    /// A group operation on the chip's key that fails means the key is not a valid one.
    static func fromGroup<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SecurityError {
            if case .crypto(let what) = error { throw SecurityError.chipAuthenticationFailed("EF.CardSecurity's chip authentication key is not valid on its domain parameters (\(what))") }
            throw error
        }
    }
}
