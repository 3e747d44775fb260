import Credentials
import FoundationEssentials
import LDS
import MRZ
import PassiveAuth

/// A file of a dump as reports list it.
public struct FileReport: Codable, Sendable, Equatable {
    public let name: String
    public let size: Int
    /// APDUs spent reading it (scan only).
    public var apdus: Int?
}

/// `passport show --json`: the document report with the dump's files.
public struct ShowReport: Codable, Sendable, Equatable {
    public let ok: Bool
    public let files: [FileReport]
    public let document: DocumentReport

    public init(dump: DumpFolder, details: DocumentDetails) {
        ok = details.problems.isEmpty
        files = dump.files.keys.sorted().map { FileReport(name: $0.name, size: dump.files[$0]?.count ?? 0) }
        document = details.report
    }

    /// The document report's keys sit beside `ok` and `files`, not under a key of their own.
    public func encode(to encoder: Encoder) throws {
        try document.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        try container.encode(files, forKey: .files)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ok = try container.decode(Bool.self, forKey: .ok)
        files = try container.decode([FileReport].self, forKey: .files)
        document = try DocumentReport(from: decoder)
    }

    enum CodingKeys: String, CodingKey { case ok, files }
}

/// Chip or active authentication in a scan report, or a recorded answer checked again by
/// `verify` (`status` and what went wrong, if anything).
public struct AuthenticationReport: Codable, Sendable, Equatable {
    public let status: String
    @NullEncoded public var detail: String?

    public init(_ outcome: AuthenticationOutcome) {
        status = outcome.status
        detail = outcome.detail
    }

    public init(_ check: RecordedCheck) {
        status = check.status
        detail = check.detail
    }
}

/// `passport scan --json`: how the chip was read, what it holds, and passive authentication when
/// trust anchors were configured (null otherwise).
public struct ScanReport: Codable, Sendable, Equatable {
    public struct Unavailable: Codable, Sendable, Equatable {
        public let name: String
        public let reason: String
    }

    public let ok: Bool
    public let dump: String
    public let reader: String
    public let accessProtocol: String
    public let extendedLength: Bool
    public let apdus: Int
    public let seconds: Double
    public let files: [FileReport]
    public let chipAuthentication: AuthenticationReport
    public let activeAuthentication: AuthenticationReport
    public let unavailable: [Unavailable]
    @NullEncoded public var passiveAuthentication: PassiveAuthenticationSummary?
    /// How the chip proved its key (null when it did not try).
    @NullEncoded public var chipAuthenticationMethod: ChipAuthenticationMethod?
    /// Set when EF.CardAccess offered PACE and BAC was used.
    @NullEncoded public var paceFallback: PACEFallback?
    /// Terminal authentication (as in evidence.json); null when the chip lists no DG3 or DG4.
    @NullEncoded public var terminalAuthentication: ChipEvidence.TerminalAuthentication?
    /// Set when EF.COM was missing or malformed and EF.SOD listed the data groups.
    @NullEncoded public var dataGroupList: ChipEvidence.DataGroupList?
    /// Sessions opened again after the chip answered a protected command in plain (null: none).
    @NullEncoded public var reopenedSessions: [ChipEvidence.ReopenedSession]?
    public let document: DocumentReport

    /// `ok` is false when passive authentication failed or the chip failed chip or active
    /// authentication (it may be a copy); the scan's exit code says the same.
    public init(contents: ChipContents, dump: URL, details: DocumentDetails, verification: PassiveAuthenticationReport?,
                requirePACE: Bool = false) {
        self.init(contents: contents, dumpName: dump.path, details: details, verification: verification, requirePACE: requirePACE)
    }

