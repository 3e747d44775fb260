import LDS

/// An X.501 name as a list of (attribute OID, value) pairs in encoding order. Comparison
/// ignores attribute order, because real issuers write the same name in a different order in
/// a certificate and in a CMS signer identifier, but nothing else: the string types and the
/// value bytes must be identical.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    public struct Attribute: Sendable, Hashable {
        public let oid: String
        public let value: String
        /// The ASN.1 string type and the encoded value, compared exactly.
        let tag: UInt32
        let raw: [UInt8]
    }
    public let attributes: [Attribute]

    static let stringTags: Set<UInt32> = [0x0C, 0x12, 0x13, 0x14, 0x16, 0x1C, 0x1E]

    /// Names parsed lately (a SignerInfo names its Document Signer's issuer in every dump).
    static let recent = RecentlyParsed<DistinguishedName>(capacity: 8)

    /// Parses the DER of a Name (SEQUENCE OF SET OF AttributeTypeAndValue).
    public init(der: ArraySlice<UInt8>) throws {
        let name = try TLV.parse(der)
        guard name.tag == 0x30 else { throw TLVError.unexpectedTag(expected: 0x30, found: name.tag) }
        var attributes: [Attribute] = []
        for rdn in try name.children() {
            guard rdn.tag == 0x31 else { throw TLVError.unexpectedTag(expected: 0x31, found: rdn.tag) }
            for atv in try rdn.children() {
                guard atv.tag == 0x30 else { throw TLVError.unexpectedTag(expected: 0x30, found: atv.tag) }
                let parts = try atv.children()
                guard parts.count == 2, parts[0].tag == 0x06, DistinguishedName.stringTags.contains(parts[1].tag) else {
                    throw TLVError.missing("a well-formed attribute in a name")
                }
                attributes.append(Attribute(oid: try ObjectIdentifier.dotted(parts[0].value),
                                            value: DistinguishedName.decodeString(tag: parts[1].tag, parts[1].value),
                                            tag: parts[1].tag, raw: Array(parts[1].value)))
            }
        }
        self.attributes = attributes
    }

    /// Value of the first attribute with `oid`.
    public func value(_ oid: String) -> String? { attributes.first { $0.oid == oid }?.value }
    public var country: String? { value("2.5.4.6") }
    public var commonName: String? { value("2.5.4.3") }

    /// Same attributes with the same encoded values, in any order.
    public func matches(_ other: DistinguishedName) -> Bool {
        guard attributes.count == other.attributes.count else { return false }
        if attributes == other.attributes { return true } // the usual case: same order
        func ordered(_ list: [Attribute]) -> [Attribute] {
            list.sorted { a, b in
                if a.oid != b.oid { return a.oid < b.oid }
                if a.tag != b.tag { return a.tag < b.tag }
                return a.raw.lexicographicallyPrecedes(b.raw)
            }
        }
        return ordered(attributes) == ordered(other.attributes)
    }

    public var description: String {
        attributes.map { "\(DistinguishedName.shortNames[$0.oid] ?? $0.oid)=\($0.value)" }.joined(separator: ", ")
    }

    static let shortNames = [
        "2.5.4.6": "C", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.3": "CN", "2.5.4.5": "serialNumber",
        "2.5.4.7": "L", "2.5.4.8": "ST", "1.2.840.113549.1.9.1": "emailAddress",
    ]

    static func decodeString(tag: UInt32, _ value: ArraySlice<UInt8>) -> String {
        switch tag {
        case 0x1E: // BMPString: UTF-16BE
            var units: [UInt16] = []
            var i = value.startIndex
            while i + 1 < value.endIndex { units.append(UInt16(value[i]) << 8 | UInt16(value[i + 1])); i += 2 }
            return String(decoding: units, as: UTF16.self)
        case 0x1C: // UniversalString: UTF-32BE
            var scalars = ""
            var i = value.startIndex
            while i + 3 < value.endIndex {
                let v = UInt32(value[i]) << 24 | UInt32(value[i + 1]) << 16 | UInt32(value[i + 2]) << 8 | UInt32(value[i + 3])
                if let s = Unicode.Scalar(v) { scalars.unicodeScalars.append(s) }
                i += 4
            }
            return scalars
        default: // UTF8String, PrintableString, IA5String, TeletexString (treated as Latin-1 compatible)
            return String(decoding: value, as: UTF8.self)
        }
    }
}
