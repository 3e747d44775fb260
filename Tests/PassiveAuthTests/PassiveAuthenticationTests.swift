import PassiveAuth
import PassportCrypto
import Foundation
import LDS
import LocalFiles
import Testing
import TestSupport

/// Passive authentication over the generated fixtures (Fixtures/pa, Fixtures/pki): each
/// case's expected outcome, and tampering that must be caught.
@Suite struct PassiveAuthenticationFixtures {
    static let pki = TestPaths.fixtures.appendingPathComponent("pki")

    func trust(crl: Bool = true, extra: [String] = []) throws -> TrustStore {
        let store = TrustStore()
        try store.addCSCA(at: Self.pki.appendingPathComponent("TEST-ONLY-csca-UTO.pem"))
        try store.addCSCA(at: Self.pki.appendingPathComponent("TEST-ONLY-csca-UTO-bp384.pem"))
        for name in extra { try store.addCSCA(at: Self.pki.appendingPathComponent(name)) }
        if crl { try store.addCRL(at: Self.pki.appendingPathComponent("TEST-ONLY-csca-UTO.crl")) }
        return store
    }

    func files(_ name: String) throws -> [LDSFile: [UInt8]] {
        try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("pa/\(name)")).files
    }

    @Test(arguments: [
        ("rsa-pkcs1-sha256", "RSA PKCS#1 v1.5 with SHA-256", "SHA-256"),
        ("rsa-pss-sha512", "RSA-PSS with SHA-512, MGF1-SHA-512, salt 64", "SHA-512"),
        ("ecdsa-p256-sha256", "ECDSA with SHA-256", "SHA-256"),
        ("ecdsa-brainpoolP384r1-explicit", "ECDSA with SHA-384", "SHA-384"),
    ])
    func validDumpsVerify(name: String, scheme: String, hash: String) throws {
        let report = PassiveAuthentication.verify(files: try files(name), trust: try trust())
        #expect(report.passed, "\(report.failures)")
        #expect(report.signatureScheme == scheme)
        #expect(report.hashAlgorithm == hash)
        #expect(report.dataGroups.map(\.number) == [1, 2, 11, 12, 14, 15])
        #expect(report.dataGroups.allSatisfy { $0.status == .valid })
        #expect(report.validitySource == "signing time in EF.SOD")
    }

    @Test func mainFixtureVerifiesAndIsRevocationChecked() throws {
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        let report = PassiveAuthentication.verify(files: dump.files, trust: try trust())
        #expect(report.passed)
        #expect(report.revocation == .passed)
        #expect(report.csca?.subject.contains("CSCA UTO TEST") == true)
    }

    @Test func efCOMAndEFSODMustNameTheSameDataGroups() throws {
        // TR-03105 5.1 LDS_H_90..92: the fixture's EF.COM lists DG1 2 11 12 14 15 as its EF.SOD
        // hashes; an EF.COM without DG15 (tag 6F), or with DG3 (63) too, disagrees.
        var files = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport")).files
        let com = try EFCOM(bytes: try #require(files[.com]))
        func comListing(_ tags: [UInt8]) -> [UInt8] {
            let body: [UInt8] = [0x5F, 0x01, 0x04] + Array((com.ldsVersion ?? "0107").utf8)
                + [0x5F, 0x36, 0x06] + Array("040000".utf8) + [0x5C, UInt8(tags.count)] + tags
            return [0x60, UInt8(body.count)] + body
        }
        files[.com] = comListing([0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F])
        #expect(PassiveAuthentication.verify(files: files, trust: try trust()).passed)
        files[.com] = comListing([0x61, 0x75, 0x6B, 0x6C, 0x6E])
        var report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(report.failures == ["EF.COM and EF.SOD disagree on the data groups: EF.SOD hashes DG15 that EF.COM does not list."])
        // DG3 listed, neither held nor hashed: EF.COM (unsigned) over-lists, as real chips do.
        files[.com] = comListing([0x61, 0x63, 0x75, 0x6B, 0x6C, 0x6E, 0x6F])
        report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(report.passed)
        #expect(report.warnings.contains("EF.COM lists DG3, which the chip does not hold and EF.SOD does not hash."), "\(report.warnings)")
        // DG3 listed and held without a hash: the file is not authentic.
        files[.dataGroup(3)] = [0x63, 0x02, 0x01, 0x02]
        report = PassiveAuthentication.verify(files: files, trust: try trust())
        #expect(!report.passed)
    }

    @Test func documentSignerProfile() throws {
        func load(_ name: String) throws -> Certificate { try Certificate.load(file: Self.pki.appendingPathComponent(name))[0] }
        let csca = try load("TEST-ONLY-csca-UTO.pem")
        for dsc in ["TEST-ONLY-dsc-UTO.pem", "TEST-ONLY-dsc-UTO-rsapss.pem", "TEST-ONLY-dsc-UTO-p256.pem"] {
            #expect(PassiveAuthentication.documentSignerProfileProblems(try load(dsc), csca: csca).isEmpty, "\(dsc)")
        }
        #expect(PassiveAuthentication.documentSignerProfileProblems(try load("TEST-ONLY-dsc-UTO-bp384.pem"),
                                                                    csca: try load("TEST-ONLY-csca-UTO-bp384.pem")).isEmpty)
        // Judged against another CSCA's name: the issuer does not match.
        let problems = PassiveAuthentication.documentSignerProfileProblems(try load("TEST-ONLY-dsc-UTO.pem"),
                                                                           csca: try load("TEST-ONLY-csca-UTO-bp384.pem"))
        #expect(problems.count == 1 && problems[0].hasPrefix("its issuer"))
    }

    @Test func explicitParameterKeysAreReported() throws {
        let report = PassiveAuthentication.verify(files: try files("ecdsa-brainpoolP384r1-explicit"), trust: try trust())
        #expect(report.passed)
        #expect(report.csca?.key.hasPrefix("EC") == true)
    }

    @Test func tamperedDataGroupIsNamed() throws {
        let report = PassiveAuthentication.verify(files: try files("tampered-dg"), trust: try trust())
        #expect(!report.passed)
        #expect(report.signature == .passed)
        #expect(report.dataGroups.first { $0.number == 11 }?.status == .mismatch)
        #expect(report.failures.count == 1)
        #expect(report.failures[0].hasPrefix("DG11:"))
    }

    @Test func tamperedSignatureFails() throws {
        let report = PassiveAuthentication.verify(files: try files("tampered-sod"), trust: try trust())
        #expect(!report.passed)
        #expect(report.signature == .failed)
    }

    @Test func expiredDocumentSignerFailsAtSigningTimeButNotBefore() throws {
        let report = PassiveAuthentication.verify(files: try files("expired-dsc"), trust: try trust())
        #expect(!report.passed)
        #expect(report.chain == .failed)
        #expect(report.failures.contains { $0.contains("Document Signer certificate was not valid") })
        // Judged at a date inside its validity (--at), it passes.
        let at = ISO8601DateFormatter().date(from: "2023-06-01T00:00:00Z")!
        #expect(PassiveAuthentication.verify(files: try files("expired-dsc"), trust: try trust(), at: at).passed)
    }

    @Test func revokedDocumentSignerFailsOnlyWithTheCRL() throws {
        let revoked = PassiveAuthentication.verify(files: try files("revoked-dsc"), trust: try trust())
        #expect(!revoked.passed)
        #expect(revoked.revocation == .failed)
        let dsc = try Certificate.load(file: Self.pki.appendingPathComponent("TEST-ONLY-dsc-UTO-revoked.pem"))[0]
        let serial = dsc.serialNumber.map { String(format: "%02X", $0) }.joined()
        #expect(revoked.failures.contains { $0.contains("(serial \(serial)) is revoked") })
        let withoutCRL = PassiveAuthentication.verify(files: try files("revoked-dsc"), trust: try trust(crl: false))
        #expect(withoutCRL.passed)
        #expect(withoutCRL.revocation == .notChecked)
    }

    /// Names match as multisets of (type, string type, value bytes), in any order.
    @Test func namesMatchInAnyOrderButOnlyExactly() throws {
        func name(_ attributes: [(UInt8, UInt8, String)]) throws -> DistinguishedName {
            let rdns = attributes.flatMap { type, stringTag, value -> [UInt8] in
                let oid: [UInt8] = [0x06, 0x03, 0x55, 0x04, type]
                let text = Array(value.utf8)
                let atv = oid + [stringTag, UInt8(text.count)] + text
                let sequence = [0x30, UInt8(atv.count)] + atv
                return [0x31, UInt8(sequence.count)] + sequence
            }
            return try DistinguishedName(der: ([0x30, UInt8(rdns.count)] + rdns)[...])
        }
        let printable: UInt8 = 0x13, utf8: UInt8 = 0x0C
        let csca = try name([(6, printable, "UT"), (10, printable, "Utopia"), (3, printable, "CSCA")])
        #expect(csca.matches(try name([(3, printable, "CSCA"), (6, printable, "UT"), (10, printable, "Utopia")])))
        #expect(!csca.matches(try name([(6, printable, "UT"), (10, printable, "Utopia"), (3, utf8, "CSCA")])))
        #expect(!csca.matches(try name([(6, printable, "UT"), (10, printable, "Utopia"), (3, printable, "CSCB")])))
        #expect(!csca.matches(try name([(6, printable, "UT"), (10, printable, "Utopia")])))
        // Same length, same attribute types, different multisets.
        let twice = try name([(10, printable, "A"), (10, printable, "A"), (6, printable, "UT")])
        #expect(!twice.matches(try name([(10, printable, "A"), (6, printable, "UT"), (6, printable, "UT")])))
        #expect(twice.matches(try name([(6, printable, "UT"), (10, printable, "A"), (10, printable, "A")])))
    }

    @Test func forgedCRLIsRejected() throws {
        var crl = [UInt8](try Data(contentsOf: Self.pki.appendingPathComponent("TEST-ONLY-csca-UTO.crl")))
        crl[crl.count - 3] ^= 0x40 // inside the signature
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("forged-\(UUID().uuidString).crl")
        try Data(crl).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try trust(crl: false)
        try store.addCRL(at: url)
        let report = PassiveAuthentication.verify(files: try files("rsa-pkcs1-sha256"), trust: store)
        #expect(!report.passed)
        #expect(report.failures.contains { $0.contains("is not signed by") })
    }

    @Test func unknownCSCAIsExplainedAndAddingItHelps() throws {
        let report = PassiveAuthentication.verify(files: try files("unknown-csca"), trust: try trust())
        #expect(!report.passed)
        #expect(report.failures == [report.failures[0]])
        #expect(report.failures[0].hasPrefix("No trusted CSCA for UTO"))
        #expect(report.failures[0].contains("--masterlist"))
        let withRogue = PassiveAuthentication.verify(files: try files("unknown-csca"),
                                                     trust: try trust(extra: ["TEST-ONLY-rogue-csca-UTO.pem"]))
        #expect(withRogue.passed)
    }

    /// A store remembers which CSCAs may have issued a DSC and which CRLs a CSCA has (a batch
    /// asks again for every dump); what it remembers is forgotten when an anchor or a CRL is added.
    @Test func lookupsAreForgottenWhenTheStoreGrows() throws {
        let store = try trust(crl: false)
        #expect(PassiveAuthentication.verify(files: try files("unknown-csca"), trust: store).failures.first?.hasPrefix("No trusted CSCA") == true)
        try store.addCSCA(at: Self.pki.appendingPathComponent("TEST-ONLY-rogue-csca-UTO.pem"))
        #expect(PassiveAuthentication.verify(files: try files("unknown-csca"), trust: store).passed)

        #expect(PassiveAuthentication.verify(files: try files("revoked-dsc"), trust: store).revocation == .notChecked)
        try store.addCRL(at: Self.pki.appendingPathComponent("TEST-ONLY-csca-UTO.crl"))
        let revoked = PassiveAuthentication.verify(files: try files("revoked-dsc"), trust: store)
        #expect(revoked.revocation == .failed)
        #expect(!revoked.passed)
    }

    /// Each Document Signer's signature check is made ready once and shared by every thread of a
    /// batch: the same checks at once, in any order, give what each gives alone (a context the
    /// checks changed, or shared unsafely, would pass a forged signature or fail a good one).
    @Test func sharedSignatureChecksHoldAcrossThreads() throws {
        let names = ["rsa-pkcs1-sha256", "rsa-pss-sha512", "ecdsa-p256-sha256", "ecdsa-brainpoolP384r1-explicit", "tampered-sod"]
        let store = try trust()
        let dumps = try names.map { try files($0) }
        let alone = dumps.map { PassiveAuthentication.verify(files: $0, trust: store).signature }
        #expect(alone == [.passed, .passed, .passed, .passed, .failed])
        let work = (0..<400).map { $0 % names.count }
        let together = WorkerThreads.map(work) { index in PassiveAuthentication.verify(files: dumps[index], trust: store).signature }
        #expect(together == work.map { alone[$0] })
    }

    @Test func wrongCountryCSCAIsRejected() throws {
        // DG1 says UTO; pretend the document was issued by another state.
        var dump = try files("rsa-pkcs1-sha256")
        let dg1 = dump[.dataGroup(1)]!
        let patched = String(decoding: dg1, as: UTF8.self).replacingOccurrences(of: "P<UTO", with: "P<NLD")
        dump[.dataGroup(1)] = Array(patched.utf8)
        let report = PassiveAuthentication.verify(files: dump, trust: try trust())
        #expect(!report.passed)
        #expect(report.failures.contains { $0.contains("issued by NLD") })
    }

    @Test func sodOnlyChecksSignatureAndChain() throws {
        let sod = try #require(try files("rsa-pkcs1-sha256")[.sod])
        let report = PassiveAuthentication.verify(files: [.sod: sod], trust: try trust())
        #expect(report.passed)
        #expect(!report.hashesChecked)
        #expect(report.warnings.contains { $0.contains("not the hashes") })
    }

    @Test func everySingleByteChangeOfTheSODSignedPartsIsCaught() throws {
        // Every position of the SOD (signed or not): none may still pass.
        let dump = try files("ecdsa-p256-sha256")
        try #require(dump[.sod] != nil)
        let accepted = MutationTest.acceptedSingleByteChanges(of: .sod, in: dump, trust: try trust())
        #expect(accepted.isEmpty, "single-byte changes accepted at \(accepted)")
    }
}

