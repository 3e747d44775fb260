import Foundation
import LDS

/// Trust anchors for passive authentication: CSCA certificates (from ICAO master lists, files
/// or folders, link certificates included) and CRLs. Every CSCA here is trusted as an anchor.
public final class TrustStore: @unchecked Sendable {
    /// Every trusted CSCA, in the order added (duplicates are kept).
    public private(set) var cscas: [Certificate] = []
    /// CRLs; one counts for a CSCA only when that CSCA signed it.
    public private(set) var crls: [RevocationList] = []
    /// What was loaded from where, and master-list signature results, for reports.
    public private(set) var notes: [String] = []

    /// CRL signature results per (CRL, CSCA): a CRL is checked once, not once per passport.
    private var crlSignatureCache: [String: Bool] = [:]
    private let lock = NSLock()

    public init() {}

    func crl(_ crl: RevocationList, isSignedBy csca: Certificate) -> Bool {
        let key = "\(Swift.ObjectIdentifier(crl).hashValue)-\(Swift.ObjectIdentifier(csca).hashValue)"
        lock.lock()
        if let known = crlSignatureCache[key] { lock.unlock(); return known }
        lock.unlock()
        let result = crl.isSigned(by: csca)
        lock.lock()
        crlSignatureCache[key] = result
        lock.unlock()
        return result
    }

    /// `$XDG_CONFIG_HOME/passport/trust` or `~/.config/passport/trust`: master lists (.ml),
    /// CSCA certificates (.der/.cer/.crt/.pem) and CRLs (.crl) put there are always loaded.
    public static var defaultFolder: URL {
        let env = ProcessInfo.processInfo.environment
        let config = env["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: env["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return config.appendingPathComponent("passport/trust")
    }

    /// True while no CSCA has been added: every chain check then fails with "no trusted CSCA".
    public var isEmpty: Bool { cscas.isEmpty }

    /// Adds CSCA certificates from a file (DER or PEM) or every certificate, master list and
    /// CRL in a folder.
    public func addCSCA(at url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PassiveAuthenticationError.fileNotFound(url.path)
        }
        if isDirectory.boolValue {
            try addFolder(url)
        } else {
            let certificates = try Certificate.load(file: url)
            cscas += certificates
            notes.append("\(certificates.count) CSCA certificate(s) from \(url.lastPathComponent)")
        }
    }

    /// Adds every master list (.ml), CRL (.crl) and certificate (.der, .cer, .crt, .pem) in the
    /// folder, by extension; other files and hidden ones are skipped.
    public func addFolder(_ url: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        for name in names where !name.hasPrefix(".") {
            let file = url.appendingPathComponent(name)
            switch file.pathExtension.lowercased() {
            case "ml": try addMasterList(at: file)
            case "crl": try addCRL(at: file)
            case "der", "cer", "crt", "pem": try addCSCA(at: file)
            default: continue
            }
        }
    }

    /// Adds the CRLs of a file (DER or PEM). Their signatures are checked when a chain uses them.
    public func addCRL(at url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw PassiveAuthenticationError.fileNotFound(url.path) }
        crls += try RevocationList.load(file: url)
    }

    /// Loads an ICAO CSCA master list (CMS SignedData over CscaMasterList). Its own signature is
    /// always checked and must hold; the signer is then checked against `signerRoots` when given.
    @discardableResult
    public func addMasterList(at url: URL, signerRoots: [Certificate] = []) throws -> Int {
        guard FileManager.default.fileExists(atPath: url.path) else { throw PassiveAuthenticationError.fileNotFound(url.path) }
        let name = url.lastPathComponent
        let bytes = [UInt8](try Data(contentsOf: url))
        let cms: CMSSignedData
        do { cms = try CMSSignedData(contentInfo: bytes[...]) } catch {
            throw PassiveAuthenticationError.badMasterList(name, "not a CMS SignedData (\(error))")
        }
        guard cms.contentType == "2.23.136.1.1.2", let content = cms.content else {
            throw PassiveAuthenticationError.badMasterList(name, "content type \(cms.contentType) is not id-icao-cscaMasterList")
        }
        let signer = cms.signers[0]
        let embedded = try cms.certificates.map { try Certificate(der: $0, source: name) }
        guard let signerCertificate = embedded.first(where: signer.identifies) else {
            throw PassiveAuthenticationError.badMasterList(name, "its signer certificate is not included, so its signature cannot be checked")
        }
        _ = try CMSVerifier.verifySignerInfo(signer, content: content, contentType: cms.contentType, certificate: signerCertificate)
            .get(orThrow: { PassiveAuthenticationError.badMasterList(name, $0) })

        // CscaMasterList ::= SEQUENCE { version INTEGER, certList SET OF Certificate }
        let list = try TLV.parse(content).children()
        guard list.count == 2, list[1].tag == 0x31 else {
            throw PassiveAuthenticationError.badMasterList(name, "malformed CscaMasterList")
        }
        var loaded: [Certificate] = []
        var skipped = 0
        for entry in try list[1].children() {
            if let certificate = try? Certificate(der: Array(entry.encoded), source: name) { loaded.append(certificate) } else { skipped += 1 }
        }
        cscas += loaded
        var note = "\(loaded.count) CSCA certificates from master list \(name) (signature verified, signed by \(signerCertificate.subject)"
        if !signerRoots.isEmpty {
            guard signerRoots.contains(where: { signerCertificate.isSigned(by: $0) }) else {
                throw PassiveAuthenticationError.badMasterList(name, "its signer \(signerCertificate.subject) is not issued by the given master-list signer root")
            }
            note += ", anchored in the given signer root)"
        } else {
            note += "; signer not anchored: give its root with --masterlist-signer)"
        }
        if skipped > 0 { note += "; \(skipped) unreadable certificate(s) skipped" }
        notes.append(note)
        return loaded.count
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
