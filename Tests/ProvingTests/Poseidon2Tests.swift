import Foundation
import Proving
import Testing
import TestSupport

private func field(_ hexDigits: String) -> FieldElement { FieldElement(hex: hexDigits)! }

private func fields(_ values: [UInt64]) -> [FieldElement] { values.map { FieldElement($0) } }

/// The BN254 scalar field on OpenSSL's BIGNUM.
@Suite struct BN254FieldTests {
    @Test func formatsAndReduces() {
        #expect(FieldElement(255).hex == "0x" + String(repeating: "0", count: 62) + "ff")
        #expect(FieldElement.zero.isZero && !FieldElement.one.isZero)
        #expect(field(FieldElement.modulusHex) == .zero)
        #expect(field("0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000002") == .one)
        #expect(FieldElement(hex: "") == nil && FieldElement(hex: "0x") == nil && FieldElement(hex: "0xg1") == nil)
        #expect(FieldElement(hex: "abc") == FieldElement(0xabc))
        #expect(FieldElement(bytesBigEndian: [0, 0, 1, 2]) == FieldElement(0x102))
    }

    @Test func arithmetic() {
        let minusOne = field("0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000")
        #expect(minusOne + .one == .zero)
        #expect(minusOne * minusOne == .one)
        #expect(FieldElement(6) * FieldElement(7) == FieldElement(42))
        #expect(FieldElement(3).pow5() == FieldElement(243))
        #expect(FieldElement.sum(fields([1, 2, 3])) == FieldElement(6))
        #expect(FieldElement.linearCombination([5, 7, 1, 3], fields([1, 2, 3, 4])) == FieldElement(5 + 14 + 3 + 12))
        #expect(FieldElement.linearCombination([2], [minusOne]) == minusOne + minusOne)
    }
}

/// The published vectors of scripts/zk/poseidon2.py (sources cited there).
@Suite struct Poseidon2Tests {
    /// Barretenberg's consistency constant, above the modulus (bb::fr reduces it).
    static let bbX = field("0x9a807b615c4d3e2fa0b1c2d3e4f56789fedcba9876543210abcdef0123456789")