@Suite struct ECDSASignatureForms {
    /// The same ECDSA signature must verify in DER form and as plain r‖s (BSI TR-03111).
    @Test func plainAndDERFormsVerify() throws {
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("pa/ecdsa-p256-sha256"))
        let sod = try SecurityObject(bytes: try #require(dump.files[.sod]))
        let cms = try CMSSignedData(contentInfo: sod.cms[...])
        let signer = cms.signers[0]
        let dsc = try Certificate(der: Array(cms.certificates[0]))
        let message = try #require(signer.signedAttributesForSignature)
        let der = signer.signature
        let parts = try TLV.parse(der).children()
        func fixed(_ v: ArraySlice<UInt8>) -> [UInt8] {
            let trimmed = Array(v.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
        }
        let plain = fixed(parts[0].value) + fixed(parts[1].value)
        #expect(SignatureScheme.ecdsa(.sha256, plain: false).verify(signature: der, message: message, certificate: dsc))
        #expect(SignatureScheme.ecdsa(.sha256, plain: true).verify(signature: plain, message: message, certificate: dsc))
        var broken = plain
        broken[40] ^= 1
        #expect(!SignatureScheme.ecdsa(.sha256, plain: true).verify(signature: broken, message: message, certificate: dsc))
        #expect(!SignatureScheme.ecdsa(.sha384, plain: false).verify(signature: der, message: message, certificate: dsc))
    }
}

/// The parts of a certificate its issuer signed, as the proving circuits take them.
@Suite struct CertificateSignedParts {
    static let pki = TestPaths.fixtures.appendingPathComponent("pki")

