import FoundationEssentials
import LDS

/// The parts of a CMS SignedData (RFC 5652) that EF.SOD, master lists and EF.CardSecurity use.
/// Parsed with our own BER reader (indefinite lengths allowed); signatures are checked elsewhere.
public struct CMSSignedData: Sendable {
    public let contentType: String
    /// The encapsulated content's octets (nil when detached).
    public let content: [UInt8]?
    /// DER of each certificate in the `certificates` field (slices of the parsed bytes).
    public let certificates: [ArraySlice<UInt8>]
    public let crls: [[UInt8]]
    public let signers: [SignerInfo]

    /// Parses a ContentInfo holding SignedData.
    public init(contentInfo bytes: ArraySlice<UInt8>) throws {
        // Children are read one at a time (each parsed, as `children()` would) where an array of
        // them was only looked through: an EF.SOD is parsed for every dump of a batch.
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x30 else { throw PassiveAuthenticationError.malformedSOD("ContentInfo is not a SEQUENCE") }
        var ci = outer.childReader()
        let type = try ci.next(), wrapped = try ci.next()
        _ = try ci.remaining()
        guard let type, let wrapped, type.tag == 0x06, try ObjectIdentifier.dotted(type.value) == "1.2.840.113549.1.7.2",
              wrapped.tag == 0xA0, let signedData = try CMSSignedData.firstChild(of: wrapped), signedData.tag == 0x30
        else { throw PassiveAuthenticationError.malformedSOD("not a CMS SignedData") }
        let fields = try signedData.children()
        guard fields.count >= 4, fields[0].tag == 0x02, fields[1].tag == 0x31, fields[2].tag == 0x30 else {
            throw PassiveAuthenticationError.malformedSOD("SignedData fields missing")
        }
        var encap = fields[2].childReader()
        let typeTLV = try encap.next(), eContent = try encap.next()
        let more = try encap.remaining()
        guard let typeTLV, typeTLV.tag == 0x06 else {
            throw PassiveAuthenticationError.malformedSOD("no encapsulated content type")
        }
        // RFC 5652 §5.2: eContentType and an optional [0] eContent, nothing else.
        guard more == 0 else { throw PassiveAuthenticationError.malformedSOD("the EncapsulatedContentInfo has \(2 + more) fields, not at most 2") }
        contentType = try ObjectIdentifier.dotted(typeTLV.value)
        if let eContent, eContent.tag == 0xA0, let octets = try CMSSignedData.firstChild(of: eContent) {
            content = try CMSSignedData.octetString(octets)
        } else {
            content = nil
        }
        let version = fields[0].value.reduce(0) { $0 << 8 | Int($1) }
        var digestAlgorithms: [String] = []
        var algorithms = fields[1].childReader()
        while let algorithm = try algorithms.next() { digestAlgorithms.append(try AlgorithmIdentifier(algorithm).oid) }
        var certificates: [ArraySlice<UInt8>] = []
        var crls: [[UInt8]] = []
        var signerSet: TLV?
        for field in fields[3...] {
            switch field.tag {
            case 0xA0: certificates = try field.children().filter { $0.tag == 0x30 }.map(\.encoded)
            case 0xA1: crls = try field.children().filter { $0.tag == 0x30 }.map { Array($0.encoded) }
            case 0x31: signerSet = field
            default: break
            }
        }
        guard let signerSet else { throw PassiveAuthenticationError.malformedSOD("no SignerInfos") }
        self.certificates = certificates
        self.crls = crls
        var signers: [SignerInfo] = []
        var infos = signerSet.childReader()
        while let info = try infos.next() { signers.append(try SignerInfo(info)) }
        self.signers = signers
        guard !signers.isEmpty else { throw PassiveAuthenticationError.malformedSOD("no SignerInfo") }
        // RFC 5652 §5.1: version 3 unless the content is id-data and every signer is version 1.
        let expectedVersion = contentType == "1.2.840.113549.1.7.1" && signers.allSatisfy({ $0.version == 1 }) ? 1 : 3
        guard version == expectedVersion || (version == 3 && expectedVersion == 1) else {
            throw PassiveAuthenticationError.malformedSOD("SignedData version \(version), expected \(expectedVersion)")
        }
        for signer in signers where !digestAlgorithms.contains(signer.digestAlgorithmOID) {
            throw PassiveAuthenticationError.malformedSOD("the signer's digest algorithm \(signer.digestAlgorithmOID) is not among the SignedData digest algorithms")
        }
    }

