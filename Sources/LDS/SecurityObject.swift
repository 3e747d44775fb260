import PassportCrypto

/// EF.SOD (ICAO 9303-10 §4.6.2): a CMS SignedData whose content is the LDSSecurityObject,
/// the list of data-group hashes. This type reads the structure; verifying the signature is
/// PassiveAuth's job, which gets the raw CMS bytes from `cms`.
public struct SecurityObject: Sendable, Equatable {
    /// The CMS ContentInfo (the value of tag 77), as stored.
    public let cms: [UInt8]
    /// The encapsulated content type (2.23.136.1.1.1, 1.3.27.1.1.1 or id-data).
    public let contentType: String
    /// The LDSSecurityObject's DER bytes (the eContent that the signature covers).
    public let content: [UInt8]
    /// LDSSecurityObject version: 0, or 1 with LDS version information.
    public let version: Int
    public let hashAlgorithmOID: String
    /// Nil when the OID is not a digest algorithm we know.
    public let hashAlgorithm: DigestAlgorithm?
    /// Data-group number → hash value, as listed in the SOD.
    public let dataGroupHashes: [Int: [UInt8]]
    /// LDS and Unicode versions from LDSSecurityObject v1.
    public let ldsVersion: String?
    public let unicodeVersion: String?

    public static let acceptedContentTypes: Set<String> = [
        "2.23.136.1.1.1",   // id-icao-mrtd-security-ldsSecurityObject
        "1.3.27.1.1.1",     // used by some early issuers
        "1.2.840.113549.1.7.1", // id-data
    ]

    public init(bytes: [UInt8]) throws {
        let contentInfo = try SecurityObject.contentInfo(of: bytes)
        let ci = try TLV.parse(contentInfo).children()
        guard ci.count >= 2, ci[0].tag == 0x06, try ObjectIdentifier.dotted(ci[0].value) == "1.2.840.113549.1.7.2"
        else { throw TLVError.missing("the CMS signedData content type in EF.SOD") }
        guard ci[1].tag == 0xA0, let signedData = try ci[1].children().first, signedData.tag == 0x30 else {
            throw TLVError.missing("the CMS SignedData in EF.SOD")
        }
        let sd = try signedData.children()
        guard sd.count >= 4, let encap = sd.first(where: { $0.tag == 0x30 }) else {
            throw TLVError.missing("the encapsulated content in EF.SOD")
        }
        let ec = try encap.children()
        guard ec.count == 2, ec[0].tag == 0x06, ec[1].tag == 0xA0, let octets = try ec[1].children().first else {
            throw TLVError.missing("the LDSSecurityObject in EF.SOD")
        }
        try self.init(cms: Array(contentInfo), contentType: try ObjectIdentifier.dotted(ec[0].value),
                      content: try SecurityObject.octetStringContent(octets))
    }

    /// The value of EF.SOD's tag 77: the CMS ContentInfo.
    public static func contentInfo(of bytes: [UInt8]) throws -> ArraySlice<UInt8> {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x77 else { throw TLVError.unexpectedTag(expected: 0x77, found: outer.tag) }
        return outer.value
    }

    /// The LDSSecurityObject of an EF.SOD whose CMS envelope was read elsewhere: passive
    /// authentication reads it once, as a CMSSignedData, instead of once more here.
    /// `content`: the encapsulated content's octets, of type `contentType`.
    public init(cms: [UInt8], contentType: String, content: [UInt8]) throws {
        guard SecurityObject.acceptedContentTypes.contains(contentType) else {
            throw TLVError.missing("an LDSSecurityObject content type (found \(contentType))")
        }
        self.cms = cms
        self.contentType = contentType
        self.content = content

        let lso = try TLV.parse(content).children()
        guard lso.count >= 3, lso[0].tag == 0x02, lso[1].tag == 0x30, lso[2].tag == 0x30 else {
            throw TLVError.missing("the fields of the LDSSecurityObject")
        }
        version = lso[0].value.reduce(0) { $0 << 8 | Int($1) }
        guard let algorithm = try lso[1].children().first, algorithm.tag == 0x06 else {
            throw TLVError.missing("the hash algorithm of the LDSSecurityObject")
        }
        hashAlgorithmOID = try ObjectIdentifier.dotted(algorithm.value)
        hashAlgorithm = DigestAlgorithm(oid: hashAlgorithmOID)
        var hashes: [Int: [UInt8]] = [:]
        hashes.reserveCapacity(16)
        var entries = lso[2].childReader()
        while let entry = try entries.next() {
            var fields = entry.childReader()
            let numberField = try fields.next(), hashField = try fields.next()
            guard let numberField, let hashField, try fields.remaining() == 0, numberField.tag == 0x02, hashField.tag == 0x04, numberField.value.count <= 2 else {
                throw TLVError.missing("a well-formed DataGroupHash in the LDSSecurityObject")
            }
            let number = numberField.value.reduce(0) { $0 << 8 | Int($1) }
            guard (1...16).contains(number) else { throw TLVError.missing("a data group number 1-16 in the SOD") }
            hashes[number] = Array(hashField.value)
        }
        dataGroupHashes = hashes
        // ICAO 9303-10 4.6.2.2: version 0 (LDS 1.7) has no ldsVersionInfo, version 1 (LDS 1.8 on)
        // has it; any other version, or the two mixed, is not an LDSSecurityObject.
        let hasVersionInfo = lso.count >= 4 && lso[3].tag == 0x30
        guard (version == 0 && !hasVersionInfo) || (version == 1 && hasVersionInfo) else {
            throw TLVError.malformed("LDSSecurityObject version \(version) "
                + (hasVersionInfo ? "with" : "without") + " LDS version information (ICAO 9303-10: version 0 without, version 1 with)")
        }
        if hasVersionInfo {
            let info = try lso[3].children()
            ldsVersion = info.first.map { String(decoding: $0.value, as: UTF8.self) }
            unicodeVersion = info.count > 1 ? String(decoding: info[1].value, as: UTF8.self) : nil
        } else {
            ldsVersion = nil
            unicodeVersion = nil
        }
    }

    /// The content of an OCTET STRING, joining the segments of a BER constructed encoding.
    static func octetStringContent(_ tlv: TLV) throws -> [UInt8] {
        switch tlv.tag {
        case 0x04: return Array(tlv.value)
        case 0x24: return try tlv.children().flatMap { try octetStringContent($0) }
        default: throw TLVError.unexpectedTag(expected: 0x04, found: tlv.tag)
        }
    }
}