    @Test(arguments: [("TEST-ONLY-dsc-UTO.pem", "TEST-ONLY-csca-UTO.pem"), ("TEST-ONLY-dsc-UTO-p256.pem", "TEST-ONLY-csca-UTO.pem"),
                      ("TEST-ONLY-dsc-UTO-rsapss.pem", "TEST-ONLY-csca-UTO.pem"), ("TEST-ONLY-dsc-UTO-bp384.pem", "TEST-ONLY-csca-UTO-bp384.pem")])
    func issuerSignedTheTBSCertificate(dscFile: String, cscaFile: String) throws {
        let dsc = try Certificate.load(file: Self.pki.appendingPathComponent(dscFile))[0]
        let csca = try Certificate.load(file: Self.pki.appendingPathComponent(cscaFile))[0]
        let scheme = try SignatureScheme(dsc.signatureAlgorithm, digest: nil)
        #expect(scheme.verify(signature: dsc.signatureValue, message: dsc.tbsCertificateDER, certificate: csca))
        var altered = dsc.tbsCertificateDER
        altered[altered.count - 1] ^= 1
        #expect(!scheme.verify(signature: dsc.signatureValue, message: altered, certificate: csca))

        // The TBSCertificate comes first in the certificate and holds the subject's key.
        let tbs = dsc.tbsCertificateDER, keyInfo = dsc.subjectPublicKeyInfoDER
        #expect(try TLV.parse(dsc.der).children()[0].encoded.elementsEqual(tbs))
        #expect((0...(tbs.count - keyInfo.count)).contains { tbs[$0..<($0 + keyInfo.count)].elementsEqual(keyInfo) })
        let key = try PublicKey(subjectPublicKeyInfo: keyInfo)
        #expect(key.isEC == dsc.keyDescription.hasPrefix("EC"))
    }
}
