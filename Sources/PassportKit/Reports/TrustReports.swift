import FoundationEssentials
import LDS
import PassiveAuth

/// `passport trust list --json` (docs/schemas/trust-list.schema.json): per country, the CSCAs
/// by validity now, DSCs, CRLs with their next update, and the sources they came from.
public struct TrustListReport: Codable, Sendable, Equatable {
    public struct CSCACounts: Codable, Sendable, Equatable {
        public var total = 0, valid = 0, expiringSoon = 0, expired = 0, notYetValid = 0
        enum CodingKeys: String, CodingKey {
            case total, valid, expired
            case expiringSoon = "expiring_within_90_days", notYetValid = "not_yet_valid"
        }
    }
    public struct CRL: Codable, Sendable, Equatable {
        public let issuer: String
        @NullEncoded public var nextUpdate: String?
        public let sha256: String
        public let sources: [String]
        enum CodingKeys: String, CodingKey { case issuer, sha256, sources, nextUpdate = "next_update" }
    }
    public struct Country: Codable, Sendable, Equatable {
        public let country: String
        public let cscas: CSCACounts
        public let dscs: Int
        public let crls: [CRL]
        public let sources: [String]
    }
    public struct MasterList: Codable, Sendable, Equatable {
        public let source: String
        public let country: String
        public let signer: String
        public let anchor: String
        public let cscas: Int
        public let sha256: String
        public let importedAt: String
        enum CodingKeys: String, CodingKey { case source, country, signer, anchor, cscas, sha256, importedAt = "imported_at" }
    }
    public let store: String
    public let countries: [Country]
    public let masterLists: [MasterList]

    enum CodingKeys: String, CodingKey { case store, countries, masterLists = "master_lists" }

    /// Validity is judged at `now`; "expiring" means valid now and ending within 90 days.
    public init(store: URL, directory: TrustDirectory?, now: Date = Date()) {
        self.store = store.path
        masterLists = (directory?.masterLists ?? []).map {
            MasterList(source: $0.source, country: $0.country, signer: $0.signer, anchor: $0.anchor, cscas: $0.cscas,
                       sha256: $0.sha256, importedAt: iso8601($0.importedAt))
        }
        guard let directory else { countries = []; return }
        countries = directory.countryCodes.map { code in
            let certificates = directory.certificates(of: code)
            var counts = CSCACounts()
            for csca in certificates where csca.kind == .csca {
                counts.total += 1
                if csca.notBefore > now { counts.notYetValid += 1 }
                else if csca.notAfter < now { counts.expired += 1 }
                else if csca.notAfter < now.addingTimeInterval(90 * 86400) { counts.expiringSoon += 1 }
                else { counts.valid += 1 }
            }
            let crls = directory.revocationLists(of: code).map {
                CRL(issuer: $0.issuer, nextUpdate: $0.nextUpdate.map(iso8601), sha256: $0.sha256, sources: directory.originNames($0.origins))
            }
            let origins = certificates.flatMap(\.origins) + directory.revocationLists(of: code).flatMap(\.origins)
            return Country(country: code, cscas: counts, dscs: certificates.filter { $0.kind == .dsc }.count, crls: crls,
                           sources: directory.originNames(origins).sorted())
        }
    }
}

/// `passport trust import|remove --json` (docs/schemas/trust-change.schema.json).
public struct TrustChangeReport: Codable, Sendable, Equatable {
    public let ok: Bool
    public let store: String
    public let changes: [TrustChange]

    public init(store: URL, changes: [TrustChange]) {
        ok = true
        self.store = store.path
        self.changes = changes
    }
}
