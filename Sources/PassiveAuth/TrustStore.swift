import LocalFiles
import FoundationEssentials
import Synchronization
import LDS

/// Trust anchors for passive authentication: CSCA certificates (from ICAO master lists, files
/// or folders, link certificates included) and CRLs. Every CSCA here is trusted as an anchor.
public final class TrustStore: @unchecked Sendable {
    /// CSCAs added in memory (files, master lists), in the order added (duplicates are kept).
    private var memoryCSCAs: [Certificate] = [] { didSet { forgetLookups() } }
    private var memoryCRLs: [RevocationList] = [] { didSet { forgetLookups() } }
    /// Indexed stores on disk, read on demand.
    public private(set) var directories: [TrustDirectory] = [] { didSet { forgetLookups() } }
    /// Every trusted CSCA (those of trust directories parsed now: for what needs them all).
    public var cscas: [Certificate] { memoryCSCAs + directories.flatMap { $0.allCSCAs() } }
    /// CRLs; one counts for a CSCA only when that CSCA signed it.
    public var crls: [RevocationList] { memoryCRLs + directories.flatMap { $0.allCRLs() } }
    /// What was loaded from where, and master-list signature results, for reports.
    public private(set) var notes: [String] = []

    /// CRL signature results per (CRL, CSCA): a CRL is checked once, not once per passport.
    private let crlSignatureCache = Mutex<[SignedPair: Bool]>([:])
    /// Document Signer signature results per (DSC, CSCA): in a batch, the passports of one DSC
    /// (thousands for one state and period) check its signature once. Keyed by the two
    /// certificates' identities, not by hashing the DSC's DER again: EF.SOD's certificates are
    /// parsed once per DER (`Certificate.fromSecurityObject`), each entry keeps its DSC alive so
    /// that no other certificate can take its identity, and this store keeps every CSCA it hands
    /// out. Bounded, as that parse cache is.
    private let dscSignatureCache = Mutex<[SignedPair: (dsc: Certificate, signed: Bool)]>([:])

    /// A signed object (DSC, CRL) and its supposed signer, by identity.
    private struct SignedPair: Hashable {
        let signed: Swift.ObjectIdentifier
        let signer: Swift.ObjectIdentifier
    }

    /// The CSCAs that may have issued a DSC and the CRLs of a CSCA, per certificate identity
    /// (each entry keeps its certificate alive, as `dscSignatureCache` does): finding them
    /// compares names with every CSCA and CRL of the store, for every dump of a batch. Forgotten
    /// whenever an anchor or CRL is added.
    private let issuingCSCAs = Mutex<[Swift.ObjectIdentifier: (dsc: Certificate, cscas: [Certificate])]>([:])
    private let cscaCRLs = Mutex<[Swift.ObjectIdentifier: (csca: Certificate, crls: [RevocationList])]>([:])

    private func forgetLookups() {
        issuingCSCAs.withLock { $0.removeAll() }
        cscaCRLs.withLock { $0.removeAll() }
    }

    public init() {}

    func crl(_ crl: RevocationList, isSignedBy csca: Certificate) -> Bool {
        // Both are kept by this store (and its directories), so their identities name them for its life.
        let key = SignedPair(signed: Swift.ObjectIdentifier(crl), signer: Swift.ObjectIdentifier(csca))
        if let known = crlSignatureCache.withLock({ $0[key] }) { return known }
        let result = crl.isSigned(by: csca)
        crlSignatureCache.withLock { $0[key] = result }
        return result
    }

    func certificate(_ dsc: Certificate, isSignedBy csca: Certificate) -> Bool {
        let key = SignedPair(signed: Swift.ObjectIdentifier(dsc), signer: Swift.ObjectIdentifier(csca))
        if let known = dscSignatureCache.withLock({ $0[key] }) { return known.signed }
        let result = dsc.isSigned(by: csca)
        dscSignatureCache.withLock { cache in
            if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
            cache[key] = (dsc, result)
        }
        return result
    }

    /// `$XDG_CONFIG_HOME/passport/trust` or `~/.config/passport/trust`: master lists (.ml),
    /// CSCA certificates (.der/.cer/.crt/.pem) and CRLs (.crl) put there are always loaded.
    public static var defaultFolder: URL {
        XDGDirectories.configHome().appendingPathComponent("passport/trust")
    }

    /// True while no CSCA has been added: every chain check then fails with "no trusted CSCA".
    public var isEmpty: Bool { memoryCSCAs.isEmpty && directories.allSatisfy(\.catalog.countries.isEmpty) }

