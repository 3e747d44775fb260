import PassportCrypto
import CardIO
import LDS
import MRZ

/// PACE (ICAO 9303-11 §4.4): password-authenticated key agreement with generic mapping (GM) or
/// chip authentication mapping (CAM), ECDH or DH, on standardized domain parameters, with the
/// MRZ or the CAN as password. Ends in secure-messaging keys, like BAC but much stronger.
public struct PACE {
    public enum Password: Sendable {
        case mrz(MRZAccessKey)
        case can(String)

        var reference: UInt8 { if case .can = self { return 0x02 } else { return 0x01 } }
        public var name: String { if case .can = self { return "CAN" } else { return "MRZ" } }

        /// The password key material: SHA-1 of MRZ_information, or the CAN's digits.
        var secret: [UInt8] {
            switch self {
            case .mrz(let key): return OpenSSLCrypto.digest(.sha1, Array(key.mrzInformation.utf8))
            case .can(let can): return Array(can.utf8)
            }
        }
    }

    public struct Result: Sendable {
        public let keys: SessionKeys
        public let ssc: [UInt8]
        public let info: PACEInfo
        public let password: String
        /// For CAM: the chip's mapping key and its encrypted CA data, checked against EF.CardSecurity.
        public let chipAuthenticationMapping: (mappingKey: [UInt8], caData: [UInt8])?
        /// The ephemeral public keys of the key agreement (terminal authentication's ID_PICC is
        /// the chip's compressed; after PACE-CAM, its Comp(~PK_PCD) is the terminal's).
        public let terminalEphemeralKey: [UInt8]
        public let chipEphemeralKey: [UInt8]
        public var description: String {
            "PACE \(info.isDH ? "DH" : "ECDH")-\(info.mapping?.rawValue ?? "?") \(PACE.parameterName(info.parameterID)) \(info.cipher?.rawValue ?? "?") (\(password))"
        }
    }

    public let info: PACEInfo
    let password: Password
    /// Terminal private keys (mapping, then ephemeral) for reproducing published examples.
    let fixedPrivateKeys: [[UInt8]]?

    public init(info: PACEInfo, password: Password, fixedPrivateKeys: [[UInt8]]? = nil) throws {
        guard let mapping = info.mapping else { throw SecurityError.unsupported("PACE with an unknown mapping") }
        if mapping == .integrated && info.cipher == .tripleDES {
            throw SecurityError.unsupported("PACE integrated mapping with 3DES")
        }
        guard info.cipher != nil, let id = info.parameterID, id <= 18, !(3...7).contains(id) else {
            throw SecurityError.unsupported("PACE domain parameters \(info.parameterID.map(String.init) ?? "(not standardized)")")
        }
        self.info = info
        self.password = password
        self.fixedPrivateKeys = fixedPrivateKeys
    }

    static func parameterName(_ id: Int?) -> String {
        switch id {
        case 0: return "MODP-1024/160"
        case 1: return "MODP-2048/224"
        case 2: return "MODP-2048/256"
        case 8: return "secp192r1"
        case 9: return "brainpoolP192r1"
        case 10: return "secp224r1"
        case 11: return "brainpoolP224r1"
        case 12: return "secp256r1"
        case 13: return "brainpoolP256r1"
        case 14: return "brainpoolP320r1"
        case 15: return "secp384r1"
        case 16: return "brainpoolP384r1"
        case 17: return "brainpoolP512r1"
        case 18: return "secp521r1"
        default: return "parameters \(id.map(String.init) ?? "?")"
        }
    }

    var suite: SessionKeys.Suite { info.cipher == .tripleDES ? .tripleDES : .aes }
    var keyLength: Int { info.cipher == .aes192 ? 24 : info.cipher == .aes256 ? 32 : 16 }

    func deriveKey(_ secret: [UInt8], _ purpose: KeyDerivation.Purpose) -> [UInt8] {
        suite == .tripleDES ? KeyDerivation.tripleDESKey(secret, purpose: purpose)
            : KeyDerivation.aesKey(secret, purpose: purpose, length: keyLength)
    }

