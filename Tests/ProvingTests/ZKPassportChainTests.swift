import COpenSSL
import Foundation
import Proving
import Testing

/// The witnesses of zkPassport's four-circuit chain (circuits 0.17.0) against the values
/// zkpassport-utils 0.35.0's tests expect for its two fixture passports (all salts 1), and the
/// certificate registry against the root of its 298 test CSCAs
/// (scripts/zk/testdata/zkpassport_registry_fixture.json, made by make_registry_fixture.py).
@Suite struct ZKPassportChainTests {
    struct RegistryFixture: Decodable {
        struct Registry: Decodable {
            let root: String
            let certificates: [[Entry]]
            enum Entry: Decodable {
                case text(String), tags([String])
                init(from decoder: Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let text = try? container.decode(String.self) { self = .text(text) } else { self = .tags(try container.decode([String].self)) }
                }
            }
        }
        let registry: Registry
        let passports: [String: [String: Value]]
        enum Value: Decodable {
            case text(String), number(Int), list([String])
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int.self) { self = .number(number) }
                else if let text = try? container.decode(String.self) { self = .text(text) }
                else { self = .list(try container.decode([String].self)) }
            }
            var text: String { if case .text(let t) = self { return t } else { return "" } }
            var number: Int { if case .number(let n) = self { return n } else { return -1 } }
            var list: [String] { if case .list(let l) = self { return l } else { return [] } }
            var bytes: [UInt8] { hexBytes(text) }
        }

        init(from decoder: Decoder) throws {
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            let container = try decoder.container(keyedBy: Key.self)
            registry = try container.decode(Registry.self, forKey: Key(stringValue: "registry"))
            var passports: [String: [String: Value]] = [:]
            for key in container.allKeys where key.stringValue.contains("_sha256") {
                passports[key.stringValue] = try container.decode([String: Value].self, forKey: key)
            }
            self.passports = passports
        }

        static let shared: RegistryFixture = {
            let url = Paths.testdata.appendingPathComponent("zkpassport_registry_fixture.json")
            return try! JSONDecoder().decode(RegistryFixture.self, from: Data(contentsOf: url))
        }()
    }

    enum Paths {
        static let testdata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/zk/testdata")
    }

    /// The 298-certificate registry, built once (a few thousand Poseidon2 hashes).
    static let registry: CertificateRegistry = {
        let entries = RegistryFixture.shared.registry.certificates.map { row -> CertificateRegistry.Entry in
            guard case .text(let country) = row[0], case .text(let key) = row[1], case .tags(let tags) = row[2] else { fatalError("bad row") }
            return CertificateRegistry.Entry(country: country, keyBytes: hexBytes(key), tags: tags)
        }
        return try! CertificateRegistry(entries)
    }()

    @Test func registryRootIndexAndPathOfTheFixtureCSCAs() throws {
        let fixture = RegistryFixture.shared
        #expect(Self.registry.leaves.count == 298)
        #expect(Self.registry.root.hex == fixture.registry.root)
        for (name, cscaKey) in [("john_rsa_2048_sha256", ["csc_pubkey"]), ("mary_ecdsa_p256_sha256", ["csc_pubkey_x", "csc_pubkey_y"])] {
            let expected = try #require(fixture.passports[name])
            let key = cscaKey.flatMap { expected[$0]!.bytes }
            let proof = try #require(try Self.registry.proof(for: CertificateRegistry.Entry(country: "ZKR", keyBytes: key)))
            #expect(proof.index == expected["certificate_registry_index"]!.number, "\(name)")
            #expect(proof.path.map(\.hex) == expected["certificate_registry_hash_path"]!.list, "\(name)")
            #expect(expected["certificate_registry_root"]!.text == fixture.registry.root)
        }
        #expect(try Self.registry.proof(for: CertificateRegistry.Entry(country: "ZKR", keyBytes: [1, 2, 3])) == nil)
    }

    @Test func tagFlagsAndAnEmptyRegistry() throws {
        // "UN": bit (20·26 + 13) = 533 → limb 2, bit 27.
        let flags = try CertificateRegistry.tagFlags(["UN"])
        #expect(flags[0].isZero && flags[1].isZero)
        #expect(flags[2] == FieldElement(1 << 27))
        #expect(throws: ZKPassportInputError.self) { try CertificateRegistry.tagFlags(["un"]) }
        // An empty registry's root is the depth-16 zero subtree.
        var zero = FieldElement.zero
        for _ in 0..<16 { zero = Poseidon2.hash([zero, zero]) }
        #expect(try CertificateRegistry([]).root == zero)
    }

    @Test func barrettParametersOfTheFixtureKeys() throws {
        let john = try #require(RegistryFixture.shared.passports["john_rsa_2048_sha256"])
        #expect(try CircuitPublicKey.barrettParameter(john["csc_pubkey"]!.bytes) == john["csc_pubkey_redc_param"]!.bytes)
        #expect(try CircuitPublicKey.barrettParameter(john["dsc_pubkey"]!.bytes) == john["dsc_pubkey_redc_param"]!.bytes)
        #expect(try CircuitPublicKey.barrettParameter([0x03]).count == 2) // floor(2^10 / 3) = 341 = 01 55
        #expect(try CircuitPublicKey.barrettParameter([0x03]) == [0x01, 0x55])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let names: [String]
        let sizes: [Int]
        var testDescription: String { name }
    }

    /// A zkPassport fixture passport, its published values and the chain built for it (salts 1,
    /// nullifier revealed, 2026-01-01), as the published witnesses were made.
    struct FixturePassport {
        let passport: ZKPassportCommitmentTests.Fixtures.Passport
        let expected: [String: RegistryFixture.Value]
        let sod: FixtureSOD
        let dg1: [UInt8]
        let rsa: Bool
    }

    static func fixtureChain(_ name: String) throws -> (ZKPassportChain, FixturePassport) {
        let utils = try ZKPassportCommitmentTests.Fixtures.load()
        let passport = try #require(utils.passports[name])
        let expected = try #require(RegistryFixture.shared.passports[name])
        let sod = FixtureSOD([UInt8](try #require(Data(base64Encoded: passport.sodBase64))))
        let dg1 = ZKPassportCommitmentTests.dg1Prefix + Array(passport.mrz.utf8)
        let rsa = name.contains("rsa")
        let csca: CircuitPublicKey = rsa
            ? .rsa(modulus: expected["csc_pubkey"]!.bytes, exponent: 65537)
            : .ecdsa(x: expected["csc_pubkey_x"]!.bytes, y: expected["csc_pubkey_y"]!.bytes,
                     curve: try ECDSACurve(parameters: try #require(sod.curveParameters)))
        let scheme: CircuitSignatureScheme = rsa ? .rsaPKCS1(.sha256) : .ecdsa(.sha256)
        let document = PassportProofData(dg1: dg1, eContent: sod.eContent, signedAttributes: sod.signedAttributes,
                                         signedAttributesHash: .sha256, dataGroupHash: .sha256, dg2Hash: [UInt8](repeating: 0, count: 32),
                                         sodSignature: sod.signature, sodScheme: scheme, documentSigner: sod.certificate,
                                         documentSignerScheme: scheme, csca: csca)
        let salts = ZKPassportChain.Salts(dsc: .one, idData: .one, disclosure: IntegrityToDisclosureSalts(all: .one))
        let chain = try ZKPassportChain(document: document, registry: Self.registry, currentDate: Date(timeIntervalSince1970: 1_767_225_600),
                                        salts: salts, revealNullifier: true)
        return (chain, FixturePassport(passport: passport, expected: expected, sod: sod, dg1: dg1, rsa: rsa))
    }

    @Test(arguments: [
        Case(name: "john_rsa_2048_sha256", names: ["sig_check_dsc_tbs_700_rsa_pkcs_2048_sha256", "sig_check_id_data_tbs_700_rsa_pkcs_2048_sha256",
                                                    "data_check_integrity_sa_sha256_dg_sha256", "compare_age"], sizes: [1495, 2524, 1060, 121]),
        Case(name: "mary_ecdsa_p256_sha256", names: ["sig_check_dsc_tbs_700_ecdsa_nist_p256_sha256", "sig_check_id_data_tbs_700_ecdsa_nist_p256_sha256",
                                                      "data_check_integrity_sa_sha256_dg_sha256", "compare_age"], sizes: [853, 1882, 1060, 121]),
    ])
    func chainOfTheFixturePassports(_ c: Case) throws {
        let (chain, fixture) = try Self.fixtureChain(c.name)
        let (passport, expected, sod, dg1, rsa) = (fixture.passport, fixture.expected, fixture.sod, fixture.dg1, fixture.rsa)
        #expect(chain.circuits.map(\.name) == c.names)
        #expect(chain.circuits.map(\.inputs.count) == c.sizes)
        let (dsc, idData, integrity, age) = (chain.circuits[0].inputs, chain.circuits[1].inputs, chain.circuits[2].inputs, chain.circuits[3].inputs)

        // DSC circuit: registry root, index, path, no tags, salt 1, "ZKR", then the keys.
        #expect(dsc[0] == RegistryFixture.shared.registry.root)
        #expect(dsc[1] == String(expected["certificate_registry_index"]!.number))
        #expect(Array(dsc[2..<18]) == expected["certificate_registry_hash_path"]!.list)
        #expect(Array(dsc[18..<21]) == [FieldElement.zero.hex, FieldElement.zero.hex, FieldElement.zero.hex])
        #expect(dsc[21] == FieldElement.one.hex)
        #expect(Array(dsc[22..<25]) == ["90", "75", "82"]) // Z K R
        let tbs = sod.tbs + [UInt8](repeating: 0, count: 700 - sod.tbs.count)
        if rsa {
            #expect(Array(dsc[25..<725]) == tbs.map { String($0) })
            #expect(Array(dsc[725..<981]) == expected["csc_pubkey"]!.bytes.map { String($0) })
            #expect(Array(dsc[981..<1238]) == expected["csc_pubkey_redc_param"]!.bytes.map { String($0) })
            #expect(dsc.last == "65537")
        } else {
            #expect(Array(dsc[25..<89]) == (expected["csc_pubkey_x"]!.bytes + expected["csc_pubkey_y"]!.bytes).map { String($0) })
            #expect(Array(dsc[153..<853]) == tbs.map { String($0) })
        }

        // ID-data circuit: comm_in is what zkpassport-utils expects; the DSC key from the TBS.
        #expect(idData[0] == expected["id_data_comm_in"]!.text)
        #expect(chain.circuits[0].publicInputs.map(\.hex) == [RegistryFixture.shared.registry.root, expected["id_data_comm_in"]!.text])
        #expect(Array(idData[1...2]) == [FieldElement.one.hex, FieldElement.one.hex])
        #expect(Array(idData[3..<98]) == (dg1 + [0, 0]).map { String($0) })
        if rsa {
            #expect(Array(idData[98..<354]) == expected["dsc_pubkey"]!.bytes.map { String($0) })
            #expect(Array(idData[354..<611]) == expected["dsc_pubkey_redc_param"]!.bytes.map { String($0) })
            #expect(idData[2523 - 700] == "65537")
        } else {
            #expect(Array(idData[98..<162]) == (expected["dsc_pubkey_x"]!.bytes + expected["dsc_pubkey_y"]!.bytes).map { String($0) })
        }

        // Integrity circuit and compare_age: the comm_in values zkpassport-utils expects.
        #expect(integrity[0] == passport.expected["integrity_comm_in"])
        #expect(chain.circuits[1].publicInputs.map(\.hex) == [expected["id_data_comm_in"]!.text, passport.expected["integrity_comm_in"]!])
        #expect(Array(integrity[2...3]) == [FieldElement.one.hex, "97"])   // salted DG1 starts with its salt, then 61
        #expect(Array(integrity[1057...1059]) == [FieldElement.one.hex, passport.expected["private_nullifier"]!, FieldElement.zero.hex])
        #expect(age[0] == passport.expected["disclosure_comm_in"])
        #expect(chain.circuits[2].publicInputs[1].hex == passport.expected["disclosure_comm_in"])
        #expect(chain.circuits[3].publicInputs[0].hex == passport.expected["disclosure_comm_in"])
    }

    @Test func hiddenNullifierKeepsTheCommitmentAndOutputsNoIdentifier() throws {
        let utils = try ZKPassportCommitmentTests.Fixtures.load()
        let passport = try #require(utils.passports["john_rsa_2048_sha256"])
        let sod = FixtureSOD([UInt8](try #require(Data(base64Encoded: passport.sodBase64))))
        let dg1 = ZKPassportCommitmentTests.dg1Prefix + Array(passport.mrz.utf8)
        let witness = CompareAgeWitness(dg1: dg1, eContent: sod.eContent, signature: .rsa(signature: sod.signature, modulusBytes: 256),
                                        dg2Hash: [UInt8](repeating: 0, count: 32), currentDate: Date(timeIntervalSince1970: 1_767_225_600),
                                        salts: IntegrityToDisclosureSalts(all: .one), revealNullifier: false)
        let inputs = try witness.inputs()
        #expect(inputs[0] == passport.expected["disclosure_comm_in"])
        let hidden = Poseidon2.hash([.one, try #require(FieldElement(hex: passport.expected["private_nullifier"]!))])
        #expect(Array(inputs[2...4]) == [FieldElement.zero.hex, FieldElement.zero.hex, hidden.hex])
        #expect(try witness.publicInputs()[6] == .zero)
    }

    @Test func refusesWhatNoCircuitTakes() throws {
        let utils = try ZKPassportCommitmentTests.Fixtures.load()
        let passport = try #require(utils.passports["john_rsa_2048_sha256"])
        let expected = try #require(RegistryFixture.shared.passports["john_rsa_2048_sha256"])
        let sod = FixtureSOD([UInt8](try #require(Data(base64Encoded: passport.sodBase64))))
        let dg1 = ZKPassportCommitmentTests.dg1Prefix + Array(passport.mrz.utf8)
        func document(csca: CircuitPublicKey = .rsa(modulus: expected["csc_pubkey"]!.bytes, exponent: 65537),
                      signedAttributes: [UInt8] = sod.signedAttributes, scheme: CircuitSignatureScheme = .rsaPKCS1(.sha256)) -> PassportProofData {
            PassportProofData(dg1: dg1, eContent: sod.eContent, signedAttributes: signedAttributes, signedAttributesHash: .sha256,
                              dataGroupHash: .sha256, dg2Hash: [UInt8](repeating: 0, count: 32), sodSignature: sod.signature,
                              sodScheme: scheme, documentSigner: sod.certificate, documentSignerScheme: .rsaPKCS1(.sha256), csca: csca)
        }
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        // A CSCA that is not in the registry.
        #expect(throws: ZKPassportInputError.self) {
            try ZKPassportChain(document: document(csca: .rsa(modulus: [UInt8](repeating: 0xC1, count: 256), exponent: 65537)),
                                registry: Self.registry, currentDate: now)
        }
        // Signed attributes in their [0] IMPLICIT form rather than as signed.
        #expect(throws: ZKPassportInputError.self) {
            try ZKPassportChain(document: document(signedAttributes: [0xA0] + sod.signedAttributes.dropFirst()), registry: Self.registry, currentDate: now)
        }
        // An ECDSA scheme with an RSA key.
        #expect(throws: ZKPassportInputError.self) {
            try ZKPassportChain(document: document(scheme: .ecdsa(.sha256)), registry: Self.registry, currentDate: now)
        }
        // RSA moduli of sizes no circuit is compiled for.
        #expect(throws: ZKPassportInputError.self) {
            try CircuitPublicKey.rsa(modulus: [0x7F] + [UInt8](repeating: 1, count: 255), exponent: 3).circuitFragment(for: .rsaPKCS1(.sha256))
        }
        #expect(try CircuitPublicKey.rsa(modulus: [0x80] + [UInt8](repeating: 1, count: 383), exponent: 3)
            .circuitFragment(for: .rsaPSS(.sha256, saltLength: 32)) == "rsa_pss_3072")
    }

    /// Explicit EC parameters (as many German DSCs carry) are recognised as the named curve, and
    /// curves without a circuit are refused.
    @Test(arguments: [(NID_brainpoolP256r1, "brainpool_256r1"), (NID_X9_62_prime256v1, "nist_p256"), (NID_secp384r1, "nist_p384"),
                      (NID_brainpoolP512r1, "brainpool_512r1"), (NID_secp256k1, "")])
    func curveNamesFromNamedAndExplicitParameters(nid: Int32, name: String) throws {
        for explicit in [false, true] {
            let group = try #require(EC_GROUP_new_by_curve_name(nid))
            defer { EC_GROUP_free(group) }
            EC_GROUP_set_asn1_flag(group, explicit ? 0 : OPENSSL_EC_NAMED_CURVE)
            var out: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_ECPKParameters(group, &out)
            try #require(length > 0)
            let der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
            CRYPTO_free(out, #file, #line)
            #expect(der.first == (explicit ? 0x30 : 0x06))
            let curve = try ECDSACurve(parameters: der)
            #expect(curve.circuitName == (name.isEmpty ? nil : name), "explicit: \(explicit)")
            let key = CircuitPublicKey.ecdsa(x: [], y: [], curve: curve)
            if name.isEmpty {
                #expect(throws: ZKPassportInputError.self) { try key.circuitFragment(for: .ecdsa(.sha256)) }
            } else {
                #expect(try key.circuitFragment(for: .ecdsa(.sha256)) == "ecdsa_" + name)
            }
        }
    }
}

func hexBytes(_ text: String) -> [UInt8] {
    var digits = Substring(text)
    if digits.hasPrefix("0x") { digits = digits.dropFirst(2) }
    var out: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        out.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return out
}
