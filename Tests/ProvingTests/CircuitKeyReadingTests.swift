import Foundation
import Proving
import Testing

/// Keys and signatures read through LDS's TLV, and the hash names and numbers the circuits use.
@Suite struct CircuitKeyReading {
    static let p256X = hexBytes("6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296")
    static let p256Y = hexBytes("4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5")
    /// id-ecPublicKey on prime256v1 with the curve's generator as the key.
    static let ecKeyInfo = hexBytes("3059301306072A8648CE3D020106082A8648CE3D030107034200") + [0x04] + p256X + p256Y
    /// rsaEncryption (NULL parameters) with modulus 0xC001 and exponent 65537.
    static let rsaKeyInfo = hexBytes("301E" + "300D06092A864886F70D0101010500" + "030D00" + "300A020300C001" + "0203010001")

    @Test func hashNamesNumbersAndLengths() {
        let schemes: [CircuitSignatureScheme] = [.ecdsa(.sha1), .ecdsa(.sha224), .rsaPKCS1(.sha256), .rsaPSS(.sha384, saltLength: 48),
                                                 .ecdsa(.sha512)]
        #expect(schemes.map(\.hash.circuitName) == ["sha1", "sha224", "sha256", "sha384", "sha512"])
        #expect(schemes.map(\.hash.dg2HashType) == [1, 2, 3, 4, 5])
        #expect(schemes.map(\.hash.digestLength) == [20, 28, 32, 48, 64])
    }

    @Test(arguments: [(20, 1), (28, 2), (32, 3), (48, 4), (64, 5)])
    func dg2HashTypeFollowsTheHashLength(length: Int, type: Int) throws {
        let witness = CompareAgeWitness(dg1: CompareAgeInputs.dg1, eContent: CompareAgeInputs.eContent, signature: CompareAgeInputs.signature,
                                        dg2Hash: [UInt8](repeating: 0xAB, count: length), currentDate: CompareAgeInputs.date)
        #expect(try witness.values().dg2HashType == type)
    }

    @Test func readsRSAAndECKeys() throws {
        #expect(try CircuitPublicKey(subjectPublicKeyInfo: Self.rsaKeyInfo) == .rsa(modulus: [0xC0, 0x01], exponent: 65537))
        guard case .ecdsa(let x, let y, let curve) = try CircuitPublicKey(subjectPublicKeyInfo: Self.ecKeyInfo) else {
            Issue.record("not an EC key")
            return
        }
        #expect(x == Self.p256X && y == Self.p256Y && curve.circuitName == "nist_p256")
    }

    @Test func malformedKeysAndSignaturesAreTypedErrors() throws {
        let truncated = #expect(throws: ZKPassportInputError.self) {
            try CircuitPublicKey(subjectPublicKeyInfo: Array(Self.ecKeyInfo.dropLast()))
        }
        guard case .unsupportedKey(let why) = truncated else { Issue.record("\(String(describing: truncated))"); return }
        #expect(why.contains("SubjectPublicKeyInfo is not valid DER"))

        // Ed25519 (1.3.101.112): well-formed, but no circuit takes it.
        let ed25519 = hexBytes("302A300506032B6570032100") + [UInt8](repeating: 7, count: 32)
        #expect(throws: ZKPassportInputError.unsupportedKey("the key algorithm 1.3.101.112 is neither RSA nor ECDSA")) {
            try CircuitPublicKey(subjectPublicKeyInfo: ed25519)
        }

        let p256 = try ECDSACurve(parameters: hexBytes("06082A8648CE3D030107"))
        let signature = #expect(throws: ZKPassportInputError.self) {
            try ZKPassportCommitments.ecdsaSignatureToRS([0x30, 0x44, 0x02, 0x20, 0x01], curve: p256)
        }
        guard case .malformedSignature(let reason) = signature else { Issue.record("\(String(describing: signature))"); return }
        #expect(reason.contains("ECDSA signature is not valid DER"))
    }
}