    public func perform(over channel: CardChannel) throws -> Result {
        let group = try PACEGroup(standardizedParameter: info.parameterID!)
        let oid = ObjectIdentifier.encode(info.protocolOID)

        // MSE:Set AT: protocol, password reference, domain parameters.
        var mse = TLV.encode(tag: 0x80, value: oid) + TLV.encode(tag: 0x83, value: [password.reference])
        mse += TLV.encode(tag: 0x84, value: [UInt8(info.parameterID!)])
        let set = try channel.transmit(CommandAPDU(ins: 0x22, p1: 0xC1, p2: 0xA4, data: mse))
        guard set.status.isSuccess else { throw PACE.refusal(set.status, step: "MSE:Set AT") }

        // 1. Encrypted nonce.
        let z = try generalAuthenticate(channel, [], expect: 0x80, last: false)
        var passwordSecret = password.secret
        var kpi = deriveKey(passwordSecret, .password)
        let cipher: OpenSSLCrypto.Cipher = suite == .tripleDES ? .tripleDESCBC : .aesCBC
        var s = try OpenSSLCrypto.crypt(cipher, encrypt: false, key: kpi, iv: [UInt8](repeating: 0, count: suite == .tripleDES ? 8 : 16), z[...])
        kpi.wipe()
        passwordSecret.wipe()
        defer { s.wipe() }

        // 2. Mapping: generic (and CAM) by a Diffie-Hellman step; integrated by a nonce of ours.
        var chipMapping: [UInt8] = []
        if info.mapping == .integrated {
            let t = fixedPrivateKeys?[0] ?? OpenSSLCrypto.randomBytes(keyLength)
            _ = try generalAuthenticateObjects(channel, TLV.encode(tag: 0x81, value: t), last: false)
            group.useGenerator(try group.mapIntegrated(pseudoRandom: try PACE.pseudoRandom(s: s, t: t, primeBits: group.primeBits)))
        } else {
            var mappingPrivate = try group.privateKey(fixedPrivateKeys?[0])
            defer { mappingPrivate.wipe() }
            let mappingPublic = try group.publicKey(mappingPrivate)
            chipMapping = try generalAuthenticate(channel, TLV.encode(tag: 0x81, value: mappingPublic), expect: 0x82, last: false)
            var shared = try group.multiply(chipMapping, by: mappingPrivate)
            defer { shared.wipe() }
            group.useGenerator(try group.mapGeneric(nonce: s, sharedPoint: shared))
        }

        // 3. Key agreement on the mapped generator.
        var ephemeralPrivate = try group.privateKey(fixedPrivateKeys?[1])
        defer { ephemeralPrivate.wipe() }
        let ephemeralPublic = try group.publicKey(ephemeralPrivate)
        let chipEphemeral = try generalAuthenticate(channel, TLV.encode(tag: 0x83, value: ephemeralPublic), expect: 0x84, last: false)
        guard chipEphemeral != ephemeralPublic else { throw SecurityError.chipAuthenticationFailed("the chip echoed our ephemeral key") }
        var secret = group.sharedSecret(try group.multiply(chipEphemeral, by: ephemeralPrivate))
        var encryption = deriveKey(secret, .encryption), mac = deriveKey(secret, .mac)
        secret.wipe()
        let keys = SessionKeys(suite: suite, consumingEncryptionKey: &encryption, macKey: &mac)

        // 4. Mutual authentication tokens over the other side's ephemeral key.
        let ourToken = try token(keys, oid: oid, publicKey: chipEphemeral, dh: group.kind == .dh)
        let answer = try generalAuthenticateObjects(channel, TLV.encode(tag: 0x85, value: ourToken), last: true)
        guard let chipToken = answer[0x86] else { throw SecurityError.malformedSecureMessaging("no chip token (86) in the last PACE step") }
        guard try chipTokenVerifies(chipToken, keys: keys, oid: oid, ourKey: ephemeralPublic, dh: group.kind == .dh) else {
            throw SecurityError.chipAuthenticationFailed("the chip's PACE token does not verify")
        }
        var cam: (mappingKey: [UInt8], caData: [UInt8])?
        if info.mapping == .chipAuthentication {
            guard let encrypted = answer[0x8A] else { throw SecurityError.chipAuthenticationFailed("the chip sent no chip authentication data (8A)") }
            // ICAO 9303-11 §4.4.3.5.2: AES-CBC under KS_enc with IV = E(KS_enc, SSC = −1).
            let iv = try OpenSSLCrypto.crypt(.aesECB, encrypt: true, key: keys.encryptionKey, [UInt8](repeating: 0xFF, count: 16)[...])
            let caData = try unpadISO9797(try OpenSSLCrypto.crypt(.aesCBC, encrypt: false, key: keys.encryptionKey, iv: iv, encrypted[...]))
            cam = (chipMapping, caData)
        }
        return Result(keys: keys, ssc: [UInt8](repeating: 0, count: keys.blockSize), info: info, password: password.name,
                      chipAuthenticationMapping: cam, terminalEphemeralKey: ephemeralPublic, chipEphemeralKey: chipEphemeral)
    }

