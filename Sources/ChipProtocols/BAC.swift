import PassportCrypto
import CardIO
import MRZ

/// Basic Access Control (ICAO 9303-11 §4.3): proves knowledge of the MRZ access key and
/// agrees 3DES secure-messaging session keys with the chip.
public struct BAC {
    /// Kenc and Kmac derived from the MRZ information (§9.7.2). Secret.
    public struct DocumentKeys: Sendable {
        public let seed: SecretBytes
        public let encryption: SecretBytes
        public let mac: SecretBytes

        public init(mrzInformation: String) {
            var information = Array(mrzInformation.utf8)
            var hash = OpenSSLCrypto.digest(.sha1, information)
            var kseed = Array(hash[0..<16])
            var kenc = KeyDerivation.tripleDESKey(kseed, purpose: .encryption)
            var kmac = KeyDerivation.tripleDESKey(kseed, purpose: .mac)
            seed = SecretBytes(consuming: &kseed)
            encryption = SecretBytes(consuming: &kenc)
            mac = SecretBytes(consuming: &kmac)
            information.wipe()
            hash.wipe()
        }

        public init(accessKey: MRZAccessKey) {
            self.init(mrzInformation: accessKey.mrzInformation)
        }
    }

    /// The outcome of mutual authentication: keys and counter for secure messaging.
    public struct Session: Sendable {
        public let keys: SessionKeys
        public let ssc: [UInt8]
    }

    let documentKeys: DocumentKeys
    /// Source of RND.IFD and K.IFD; replaceable so tests can reproduce ICAO's worked example.
    let random: (Int) -> [UInt8]

    public init(accessKey: MRZAccessKey, random: @escaping (Int) -> [UInt8] = OpenSSLCrypto.randomBytes) {
        self.documentKeys = DocumentKeys(accessKey: accessKey)
        self.random = random
    }

    public init(documentKeys: DocumentKeys, random: @escaping (Int) -> [UInt8] = OpenSSLCrypto.randomBytes) {
        self.documentKeys = documentKeys
        self.random = random
    }

    /// Runs GET CHALLENGE and MUTUAL AUTHENTICATE on `channel` (the eMRTD application selected).
    public func authenticate(over channel: CardChannel) throws -> Session {
        let challenge = try channel.transmit(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8))
        guard challenge.status.isSuccess, challenge.data.count == 8 else {
            throw SecurityError.unexpectedStatus(command: "GET CHALLENGE", status: challenge.status)
        }
        let rndIFD = random(8)
        let kIFD = random(16)
        let commandData = try externalAuthenticationData(rndICC: challenge.data, rndIFD: rndIFD, kIFD: kIFD)
        let response = try channel.transmit(CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: commandData, ne: 40))
        switch response.status.value {
        case 0x9000: break
        // ICAO 9303-11 §4.3: a wrong key fails the cryptogram check (6300), or the chip refuses
        // with 6982. Anything else is a fault of the chip or the link, not a mistyped MRZ.
        case 0x6300, 0x6982: throw SecurityError.accessDenied(status: response.status)
        default: throw SecurityError.unexpectedStatus(command: "MUTUAL AUTHENTICATE (BAC)", status: response.status)
        }
        return try session(fromChipResponse: response.data, rndICC: challenge.data, rndIFD: rndIFD, kIFD: kIFD)
    }

    /// E_IFD ‖ M_IFD for MUTUAL AUTHENTICATE.
    public func externalAuthenticationData(rndICC: [UInt8], rndIFD: [UInt8], kIFD: [UInt8]) throws -> [UInt8] {
        let s = rndIFD + rndICC + kIFD
        let eIFD = try OpenSSLCrypto.crypt(.tripleDESCBC, encrypt: true, key: documentKeys.encryption,
                                           iv: [UInt8](repeating: 0, count: 8), s[...])
        let mIFD = try OpenSSLCrypto.retailMAC(key: documentKeys.mac, padISO9797(eIFD, blockSize: 8)[...])
        return eIFD + mIFD
    }

    /// Checks the chip's E_ICC ‖ M_ICC and derives the session keys and SSC.
    public func session(fromChipResponse data: [UInt8], rndICC: [UInt8], rndIFD: [UInt8], kIFD: [UInt8]) throws -> Session {
        guard data.count == 40 else {
            throw SecurityError.chipAuthenticationFailed("MUTUAL AUTHENTICATE answer has \(data.count) bytes, expected 40")
        }
        let eICC = Array(data[0..<32])
        let mac = try OpenSSLCrypto.retailMAC(key: documentKeys.mac, padISO9797(eICC, blockSize: 8)[...])
        guard constantTimeEqual(mac, data[32..<40]) else {
            throw SecurityError.chipAuthenticationFailed("MAC of the chip's answer does not verify")
        }
        let r = try OpenSSLCrypto.crypt(.tripleDESCBC, encrypt: false, key: documentKeys.encryption,
                                        iv: [UInt8](repeating: 0, count: 8), eICC[...])
        guard Array(r[0..<8]) == rndICC, Array(r[8..<16]) == rndIFD else {
            throw SecurityError.chipAuthenticationFailed("the chip did not return our challenge")
        }
        var kICC = Array(r[16..<32])
        var seed = zip(kIFD, kICC).map { $0 ^ $1 }
        var sessionEncryption = KeyDerivation.tripleDESKey(seed, purpose: .encryption)
        var sessionMAC = KeyDerivation.tripleDESKey(seed, purpose: .mac)
        let keys = SessionKeys(suite: .tripleDES, consumingEncryptionKey: &sessionEncryption, macKey: &sessionMAC)
        seed.wipe()
        kICC.wipe()
        return Session(keys: keys, ssc: Array(rndICC[4..<8]) + Array(rndIFD[4..<8]))
    }
}
