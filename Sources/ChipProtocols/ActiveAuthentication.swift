import PassportCrypto
import CardIO
import LDS

/// Active Authentication (ICAO 9303-11 §6.1): the chip signs a fresh challenge with the private
/// key of DG15, proving it is not a copy. RSA uses ISO/IEC 9796-2 scheme 1 with message
/// recovery; ECDSA uses the hash DG14's ActiveAuthenticationInfo names.
public struct ActiveAuthentication {
    public let key: PublicKey
    /// ECDSA signature algorithm from DG14 (nil for RSA, or when DG14 says nothing).
    public let signatureAlgorithmOID: String?
    let random: (Int) -> [UInt8]

    public init(dg15: DataGroup15, dg14: SecurityInfos?, random: @escaping (Int) -> [UInt8] = OpenSSLCrypto.randomBytes) throws {
        key = try PublicKey(subjectPublicKeyInfo: dg15.subjectPublicKeyInfo)
        signatureAlgorithmOID = dg14?.activeAuthenticationInfo?.signatureAlgorithmOID
        self.random = random
    }

    /// Expected response length: the RSA modulus size, or up to a DER ECDSA signature.
    public var expectedResponseLength: Int {
        key.isRSA ? key.size : 2 * key.size + 9
    }

    /// Sends INTERNAL AUTHENTICATE with a random 8-byte challenge and checks the answer.
    public func perform(over channel: CardChannel) throws {
        let challenge = random(8)
        let le = expectedResponseLength
        // Under secure messaging a signature of more than 231 bytes only fits an extended response.
        if le > 223 && !channel.supportsExtendedLength {
            throw SecurityError.chipAuthenticationFailed("the \(key.bits)-bit Active Authentication key needs extended-length APDUs, which this reader or chip does not support")
        }
        let response = try channel.transmit(CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: challenge, ne: le))
        guard response.status.isSuccess || response.status == .endOfFileWarning else {
            throw SecurityError.unexpectedStatus(command: "INTERNAL AUTHENTICATE", status: response.status)
        }
        try verify(signature: response.data, challenge: challenge)
    }

    public func verify(signature: [UInt8], challenge: [UInt8]) throws {
        if key.isRSA {
            guard signature.count == key.size else {
                throw SecurityError.chipAuthenticationFailed("Active Authentication answer truncated: \(signature.count) of \(key.size) bytes (the reader or chip limited the response length)")
            }
            try verifyISO9796(signature: signature, challenge: challenge)
        } else if key.isEC {
            // DG14's ActiveAuthenticationInfo names the hash; without it, any SHA-2 (or SHA-1) hash is tried.
            let candidates = signatureAlgorithmOID.flatMap(ActiveAuthentication.ecdsaDigest).map { [$0] }
                ?? [.sha256, .sha384, .sha512, .sha224, .sha1]
            let plain = signature.count == 2 * key.size
            guard candidates.contains(where: { key.verify(.ecdsa($0, plain: plain), signature: signature, message: challenge) }) else {
                throw SecurityError.chipAuthenticationFailed("the chip's ECDSA Active Authentication signature does not verify")
            }
        } else {
            throw SecurityError.chipAuthenticationFailed("DG15 holds neither an RSA nor an EC key")
        }
    }

    /// ISO/IEC 9796-2 scheme 1 (partial recovery): m = 6A ‖ M1 ‖ H(M1 ‖ M2) ‖ trailer, where the
    /// trailer is BC (SHA-1) or a hash identifier followed by CC.
    func verifyISO9796(signature: [UInt8], challenge: [UInt8]) throws {
        var m = try SecurityError.inChipAuthentication { try key.rsaRecover(signature) }
        if m.count < key.size { m = [UInt8](repeating: 0, count: key.size - m.count) + m }
        guard let last = m.last, m.first.map({ $0 >> 4 == 0x6 }) == true else {
            throw SecurityError.chipAuthenticationFailed("the recovered Active Authentication message has no ISO 9796-2 header")
        }
        let digest: DigestAlgorithm
        let trailer: Int
        if last == 0xBC {
            digest = .sha1; trailer = 1
        } else if last == 0xCC, m.count >= 2 {
            switch m[m.count - 2] {
            case 0x33: digest = .sha1
            case 0x34: digest = .sha256
            case 0x35: digest = .sha512
            case 0x36: digest = .sha384
            case 0x38: digest = .sha224
            default: throw SecurityError.chipAuthenticationFailed("unknown ISO 9796-2 hash identifier \(m[m.count - 2])")
            }
            trailer = 2
        } else {
            throw SecurityError.chipAuthenticationFailed("the recovered Active Authentication message has no ISO 9796-2 trailer")
        }
        let hashLength = OpenSSLCrypto.digest(digest, []).count
        guard m.count >= 1 + hashLength + trailer else { throw SecurityError.chipAuthenticationFailed("the recovered message is too short") }
        // Partial recovery requires the header 6A; 4A would mean full recovery (nothing of M2 hashed).
        guard m[0] == 0x6A else { throw SecurityError.chipAuthenticationFailed("the recovered message is not partial recovery (header \(m[0]))") }
        let m1 = Array(m[1..<(m.count - hashLength - trailer)])
        let hash = Array(m[(m.count - hashLength - trailer)..<(m.count - trailer)])
        guard OpenSSLCrypto.digest(digest, m1 + challenge) == hash else {
            throw SecurityError.chipAuthenticationFailed("the chip's Active Authentication signature does not cover our challenge: the chip may be a copy")
        }
    }

    static func ecdsaDigest(_ oid: String) -> DigestAlgorithm? {
        switch oid {
        case "1.2.840.10045.4.1", "0.4.0.127.0.7.1.1.4.1.1": return .sha1
        case "1.2.840.10045.4.3.1", "0.4.0.127.0.7.1.1.4.1.2": return .sha224
        case "1.2.840.10045.4.3.2", "0.4.0.127.0.7.1.1.4.1.3": return .sha256
        case "1.2.840.10045.4.3.3", "0.4.0.127.0.7.1.1.4.1.4": return .sha384
        case "1.2.840.10045.4.3.4", "0.4.0.127.0.7.1.1.4.1.5": return .sha512
        default: return nil
        }
    }

}
