import TextSupport
/// DG11, additional personal details (ICAO 9303-10 §4.7.11). Values keep the MRZ-style '<'
/// separators that issuers use; `readable` turns them into spaces. All fields are personal data.
public struct DataGroup11: Sendable, Equatable {
    public var fullName: String?
    public var otherNames: [String] = []
    public var personalNumber: String?
    /// YYYYMMDD (some states leave unknown parts as fillers).
    public var fullDateOfBirth: String?
    public var placeOfBirth: String?
    public var address: String?
    public var telephone: String?
    public var profession: String?
    public var title: String?
    public var personalSummary: String?
    public var otherTravelDocumentNumbers: [String] = []
    public var custodyInformation: String?

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x6B else { throw TLVError.unexpectedTag(expected: 0x6B, found: outer.tag) }
        for field in try outer.children() {
            let text = String(decoding: field.value, as: UTF8.self)
            switch field.tag {
            case 0x5F0E: fullName = text
            case 0x5F10: personalNumber = text
            case 0x5F2B: fullDateOfBirth = field.value.count == 4 ? field.value.map { $0.hex(2) }.joined() : text
            case 0x5F11: placeOfBirth = text
            case 0x5F42: address = text
            case 0x5F12: telephone = text
            case 0x5F13: profession = text
            case 0x5F14: title = text
            case 0x5F15: personalSummary = text
            case 0x5F17: otherTravelDocumentNumbers.append(text)
            case 0x5F18: custodyInformation = text
            case 0xA0: // count + other names
                otherNames += try field.children().filter { $0.tag == 0x5F0F }.map { String(decoding: $0.value, as: UTF8.self) }
            case 0x5F0F: otherNames.append(text)
            default: continue
            }
        }
    }

    /// '<' fillers as spaces, "<<" (name separator) as ", ".
    public static func readable(_ value: String) -> String {
        value.replacing("<<", with: ", ").replacing("<", with: " ")
    }
}

/// DG12, additional document details (ICAO 9303-10 §4.7.12).
public struct DataGroup12: Sendable, Equatable {
    public var issuingAuthority: String?
    /// YYYYMMDD.
    public var dateOfIssue: String?
    public var otherPersons: [String] = []
    public var endorsements: String?
    public var taxOrExitRequirements: String?
    public var personalizationDateTime: String?
    public var personalizationDeviceSerial: String?
    public var hasFrontImage = false
    public var hasRearImage = false

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x6C else { throw TLVError.unexpectedTag(expected: 0x6C, found: outer.tag) }
        for field in try outer.children() {
            let text = String(decoding: field.value, as: UTF8.self)
            switch field.tag {
            case 0x5F19: issuingAuthority = text
            case 0x5F26: dateOfIssue = field.value.count == 4 ? field.value.map { $0.hex(2) }.joined() : text
            case 0x5F1A: otherPersons.append(text)
            case 0xA0: otherPersons += try field.children().filter { $0.tag == 0x5F1A }.map { String(decoding: $0.value, as: UTF8.self) }
            case 0x5F1B: endorsements = text
            case 0x5F1C: taxOrExitRequirements = text
            case 0x5F1D: hasFrontImage = true
            case 0x5F1E: hasRearImage = true
            case 0x5F55: personalizationDateTime = field.value.count == 7 ? field.value.map { $0.hex(2) }.joined() : text
            case 0x5F56: personalizationDeviceSerial = text
            default: continue
            }
        }
    }
}

/// DG15: the Active Authentication public key (SubjectPublicKeyInfo, RSA or EC).
public struct DataGroup15: Sendable, Equatable {
    /// DER of the SubjectPublicKeyInfo.
    public let subjectPublicKeyInfo: [UInt8]
    /// The key's algorithm OID (rsaEncryption or id-ecPublicKey).
    public let algorithmOID: String

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x6F else { throw TLVError.unexpectedTag(expected: 0x6F, found: outer.tag) }
        guard let spki = try outer.children().first, spki.tag == 0x30,
              let algorithm = try spki.children().first, let oid = try algorithm.children().first, oid.tag == 0x06
        else { throw TLVError.missing("the SubjectPublicKeyInfo in DG15") }
        subjectPublicKeyInfo = Array(spki.encoded)
        algorithmOID = try ObjectIdentifier.dotted(oid.value)
    }

    public var isRSA: Bool { algorithmOID == "1.2.840.113549.1.1.1" }
}
