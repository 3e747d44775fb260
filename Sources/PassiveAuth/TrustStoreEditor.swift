import FoundationEssentials
import LDS

/// What an import or removal did to one file's worth of trust material.
public struct TrustChange: Sendable, Codable, Equatable {
    public var file: String
    /// ldif, master_list, certificates, crls, removal
    public var kind: String
    public var masterLists = 0
    public var cscas = 0
    public var dscs = 0
    public var crls = 0
    /// Objects already in the store (their origins merged).
    public var merged = 0
    /// Objects taken out (LDIF delta deletes, `trust remove`).
    public var removed = 0
    public init(file: String, kind: String) {
        self.file = file
        self.kind = kind
    }
    enum CodingKeys: String, CodingKey {
        case file, kind, cscas, dscs, crls, merged, removed
        case masterLists = "master_lists"
    }
}

/// Changes a trust directory all-or-nothing: every file is read, checked and applied to a
/// snapshot in memory; `commit()` writes it only when all of them succeeded.
///
/// Rules: a master list is accepted only when its CMS signature verifies and its signer is
/// issued by a given signer root, a CSCA already trusted, or a CSCA of the list itself. A
/// certificate file given directly is a CSCA when it is a CA certificate, a DSC otherwise; in
/// an LDIF download `userCertificate` values are DSCs (never anchors), `cACertificate` values
/// CSCAs (what `trust export` writes). CRL signatures are checked when a verification uses them.
public final class TrustStoreEditor {
    public let url: URL
    let signerRoots: [Certificate]
    let existing: TrustDirectory?
    var snapshot: TrustSnapshot
    var objects: [String: [UInt8]] = [:]
    public private(set) var changes: [TrustChange] = []

    public init(store url: URL, signerRoots: [Certificate] = []) throws {
        self.url = url
        self.signerRoots = signerRoots
        existing = try TrustDirectory.open(url)
        snapshot = existing.map(TrustSnapshot.init) ?? TrustSnapshot()
    }

    public func commit() throws {
        try TrustDirectory.commit(snapshot, objects: objects, to: url)
    }

    // MARK: Import

