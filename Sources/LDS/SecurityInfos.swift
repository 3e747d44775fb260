/// SecurityInfos (ICAO 9303-11 §9.2, BSI TR-03110-3): the SET OF SecurityInfo found in
/// EF.CardAccess, EF.CardSecurity and DG14, announcing PACE, chip authentication, active
/// authentication and terminal authentication.
public struct SecurityInfos: Sendable, Equatable {
    public let infos: [SecurityInfo]

    /// Parses DG14 (tag 6E around the SET) or a bare SET (EF.CardAccess).
    public init(bytes: [UInt8]) throws {
        var set = try TLV.parse(bytes)
        if set.tag == 0x6E {
            guard let inner = try set.children().first else { throw TLVError.missing("the SecurityInfos in DG14") }
            set = inner
        }
        guard set.tag == 0x31 else { throw TLVError.unexpectedTag(expected: 0x31, found: set.tag) }
        infos = try set.children().map(SecurityInfo.init)
    }

    public var paceInfos: [PACEInfo] { infos.compactMap { if case .pace(let i) = $0 { return i } else { return nil } } }
    public var chipAuthenticationInfos: [ChipAuthenticationInfo] {
        infos.compactMap { if case .chipAuthentication(let i) = $0 { return i } else { return nil } }
    }
    public var chipAuthenticationPublicKeys: [ChipAuthenticationPublicKeyInfo] {
        infos.compactMap { if case .chipAuthenticationPublicKey(let i) = $0 { return i } else { return nil } }
    }
    public var activeAuthenticationInfo: ActiveAuthenticationInfo? {
        infos.lazy.compactMap { if case .activeAuthentication(let i) = $0 { return i } else { return nil } }.first
    }
}

public enum SecurityInfo: Sendable, Equatable {
    case pace(PACEInfo)
    case paceDomainParameters(protocolOID: String, parametersDER: [UInt8], parameterID: Int?)
    case chipAuthentication(ChipAuthenticationInfo)
    case chipAuthenticationPublicKey(ChipAuthenticationPublicKeyInfo)
    case activeAuthentication(ActiveAuthenticationInfo)
    /// TerminalAuthenticationInfo (BSI TR-03110-3 A.1.1.3): its version and, when given, the file
    /// it names as EF.CVCA (fid, and the optional short identifier sfid).
    case terminalAuthentication(version: Int, efCVCAFileID: [UInt8]? = nil, efCVCAShortFileID: [UInt8]? = nil)
    case other(protocolOID: String, der: [UInt8])

    static let bsi = "0.4.0.127.0.7.2.2"

    init(_ tlv: TLV) throws {
        guard tlv.tag == 0x30 else { throw TLVError.unexpectedTag(expected: 0x30, found: tlv.tag) }
        let fields = try tlv.children()
        guard let first = fields.first, first.tag == 0x06 else { throw TLVError.missing("a SecurityInfo protocol") }
        let oid = try ObjectIdentifier.dotted(first.value)
        func integer(_ index: Int) -> Int? {
            guard index < fields.count, fields[index].tag == 0x02, fields[index].value.count <= 8 else { return nil }
            return fields[index].value.reduce(0) { $0 << 8 | Int($1) }
        }
        if oid.hasPrefix(SecurityInfo.bsi + ".4.") && oid.split(separator: ".").count == 11 {
            guard let version = integer(1) else { throw TLVError.missing("the PACEInfo version") }
            self = .pace(PACEInfo(protocolOID: oid, version: version, parameterID: integer(2)))
        } else if oid.hasPrefix(SecurityInfo.bsi + ".4.") && oid.split(separator: ".").count == 10 {
            guard fields.count >= 2 else { throw TLVError.missing("PACE domain parameters") }
            self = .paceDomainParameters(protocolOID: oid, parametersDER: Array(fields[1].encoded), parameterID: integer(2))
        } else if oid.hasPrefix(SecurityInfo.bsi + ".3.") && oid.split(separator: ".").count == 11 {
            guard let version = integer(1) else { throw TLVError.missing("the ChipAuthenticationInfo version") }
            self = .chipAuthentication(ChipAuthenticationInfo(protocolOID: oid, version: version, keyID: integer(2)))
        } else if oid == SecurityInfo.bsi + ".1.1" || oid == SecurityInfo.bsi + ".1.2" {
            guard fields.count >= 2, fields[1].tag == 0x30 else { throw TLVError.missing("the chip authentication public key") }
            self = .chipAuthenticationPublicKey(ChipAuthenticationPublicKeyInfo(
                protocolOID: oid, subjectPublicKeyInfo: Array(fields[1].encoded), keyID: integer(2)))
        } else if oid == "2.23.136.1.1.5" {
            guard let version = integer(1) else { throw TLVError.missing("the ActiveAuthenticationInfo version") }
            let signature = fields.count > 2 && fields[2].tag == 0x06 ? try ObjectIdentifier.dotted(fields[2].value) : nil
            self = .activeAuthentication(ActiveAuthenticationInfo(version: version, signatureAlgorithmOID: signature))
        } else if oid == SecurityInfo.bsi + ".2" {
            // efCVCA FileID ::= SEQUENCE { fid OCTET STRING (SIZE(2)), sfid OCTET STRING (SIZE(1)) OPTIONAL }
            let file = fields.count >= 3 && fields[2].tag == 0x30 ? try? fields[2].children() : nil
            let fid = file?.first.flatMap { $0.tag == 0x04 ? Array($0.value) : nil }
            let sfid = fid != nil && (file?.count ?? 0) > 1 && file?[1].tag == 0x04 ? file.map { Array($0[1].value) } : nil
            self = .terminalAuthentication(version: integer(1) ?? 0, efCVCAFileID: fid, efCVCAShortFileID: sfid)
        } else {
            self = .other(protocolOID: oid, der: Array(tlv.encoded))
        }
    }
}

