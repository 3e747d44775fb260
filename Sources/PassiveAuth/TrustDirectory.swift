import FoundationEssentials
import Glibc
import TextSupport
import LDS
import JSONCore
import Synchronization
import LocalFiles

/// A trust store on disk with an index, so that a verification reads and parses only the
/// certificates it needs and never re-checks a master list signature checked on import.
///
///     CURRENT                  name of the live generation (replaced by rename: atomic)
///     gen-UUID/catalog.json    master lists (how each was verified) and the countries present
///     gen-UUID/countries/DE.json  DE's CSCAs, DSCs and CRLs: subject, SKI, serial, validity, origins
///     objects/SHA256           the DER of every certificate, CRL and master list, by content
///
/// A change writes new objects, then a whole new generation, then swaps `CURRENT`: an import
/// that fails half-way leaves the store as it was (orphan objects are collected on the next change).
public final class TrustDirectory: @unchecked Sendable {
    public let url: URL
    let generation: URL
    let catalog: TrustCatalog
    private let loadedIndexes = Mutex<[String: CountryIndex]>([:])
    private let parsed = Mutex<[String: Certificate]>([:])
    private let parsedCRLs = Mutex<[String: RevocationList]>([:])

    static let currentName = "CURRENT"

    /// Opens the store at `url`; nil when there is none (no `CURRENT`).
    /// `sourcePrefix` goes before the origin in each certificate's `source` (reports).
    public static func open(_ url: URL, sourcePrefix: String = "trust store: ") throws -> TrustDirectory? {
        let current = url.appendingPathComponent(currentName)
        guard let data = FileManager.default.contents(atPath: current.path) else { return nil }
        let name = String(decoding: data, as: UTF8.self).trimmed()
        guard name.hasPrefix("gen-"), !name.contains("/") else {
            throw TrustStoreError.corrupt(url.path, "CURRENT names \"\(name.prefix(60))\", not a generation")
        }
        return try TrustDirectory(url: url, generation: url.appendingPathComponent(name), sourcePrefix: sourcePrefix)
    }

    let sourcePrefix: String

