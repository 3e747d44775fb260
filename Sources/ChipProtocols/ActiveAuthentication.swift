import PassportCrypto
import CardIO
import LDS

/// Active Authentication (ICAO 9303-11 §6.1): the chip signs a fresh challenge with the private
/// key of DG15, proving it is not a copy. The signature check itself is
/// `ActiveAuthenticationSignature` (PassportCrypto), which also re-checks recorded answers.
public struct ActiveAuthentication {
    public let signature: ActiveAuthenticationSignature
    let random: (Int) -> [UInt8]

    /// The challenge sent and the chip's answer, kept as evidence.
    public struct Exchange: Sendable, Equatable {
        public let challenge: [UInt8]
        public let signature: [UInt8]
    }

    public init(dg15: DataGroup15, dg14: SecurityInfos?, random: @escaping (Int) -> [UInt8] = OpenSSLCrypto.randomBytes) throws {
        let key = try SecurityError.inChipAuthentication { try PublicKey(subjectPublicKeyInfo: dg15.subjectPublicKeyInfo) }
        signature = ActiveAuthenticationSignature(key: key, ecdsaAlgorithmOID: dg14?.activeAuthenticationInfo?.signatureAlgorithmOID)
        self.random = random
    }

    public var key: PublicKey { signature.key }
    public var expectedResponseLength: Int { signature.expectedLength }

    /// Sends INTERNAL AUTHENTICATE with a random 8-byte challenge and returns the chip's answer,
    /// unchecked.
    public func exchange(over channel: CardChannel) throws -> Exchange {
        let challenge = random(8)
        let le = expectedResponseLength
        // Under secure messaging a signature of more than 231 bytes only fits an extended response.
        if le > 223 && !channel.supportsExtendedLength {
            throw SecurityError.unsupported("Active Authentication with a \(key.bits)-bit key over short APDUs (this reader or chip lacks extended length)")
        }
        var response = try channel.transmit(CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: challenge, ne: le))
        if response.status.sw1 == 0x6C {
            // The chip names the Le it wants (6Cxx, e.g. NFCPassportReader issue 113): ask again.
            response = try channel.transmit(CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: challenge,
                                                        ne: response.status.sw2 == 0 ? 256 : Int(response.status.sw2)))
        } else if response.status.isSuccess && response.data.isEmpty && le != 256 {
            // Some chips answer an Le they do not like with success and no data; Le 00 works.
            response = try channel.transmit(CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: challenge, ne: 256))
        }
        guard response.status.isSuccess || response.status == .endOfFileWarning else {
            throw SecurityError.unexpectedStatus(command: "INTERNAL AUTHENTICATE", status: response.status)
        }
        guard !response.data.isEmpty else {
            throw SecurityError.unexpectedStatus(command: "INTERNAL AUTHENTICATE (it answered without a signature)", status: response.status)
        }
        return Exchange(challenge: challenge, signature: response.data)
    }

    /// Throws `SecurityError.chipAuthenticationFailed` when the answer is not the chip's.
    public func verify(_ exchange: Exchange) throws {
        try SecurityError.inChipAuthentication {
            try signature.verify(signature: exchange.signature, challenge: exchange.challenge)
        }
    }

    /// Exchange and check in one.
    @discardableResult
    public func perform(over channel: CardChannel) throws -> Exchange {
        let answer = try exchange(over: channel)
        try verify(answer)
        return answer
    }

    /// The same check for a signature and challenge given apart (tests, recorded answers).
    public func verify(signature bytes: [UInt8], challenge: [UInt8]) throws {
        try verify(Exchange(challenge: challenge, signature: bytes))
    }
}