    /// The pseudo-random function R(s, t) of integrated mapping (ICAO 9303-11 §4.4.3.3.2) with
    /// AES: k0 = E(t, s); x_i = E(k_{i−1}, c1), k_i = E(k_{i−1}, c0) (keys cut to |t|), for the
    /// smallest n with n·l ≥ log2(p) + 64; the output is x1 ‖ … ‖ xn (reduced mod p by the caller).
    static func pseudoRandom(s: [UInt8], t: [UInt8], primeBits: Int) throws -> [UInt8] {
        let constants: [Int: ([UInt8], [UInt8])] = [
            128: (bytes(fromHex: "a668892a7c41e3ca739f40b057d85904")!, bytes(fromHex: "a4e136ac725f738b01c1f60217c188ad")!),
            256: (bytes(fromHex: "d463d65234124ef7897054986dca0a174e28df758cbaa03f240616414d5a1676")!,
                  bytes(fromHex: "54bd7255f0aaf831bec3423fcf39d69b6cbf066677d0faae5aadd99df8e53517")!),
        ]
        let l = s.count * 8
        guard let (c0, c1) = constants[l] else { throw SecurityError.unsupported("integrated mapping with a \(l)-bit nonce") }
        func encrypt(_ key: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
            try OpenSSLCrypto.crypt(.aesCBC, encrypt: true, key: key, iv: [UInt8](repeating: 0, count: 16), data[...])
        }
        var n = 1
        while n * l < primeBits + 64 { n += 1 }
        var key = try encrypt(t, s)
        var out: [UInt8] = []
        for _ in 0..<n {
            let k = Array(key.prefix(t.count))
            out += try encrypt(k, c1)
            key = try encrypt(k, c0)
        }
        return out
    }

    /// CAM (ICAO 9303-11 §4.4.3.5): the chip's mapping key must equal CA_IC · PK_IC, with PK_IC
    /// the chip authentication key from EF.CardSecurity.
    public static func verifyChipAuthenticationMapping(_ result: Result, chipPublicKey: [UInt8]) throws {
        guard let cam = result.chipAuthenticationMapping else { return }
        let group = try PACEGroup(standardizedParameter: result.info.parameterID!)
        guard try group.multiply(chipPublicKey, by: cam.caData) == cam.mappingKey else {
            throw SecurityError.chipAuthenticationFailed("the chip authentication data does not match EF.CardSecurity's key: the chip may be a copy")
        }
    }