    @Test func permutationOfZeros() {
        // noir-lang/noir acvm-repo/bn254_blackbox_solver/src/poseidon2.rs, smoke_test
        #expect(Poseidon2.permute(fields([0, 0, 0, 0])) == [
            field("18DFB8DC9B82229CFF974EFEFC8DF78B1CE96D9D844236B496785C698BC6732E"),
            field("095C230D1D37A246E8D2D5A63B165FE0FADE040D442F61E25F0590E5FB76F839"),
            field("0BB9545846E1AFA4FA3C97414A60A20FC4949F537A68CCECA34C5CE71E28AA59"),
            field("18A4F34C9C6F99335FF7638B82AEED9018026618358873C982BBDDE265B2ED6D"),
        ])
    }

    @Test func permutationOf0123() {
        // Barretenberg dsl/acir_format/poseidon2_constraint.test.cpp, TestPoseidon2Permutation
        #expect(Poseidon2.permute(fields([0, 1, 2, 3])) == [
            field("01bd538c2ee014ed5141b29e9ae240bf8db3fe5b9a38629a9647cf8d76c01737"),
            field("239b62e7db98aa3a2a8f6a0d2fa1709e7a35959aa6c7034814d9daa90cbac662"),
            field("04cbb44c61d928ed06808456bf758cbf0c18d1e15a7b6dbc8245fa7515d5e3cb"),
            field("2e11c5cff2a22c64d01304b778d78f6998eff1ab73163a35603f54794c30847a"),
        ])
    }

    @Test func permutationConsistencyCheck() {
        // Barretenberg crypto/poseidon2/poseidon2_permutation.test.cpp, ConsistencyCheck
        #expect(Poseidon2.permute([Self.bbX, Self.bbX, Self.bbX, Self.bbX]) == [
            field("2bf1eaf87f7d27e8dc4056e9af975985bccc89077a21891d6c7b6ccce0631f95"),
            field("0c01fa1b8d0748becafbe452c0cb0231c38224ea824554c9362518eebdd5701f"),
            field("018555a8eb50cf07f64b019ebaf3af3c925c93e631f3ecd455db07bbb52bbdd3"),
            field("0cbea457c91c22c6c31fd89afd2541efc2edf31736b9f721e823b2165c90fd41"),
        ])
    }

    @Test func hashVectors() {
        // noir-lang/poseidon v0.2.6 src/tests.nr
        #expect(Poseidon2.hash(fields([1000])) == field("16433a80e26a23547e25d61dd95fd5793d1ca2dcd78ae64cd146d3b99a35fa7c"))
        #expect(Poseidon2.hash(fields([1000, 2000])) == field("118d5a5ecb25dafe99eb45cb196604a23d0b7c0cbd0c2be29e0787e59b7a1d8a"))
        #expect(Poseidon2.hash(fields([1000, 2000, 3000])) == field("0f1badcd0d52ced816fb6e6826fdf66ada038135d53cbb993f320ca6529223cd"))
        // noir bn254_blackbox_solver hash_smoke_test
        #expect(Poseidon2.hash(fields([1, 2, 3, 4])) == field("130bf204a32cac1f0ace56c78b731aa3809f06df2731ebcf6b3464a15788b1b9"))
        // Barretenberg crypto/poseidon2/poseidon2.test.cpp HashConsistencyCheck
        #expect(Poseidon2.hash([Self.bbX, Self.bbX, Self.bbX, Self.bbX]) == field("2f43a0f83b51a6f5fc839dea0ecec74947637802a579fa9841930a25a0bcec11"))
        // zkpassport/circuits lib/commitment/common/src/tests.nr, test_compute_merkle_root2
        let e00 = field("168758332d5b3e2d13be8048c8011b454590e06c44bce7f702f09103eef5a373")
        let e10 = field("113d8ff59c2e15d711241797c380264e39dc1b9e00f2713e707d8d7773b6d912")
        #expect(Poseidon2.hash(fields([1])) == e00)
        #expect(Poseidon2.hash([e00, e00]) == e10)
        #expect(Poseidon2.hash([e10, e10]) == field("0f4f16b234c1d5054b15d408282cb45ba6c10a629fe068e7f3cc253ceae4f08d"))
    }

    @Test func messageSizeShorterThanTheInput() {
        // Trailing inputs are ignored and the length enters the IV.
        #expect(Poseidon2.hash(fields([1000, 2000, 99]), messageSize: 2)
            == field("118d5a5ecb25dafe99eb45cb196604a23d0b7c0cbd0c2be29e0787e59b7a1d8a"))
        #expect(Poseidon2.hash(fields([1000, 2000, 99]), messageSize: 2) != Poseidon2.hash(fields([1000, 2000, 99])))
    }
}

/// The vectors of scripts/zk/commitments.py: zkpassport/circuits v0.17.0 test values, and the
/// two zkpassport-utils fixture passports with the values its circuit-matcher test expects.
@Suite struct ZKPassportCommitmentTests {
    static let dg1Prefix: [UInt8] = [0x61, 0x5B, 0x5F, 0x1F, 0x58]
    // circuits lib/utils/src/constants.nr SAMPLE_DG1 / ID_CARD_SAMPLE_DG1
    static let sampleDG1 = ZKPassportCommitmentTests.dg1Prefix + Array("P<AUSSILVERHAND<<JOHNNY<<<<<<<<<<<<<<<<<<<<<PA1234567_AUS881112_M300101_<CYBERCITY<<<<<<".utf8)
    static let idCardSampleDG1 = ZKPassportCommitmentTests.dg1Prefix + Array("I<ZKRZID222222<<<<<<<<<<<<<<<<9801157F3001018ZKR<<<<<<<<<<<2DOE<<JANE<<<<<<<<<<<<<<<<<<<<<".utf8)

