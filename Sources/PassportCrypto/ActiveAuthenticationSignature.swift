/// The check of an Active Authentication answer (ICAO 9303-11 §6.1): the chip's signature over
/// the terminal's challenge with DG15's key. Pure cryptography, so that a recorded answer can be
/// checked again offline, long after the chip left the reader. RSA uses ISO/IEC 9796-2 scheme 1
/// with message recovery; ECDSA the hash DG14's ActiveAuthenticationInfo names.
public struct ActiveAuthenticationSignature {
    public let key: PublicKey
    /// The ECDSA signature algorithm DG14 names (nil for RSA, or when DG14 says nothing).
    public let ecdsaAlgorithmOID: String?

    public init(key: PublicKey, ecdsaAlgorithmOID: String?) {
        self.key = key
        self.ecdsaAlgorithmOID = ecdsaAlgorithmOID
    }

    /// The response length to ask for: the RSA modulus size, or up to a DER ECDSA signature.
    public var expectedLength: Int { key.isRSA ? key.size : 2 * key.size + 9 }

    /// How the signature is checked, for reports.
    public var algorithm: String { key.isRSA ? "RSA ISO/IEC 9796-2 scheme 1" : "ECDSA" }

    /// Throws `CryptoError.invalidSignature` (or `.outOfRange`) when `signature` is not the
    /// chip's over `challenge`.
    public func verify(signature: [UInt8], challenge: [UInt8]) throws {
        if key.isRSA {
            guard signature.count == key.size else {
                throw CryptoError.invalidSignature("Active Authentication answer truncated: \(signature.count) of \(key.size) bytes (the reader or chip limited the response length)")
            }
            try verifyISO9796(signature: signature, challenge: challenge)
        } else if key.isEC {
            // DG14's ActiveAuthenticationInfo names the hash; without it, any SHA-2 (or SHA-1) hash is
            // tried. A signature algorithm it names that is no ECDSA one is refused, not guessed around.
            let candidates: [DigestAlgorithm]
            if let oid = ecdsaAlgorithmOID {
                guard let digest = Self.ecdsaDigest(oid) else {
                    throw CryptoError.invalidSignature("DG14's ActiveAuthenticationInfo names \(oid), which is not an ECDSA signature algorithm: the signature cannot be checked")
                }
                candidates = [digest]
            } else {
                candidates = [.sha256, .sha384, .sha512, .sha224, .sha1]
            }
            let plain = signature.count == 2 * key.size
            guard candidates.contains(where: { key.verify(.ecdsa($0, plain: plain), signature: signature, message: challenge) }) else {
                throw CryptoError.invalidSignature("the chip's ECDSA Active Authentication signature does not verify")
            }
        } else {
            throw CryptoError.unsupportedAlgorithm("Active Authentication with a key that is neither RSA nor EC")
        }
    }

    /// ISO/IEC 9796-2 scheme 1 (partial recovery): m = 6A ‖ M1 ‖ H(M1 ‖ M2) ‖ trailer, where the
    /// trailer is BC (SHA-1) or a hash identifier followed by CC.
    func verifyISO9796(signature: [UInt8], challenge: [UInt8]) throws {
        var m = try key.rsaRecover(signature)
        if m.count < key.size { m = [UInt8](repeating: 0, count: key.size - m.count) + m }
        guard m.first.map({ $0 >> 4 == 0x6 }) == true else {
            throw CryptoError.invalidSignature("the recovered Active Authentication message has no ISO 9796-2 header")
        }
        let (digest, trailer) = try Self.trailer(of: m)
        let hashLength = OpenSSLCrypto.digest(digest, []).count
        guard m.count >= 1 + hashLength + trailer else { throw CryptoError.invalidSignature("the recovered message is too short") }
        // Partial recovery requires the header 6A; 4A would mean full recovery (nothing of M2 hashed).
        guard m[0] == 0x6A else { throw CryptoError.invalidSignature("the recovered message is not partial recovery (header \(m[0]))") }
        let m1 = Array(m[1..<(m.count - hashLength - trailer)])
        let hash = Array(m[(m.count - hashLength - trailer)..<(m.count - trailer)])
        guard OpenSSLCrypto.digest(digest, m1 + challenge) == hash else {
            throw CryptoError.invalidSignature("the chip's Active Authentication signature does not cover our challenge: the chip may be a copy")
        }
    }

    /// The hash an ISO 9796-2 trailer names and the trailer's length.
    static func trailer(of m: [UInt8]) throws -> (DigestAlgorithm, Int) {
        guard let last = m.last else { throw CryptoError.invalidSignature("the recovered message is empty") }
        if last == 0xBC { return (.sha1, 1) }
        guard last == 0xCC, m.count >= 2 else {
            throw CryptoError.invalidSignature("the recovered Active Authentication message has no ISO 9796-2 trailer")
        }
        switch m[m.count - 2] {
        case 0x33: return (.sha1, 2)
        case 0x34: return (.sha256, 2)
        case 0x35: return (.sha512, 2)
        case 0x36: return (.sha384, 2)
        case 0x38: return (.sha224, 2)
        default: throw CryptoError.invalidSignature("unknown ISO 9796-2 hash identifier \(m[m.count - 2])")
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
