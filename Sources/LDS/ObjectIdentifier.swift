/// Decodes the content octets of an ASN.1 OBJECT IDENTIFIER to dotted form ("2.23.136.1.1.1").
public enum ObjectIdentifier {
    public static func dotted(_ content: ArraySlice<UInt8>) throws -> String {
        guard !content.isEmpty, content.last! & 0x80 == 0 else { throw TLVError.missing("a well-formed object identifier") }
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

