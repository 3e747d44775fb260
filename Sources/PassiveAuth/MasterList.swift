import FoundationEssentials
import LDS

/// An ICAO CSCA master list (ICAO 9303-12 §9: CMS SignedData over CscaMasterList) whose own
/// signature has been checked, with the CSCAs it carries.
public struct VerifiedMasterList: Sendable {
    public let name: String
    public let cscas: [Certificate]
    public let signer: Certificate
    /// Entries of the list that are not readable certificates (skipped, reported).
    public let skipped: Int

    /// The issuing state: the signer's country.
    public var country: String { (signer.subject.country ?? signer.issuer.country ?? "").uppercased() }

    /// Parses the list and checks its CMS signature with the signer certificate it embeds.
    /// Whether that signer is anchored is the caller's decision (`anchor(in:)`).
    public init(bytes: [UInt8], name: String) throws {
        self.name = name
        let cms: CMSSignedData
        do { cms = try CMSSignedData(contentInfo: bytes[...]) } catch {
            throw PassiveAuthenticationError.badMasterList(name, "not a CMS SignedData (\(error))")
        }
        guard cms.contentType == "2.23.136.1.1.2", let content = cms.content else {
            throw PassiveAuthenticationError.badMasterList(name, "content type \(cms.contentType) is not id-icao-cscaMasterList")
        }
        let signerInfo = cms.signers[0]
        let embedded = cms.certificates.compactMap { try? Certificate(der: Array($0), source: name) }
        guard let signer = embedded.first(where: signerInfo.identifies) else {
            throw PassiveAuthenticationError.badMasterList(name, "its signer certificate is not included, so its signature cannot be checked")
        }
        _ = try CMSVerifier.verifySignerInfo(signerInfo, content: content, contentType: cms.contentType, certificate: signer)
            .get(orThrow: { PassiveAuthenticationError.badMasterList(name, $0) })
        self.signer = signer
        // CscaMasterList ::= SEQUENCE { version INTEGER, certList SET OF Certificate }
        let list: [TLV]
        do { list = try TLV.parse(content).children() } catch {
            throw PassiveAuthenticationError.badMasterList(name, "malformed CscaMasterList (\(error))")
        }
        guard list.count == 2, list[1].tag == 0x31 else {
            throw PassiveAuthenticationError.badMasterList(name, "malformed CscaMasterList")
        }
        var loaded: [Certificate] = []
        var skipped = 0
        for entry in try list[1].children() {
            if let certificate = try? Certificate(der: Array(entry.encoded), source: name) { loaded.append(certificate) } else { skipped += 1 }
        }
        cscas = loaded
        self.skipped = skipped
    }

    /// How the list's signer chains to a trusted certificate, checked by signature: a given
    /// signer root, a CSCA already trusted, or a CSCA of the list itself (the issuing state's
    /// CSCA certifies its master list signer, ICAO 9303-12 §9). nil when none signed it.
    public func anchor(roots: [Certificate], trusted: [Certificate]) -> String? {
        if let root = roots.first(where: { signer.isSigned(by: $0) }) { return "signer root \(root.subject)" }
        if let csca = trusted.first(where: { signer.isSigned(by: $0) }) { return "trusted CSCA \(csca.subject)" }
        let issuers = cscas.filter { $0.subject.matches(signer.issuer) }
        if let csca = issuers.first(where: { signer.isSigned(by: $0) && $0.isCA }) { return "its own CSCA \(csca.subject)" }
        return nil
    }
}

extension Result where Failure == PassiveAuthenticationError.Reason {
    func get(orThrow make: (String) -> PassiveAuthenticationError) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let reason): throw make(reason.message)
        }
    }
}