    /// The first object inside `tlv` (all of them parsed, as `children().first` would).
    static func firstChild(of tlv: TLV) throws -> TLV? {
        var reader = tlv.childReader()
        let first = try reader.next()
        _ = try reader.remaining()
        return first
    }

    static func octetString(_ tlv: TLV) throws -> [UInt8] {
        switch tlv.tag {
        case 0x04: return Array(tlv.value)
        case 0x24: return try tlv.children().flatMap { try octetString($0) }
        default: throw PassiveAuthenticationError.malformedSOD("encapsulated content is not an OCTET STRING")
        }
    }
}

/// One SignerInfo: who signed, which algorithms, the signed attributes and the signature.
public struct SignerInfo: Sendable {
    public enum Identifier: Sendable {
        case issuerAndSerial(issuer: DistinguishedName, serial: [UInt8])
        case subjectKeyIdentifier([UInt8])
    }
    public let identifier: Identifier
    public let digestAlgorithmOID: String
    /// The signed attributes re-encoded as the SET OF that the signature covers (nil if absent).
    public let signedAttributesForSignature: [UInt8]?
    public let signatureAlgorithm: AlgorithmIdentifier
    public let signature: [UInt8]
    public let messageDigest: [UInt8]?
    public let contentTypeAttribute: String?
    public let signingTime: Date?
    /// 1 with issuerAndSerialNumber, 3 with subjectKeyIdentifier (RFC 5652 §5.3).
    public let version: Int

    init(_ tlv: TLV) throws {
        guard tlv.tag == 0x30 else { throw PassiveAuthenticationError.malformedSOD("SignerInfo is not a SEQUENCE") }
        let fields = try tlv.children()
        guard fields.count >= 5, fields[0].tag == 0x02 else { throw PassiveAuthenticationError.malformedSOD("SignerInfo fields missing") }
        version = fields[0].value.reduce(0) { $0 << 8 | Int($1) }
        guard version == (fields[1].tag == 0x80 ? 3 : 1) else {
            throw PassiveAuthenticationError.malformedSOD("SignerInfo version \(version) does not fit its signer identifier")
        }
        switch fields[1].tag {
        case 0x30:
            let parts = try fields[1].children()
            guard parts.count == 2, parts[1].tag == 0x02 else { throw PassiveAuthenticationError.malformedSOD("bad issuerAndSerialNumber") }
            identifier = .issuerAndSerial(issuer: try DistinguishedName.recent.value(for: parts[0].encoded, parse: DistinguishedName.init(der:)),
                                          serial: Array(parts[1].value.drop { $0 == 0 }))
        case 0x80: identifier = .subjectKeyIdentifier(Array(fields[1].value))
        default: throw PassiveAuthenticationError.malformedSOD("unknown signer identifier")
        }
        digestAlgorithmOID = try AlgorithmIdentifier(fields[2]).oid
        var index = 3
        var signed: TLV?
        if fields[index].tag == 0xA0 { signed = fields[index]; index += 1 }
        guard fields.count > index + 1, fields[index + 1].tag == 0x04 else {
            throw PassiveAuthenticationError.malformedSOD("SignerInfo signature missing")
        }
        signatureAlgorithm = try AlgorithmIdentifier(fields[index])
        signature = Array(fields[index + 1].value)

        var messageDigest: [UInt8]?
        var contentType: String?
        var signingTime: Date?
        if let signed {
            // The signature covers the DER of the attributes with the SET OF tag instead of [0].
            var forSignature = [UInt8]()
            forSignature.reserveCapacity(signed.encoded.count)
            forSignature.append(0x31)
            forSignature.append(contentsOf: signed.encoded.dropFirst())
            signedAttributesForSignature = forSignature
            var attributes = signed.childReader()
            while let attribute = try attributes.next() {
                var parts = attribute.childReader()
                let type = try parts.next(), values = try parts.next()
                guard let type, let values, try parts.remaining() == 0, type.tag == 0x06 else { continue }
                var valueReader = values.childReader()
                let first = try valueReader.next()
                _ = try valueReader.remaining()
                guard let value = first else { continue }
                switch try ObjectIdentifier.dotted(type.value) {
                case "1.2.840.113549.1.9.4": messageDigest = Array(value.value)
                case "1.2.840.113549.1.9.3": contentType = try ObjectIdentifier.dotted(value.value)
                case "1.2.840.113549.1.9.5": signingTime = ASN1Time.parse(tag: value.tag, value.value)
                default: break
                }
            }
        } else {
            signedAttributesForSignature = nil
        }
        self.messageDigest = messageDigest
        self.contentTypeAttribute = contentType
        self.signingTime = signingTime
    }