    private init(url: URL, generation: URL, sourcePrefix: String) throws {
        self.url = url
        self.sourcePrefix = sourcePrefix
        self.generation = generation
        let catalogFile = generation.appendingPathComponent("catalog.json")
        // The version first: a newer release's catalog may not decode as ours, and must be
        // refused as newer, not reported as damaged (and then never written over).
        let format = try TrustDirectory.decode(TrustCatalog.Format.self, catalogFile, store: url)
        guard format.version <= TrustCatalog.currentVersion else {
            throw TrustStoreError.newerFormat(url.path, found: format.version, supported: TrustCatalog.currentVersion)
        }
        catalog = try TrustDirectory.decode(TrustCatalog.self, catalogFile, store: url)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ file: URL, store: URL) throws -> T {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw TrustStoreError.corrupt(store.path, "\(file.lastPathComponent) is missing")
        }
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw TrustStoreError.corrupt(store.path, "\(file.lastPathComponent) is not readable: \(error)")
        }
    }

    // MARK: Reading

    public var masterLists: [MasterListEntry] { catalog.masterLists }
    public var countryCodes: [String] { catalog.countries }
    public func certificates(of country: String) -> [TrustEntry] { index(country).certificates }
    public func revocationLists(of country: String) -> [CRLEntry] { index(country).crls }

    /// One country's index (read once).
    func index(_ country: String) -> CountryIndex {
        if let known = loadedIndexes.withLock({ $0[country] }) { return known }
        let file = generation.appendingPathComponent("countries/\(country).json")
        let index = catalog.countries.contains(country) ? ((try? TrustDirectory.decode(CountryIndex.self, file, store: url)) ?? CountryIndex()) : CountryIndex()
        loadedIndexes.withLock { $0[country] = index }
        return index
    }

    func allIndexes() -> [String: CountryIndex] {
        Dictionary(uniqueKeysWithValues: catalog.countries.map { ($0, index($0)) })
    }

    func objectURL(_ sha256: String) -> URL { url.appendingPathComponent("objects/\(sha256)") }

    func object(_ sha256: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: objectURL(sha256).path) else {
            throw TrustStoreError.corrupt(url.path, "object \(sha256) is missing")
        }
        return [UInt8](data)
    }

    /// The certificate of an entry, parsed once; its source names where it came from.
    func certificate(_ entry: TrustEntry) -> Certificate? {
        if let known = parsed.withLock({ $0[entry.sha256] }) { return known }
        guard let der = try? object(entry.sha256),
              let certificate = try? Certificate(der: der, source: "\(sourcePrefix)\(originNames(entry.origins).joined(separator: ", "))")
        else { return nil }
        parsed.withLock { $0[entry.sha256] = certificate }
        return certificate
    }

    func revocationList(_ entry: CRLEntry) -> RevocationList? {
        if let known = parsedCRLs.withLock({ $0[entry.sha256] }) { return known }
        guard let der = try? object(entry.sha256),
              let crl = try? RevocationList(der: der, source: "\(sourcePrefix)\(originNames(entry.origins).joined(separator: ", "))")
        else { return nil }
        parsedCRLs.withLock { $0[entry.sha256] = crl }
        return crl
    }

    /// Origins as people read them: a master list's file name instead of its hash.
    public func originNames(_ origins: [String]) -> [String] {
        var names: [String] = []
        for origin in origins {
            let name = origin.hasPrefix("ml:")
                ? catalog.masterLists.first { "ml:\($0.sha256)" == origin }?.source ?? origin
                : origin
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The countries to look in for a name: its own, or all when it names none.
    func countries(for name: DistinguishedName) -> [String] {
        name.country.map { _ in [TrustEntry.country(name)] } ?? catalog.countries
    }

    /// CSCAs whose subject is `issuer` or whose SKI is `authorityKeyIdentifier`.
    func cscas(issuer: DistinguishedName, authorityKeyIdentifier: [UInt8]?) -> [Certificate] {
        let key = issuer.indexKey
        let aki = authorityKeyIdentifier.map(hexString)
        let named = countries(for: issuer).flatMap { index($0).certificates }
            .filter { $0.kind == .csca && ($0.subjectKey == key || (aki != nil && $0.subjectKeyIdentifier == aki)) }
        // A state reuses its CSCA's name across key rollovers: the key identifier picks the one
        // key that can have signed, so the others are neither parsed nor tried.
        let byKey = named.filter { aki != nil && $0.subjectKeyIdentifier == aki }
        return (byKey.isEmpty ? named : byKey).compactMap(certificate)
    }

    /// Stored DSCs a SignerInfo may name (issuer and serial, or subject key identifier).
    func documentSigners(for signer: SignerInfo) -> [Certificate] {
        switch signer.identifier {
        case .issuerAndSerial(let issuer, let serial):
            let key = issuer.indexKey, number = hexString(serial)
            return countries(for: issuer).flatMap { index($0).certificates }
                .filter { $0.kind == .dsc && $0.issuerKey == key && $0.serialNumber == number }.compactMap(certificate)
        case .subjectKeyIdentifier(let ski):
            let wanted = hexString(ski)
            return catalog.countries.flatMap { index($0).certificates }
                .filter { $0.kind == .dsc && $0.subjectKeyIdentifier == wanted }.compactMap(certificate)
        }
    }

    /// CRLs issued under `issuer`'s name.
    func crls(issuer: DistinguishedName) -> [RevocationList] {
        let key = issuer.indexKey
        return countries(for: issuer).flatMap { index($0).crls }.filter { $0.issuerKey == key }.compactMap(revocationList)
    }

    /// Every CSCA (what needs them all, such as a proof's certificate registry).
    func allCSCAs() -> [Certificate] {
        catalog.countries.flatMap { index($0).certificates }.filter { $0.kind == .csca }.compactMap(certificate)
    }

    func allCRLs() -> [RevocationList] {
        catalog.countries.flatMap { index($0).crls }.compactMap(revocationList)
    }

    /// Counts for a one-line note in reports.
    public var summary: String {
        let (cscas, dscs, crls) = (catalog.cscaCount, catalog.dscCount, catalog.crlCount)
        return "\(cscas) CSCA(s), \(dscs) DSC(s), \(crls) CRL(s) of \(catalog.countries.count) countries from the trust store \(url.path) (master list signatures checked on import)"
    }
}

/// The whole content of a trust directory in memory, as an import or removal changes it.
struct TrustSnapshot {
    var catalog = TrustCatalog()
    var countries: [String: CountryIndex] = [:]

    init() {}
    init(_ directory: TrustDirectory) {
        catalog = directory.catalog
        countries = directory.allIndexes()
    }

    /// Every object the snapshot refers to.
    var objectNames: Set<String> {
        var names = Set(catalog.masterLists.map(\.sha256))
        for index in countries.values {
            names.formUnion(index.certificates.map(\.sha256))
            names.formUnion(index.crls.map(\.sha256))
        }
        return names
    }

    mutating func dropEmptyCountries() {
        countries = countries.filter { !$0.value.certificates.isEmpty || !$0.value.crls.isEmpty }
        catalog.countries = countries.keys.sorted()
        catalog.cscaCount = countries.values.reduce(0) { $0 + $1.certificates.filter { $0.kind == .csca }.count }
        catalog.dscCount = countries.values.reduce(0) { $0 + $1.certificates.filter { $0.kind == .dsc }.count }
        catalog.crlCount = countries.values.reduce(0) { $0 + $1.crls.count }
    }
}

extension TrustDirectory {
    /// Writes `snapshot` as the store's new generation; `objects` holds the bytes of objects
    /// not yet on disk. Holds an exclusive lock on the store while it writes.
    static func commit(_ snapshot: TrustSnapshot, objects: [String: [UInt8]], to url: URL) throws {
        var snapshot = snapshot
        snapshot.dropEmptyCountries()
        let fm = FileManager.default
        let objectsFolder = url.appendingPathComponent("objects")
        try wrap(url) { try fm.createDirectory(at: objectsFolder, withIntermediateDirectories: true) }
        try withLock(url) {
            for (name, bytes) in objects where !fm.fileExists(atPath: objectsFolder.appendingPathComponent(name).path) {
                try writeAtomically(Data(bytes), to: objectsFolder.appendingPathComponent(name))
            }
            let generation = "gen-\(UUID().uuidString)"
            let folder = url.appendingPathComponent(generation)
            try wrap(url) {
                try fm.createDirectory(at: folder.appendingPathComponent("countries"), withIntermediateDirectories: true)
                // JSONEncoder's bytes with [.sortedKeys] (slashes escaped).
                let style: JSON.Style = [.sortedKeys, .escapingSlashes]
                try Data(JSON.encoded(snapshot.catalog, style: style)).write(to: folder.appendingPathComponent("catalog.json"))
                for (country, index) in snapshot.countries {
                    try Data(JSON.encoded(index, style: style)).write(to: folder.appendingPathComponent("countries/\(country).json"))
                }
            }
            try writeAtomically(Data(generation.utf8), to: url.appendingPathComponent(currentName))
            collectGarbage(url, keep: generation, objects: snapshot.objectNames)
        }
    }

    /// Old generations and objects nothing refers to any more.
    static func collectGarbage(_ url: URL, keep generation: String, objects: Set<String>) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: url.path)) ?? [] where name.hasPrefix("gen-") && name != generation {
            try? fm.removeItem(at: url.appendingPathComponent(name))
        }
        let folder = url.appendingPathComponent("objects")
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] where !objects.contains(name) {
            try? fm.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    static func writeAtomically(_ data: Data, to file: URL) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)")
        try wrap(file) {
            try data.write(to: temporary)
            // rename(2) replaces the file in one step: readers see the old or the new one.
            guard rename(temporary.path, file.path) == 0 else {
                throw TrustStoreError.io(file.path, String(cString: strerror(errno)))
            }
        }
    }

    /// An exclusive flock on `url/.lock` around `body`: two imports never interleave.
    static func withLock<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let descriptor = Glibc.open(url.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TrustStoreError.io(url.path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw TrustStoreError.io(url.path, String(cString: strerror(errno))) }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    static func wrap<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as TrustStoreError { throw error } catch {
            throw TrustStoreError.io(url.path, PrivateFiles.reasonText(error))
        }
    }
}

