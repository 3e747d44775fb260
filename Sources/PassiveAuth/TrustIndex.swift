import FoundationEssentials
import LDS
import PassportCrypto

/// What a trust directory knows about a stored certificate without parsing it: enough to
/// pick the few a verification needs (by subject, subject key identifier and country).
public struct TrustEntry: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case csca, dsc }
    public var kind: Kind
    /// SHA-256 of the DER (hex, lowercase): the object's file name and its identity.
    public var sha256: String
    public var country: String
    public var subject: String
    /// `DistinguishedName.indexKey` of subject and issuer.
    public var subjectKey: String
    public var issuerKey: String
    public var subjectKeyIdentifier: String?
    public var serialNumber: String
    public var notBefore: Date
    public var notAfter: Date
    /// Where it came from: a file name, or "ml:<sha256>" for a master list in the catalog.
    public var origins: [String]
    /// LDIF distinguished names it was imported under (a delta's delete names them).
    public var dns: [String]

    init(_ certificate: Certificate, kind: Kind, origin: String, dn: String?) {
        self.kind = kind
        sha256 = TrustEntry.fingerprint(certificate.der)
        country = TrustEntry.country(kind == .csca ? certificate.subject : certificate.issuer)
        subject = certificate.subject.description
        subjectKey = certificate.subject.indexKey
        issuerKey = certificate.issuer.indexKey
        subjectKeyIdentifier = certificate.subjectKeyIdentifier.map(hexString)
        serialNumber = hexString(certificate.serialNumber)
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        origins = [origin]
        dns = dn.map { [$0] } ?? []
    }

    static func fingerprint(_ der: [UInt8]) -> String { hexString(OpenSSLCrypto.sha256(der)).lowercased() }

    /// The country a name belongs to (upper case), "ZZ" when it names none.
    /// Letters and digits only: the code names a file of the store.
    static func country(_ name: DistinguishedName) -> String {
        let code = String((name.country ?? "").uppercased().unicodeScalars.filter { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }.prefix(8))
        return code.isEmpty ? "ZZ" : code
    }
}

public struct CRLEntry: Codable, Sendable, Equatable {
    public var sha256: String
    public var country: String
    public var issuer: String
    public var issuerKey: String
    public var nextUpdate: Date?
    public var origins: [String]
    public var dns: [String]

    init(_ crl: RevocationList, der: [UInt8], origin: String, dn: String?) {
        sha256 = TrustEntry.fingerprint(der)
        country = TrustEntry.country(crl.issuer)
        issuer = crl.issuer.description
        issuerKey = crl.issuer.indexKey
        nextUpdate = crl.nextUpdate
        origins = [origin]
        dns = dn.map { [$0] } ?? []
    }
}

public struct MasterListEntry: Codable, Sendable, Equatable {
    public var sha256: String
    /// The file it was imported from (an .ml file or an LDIF download).
    public var source: String
    public var country: String
    public var signer: String
    /// How its signer was anchored when its signature was checked on import.
    public var anchor: String
    public var cscas: Int
    public var importedAt: Date
    public var dns: [String]
}

/// Certificates and CRLs of one country (the unit a verification reads).
struct CountryIndex: Codable, Sendable {
    var certificates: [TrustEntry] = []
    var crls: [CRLEntry] = []
}

/// The master lists and the countries present.
struct TrustCatalog: Codable, Sendable {
    /// The store format this release writes and the newest it reads (0.2.0 wrote 1).
    static let currentVersion = 1
    /// Only the version, read before anything else.
    struct Format: Decodable { var version: Int }

    var version = TrustCatalog.currentVersion
    var masterLists: [MasterListEntry] = []
    var countries: [String] = []
    /// Totals, so that a report's note needs no country file.
    var cscaCount = 0
    var dscCount = 0
    var crlCount = 0
}

extension DistinguishedName {
    /// A key equal for two names exactly when `matches` holds (attributes compared in any
    /// order, string type and bytes exact): what the index looks names up by.
    public var indexKey: String {
        let sorted = attributes.sorted { a, b in
            if a.oid != b.oid { return a.oid < b.oid }
            if a.tag != b.tag { return a.tag < b.tag }
            return a.raw.lexicographicallyPrecedes(b.raw)
        }
        var bytes: [UInt8] = []
        for attribute in sorted {
            let length = attribute.raw.count
            bytes += Array(attribute.oid.utf8) + [0, UInt8(attribute.tag & 0xFF), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
            bytes += attribute.raw
        }
        return hexString(Array(OpenSSLCrypto.sha256(bytes).prefix(16))).lowercased()
    }
}