    /// Whether `certificate` is the one this SignerInfo names (names compared tolerantly).
    public func identifies(_ certificate: Certificate) -> Bool {
        switch identifier {
        case .issuerAndSerial(let issuer, let serial):
            return certificate.serialNumber == serial && certificate.issuer.matches(issuer)
        case .subjectKeyIdentifier(let ski):
            return certificate.subjectKeyIdentifier == ski
        }
    }
}

/// An AlgorithmIdentifier: OID plus the DER of its parameters, if any.
public struct AlgorithmIdentifier: Sendable, Equatable {
    public let oid: String
    public let parameters: [UInt8]?

    /// An OID (dotted) and the DER of its parameters (nil when absent or NULL).
    public init(oid: String, parameters: [UInt8]?) {
        self.oid = oid
        self.parameters = parameters
    }

    init(_ tlv: TLV) throws {
        guard tlv.tag == 0x30 else { throw PassiveAuthenticationError.malformedSOD("AlgorithmIdentifier is not a SEQUENCE") }
        var parts = tlv.childReader()
        guard let first = try parts.next(), first.tag == 0x06 else { throw PassiveAuthenticationError.malformedSOD("bad AlgorithmIdentifier") }
        oid = try ObjectIdentifier.dotted(first.value)
        let second = try parts.next()
        _ = try parts.remaining()
        parameters = second.flatMap { $0.tag != 0x05 ? Array($0.encoded) : nil }
    }
}

/// UTCTime / GeneralizedTime (the forms CMS signingTime uses: Z, optional seconds).
enum ASN1Time {
    /// A UTCTime (tag 0x17, YYMMDDhhmm[ss]Z, YY < 50 being 20YY) or GeneralizedTime
    /// (YYYYMMDDhhmm[ss][.fff]Z) in UTC; nil for anything else. Read from the bytes with integer
    /// arithmetic: a Gregorian Calendar per certificate and signing time was a visible share of a
    /// batch verification.
    static func parse(tag: UInt32, _ value: ArraySlice<UInt8>) -> Date? {
        guard value.last == UInt8(ascii: "Z") else { return nil }
        var digits = value.dropLast()
        if let dot = digits.firstIndex(of: UInt8(ascii: ".")) { digits = digits[..<dot] }
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        var position = digits.startIndex
        func number(_ width: Int) -> Int {
            defer { position += width }
            return digits[position..<position + width].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        let yearWidth = tag == 0x17 ? 2 : 4
        guard digits.count == yearWidth + 8 || digits.count == yearWidth + 10 else { return nil }
        var year = number(yearWidth)
        if tag == 0x17 { year += year < 50 ? 2000 : 1900 }
        let month = number(2), day = number(2), hour = number(2), minute = number(2)
        let second = position < digits.endIndex ? number(2) : 0
        return utcDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}
