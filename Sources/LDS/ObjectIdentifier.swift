/// Decodes the content octets of an ASN.1 OBJECT IDENTIFIER to dotted form ("2.23.136.1.1.1").
public enum ObjectIdentifier {
    public static func dotted(_ content: ArraySlice<UInt8>) throws -> String {
        guard !content.isEmpty, content.last! & 0x80 == 0 else { throw TLVError.missing("a well-formed object identifier") }
        if let packed = Packed(content), let known = wellKnown.first(where: { $0.packed == packed }) { return known.dotted }
        return try spell(content)
    }

    /// The content octets of an OID of at most 16 bytes as two words and a count: compared in
    /// three instructions, not spelled.
    package struct Packed: Equatable {
        let low: UInt64, high: UInt64, count: Int

        package init?(_ content: some Collection<UInt8>) {
            guard content.count <= 16 else { return nil }
            var low: UInt64 = 0, high: UInt64 = 0
            for (index, byte) in content.enumerated() {
                if index < 8 { low |= UInt64(byte) << (8 * index) } else { high |= UInt64(byte) << (8 * (index - 8)) }
            }
            self.low = low
            self.high = high
            self.count = content.count
        }
    }

    /// The OIDs every EF.SOD, CMS structure and certificate names, spelled once for the process:
    /// a batch met each of them a dozen times a dump, and most are too long for a String without
    /// an allocation.
    package static let wellKnown: [(packed: Packed, dotted: String)] = [
        // CMS, PKCS #9 attributes, the LDS security object (ICAO 9303-10)
        "1.2.840.113549.1.7.1", "1.2.840.113549.1.7.2", "1.2.840.113549.1.9.3", "1.2.840.113549.1.9.4",
        "1.2.840.113549.1.9.5", "2.23.136.1.1.1", "2.23.136.1.1.2",
        // digests
        "1.3.14.3.2.26", "2.16.840.1.101.3.4.2.1", "2.16.840.1.101.3.4.2.2", "2.16.840.1.101.3.4.2.3",
        "2.16.840.1.101.3.4.2.4",
        // signatures and keys
        "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.5", "1.2.840.113549.1.1.8", "1.2.840.113549.1.1.10",
        "1.2.840.113549.1.1.11", "1.2.840.113549.1.1.12", "1.2.840.113549.1.1.13", "1.2.840.113549.1.1.14",
        "1.2.840.10045.2.1", "1.2.840.10045.4.3.2", "1.2.840.10045.4.3.3", "1.2.840.10045.4.3.4",
        // name attributes
        "2.5.4.3", "2.5.4.5", "2.5.4.6", "2.5.4.7", "2.5.4.8", "2.5.4.10", "2.5.4.11",
        // certificate extensions
        "2.5.29.14", "2.5.29.15", "2.5.29.16", "2.5.29.17", "2.5.29.18", "2.5.29.19", "2.5.29.31",
        "2.5.29.32", "2.5.29.35", "2.5.29.37",
    ].map { dotted in (Packed(encode(dotted))!, dotted) }

    /// `content` spelled arc by arc.
    package static func spell(_ content: ArraySlice<UInt8>) throws -> String {
        // Spelled as it is decoded, digit by digit into one buffer: every SOD, certificate and
        // CMS structure names a dozen of them, in every dump of a batch. An arc of at most 64
        // bits has at most 20 digits; each content octet adds at most one arc.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: content.count * 21 + 2) { buffer in
            var length = 0
            func append(_ arc: UInt64) {
                var unit: UInt64 = 1   // the place of the leading digit
                while unit <= arc / 10 { unit *= 10 }
                var rest = arc
                while unit > 0 {
                    buffer[length] = UInt8(ascii: "0") + UInt8(rest / unit)
                    length += 1
                    rest %= unit
                    unit /= 10
                }
            }
            var value: UInt64 = 0
            var isFirst = true
            for byte in content {
                guard value >> 57 == 0 else { throw TLVError.missing("an object identifier arc that fits 64 bits") }
                value = value << 7 | UInt64(byte & 0x7F)
                guard byte & 0x80 == 0 else { continue }
                if isFirst {
                    let (root, second): (UInt64, UInt64) = value < 40 ? (0, value) : value < 80 ? (1, value - 40) : (2, value - 80)
                    append(root)
                    buffer[length] = UInt8(ascii: ".")
                    length += 1
                    append(second)
                    isFirst = false
                } else {
                    buffer[length] = UInt8(ascii: ".")
                    length += 1
                    append(value)
                }
                value = 0
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<length]), as: UTF8.self)
        }
    }

    /// Content octets of an object identifier in dotted form.
    public static func encode(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").compactMap { UInt64($0) }
        precondition(arcs.count >= 2)
        var out: [UInt8] = []
        for (i, arc) in ([arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2)).enumerated() {
            _ = i
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 { chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
            out += chunk
        }
        return out
    }
}