    /// Reads one file of any accepted kind (LDIF, master list, certificates, CRLs; DER or PEM).
    public func importFile(_ file: URL) throws {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw TrustStoreError.unreadable(file: file.path, why: "it does not exist or cannot be read")
        }
        try importBytes([UInt8](data), name: file.lastPathComponent)
    }

    public func importBytes(_ bytes: [UInt8], name: String) throws {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if name.lowercased().hasSuffix(".ldif") || TrustStoreEditor.looksLikeLDIF(head) {
            try importLDIF(bytes, file: name)
        } else if head.contains("-----BEGIN") {
            try importPEM(bytes, file: name)
        } else {
            try importDER(bytes, file: name)
        }
    }

    static func looksLikeLDIF(_ head: String) -> Bool {
        let first = head.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty }?.lowercased() ?? ""
        return first.hasPrefix("version:") || first.hasPrefix("dn:")
    }

    func importPEM(_ bytes: [UInt8], file: String) throws {
        var change = TrustChange(file: file, kind: "certificates")
        do {
            let certificates = try PEM.blocks(in: bytes, label: "CERTIFICATE").map { try Certificate(der: $0, source: file) }
            let crls = try PEM.blocks(in: bytes, label: "X509 CRL").map { ($0, try RevocationList(der: $0, source: file)) }
            guard !certificates.isEmpty || !crls.isEmpty else { throw TrustStoreError.unreadable(file: file, why: "no CERTIFICATE or X509 CRL block in it") }
            for certificate in certificates { add(certificate, kind: certificate.isCA ? .csca : .dsc, origin: file, dn: nil, &change) }
            for (der, crl) in crls { add(crl, der: der, origin: file, dn: nil, &change) }
        } catch let error as TrustStoreError { throw error } catch {
            throw TrustStoreError.unreadable(file: file, why: String(describing: error))
        }
        changes.append(change)
    }

    func importDER(_ bytes: [UInt8], file: String) throws {
        if TrustStoreEditor.isSignedData(bytes) {
            var change = TrustChange(file: file, kind: "master_list")
            try addMasterList(bytes, name: file, source: file, dn: nil, &change)
            changes.append(change)
        } else if let certificate = try? Certificate(der: bytes, source: file) {
            var change = TrustChange(file: file, kind: "certificates")
            add(certificate, kind: certificate.isCA ? .csca : .dsc, origin: file, dn: nil, &change)
            changes.append(change)
        } else if let crl = try? RevocationList(der: bytes, source: file) {
            var change = TrustChange(file: file, kind: "crls")
            add(crl, der: bytes, origin: file, dn: nil, &change)
            changes.append(change)
        } else {
            throw TrustStoreError.unreadable(file: file, why: "it is neither LDIF, a master list, a certificate nor a CRL (DER or PEM)")
        }
    }

    /// A ContentInfo of type signedData (what a master list file is).
    static func isSignedData(_ bytes: [UInt8]) -> Bool {
        guard let outer = try? TLV.parse(bytes), outer.tag == 0x30, let first = try? outer.children().first,
              first.tag == 0x06, let oid = try? ObjectIdentifier.dotted(first.value) else { return false }
        return oid == "1.2.840.113549.1.7.2"
    }

    // MARK: Adding

    func addMasterList(_ bytes: [UInt8], name: String, source: String, dn: String?, _ change: inout TrustChange) throws {
        let list: VerifiedMasterList
        do { list = try VerifiedMasterList(bytes: bytes, name: name) } catch PassiveAuthenticationError.badMasterList(_, let why) {
            throw TrustStoreError.refusedMasterList(name: name, why: why)
        }
        guard let anchor = list.anchor(roots: signerRoots, trusted: trustedCSCAs(named: list.signer.issuer)) else {
            throw TrustStoreError.refusedMasterList(name: name, why: "its signer \(list.signer.subject) is issued by no given --signer-root, no CSCA in the store and no CSCA of the list itself")
        }
        record(list, bytes: bytes, source: source, dn: dn, anchor: anchor, &change)
    }

    /// Adds a master list whose signature and anchor were checked, with its CSCAs.
    func record(_ list: VerifiedMasterList, bytes: [UInt8], source: String, dn: String?, anchor: String, _ change: inout TrustChange) {
        let sha = TrustEntry.fingerprint(bytes)
        if let position = snapshot.catalog.masterLists.firstIndex(where: { $0.sha256 == sha }) {
            snapshot.catalog.masterLists[position].dns = union(snapshot.catalog.masterLists[position].dns, dn.map { [$0] } ?? [])
            change.merged += 1
            return
        }
        snapshot.catalog.masterLists.append(MasterListEntry(
            sha256: sha, source: source, country: list.country, signer: list.signer.subject.description, anchor: anchor,
            cscas: list.cscas.count, importedAt: Date(), dns: dn.map { [$0] } ?? []))
        objects[sha] = bytes
        change.masterLists += 1
        for csca in list.cscas { add(csca, kind: .csca, origin: "ml:\(sha)", dn: nil, &change) }
    }

    /// CSCAs in the snapshot (stored or added by this import) whose subject is `name`.
    func trustedCSCAs(named name: DistinguishedName) -> [Certificate] {
        let key = name.indexKey
        return snapshot.countries[TrustEntry.country(name)]?.certificates
            .filter { $0.kind == .csca && $0.subjectKey == key }
            .compactMap { entry in
                if let der = objects[entry.sha256] { return try? Certificate(der: der, source: "store") }
                return existing?.certificate(entry)
            } ?? []
    }

    func add(_ certificate: Certificate, kind: TrustEntry.Kind, origin: String, dn: String?, _ change: inout TrustChange) {
        let entry = TrustEntry(certificate, kind: kind, origin: origin, dn: dn)
        var index = snapshot.countries[entry.country] ?? CountryIndex()
        if let position = index.certificates.firstIndex(where: { $0.sha256 == entry.sha256 }) {
            index.certificates[position].origins = union(index.certificates[position].origins, entry.origins)
            index.certificates[position].dns = union(index.certificates[position].dns, entry.dns)
            if kind == .csca { index.certificates[position].kind = .csca } // an anchor decision wins over "DSC"
            change.merged += 1
        } else {
            index.certificates.append(entry)
            objects[entry.sha256] = certificate.der
            if kind == .csca { change.cscas += 1 } else { change.dscs += 1 }
        }
        snapshot.countries[entry.country] = index
    }

    func add(_ crl: RevocationList, der: [UInt8], origin: String, dn: String?, _ change: inout TrustChange) {
        let entry = CRLEntry(crl, der: der, origin: origin, dn: dn)
        var index = snapshot.countries[entry.country] ?? CountryIndex()
        if let position = index.crls.firstIndex(where: { $0.sha256 == entry.sha256 }) {
            index.crls[position].origins = union(index.crls[position].origins, entry.origins)
            index.crls[position].dns = union(index.crls[position].dns, entry.dns)
            change.merged += 1
        } else {
            index.crls.append(entry)
            objects[entry.sha256] = der
            change.crls += 1
        }
        snapshot.countries[entry.country] = index
    }

    func union(_ a: [String], _ b: [String]) -> [String] { a + b.filter { !a.contains($0) } }

    // MARK: LDIF (ICAO PKD download: icaopkd-001 DSCs and CRLs, icaopkd-002 master lists)

    func importLDIF(_ bytes: [UInt8], file: String) throws {
        let records: [LDIFRecord]
        do { records = try LDIFParser.parse(bytes, file: file) } catch let error as LDIFError { throw TrustStoreError.ldif(error) }
        var change = TrustChange(file: file, kind: "ldif")
        for record in records { try apply(record, file: file, &change) }
        changes.append(change)
    }

    func apply(_ record: LDIFRecord, file: String, _ change: inout TrustChange) throws {
        switch record.changeType {
        case nil, .add?:
            for (name, value) in record.attributes {
                try addValue(name, value, dn: record.dn, file: file, &change)
            }
        case .delete?:
            remove(dn: record.dn, &change)
        case .modify?:
            for modification in record.modifications where TrustStoreEditor.isPayload(modification.attribute) {
                if modification.operation != .add { remove(dn: record.dn, &change) }
                for value in modification.values where modification.operation != .delete {
                    try addValue(modification.attribute, value, dn: record.dn, file: file, &change)
                }
            }
        case .modrdn?, .moddn?:
            throw TrustStoreError.ldif(LDIFError(file: file, line: record.line, reason: "changetype \(record.changeType!.rawValue) is not supported in a trust import"))
        }
    }

    static let payloadAttributes: Set<String> = [
        "pkdmasterlistcontent", "usercertificate", "usercertificate;binary", "cacertificate", "cacertificate;binary",
        "certificaterevocationlist", "certificaterevocationlist;binary",
    ]
    static func isPayload(_ attribute: String) -> Bool { payloadAttributes.contains(attribute.lowercased()) }

    /// One attribute value of an entry; attributes that carry no trust material are ignored.
    func addValue(_ attribute: String, _ value: LDIFValue, dn: String, file: String, _ change: inout TrustChange) throws {
        func bad(_ what: String, _ error: Error) -> TrustStoreError {
            .ldif(LDIFError(file: file, line: value.line, reason: "the \(attribute) value of \(dn) is not a readable \(what): \(error)"))
        }
        switch attribute.lowercased() {
        case "pkdmasterlistcontent":
            try addMasterList(value.bytes, name: "\(file) line \(value.line)", source: file, dn: dn, &change)
        case "usercertificate", "usercertificate;binary", "cacertificate", "cacertificate;binary":
            let certificate: Certificate
            do { certificate = try Certificate(der: value.bytes, source: file) } catch { throw bad("certificate", error) }
            add(certificate, kind: attribute.lowercased().hasPrefix("ca") ? .csca : .dsc, origin: file, dn: dn, &change)
        case "certificaterevocationlist", "certificaterevocationlist;binary":
            let crl: RevocationList
            do { crl = try RevocationList(der: value.bytes, source: file) } catch { throw bad("CRL", error) }
            add(crl, der: value.bytes, origin: file, dn: dn, &change)
        default:
            return
        }
    }

    // MARK: Removing

    /// Everything imported under a distinguished name (an LDIF delta's delete).
    func remove(dn: String, _ change: inout TrustChange) {
        let wanted = dn.lowercased()
        let lists = snapshot.catalog.masterLists.filter { $0.dns.contains { $0.lowercased() == wanted } }.map(\.sha256)
        change.removed += removeEntries { entry in entry.dns.contains { $0.lowercased() == wanted } }
        for sha in lists { change.removed += removeMasterList(sha) }
    }

    /// Drops matching certificates and CRLs; returns how many.
    func removeEntries(where matches: (_ entry: (dns: [String], origins: [String], sha256: String, country: String)) -> Bool) -> Int {
        var removed = 0
        for (country, var index) in snapshot.countries {
            let before = index.certificates.count + index.crls.count
            index.certificates.removeAll { matches(($0.dns, $0.origins, $0.sha256, $0.country)) }
            index.crls.removeAll { matches(($0.dns, $0.origins, $0.sha256, $0.country)) }
            removed += before - index.certificates.count - index.crls.count
            snapshot.countries[country] = index
        }
        return removed
    }

    /// A master list and the CSCAs only it carried.
    func removeMasterList(_ sha: String) -> Int {
        snapshot.catalog.masterLists.removeAll { $0.sha256 == sha }
        let origin = "ml:\(sha)"
        var removed = 1
        for (country, var index) in snapshot.countries {
            for position in index.certificates.indices { index.certificates[position].origins.removeAll { $0 == origin } }
            let before = index.certificates.count
            index.certificates.removeAll { $0.origins.isEmpty }
            removed += before - index.certificates.count
            snapshot.countries[country] = index
        }
        return removed
    }

    /// What `trust remove` takes out: everything, a country, what came from a source file, or
    /// one object by its SHA-256. Returns the number of objects removed.
    public enum Selection: Sendable {
        case all
        case country(String)
        case source(String)
        case fingerprint(String)
    }

    @discardableResult
    public func remove(_ selection: Selection) -> Int {
        var change = TrustChange(file: "", kind: "removal")
        switch selection {
        case .all:
            change.file = "everything"
            change.removed = snapshot.objectNames.count
            snapshot = TrustSnapshot()
        case .country(let code):
            change.file = "country \(code.uppercased())"
            change.removed = removeEntries { $0.country == code.uppercased() }
            for list in snapshot.catalog.masterLists where list.country == code.uppercased() { change.removed += removeMasterList(list.sha256) }
        case .source(let name):
            change.file = name
            for list in snapshot.catalog.masterLists where list.source == name { change.removed += removeMasterList(list.sha256) }
            for (country, var index) in snapshot.countries {
                for position in index.certificates.indices { index.certificates[position].origins.removeAll { $0 == name } }
                for position in index.crls.indices { index.crls[position].origins.removeAll { $0 == name } }
                snapshot.countries[country] = index
            }
            change.removed += removeEntries { $0.origins.isEmpty }
        case .fingerprint(let sha):
            change.file = sha
            let wanted = sha.lowercased()
            change.removed = removeEntries { $0.sha256 == wanted }
            if snapshot.catalog.masterLists.contains(where: { $0.sha256 == wanted }) { change.removed += removeMasterList(wanted) }
        }
        changes.append(change)
        return change.removed
    }
}