    /// `dumpName`: where the dump is, or why there is none (the desk keeps reads in memory).
    public init(contents: ChipContents, dumpName: String, details: DocumentDetails, verification: PassiveAuthenticationReport?,
                requirePACE: Bool = false) {
        ok = (verification?.passed ?? true) && !ChipAuthenticity.failed(contents) && !(requirePACE && contents.paceFallback != nil)
        dump = dumpName
        reader = contents.readerName
        accessProtocol = contents.accessProtocol
        extendedLength = contents.extendedLength
        apdus = contents.apdus
        seconds = (contents.seconds * 1000).rounded() / 1000
        files = contents.files.keys.sorted().map { file in
            FileReport(name: file.name, size: contents.files[file]?.count ?? 0, apdus: contents.statistics[file]?.apdus ?? 0)
        }
        chipAuthentication = AuthenticationReport(contents.chipAuthentication)
        activeAuthentication = AuthenticationReport(contents.activeAuthentication)
        unavailable = contents.unavailable.keys.sorted().map { Unavailable(name: $0.name, reason: contents.unavailable[$0] ?? "") }
        passiveAuthentication = verification.map(PassiveAuthenticationSummary.init)
        chipAuthenticationMethod = contents.chipAuthenticationMethod
        paceFallback = contents.paceFallback
        terminalAuthentication = contents.evidence.terminalAuthentication
        dataGroupList = contents.evidence.dataGroupList
        reopenedSessions = contents.evidence.reopenedSessions
        var document = details.report
        if !contents.fileProblems.isEmpty { document.problems = contents.fileProblems + (document.problems ?? []) }
        self.document = document
    }

    enum CodingKeys: String, CodingKey {
        case ok, dump, reader, apdus, seconds, files, unavailable
        case accessProtocol = "access_protocol", extendedLength = "extended_length"
        case chipAuthentication = "chip_authentication", activeAuthentication = "active_authentication"
        case passiveAuthentication = "passive_authentication"
        case chipAuthenticationMethod = "chip_authentication_method", paceFallback = "pace_fallback"
        case terminalAuthentication = "terminal_authentication", dataGroupList = "data_group_list"
        case reopenedSessions = "reopened_sessions"
    }

    /// The document report's keys sit beside the scan's own.
    public func encode(to encoder: Encoder) throws {
        try document.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        try container.encode(dump, forKey: .dump)
        try container.encode(reader, forKey: .reader)
        try container.encode(accessProtocol, forKey: .accessProtocol)
        try container.encode(extendedLength, forKey: .extendedLength)
        try container.encode(apdus, forKey: .apdus)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(files, forKey: .files)
        try container.encode(chipAuthentication, forKey: .chipAuthentication)
        try container.encode(activeAuthentication, forKey: .activeAuthentication)
        try container.encode(unavailable, forKey: .unavailable)
        try container.encode(_passiveAuthentication, forKey: .passiveAuthentication)
        try container.encode(_chipAuthenticationMethod, forKey: .chipAuthenticationMethod)
        try container.encode(_paceFallback, forKey: .paceFallback)
        try container.encode(_terminalAuthentication, forKey: .terminalAuthentication)
        try container.encode(_dataGroupList, forKey: .dataGroupList)
        try container.encode(_reopenedSessions, forKey: .reopenedSessions)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ok = try container.decode(Bool.self, forKey: .ok)
        dump = try container.decode(String.self, forKey: .dump)
        reader = try container.decode(String.self, forKey: .reader)
        accessProtocol = try container.decode(String.self, forKey: .accessProtocol)
        extendedLength = try container.decode(Bool.self, forKey: .extendedLength)
        apdus = try container.decode(Int.self, forKey: .apdus)
        seconds = try container.decode(Double.self, forKey: .seconds)
        files = try container.decode([FileReport].self, forKey: .files)
        chipAuthentication = try container.decode(AuthenticationReport.self, forKey: .chipAuthentication)
        activeAuthentication = try container.decode(AuthenticationReport.self, forKey: .activeAuthentication)
        unavailable = try container.decode([Unavailable].self, forKey: .unavailable)
        _passiveAuthentication = try container.decode(NullEncoded<PassiveAuthenticationSummary>.self, forKey: .passiveAuthentication)
        _chipAuthenticationMethod = try container.decode(NullEncoded<ChipAuthenticationMethod>.self, forKey: .chipAuthenticationMethod)
        _paceFallback = try container.decode(NullEncoded<PACEFallback>.self, forKey: .paceFallback)
        _terminalAuthentication = try container.decode(NullEncoded<ChipEvidence.TerminalAuthentication>.self, forKey: .terminalAuthentication)
        _dataGroupList = try container.decode(NullEncoded<ChipEvidence.DataGroupList>.self, forKey: .dataGroupList)
        _reopenedSessions = try container.decode(NullEncoded<[ChipEvidence.ReopenedSession]>.self, forKey: .reopenedSessions)
        document = try DocumentReport(from: decoder)
    }
}

