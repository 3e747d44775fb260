import FoundationEssentials
import LDS

/// What a dump's files say, as `passport show` and `passport scan` print it with `--json`
/// (the keys are documented in docs/schemas/show.schema.json). A file that is absent leaves its
/// key out. This is personal data: shown only to the user who asked.
public struct DocumentReport: Codable, Sendable, Equatable {
    public struct COM: Codable, Sendable, Equatable {
        @NullEncoded public var ldsVersion: String?
        @NullEncoded public var unicodeVersion: String?
        public let dataGroups: [String]
        enum CodingKeys: String, CodingKey {
            case ldsVersion = "lds_version", unicodeVersion = "unicode_version", dataGroups = "data_groups"
        }
    }

    public struct Face: Codable, Sendable, Equatable {
        public struct FeaturePoint: Codable, Sendable, Equatable {
            public let code: String
            public let x: Int
            public let y: Int
        }
        public let standard: String
        public let format: String
        @NullEncoded public var width: Int?
        @NullEncoded public var height: Int?
        public let imageBytes: Int
        @NullEncoded public var gender: String?
        @NullEncoded public var eyeColour: String?
        @NullEncoded public var hairColour: String?
        @NullEncoded public var expression: String?
        public let featurePoints: [FeaturePoint]
        enum CodingKeys: String, CodingKey {
            case standard, format, width, height, gender, expression
            case imageBytes = "image_bytes", eyeColour = "eye_colour", hairColour = "hair_colour", featurePoints = "feature_points"
        }
    }

    /// DG11's fields that are present (others are left out).
    public struct DG11: Codable, Sendable, Equatable {
        public var fullName, personalNumber, fullDateOfBirth, placeOfBirth, address, telephone: String?
        public var profession, title, personalSummary, custodyInformation: String?
        public var otherNames: [String]?
        enum CodingKeys: String, CodingKey {
            case address, telephone, profession, title
            case fullName = "full_name", personalNumber = "personal_number", fullDateOfBirth = "full_date_of_birth"
            case placeOfBirth = "place_of_birth", personalSummary = "personal_summary"
            case custodyInformation = "custody_information", otherNames = "other_names"
        }
    }

    public struct DG12: Codable, Sendable, Equatable {
        public let frontImage: Bool
        public let rearImage: Bool
        public var issuingAuthority, dateOfIssue, endorsements: String?
        public var otherPersons: [String]?
        enum CodingKeys: String, CodingKey {
            case frontImage = "front_image", rearImage = "rear_image", issuingAuthority = "issuing_authority"
            case dateOfIssue = "date_of_issue", endorsements, otherPersons = "other_persons"
        }
    }

    public struct DG15: Codable, Sendable, Equatable {
        public let algorithm: String
        public let algorithmOID: String
        public let publicKeyBytes: Int
        enum CodingKeys: String, CodingKey {
            case algorithm, algorithmOID = "algorithm_oid", publicKeyBytes = "public_key_bytes"
        }
    }

    public struct SOD: Codable, Sendable, Equatable {
        public let hashAlgorithm: String
        public let ldsSecurityObjectVersion: Int
        public let dataGroups: [String]
        enum CodingKeys: String, CodingKey {
            case hashAlgorithm = "hash_algorithm", ldsSecurityObjectVersion = "lds_security_object_version"
            case dataGroups = "data_groups"
        }
    }

    /// One finger image of DG3 (ISO/IEC 19794-4) or iris image of DG4 (ISO/IEC 19794-6).
    public struct BiometricImage: Codable, Sendable, Equatable {
        /// "right index finger", "left eye".
        public let position: String
        /// The 19794-4 finger position code, or the 19794-6 eye code.
        public let positionCode: Int
        public let format: String
        public let width: Int
        public let height: Int
        /// Scan resolution in pixels per inch (fingers).
        @NullEncoded public var resolutionPPI: Int?
        public let quality: String
        /// Impression type (fingers): "live-scan plain", …
        @NullEncoded public var impression: String?
        public let imageBytes: Int
        enum CodingKeys: String, CodingKey {
            case position, format, width, height, quality, impression
            case positionCode = "position_code", resolutionPPI = "resolution_ppi", imageBytes = "image_bytes"
        }
    }

    public var com: COM?
    public var document: DocumentSummary?
    public var face: [Face]?
    public var dg3: [BiometricImage]?
    public var dg4: [BiometricImage]?
    public var dg11: DG11?
    public var dg12: DG12?
    public var dg14: [SecurityInfoReport]?
    public var dg15: DG15?
    public var cardAccess: [SecurityInfoReport]?
    public var sod: SOD?
    /// Problems parsing individual files (the rest is still reported); left out when none.
    public var problems: [String]?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case com, document, face, dg3, dg4, dg11, dg12, dg14, dg15, sod, problems
        case cardAccess = "card_access"
    }
}

/// One SecurityInfo of DG14 or EF.CardAccess; which keys follow `type` depends on it, and
/// those are always present (null when the structure leaves them out).
public struct SecurityInfoReport: Codable, Sendable, Equatable {
    public let type: String
    public var `protocol`: String?
    public var description: String?
    public var version: Int?
    public var parameterID: Int?
    public var keyID: Int?
    public var signatureAlgorithm: String?

    enum CodingKeys: String, CodingKey {
        case type, `protocol`, description, version
        case parameterID = "parameter_id", keyID = "key_id", signatureAlgorithm = "signature_algorithm"
    }

    public init(_ info: SecurityInfo) {
        switch info {
        case .pace(let p):
            self.init(type: "PACEInfo", protocol: p.protocolOID)
            description = p.description
        case .paceDomainParameters(let oid, _, let id):
            self.init(type: "PACEDomainParameterInfo", protocol: oid)
            parameterID = id
        case .chipAuthentication(let c):
            self.init(type: "ChipAuthenticationInfo", protocol: c.protocolOID)
            version = c.version
            keyID = c.keyID
        case .chipAuthenticationPublicKey(let k):
            self.init(type: "ChipAuthenticationPublicKeyInfo", protocol: k.protocolOID)
            keyID = k.keyID
        case .activeAuthentication(let a):
            self.init(type: "ActiveAuthenticationInfo", protocol: nil)
            signatureAlgorithm = a.signatureAlgorithmOID
        case .terminalAuthentication(let v, _, _):
            self.init(type: "TerminalAuthenticationInfo", protocol: nil)
            version = v
        case .other(let oid, _):
            self.init(type: "other", protocol: oid)
        }
    }

    private init(type: String, protocol oid: String?) {
        self.type = type
        self.protocol = oid
    }

    /// The keys each type carries (`encode(_:forKey:)` of an optional writes null).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch type {
        case "PACEInfo":
            try container.encode(`protocol`, forKey: .protocol)
            try container.encode(description, forKey: .description)
        case "PACEDomainParameterInfo":
            try container.encode(`protocol`, forKey: .protocol)
            try container.encode(parameterID, forKey: .parameterID)
        case "ChipAuthenticationInfo":
            try container.encode(`protocol`, forKey: .protocol)
            try container.encode(version, forKey: .version)
            try container.encode(keyID, forKey: .keyID)
        case "ChipAuthenticationPublicKeyInfo":
            try container.encode(`protocol`, forKey: .protocol)
            try container.encode(keyID, forKey: .keyID)
        case "ActiveAuthenticationInfo":
            try container.encode(signatureAlgorithm, forKey: .signatureAlgorithm)
        case "TerminalAuthenticationInfo":
            try container.encode(version, forKey: .version)
        default:
            try container.encode(`protocol`, forKey: .protocol)
        }
    }
}
