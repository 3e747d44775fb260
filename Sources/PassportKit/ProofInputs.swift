import ChipProtocols
import PassiveAuth
import PassportCrypto
import FoundationEssentials
import LDS
import MRZ
import Proving

/// Turns a dump that passed passive authentication into the witnesses of zkPassport's proof
/// chain: the SOD's pieces, the Document Signer certificate, the CSCA the chain check chose,
/// and a certificate registry of the trusted CSCAs.
enum ProofInputs {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func chain(dump: DumpFolder, dg1: [UInt8], report: PassiveAuthenticationReport, trust: TrustStore,
                      now: Date, minimumAge: Int = 18) throws -> ZKPassportChain {
        let document = try proofData(dump: dump, dg1: dg1, report: report)
        let country = String(decoding: try ZKPassportCommitments.issuingCountry(fromDG1: dg1), as: UTF8.self)
        let registry = try self.registry(trust: trust, documentCSCA: document.csca, documentCountry: country)
        return try ZKPassportChain(document: document, registry: registry, currentDate: now, minimumAge: minimumAge)
    }

    static func proofData(dump: DumpFolder, dg1: [UInt8], report: PassiveAuthenticationReport) throws -> PassportProofData {
        guard let sodBytes = dump.files[.sod] else { throw Failure("the dump has no EF.SOD") }
        let sod = try SecurityObject(bytes: sodBytes)
        let cms = try CMSSignedData(contentInfo: sod.cms[...])
        guard let signer = cms.signers.first else { throw Failure("EF.SOD has no SignerInfo") }
        guard let signedAttributes = signer.signedAttributesForSignature else {
            throw Failure("EF.SOD's SignerInfo has no signed attributes, which the circuits need")
        }
        guard let dg2Hash = sod.dataGroupHashes[2] else { throw Failure("EF.SOD lists no DG2 hash") }
        guard let sodScheme = report.sodSignatureScheme else { throw Failure("the EF.SOD signature was not verified") }
        guard let documentSigner = report.documentSigner?.der, let csca = report.csca?.der else {
            throw Failure("passive authentication named no Document Signer or CSCA")
        }
        guard let dataGroupHash = sod.hashAlgorithm, let signedAttributesHash = DigestAlgorithm(oid: signer.digestAlgorithmOID) else {
            throw Failure("EF.SOD names a hash algorithm the circuits do not take")
        }
        let dscScheme = try SignatureScheme(try Certificate(der: documentSigner).signatureAlgorithm, digest: nil)
        return PassportProofData(
            dg1: dg1, eContent: sod.content, signedAttributes: signedAttributes, signedAttributesHash: signedAttributesHash,
            dataGroupHash: dataGroupHash, dg2Hash: dg2Hash, sodSignature: signer.signature, sodScheme: try circuitScheme(sodScheme),
            documentSigner: documentSigner, documentSignerScheme: try circuitScheme(dscScheme),
            csca: try CircuitPublicKey(certificate: try Certificate(der: csca)))
    }

    /// Every trusted CSCA whose key a circuit can take, under its state's three-letter code, and
    /// the document's CSCA under the DG1 issuing state (the circuits compare the two).
    static func registry(trust: TrustStore, documentCSCA: CircuitPublicKey, documentCountry: String) throws -> CertificateRegistry {
        var entries = [CertificateRegistry.Entry(country: documentCountry, key: documentCSCA)]
        for certificate in trust.cscas {
            guard let country = certificate.subject.country.flatMap(CountryCodes.alpha3(fromCertificateCountry:)),
                  let key = try? CircuitPublicKey(certificate: certificate) else { continue }
            entries.append(CertificateRegistry.Entry(country: country, key: key))
        }
        return try CertificateRegistry(entries)
    }

    static func circuitScheme(_ scheme: SignatureScheme) throws -> CircuitSignatureScheme {
        switch scheme {
        case .rsaPKCS1(let digest): return .rsaPKCS1(digest)
        case .rsaPSS(let digest, let mgf, let saltLength):
            guard mgf == digest else { throw Failure("RSA-PSS with MGF1-\(mgf.rawValue) and \(digest.rawValue): no circuit takes mixed hashes") }
            return .rsaPSS(digest, saltLength: saltLength)
        case .ecdsa(let digest, _): return .ecdsa(digest)
        case .dsa: throw Failure("DSA: no circuit takes DSA signatures")
        }
    }
}
