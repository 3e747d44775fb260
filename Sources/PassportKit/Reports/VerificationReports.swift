import FoundationEssentials
import JSONCore
import Synchronization
import PassiveAuth

/// A certificate as reports show it.
public struct CertificateReport: Codable, Sendable, Equatable {
    public let subject: String
    public let issuer: String
    public let serial: String
    public let notBefore: String
    public let notAfter: String
    public let key: String
    public let source: String

    public init(_ info: CertificateInfo) {
        subject = info.subject
        issuer = info.issuer
        serial = info.serialNumber
        notBefore = ReportEncoding.time(info.notBefore)
        notAfter = ReportEncoding.time(info.notAfter)
        key = info.key
        source = info.source
    }

    enum CodingKeys: String, CodingKey {
        case subject, issuer, serial, key, source
        case notBefore = "not_before", notAfter = "not_after"
    }

    /// The report of `info`, made once for each of the last few certificates: the dumps of a
    /// batch name the same Document Signer and CSCA again and again. Everything in it but the
    /// source is read from the DER.
    static func of(_ info: CertificateInfo) -> CertificateReport {
        if let made = Made.find({ $0.der == info.der && $0.report.source == info.source }) { return made.report }
        let report = CertificateReport(info)
        Made.keep(Made(der: info.der, report: report, line: JSONLine.bytes(of: Members(report: report))))
        return report
    }

    /// A certificate's report with its `--json` object, for the last few certificates reported
    /// (a class: found twice a dump, and a struct's copy retained each of its strings).
    final class Made: Sendable {
        let der: [UInt8]
        let report: CertificateReport
        let line: [UInt8]

        init(der: [UInt8], report: CertificateReport, line: [UInt8]) {
            self.der = der
            self.report = report
            self.line = line
        }

        private static let recent = Mutex<[Made]>([])

        static func find(_ matches: (Made) -> Bool) -> Made? {
            recent.withLock { $0.first(where: matches) }
        }

        /// Newest first; at most 8, so that a lookup compares few, whatever a batch holds.
        static func keep(_ made: Made) {
            recent.withLock { recent in
                if recent.count >= 8 { recent.removeLast() }
                recent.insert(made, at: 0)
            }
        }
    }
}

/// The `passive_authentication` object of `verify`, `scan` and `issue` output.
public struct PassiveAuthenticationSummary: Codable, Sendable, Equatable {
    public struct DataGroup: Codable, Sendable, Equatable {
        public let number: Int
        public let status: DataGroupCheck.Status
    }

    public let passed: Bool
    @NullEncoded public var hashAlgorithm: String?
    public let hashesChecked: Bool
    public let dataGroups: [DataGroup]
    public let signature: PassiveAuthenticationReport.Status
    @NullEncoded public var signatureAlgorithm: String?
    public let chain: PassiveAuthenticationReport.Status
    public let revocation: PassiveAuthenticationReport.Status
    @NullEncoded public var documentSigner: CertificateReport?
    @NullEncoded public var csca: CertificateReport?
    public let validityTime: String
    public let validityTimeSource: String
    public let failures: [String]
    public let warnings: [String]
    /// EF.CardSecurity's own passive authentication (null when the dump has none).
    @NullEncoded public var cardSecurity: CardSecuritySummary?

    public init(_ report: PassiveAuthenticationReport) {
        passed = report.passed
        hashAlgorithm = report.hashAlgorithm
        hashesChecked = report.hashesChecked
        dataGroups = report.dataGroups.map { DataGroup(number: $0.number, status: $0.status) }
        signature = report.signature
        signatureAlgorithm = report.signatureScheme
        chain = report.chain
        revocation = report.revocation
        documentSigner = report.documentSigner.map(CertificateReport.of)
        csca = report.csca.map(CertificateReport.of)
        validityTime = ReportEncoding.time(report.validityTime)
        validityTimeSource = report.validitySource
        failures = report.failures
        warnings = report.warnings
        cardSecurity = report.cardSecurity.map(CardSecuritySummary.init)
    }

    enum CodingKeys: String, CodingKey {
        case passed, signature, chain, revocation, csca, failures, warnings
        case cardSecurity = "card_security"
        case hashAlgorithm = "hash_algorithm", hashesChecked = "hashes_checked", dataGroups = "data_groups"
        case signatureAlgorithm = "signature_algorithm", documentSigner = "document_signer"
        case validityTime = "validity_time", validityTimeSource = "validity_time_source"
    }
}

/// The `card_security` object: EF.CardSecurity's signature, signer, chain and agreement with DG14.
public struct CardSecuritySummary: Codable, Sendable, Equatable {
    public let passed: Bool
    public let signature: PassiveAuthenticationReport.Status
    @NullEncoded public var signatureAlgorithm: String?
    @NullEncoded public var documentSigner: CertificateReport?
    @NullEncoded public var csca: CertificateReport?
    public let chain: PassiveAuthenticationReport.Status
    public let revocation: PassiveAuthenticationReport.Status
    /// Whether its chip-authentication keys are DG14's (null without DG14).
    @NullEncoded public var matchesDG14: Bool?
    /// Whether it repeats every SecurityInfo of EF.CardAccess (null when EF.CardAccess was not read).
    @NullEncoded public var holdsCardAccess: Bool?
    public let failures: [String]

    public init(_ report: CardSecurityReport) {
        passed = report.passed
        signature = report.signature
        signatureAlgorithm = report.signatureScheme
        documentSigner = report.documentSigner.map(CertificateReport.of)
        csca = report.csca.map(CertificateReport.of)
        chain = report.chain
        revocation = report.revocation
        matchesDG14 = report.matchesDG14
        holdsCardAccess = report.holdsCardAccess
        failures = report.failures
    }

    enum CodingKeys: String, CodingKey {
        case passed, signature, csca, chain, revocation, failures
        case signatureAlgorithm = "signature_algorithm", documentSigner = "document_signer", matchesDG14 = "matches_dg14"
        case holdsCardAccess = "holds_card_access"
    }
}

/// `passport verify --json` (docs/schemas/verify.schema.json).
public struct VerifyReport: Codable, Sendable, Equatable {
    public let ok: Bool
    public let dump: String
    /// What the trust store loaded, from where.
    public let trust: [String]
    public let passiveAuthentication: PassiveAuthenticationSummary
    /// The Active Authentication answer recorded in evidence.json, checked again against DG15.
    public let activeAuthentication: AuthenticationReport

    public init(dump: String, trust: TrustStore, report: PassiveAuthenticationReport) {
        ok = report.passed
        self.dump = dump
        self.trust = trust.notes
        passiveAuthentication = PassiveAuthenticationSummary(report)
        activeAuthentication = AuthenticationReport(report.activeAuthentication)
    }

    enum CodingKeys: String, CodingKey {
        case ok, dump, trust
        case passiveAuthentication = "passive_authentication", activeAuthentication = "active_authentication"
    }
}