    /// Whether `chipToken` is the chip's MAC over our ephemeral key. A DH key is an unsigned
    /// integer (BSI TR-03110-3 D.3.4): we send it padded to the size of p, and a chip may MAC it
    /// as sent or in its minimal encoding (OpenPACE does the latter). Both are the same integer
    /// under the same session key; with a leading zero octet (one key in 256) only one matches.
    func chipTokenVerifies(_ chipToken: [UInt8], keys: SessionKeys, oid: [UInt8], ourKey: [UInt8], dh: Bool) throws -> Bool {
        var encodings = [ourKey]
        if dh, ourKey.first == 0 { encodings.append(Array(ourKey.drop { $0 == 0 })) }
        var verified = false
        for encoding in encodings where constantTimeEqual(try token(keys, oid: oid, publicKey: encoding, dh: dh), chipToken[...]) {
            verified = true
        }
        return verified
    }

    func token(_ keys: SessionKeys, oid: [UInt8], publicKey: [UInt8], dh: Bool) throws -> [UInt8] {
        try authenticationToken(keys, oid: oid, publicKey: publicKey, dh: dh)
    }

    private func generalAuthenticate(_ channel: CardChannel, _ data: [UInt8], expect tag: UInt32, last: Bool) throws -> [UInt8] {
        guard let value = try generalAuthenticateObjects(channel, data, last: last)[tag] else {
            throw SecurityError.malformedSecureMessaging("PACE answer without data object \(String(tag, radix: 16))")
        }
        return value
    }

    /// GENERAL AUTHENTICATE with dynamic authentication data 7C; command chaining on all but the last step.
    private func generalAuthenticateObjects(_ channel: CardChannel, _ data: [UInt8], last: Bool) throws -> [UInt32: [UInt8]] {
        // A command that needs extended length (DH-2048 keys) gets an answer of the same size: ask
        // for up to 65536 bytes then, as 256 would not hold the chip's key either.
        let body = TLV.encode(tag: 0x7C, value: data)
        let response = try channel.transmit(CommandAPDU(cla: last ? 0x00 : 0x10, ins: 0x86, p1: 0, p2: 0,
                                                        data: body, ne: body.count > 255 ? 65536 : 256))
        guard response.status.isSuccess else { throw PACE.refusal(response.status, step: "GENERAL AUTHENTICATE") }
        do {
            let outer = try TLV.parse(response.data)
            guard outer.tag == 0x7C else { throw SecurityError.malformedSecureMessaging("PACE answer is not 7C") }
            var objects: [UInt32: [UInt8]] = [:]
            for child in try outer.children() { objects[child.tag] = Array(child.value) }
            return objects
        } catch let error as TLVError {
            // A garbled answer is PACE's failure (the caller reports it as such), not a file's.
            throw SecurityError.malformedSecureMessaging("PACE answer to GENERAL AUTHENTICATE: \(error)")
        }
    }

    static func refusal(_ status: StatusWord, step: String) -> SecurityError {
        switch status.value {
        case 0x6300, 0x63C0...0x63CF, 0x6982: return .accessDenied(status: status)
        case 0x6983: return .accessDenied(status: status)
        default: return .unexpectedStatus(command: "PACE \(step)", status: status)
        }
    }
}

/// An authentication token (PACE, chip authentication version 2; TR-03110-3 A.2.4.2): the MAC
/// over the public key data object 7F49 { 06 OID, 86 point | 84 y }, 8 bytes.
func authenticationToken(_ keys: SessionKeys, oid: [UInt8], publicKey: [UInt8], dh: Bool) throws -> [UInt8] {
    let data = TLV.encode(tag: 0x7F49, value: TLV.encode(tag: 0x06, value: oid) + TLV.encode(tag: dh ? 0x84 : 0x86, value: publicKey))
    // CMAC pads by itself; the retail MAC needs ISO 9797-1 padding.
    switch keys.suite {
    case .aes: return Array(try OpenSSLCrypto.aesCMAC(key: keys.macKey, data).prefix(8))
    case .tripleDES: return try keys.mac(padISO9797(data, blockSize: 8))
    }
}