    @Test func integrityCommitment() throws {
        // commitment/common/src/tests.nr test_hash_salt_dg1_dg2_hash_private_nullifier
        // = zkpassport-utils src/circuits/commitments.test.ts
        let salts = IntegrityToDisclosureSalts(dg1: FieldElement(1), expiryDate: FieldElement(2), dg2Hash: FieldElement(3),
                                               privateNullifier: FieldElement(4))
        let commitment = try ZKPassportCommitments.hashSaltDG1DG2HashPrivateNullifier(
            salts: salts, dg1: [UInt8](repeating: 1, count: 95), expiryDate: Array("000000".utf8),
            dg2HashNormalized: FieldElement(2), dg2HashType: 3, privateNullifier: FieldElement(4))
        #expect(commitment == field("11c79137d08731a5ecf2fa2bd73797a39ff93b0dfcd90c4e93dfd0e27eab73f6"))
    }

    @Test func scopedNullifiers() {
        let one = FieldElement(1), two = FieldElement(2), three = FieldElement(3)
        #expect(ZKPassportCommitments.scopedNullifier(privateNullifier: one, serviceScope: two, serviceSubscope: three)
            == field("23864adb160dddf590f1d3303683ebcb914f828e2635f6e85a32f0a1aecd3dd8"))
        #expect(ZKPassportCommitments.scopedNullifier(privateNullifier: one, serviceScope: two, serviceSubscope: three, nullifierSecret: one)
            == field("0e51739f6a6687eb1956c4f475b39498e4358763075aa707642c9796d55cee14"))
        #expect(ZKPassportCommitments.scopedNullifier(privateNullifier: one, serviceScope: two, serviceSubscope: three,
                                                      nullifierSecret: FieldElement(4))
            == field("130bf204a32cac1f0ace56c78b731aa3809f06df2731ebcf6b3464a15788b1b9"))
        #expect(ZKPassportCommitments.scopedNullifier(privateNullifier: .zero, serviceScope: two, serviceSubscope: three) == .zero)
    }

    @Test func dg1Fields() throws {
        #expect(try ZKPassportCommitments.nullifierType(dg1: Self.sampleDG1) == ZKPassportCommitments.nonSaltedNullifier)
        #expect(try ZKPassportCommitments.nullifierType(dg1: Self.idCardSampleDG1, nullifierSecret: FieldElement(4))
            == ZKPassportCommitments.saltedMockNullifier)
        #expect(try ZKPassportCommitments.expiryDate(fromDG1: Self.sampleDG1) == Array("300101".utf8))
        #expect(try ZKPassportCommitments.expiryDate(fromDG1: Self.idCardSampleDG1) == Array("300101".utf8))
        #expect(try !ZKPassportCommitments.isIDCard(dg1: Self.sampleDG1))
        #expect(try ZKPassportCommitments.isIDCard(dg1: Self.idCardSampleDG1))
        #expect(try ZKPassportCommitments.issuingCountry(fromDG1: Self.sampleDG1) == Array("AUS".utf8))
        #expect(throws: ZKPassportInputError.self) { try ZKPassportCommitments.expiryDate(fromDG1: [UInt8](repeating: 0x3C, count: 96)) }
    }

    @Test func packing() {
        let bytes = (1...32).map { UInt8($0) }
        // be31: field 0 = the last 31 bytes, the short limb last.
        #expect(ZKPassportCommitments.packBE(bytes) == [FieldElement(bytesBigEndian: bytes[1...]), FieldElement(1)])
        // le31: field i = bytes [31i, 31i + 31) read little-endian.
        #expect(ZKPassportCommitments.packLE(bytes) == [FieldElement(bytesBigEndian: Array(bytes[0..<31].reversed())), FieldElement(32)])
        #expect(ZKPassportCommitments.packBE([]) == [])
    }

    @Test func dg2HashNormalisationAndPackedHash() {
        // commitment/common tests.nr test_compute_merkle_root1 hash_path[1]; circuit-matcher.test.ts
        #expect(ZKPassportCommitments.normalizeDG2Hash([UInt8](repeating: 0, count: 32))
            == field("0b63a53787021a4a962a452c2921b3663aff1ffd8d5510540f8e659e782956f1"))
        // commitment/common tests.nr test_calculate_attestation_registry_leaf (Apple root key)
        let appleRootKey: [UInt8] = [
            69, 49, 225, 152, 181, 180, 236, 4, 218, 21, 2, 4, 87, 4, 237, 79, 135, 114, 114, 215, 97,
            53, 178, 97, 22, 207, 200, 139, 97, 93, 10, 0, 7, 25, 186, 105, 133, 141, 254, 119, 202,
            163, 184, 57, 224, 32, 221, 214, 86, 20, 20, 4, 112, 40, 49, 228, 63, 112, 184, 143, 214,
            195, 148, 182, 8, 234, 43, 214, 174, 97, 233, 245, 152, 193, 47, 70, 175, 82, 147, 114, 102,
            229, 127, 20, 235, 97, 254, 197, 48, 247, 20, 79, 83, 129, 46, 53,
        ]
        #expect(ZKPassportCommitments.poseidon2HashPacked([1] + appleRootKey)
            == field("2532418a107c5306fa8308c22255792cf77e4a290cbce8a840a642a3e591340b"))
    }

    @Test func paramCommitmentsAndScopes() {
        // circuits src/solidity/test/fixtures: public input 10 of a real outer proof (min 18, max 0)
        #expect(ZKPassportCommitments.ageParamCommitmentEVM(minimumAge: 18, maximumAge: 0)
            == field("00fbc3519eb56137394d7f0e697ae3c40907d0dd4670d156866cffa07ff49869"))
        // Structure only (no published vector); the value is the Python reference's.
        #expect(ZKPassportCommitments.ageParamCommitment(minimumAge: 18, maximumAge: 0) == Poseidon2.hash(fields([1, 2, 18, 0])))
        #expect(ZKPassportCommitments.ageParamCommitment(minimumAge: 18, maximumAge: 0)
            == field("2ccd6b1a6a0758a11ad3531939e69db3e11adbe90131cb38b69df90d55887d83"))
        // SHA-256("abc") = ba7816bf…f20015ad: the first 31 bytes.
        #expect(ZKPassportCommitments.scopeHash("abc") == field("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015"))
        #expect(ZKPassportCommitments.scopeHash("") == .zero && ZKPassportCommitments.scopeHash(nil) == .zero)
    }

    @Test func ecdsaSignatureProcessing() throws {
        let p256 = try ECDSACurve(parameters: hex("06082A8648CE3D030107"))
        #expect(p256.byteSize == 32)
        #expect(p256.order == hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"))
        let p384 = try ECDSACurve(parameters: hex("06052B81040022"))
        #expect(p384.byteSize == 48)
        #expect(p384.order == hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973"))
        #expect(throws: ZKPassportInputError.self) { try ECDSACurve(parameters: [0x06, 0x01]) }

        // DER with r = 0x1234 and a high s = n − (n/2 − 5): r ‖ s padded, s flipped to n/2 − 5.
        let der = hex("30260202123402207fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192ae")
        let lowS = hex("7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a3")
        let expected = [UInt8](repeating: 0, count: 30) + [0x12, 0x34] + lowS
        #expect(try ZKPassportCommitments.ecdsaSignatureToRS(der, curve: p256) == expected)
        // Raw r ‖ s: the same normalisation (s = n − 100 becomes 100); a low s stays.
        let r = [UInt8](repeating: 0, count: 30) + [0x12, 0x34]
        let raw = r + hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc6324ed")
        #expect(try ZKPassportCommitments.ecdsaSignatureToRS(raw, curve: p256) == r + [UInt8](repeating: 0, count: 31) + [100])
        #expect(try ZKPassportCommitments.ecdsaSignatureToRS(expected, curve: p256) == expected)
        #expect(throws: ZKPassportInputError.self) { try ZKPassportCommitments.ecdsaSignatureToRS([0x30, 0x02, 0x05, 0x00], curve: p256) }

        // RSA: left-padded to the modulus length.
        #expect(try SODSignature.rsa(signature: [1, 2], modulusBytes: 4).circuitBytes() == [0, 0, 1, 2])
        #expect(try SODSignature.rsa(signature: [1, 2], modulusBytes: nil).circuitBytes() == [1, 2])
        #expect(throws: ZKPassportInputError.self) { try SODSignature.rsa(signature: [1, 2, 3], modulusBytes: 2).circuitBytes() }
    }

    @Test func refusesWhatTheCircuitRejects() {
        #expect(throws: ZKPassportInputError.self) { try ZKPassportCommitments.saltedHash(salt: .zero, value: .one) }
        #expect(throws: ZKPassportInputError.self) { try ZKPassportCommitments.saltedHash(salt: .one, value: .zero) }
        #expect(throws: ZKPassportInputError.self) { try ZKPassportCommitments.saltedHash(salt: .one, bytes: [0, 0]) }
        #expect(throws: ZKPassportInputError.self) {
            try ZKPassportCommitments.privateNullifier(dg1: Self.sampleDG1, eContent: [UInt8](repeating: 1, count: 701), signature: [1])
        }
    }

    // MARK: zkpassport-utils fixture passports

    struct Fixtures: Decodable {
        struct Passport: Decodable {
            let mrz: String
            let passportExpiry: String
            let sodBase64: String
            let expected: [String: String]

            enum CodingKeys: String, CodingKey {
                case mrz, expected
                case passportExpiry = "passport_expiry"
                case sodBase64 = "sod_base64"
            }
        }
        let passports: [String: Passport]

        static func load() throws -> Fixtures {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let url = root.appendingPathComponent("scripts/zk/testdata/zkpassport_utils_fixtures.json")
            return try JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: url))
        }
    }

    @Test(arguments: ["john_rsa_2048_sha256", "mary_ecdsa_p256_sha256"])
    func fixturePassport(name: String) throws {
        let passport = try #require(try Fixtures.load().passports[name])
        let sodBytes = [UInt8](try #require(Data(base64Encoded: passport.sodBase64)))
        let sod = FixtureSOD(sodBytes)
        let dg1 = Self.dg1Prefix + Array(passport.mrz.utf8)
        let signature: SODSignature
        if sod.keyAlgorithm == [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01] { // id-ecPublicKey
            let curve = try ECDSACurve(parameters: try #require(sod.curveParameters))
            signature = .ecdsa(signature: sod.signature, curve: curve)
        } else {
            signature = .rsa(signature: sod.signature, modulusBytes: 256)
        }
        let expected = passport.expected

        let signatureBytes = try signature.circuitBytes()
        let privateNullifier = try ZKPassportCommitments.privateNullifier(dg1: dg1, eContent: sod.eContent, signature: signatureBytes)
        #expect(privateNullifier.hex == expected["private_nullifier"])

        let country = try ZKPassportCommitments.issuingCountry(fromDG1: dg1)
        #expect(country == Array("ZKR".utf8))
        let idDataCommIn = try ZKPassportCommitments.hashSaltCountryTBS(salt: .one, country: country, tbs: sod.tbs)
        #expect(idDataCommIn.hex == expected["id_data_comm_in"])
        let integrityCommIn = try ZKPassportCommitments.hashSaltCountrySignedAttrDG1EContentPrivateNullifier(
            salt: .one, country: country, signedAttributes: sod.signedAttributes, dg1: dg1, eContent: sod.eContent,
            privateNullifier: privateNullifier)
        #expect(integrityCommIn.hex == expected["integrity_comm_in"])

        // All salts 1 and an all-zero SHA-256 DG2 hash, as in zkpassport-utils' test.
        #expect(try ZKPassportCommitments.expiryDate(fromDG1: dg1) == Array(passport.passportExpiry.utf8))
        let witness = CompareAgeWitness(dg1: dg1, eContent: sod.eContent, signature: signature,
                                        dg2Hash: [UInt8](repeating: 0, count: 32), currentDate: Date(timeIntervalSince1970: 1_767_225_600),
                                        minimumAge: 18, salts: IntegrityToDisclosureSalts(all: .one))
        #expect(try witness.privateNullifier() == privateNullifier)
        #expect(try witness.commitmentIn().hex == expected["disclosure_comm_in"])
        let inputs = try witness.inputs()
        #expect(inputs.count == 121)
        #expect(inputs[0] == expected["disclosure_comm_in"])
        #expect(inputs[1] == "1767225600")
        #expect(inputs[3] == expected["private_nullifier"])

        let publicInputs = try witness.publicInputs()
        #expect(publicInputs.count == 7)
        #expect(publicInputs[0].hex == expected["disclosure_comm_in"])
        #expect(publicInputs[5] == FieldElement(UInt64(ZKPassportCommitments.nonSaltedMockNullifier)))
        #expect(publicInputs[6] == Poseidon2.hash([privateNullifier, .zero, .zero]))
    }
}

/// A minimal DER walk of the fixture SODs (port of commitments.py `parse_sod`). PassiveAuth's
/// CMS parser is stricter: it rejects these synthetic SODs' version-1 SignerInfo that names its
/// signer by subjectKeyIdentifier.
struct FixtureSOD {
    struct Node {
        let tag: UInt8
        let start: Int
        let contentStart: Int
        let end: Int
    }

    let eContent: [UInt8]
    /// As signed: the [0] IMPLICIT tag replaced by SET OF (0x31).
    let signedAttributes: [UInt8]
    let signature: [UInt8]
    /// The DSC's TBSCertificate DER.
    let tbs: [UInt8]
    /// The whole DSC certificate DER.
    let certificate: [UInt8]
    /// The DSC key's algorithm OID content bytes.
    let keyAlgorithm: [UInt8]
    /// The named-curve OID TLV of an EC key.
    let curveParameters: [UInt8]?

    init(_ sod: [UInt8]) {
        func node(_ pos: Int) -> Node {
            var length = Int(sod[pos + 1])
            var header = 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                length = 0
                for i in 0..<count { length = length << 8 | Int(sod[pos + 2 + i]) }
                header += count
            }
            return Node(tag: sod[pos], start: pos, contentStart: pos + header, end: pos + header + length)
        }
        func children(_ parent: Node) -> [Node] {
            var out: [Node] = []
            var pos = parent.contentStart
            while pos < parent.end {
                let child = node(pos)
                out.append(child)
                pos = child.end
            }
            return out
        }
        func content(_ n: Node) -> [UInt8] { Array(sod[n.contentStart..<n.end]) }

        let contentInfo = node(0)
        let signedData = node(children(contentInfo)[1].contentStart)
        let fields = children(signedData)
        let encapsulated = children(fields[2])
        let octets = children(encapsulated[1])[0]
        eContent = content(octets)

        let certificates = fields.first(where: { $0.tag == 0xA0 })!
        let certificate = children(certificates)[0]
        self.certificate = Array(sod[certificate.start..<certificate.end])
        let tbsNode = children(certificate)[0]
        tbs = Array(sod[tbsNode.start..<tbsNode.end])
        let tbsFields = children(tbsNode)
        let offset = tbsFields[0].tag == 0xA0 ? 1 : 0
        let publicKeyInfo = tbsFields[offset + 5]
        let algorithm = children(children(publicKeyInfo)[0])
        keyAlgorithm = content(algorithm[0])
        curveParameters = algorithm.count > 1 && algorithm[1].tag == 0x06
            ? Array(sod[algorithm[1].start..<algorithm[1].end]) : nil

        let signerInfo = children(fields[fields.count - 1])[0]
        let signerFields = children(signerInfo)
        let attributesIndex = signerFields.firstIndex(where: { $0.tag == 0xA0 })!
        let attributes = signerFields[attributesIndex]
        signedAttributes = [0x31] + Array(sod[(attributes.start + 1)..<attributes.end])
        signature = content(signerFields[attributesIndex + 2])
    }
}