/// PACEInfo: protocol (mapping, key agreement, cipher), version and standardized parameter id.
public struct PACEInfo: Sendable, Equatable {
    public let protocolOID: String
    public let version: Int
    public let parameterID: Int?

    public enum Mapping: String, Sendable { case generic = "GM", integrated = "IM", chipAuthentication = "CAM" }
    public enum Cipher: String, Sendable { case tripleDES = "3DES", aes128 = "AES-128", aes192 = "AES-192", aes256 = "AES-256" }

    var arcs: [Int] { protocolOID.split(separator: ".").compactMap { Int($0) } }

    /// DH (true) or ECDH (false).
    public var isDH: Bool { [1, 3].contains(arcs[9]) }
    public var mapping: Mapping? {
        switch arcs[9] { case 1, 2: return .generic; case 3, 4: return .integrated; case 6: return .chipAuthentication; default: return nil }
    }
    public var cipher: Cipher? {
        switch arcs[10] { case 1: return .tripleDES; case 2: return .aes128; case 3: return .aes192; case 4: return .aes256; default: return nil }
    }

    public var description: String {
        "PACE-\(isDH ? "DH" : "ECDH")-\(mapping?.rawValue ?? "?")-\(cipher?.rawValue ?? "?")" + (parameterID.map { " (parameters \($0))" } ?? "")
    }
}

/// ChipAuthenticationInfo: CA protocol (DH/ECDH, cipher), version (1: MSE:Set KAT; 2: General Authenticate) and key id.
public struct ChipAuthenticationInfo: Sendable, Equatable {
    public let protocolOID: String
    public let version: Int
    public let keyID: Int?

    public init(protocolOID: String, version: Int, keyID: Int?) {
        self.protocolOID = protocolOID
        self.version = version
        self.keyID = keyID
    }

    var arcs: [Int] { protocolOID.split(separator: ".").compactMap { Int($0) } }
    public var isDH: Bool { arcs[9] == 1 }
    public var cipher: PACEInfo.Cipher? {
        switch arcs[10] { case 1: return .tripleDES; case 2: return .aes128; case 3: return .aes192; case 4: return .aes256; default: return nil }
    }
}

public struct ChipAuthenticationPublicKeyInfo: Sendable, Equatable {
    public let protocolOID: String
    /// DER SubjectPublicKeyInfo (id-PK-DH / id-PK-ECDH with domain parameters).
    public let subjectPublicKeyInfo: [UInt8]
    public let keyID: Int?
    public var isDH: Bool { protocolOID.hasSuffix(".1.1") }
}

/// ActiveAuthenticationInfo (for ECDSA AA keys): the signature algorithm to use.
public struct ActiveAuthenticationInfo: Sendable, Equatable {
    public let version: Int
    public let signatureAlgorithmOID: String?
}
