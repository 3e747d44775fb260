import PassportCrypto
import LDS

/// ICAO 9303-11 §9.7.1: KDF(K, c) = H(K ‖ c) truncated, for BAC, PACE and chip authentication.
public enum KeyDerivation {
    public enum Purpose: UInt32 {
        case encryption = 1, mac = 2, password = 3
    }

    /// A 3DES key (16 bytes, odd parity) derived from `secret`.
    public static func tripleDESKey(_ secret: [UInt8], purpose: Purpose) -> [UInt8] {
        var input = secret + counter(purpose)
        var hash = OpenSSLCrypto.digest(.sha1, input)
        defer { input.wipe(); hash.wipe() }
        return adjustParity(Array(hash[0..<16]))
    }

    /// An AES key of `length` bytes (16 uses SHA-1, 24 and 32 use SHA-256); chip authentication
    /// version 2 puts the chip's nonce between the secret and the counter (TR-03110-3 A.2.3).
    public static func aesKey(_ secret: [UInt8], nonce: [UInt8] = [], purpose: Purpose, length: Int) -> [UInt8] {
        let algorithm: DigestAlgorithm = length == 16 ? .sha1 : .sha256
        var input = secret + nonce + counter(purpose)
        var hash = OpenSSLCrypto.digest(algorithm, input)
        defer { input.wipe(); hash.wipe() }
        return Array(hash[0..<length])
    }

    static func counter(_ purpose: Purpose) -> [UInt8] {
        let c = purpose.rawValue
        return [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
    }

    /// Sets each byte's lowest bit so the byte has odd parity, as DES keys require.
    public static func adjustParity(_ key: [UInt8]) -> [UInt8] {
        key.map { byte in
            let high = byte & 0xFE
            return high.nonzeroBitCount % 2 == 0 ? high | 1 : high
        }
    }
}