/// `passport photo --json`.
public struct PhotoReport: Codable, Sendable, Equatable {
    public var ok = true
    public let out: String
    public let sourceFormat: String
    public let width: Int
    public let height: Int
    public let bytes: Int

    public init(out: String, sourceFormat: String, width: Int, height: Int, bytes: Int) {
        self.out = out
        self.sourceFormat = sourceFormat
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    enum CodingKeys: String, CodingKey { case ok, out, width, height, bytes, sourceFormat = "source_format" }
}

/// `passport issue --json`: the credential (or where it was written) and what it claims.
public struct IssueReport: Codable, Sendable, Equatable {
    public struct Prover: Codable, Sendable, Equatable {
        public let proof: Bool
        @NullEncoded public var reason: String?
    }

    public var ok = true
    public let format: String
    public let holder: String
    public let verificationMethod: String
    /// The level a verifier establishes at best: L1 self-issued, L2 issued by an institution
    /// (for verifiers that trust it).
    public let level: String
    /// The institution's iss (null when self-issued) and the number of instances signed.
    @NullEncoded public var issuer: String?
    public let instances: Int
    public let claims: [String: JSONValue]
    public let prover: Prover
    /// The token, unless it was written to `out`.
    @NullEncoded public var credential: String?
    @NullEncoded public var out: String?

    public init(_ outcome: CredentialIssuer.Outcome, out: String?) throws {
        format = outcome.format.rawValue
        holder = outcome.holderDID
        verificationMethod = outcome.claims.verificationMethod
        level = outcome.level.rawValue
        issuer = outcome.issuer
        instances = outcome.instances
        claims = try JSONValue.object(outcome.claims.claims)
        prover = Prover(proof: outcome.proverFallbackReason == nil, reason: outcome.proverFallbackReason)
        credential = out == nil ? outcome.credential : nil
        self.out = out
    }

    enum CodingKeys: String, CodingKey {
        case ok, format, holder, claims, prover, credential, out, level, issuer, instances
        case verificationMethod = "verification_method"
    }
}

/// `passport present --json`.
public struct PresentReport: Codable, Sendable, Equatable {
    public var ok = true
    public let token: String
    public let format: String
    /// The pairwise DID the verifier sees.
    public let did: String
    public let disclosed: [String]
    /// What the verifier will establish at best (L1 self-issued; L2 if it trusts the issuer).
    public let level: String
    /// With --qr-out: the image written and the QR code's size (absent otherwise).
    public var qrImage: QRImage?

    public struct QRImage: Codable, Sendable, Equatable {
        public let file: String
        /// The QR code's version (1-40) and its width in modules, without the quiet zone.
        public let version: Int
        public let modules: Int
        public init(file: String, version: Int, modules: Int) {
            self.file = file
            self.version = version
            self.modules = modules
        }
    }

    enum CodingKeys: String, CodingKey {
        case ok, token, format, did, disclosed, level
        case qrImage = "qr_image"
    }