    /// Adds CSCA certificates from a file (DER or PEM) or every certificate, master list and
    /// CRL in a folder.
    public func addCSCA(at url: URL) throws {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PassiveAuthenticationError.fileNotFound(url.path)
        }
        if isDirectory {
            try addFolder(url)
        } else {
            let certificates = try Certificate.load(file: url)
            memoryCSCAs += certificates
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
        memoryCRLs += try RevocationList.load(file: url)
    }

    /// Loads an ICAO CSCA master list (CMS SignedData over CscaMasterList). Its own signature is
    /// always checked and must hold; the signer is then checked against `signerRoots` when given.
    @discardableResult
    public func addMasterList(at url: URL, signerRoots: [Certificate] = []) throws -> Int {
        guard FileManager.default.fileExists(atPath: url.path) else { throw PassiveAuthenticationError.fileNotFound(url.path) }
        let list = try VerifiedMasterList(bytes: [UInt8](try Data(contentsOf: url)), name: url.lastPathComponent)
        let note = try TrustStore.masterListNote(list, signerRoots: signerRoots)
        memoryCSCAs += list.cscas
        notes.append(note)
        return list.cscas.count
    }

    /// What a report says about a master list loaded for one run; throws when `signerRoots`
    /// are given and none of them issued the list's signer.
    static func masterListNote(_ list: VerifiedMasterList, signerRoots: [Certificate]) throws -> String {
        var note = "\(list.cscas.count) CSCA certificates from master list \(list.name) (signature verified, signed by \(list.signer.subject)"
        if !signerRoots.isEmpty {
            guard signerRoots.contains(where: { list.signer.isSigned(by: $0) }) else {
                throw PassiveAuthenticationError.badMasterList(list.name, "its signer \(list.signer.subject) is not issued by the given master-list signer root")
            }
            note += ", anchored in the given signer root)"
        } else {
            note += "; signer not anchored: give its root with --masterlist-signer)"
        }
        if list.skipped > 0 { note += "; \(list.skipped) unreadable certificate(s) skipped" }
        return note
    }

    /// Adds a master list already checked (the cache's fallback when it cannot write).
    func add(verified list: VerifiedMasterList, note: String) {
        memoryCSCAs += list.cscas
        notes.append(note)
    }

    // MARK: Indexed stores (the user's trust directory, cached master lists)

    /// Adds a trust directory: its certificates are read only when a verification needs them.
    public func add(directory: TrustDirectory, note: String? = nil) {
        directories.append(directory)
        notes.append(note ?? directory.summary)
    }

    /// Trusted CSCAs that may have issued `dsc`: subject = its issuer, or SKI = its AKI.
    public func cscas(issuing dsc: Certificate) -> [Certificate] {
        let key = Swift.ObjectIdentifier(dsc)
        if let known = issuingCSCAs.withLock({ $0[key] }) { return known.cscas }
        let found = findCSCAs(issuing: dsc)
        issuingCSCAs.withLock { cache in
            if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
            cache[key] = (dsc, found)
        }
        return found
    }

    private func findCSCAs(issuing dsc: Certificate) -> [Certificate] {
        let inMemory = memoryCSCAs.filter { candidate in
            candidate.subject.matches(dsc.issuer)
                || (dsc.authorityKeyIdentifier != nil && candidate.subjectKeyIdentifier == dsc.authorityKeyIdentifier)
        }
        let all = inMemory + directories.flatMap { $0.cscas(issuer: dsc.issuer, authorityKeyIdentifier: dsc.authorityKeyIdentifier) }
        // The key identifier names the signing key among same-named CSCAs (rollovers).
        let byKey = all.filter { dsc.authorityKeyIdentifier != nil && $0.subjectKeyIdentifier == dsc.authorityKeyIdentifier }
        return byKey.isEmpty ? all : byKey
    }

    /// CRLs issued under `csca`'s subject.
    public func crls(issuedBy csca: Certificate) -> [RevocationList] {
        let key = Swift.ObjectIdentifier(csca)
        if let known = cscaCRLs.withLock({ $0[key] }) { return known.crls }
        let found = memoryCRLs.filter { $0.issuer.matches(csca.subject) } + directories.flatMap { $0.crls(issuer: csca.subject) }
        cscaCRLs.withLock { cache in
            if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
            cache[key] = (csca, found)
        }
        return found
    }

    /// Stored Document Signer certificates `signer` names (for an EF.SOD that carries none).
    public func documentSigners(for signer: SignerInfo) -> [Certificate] {
        directories.flatMap { $0.documentSigners(for: signer) }
    }
}