/// Errors of trust imports and of the stores on disk.
public enum TrustStoreError: Error, Sendable, CustomStringConvertible {
    /// A file given to `trust import` that is none of the accepted kinds or is malformed.
    case unreadable(file: String, why: String)
    /// A master list refused on import (its signature, or its signer is anchored nowhere).
    case refusedMasterList(name: String, why: String)
    case ldif(LDIFError)
    /// The store on disk is damaged.
    case corrupt(String, String)
    case io(String, String)
    /// `trust remove` matched nothing; `trust export` of an empty store.
    case nothingMatched(String)
    /// The store was written by a newer release in a format this one does not know.
    case newerFormat(String, found: Int, supported: Int)

    public var description: String {
        switch self {
        case .unreadable(let file, let why): return "Cannot import \(file): \(why). Nothing was imported."
        case .refusedMasterList(let name, let why): return "The master list \(name) was refused: \(why). Nothing was imported."
        case .ldif(let error): return "Malformed LDIF: \(error). Nothing was imported."
        case .corrupt(let path, let why): return "The trust store \(path) is damaged: \(why). Remove it and import again."
        case .io(let path, let why): return "Cannot write the trust store \(path): \(why)."
        case .nothingMatched(let what): return "Nothing in the trust store matches \(what)."
        case .newerFormat(let path, let found, let supported):
            return "The trust store \(path) was written by a newer version of passport (store format \(found); this version reads format \(supported) and older). Upgrade passport to use it; nothing was read or changed."
        }
    }
}