    public init(token: String, format: CredentialFormat, did: String, disclosed: Set<String>, level: TrustLevel) {
        self.level = level.rawValue
        self.token = token
        self.format = format.rawValue
        self.did = did
        self.disclosed = disclosed.sorted()
    }
}

/// `passport verify-vp --json`.
public struct PresentationReport: Codable, Sendable, Equatable {
    /// Signatures, binding and freshness hold and the level meets the required one.
    public var ok: Bool
    public let format: String
    public let issuer: String
    /// The level this verifier established (L1 self-issued, L2 trusted issuer) and the one it asked for.
    public let level: String
    public let levelName: String
    public let requiredLevel: String
    /// The issuer certificate's subject (L2), else null.
    @NullEncoded public var issuerCertificate: String?
    /// The disclosed claims of a valid presentation; null when it is refused, whose claims
    /// nobody vouches for (a self-issued credential's are the holder's own word).
    @NullEncoded public var claims: [String: JSONValue]?
    @NullEncoded public var expires: String?
    /// Why it is not accepted (null when ok).
    @NullEncoded public var refusal: String?

    enum CodingKeys: String, CodingKey {
        case ok, format, issuer, level, claims, expires, refusal
        case levelName = "level_name", requiredLevel = "required_level", issuerCertificate = "issuer_certificate"
    }

    public init(_ presentation: VerifiedPresentation, required: TrustLevel) throws {
        ok = presentation.meets(required)
        format = presentation.format.rawValue
        issuer = presentation.issuer
        level = presentation.level.rawValue
        levelName = presentation.level.name
        requiredLevel = required.rawValue
        issuerCertificate = presentation.issuerCertificate
        claims = ok ? try JSONValue.object(presentation.claims.map { ($0.key, $0.value) }) : nil
        expires = presentation.expiry.map(ReportEncoding.time)
        refusal = ok ? nil : PresentationReport.refusal(presentation.level, required: required)
    }

    public static func refusal(_ level: TrustLevel, required: TrustLevel) -> String {
        "level \(level.rawValue) (\(level.name)) is below the required \(required.rawValue)"
            + (level == .L1 ? ": a self-issued credential is the holder's own word; accept it only with --require-level L1" : "")
    }
}

/// `passport ocr --json`: the corrected MRZ, its fields and check digits, and what was read.
public struct OCRReport: Codable, Sendable, Equatable {
    public struct Fields: Codable, Sendable, Equatable {
        public let format, documentCode, issuingState, documentNumber, nationality: String
        public let birthDate, sex, expiryDate, optionalData, primaryIdentifier, secondaryIdentifier: String
        enum CodingKeys: String, CodingKey {
            case format, nationality, sex
            case documentCode = "document_code", issuingState = "issuing_state", documentNumber = "document_number"
            case birthDate = "birth_date", expiryDate = "expiry_date", optionalData = "optional_data"
            case primaryIdentifier = "primary_identifier", secondaryIdentifier = "secondary_identifier"
        }
    }
    public struct Check: Codable, Sendable, Equatable {
        public let field: String
        public let found: String
        public let expected: String
        public let valid: Bool
    }
    public struct Correction: Codable, Sendable, Equatable {
        public let line: Int
        public let position: Int
        public let from: String
        public let to: String
    }

    /// What the search spent and why it ended (docs/ocr.md, "Why a search stopped").
    public struct Search: Codable, Sendable, Equatable {
        /// "accepted", "exhausted", "work" or "time".
        public let stoppedBy: String
        public let workUnits: Int
        public let workLimit: Int
        public let tesseractLines: Int
        public let elapsedMs: Double
        public let timeLimitSeconds: Double

        public init(stoppedBy: String, workUnits: Int, workLimit: Int, tesseractLines: Int, elapsedMs: Double, timeLimitSeconds: Double) {
            self.stoppedBy = stoppedBy
            self.workUnits = workUnits
            self.workLimit = workLimit
            self.tesseractLines = tesseractLines
            self.elapsedMs = (elapsedMs * 10).rounded() / 10
            self.timeLimitSeconds = timeLimitSeconds
        }

        enum CodingKeys: String, CodingKey {
            case stoppedBy = "stopped_by", workUnits = "work_units", workLimit = "work_limit", tesseractLines = "tesseract_lines"
            case elapsedMs = "elapsed_ms", timeLimitSeconds = "time_limit_seconds"
        }
    }

    public var ok = true
    public let lines: [String]
    public let fields: Fields
    public let checks: [Check]
    public let recognisedLines: [String]
    public let corrections: [Correction]
    public let model: String
    public let skewDegrees: Double
    /// What the search spent and why it ended (with --camera: the frame that confirmed the MRZ).
    public let search: Search

    public init(mrz: MRZ, recognisedLines: [String], corrections: [MRZCorrector.Change], model: String, skewDegrees: Double,
                search: Search) {
        lines = mrz.lines
        fields = Fields(format: mrz.format.rawValue.uppercased(), documentCode: mrz.documentCode,
                        issuingState: mrz.issuingState, documentNumber: mrz.documentNumber, nationality: mrz.nationality,
                        birthDate: mrz.birthDate, sex: mrz.sex, expiryDate: mrz.expiryDate, optionalData: mrz.optionalData,
                        primaryIdentifier: mrz.primaryIdentifier, secondaryIdentifier: mrz.secondaryIdentifier)
        checks = mrz.checks.map {
            Check(field: $0.field.rawValue, found: String($0.found), expected: $0.expected.map(String.init) ?? "", valid: $0.isValid)
        }
        self.recognisedLines = recognisedLines
        self.corrections = corrections.map { Correction(line: $0.line, position: $0.position, from: String($0.from), to: String($0.to)) }
        self.model = model
        self.skewDegrees = (skewDegrees * 10).rounded() / 10
        self.search = search
    }

    enum CodingKeys: String, CodingKey {
        case ok, lines, fields, checks, corrections, model, search
        case recognisedLines = "recognised_lines", skewDegrees = "skew_degrees"
    }
}

/// `passport ocr --json` when no MRZ came out: the error object, and what the search spent and
/// why it ended (null when none ran: an image that could not be decoded, a missing model).
public struct OCRErrorReport: Encodable, Sendable, Equatable {
    public var ok = false
    public let error: ErrorReport.Detail
    public let search: OCRReport.Search?

    public init(_ report: ErrorReport, search: OCRReport.Search?) {
        error = report.error
        self.search = search
    }

    enum CodingKeys: String, CodingKey { case ok, error, search }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        try container.encode(error, forKey: .error)
        try container.encode(search, forKey: .search) // null, not left out, when no search ran
    }
}

/// `passport readers --json`.
public struct ReadersReport: Codable, Sendable, Equatable {
    public struct Reader: Codable, Sendable, Equatable {
        public let name: String
        public let backend: String
        /// PC/SC only: whether a card is on the reader.
        public var cardPresent: Bool?
        public init(name: String, backend: String, cardPresent: Bool?) {
            self.name = name
            self.backend = backend
            self.cardPresent = cardPresent
        }
        enum CodingKeys: String, CodingKey { case name, backend, cardPresent = "card_present" }
    }

    public var ok = true
    public let readers: [Reader]
    public let problems: [String]

    public init(readers: [Reader], problems: [String]) {
        self.readers = readers
        self.problems = problems
    }
}

/// `passport photo --dg3/--dg4 --json`: the folder and one entry per image saved.
public struct BiometricPhotoReport: Codable, Sendable, Equatable {
    public struct Image: Codable, Sendable, Equatable {
        public let file: String
        public let position: String
        public let sourceFormat: String
        public let width: Int
        public let height: Int
        public let bytes: Int
        /// True when decoded and written as PNG; false when saved as stored (WSQ, raw).
        public let converted: Bool
        @NullEncoded public var note: String?

        public init(file: String, position: String, sourceFormat: String, width: Int, height: Int, bytes: Int,
                    converted: Bool, note: String?) {
            self.file = file
            self.position = position
            self.sourceFormat = sourceFormat
            self.width = width
            self.height = height
            self.bytes = bytes
            self.converted = converted
            self.note = note
        }

        enum CodingKeys: String, CodingKey {
            case file, position, width, height, bytes, converted, note
            case sourceFormat = "source_format"
        }
    }

    public var ok = true
    public let out: String
    public let images: [Image]

    public init(out: String, images: [Image]) {
        self.out = out
        self.images = images
    }
}
