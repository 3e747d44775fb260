/// The parts of an ISO 7816-3 answer to reset a passport reader cares about: the historical
/// bytes and, in their card-capabilities object, whether the card takes extended lengths.
public struct AnswerToReset: Sendable, Equatable {
    public let bytes: [UInt8]
    public let historicalBytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.historicalBytes = AnswerToReset.historicalBytes(of: bytes)
    }

    /// ISO 7816-4 §12.1.1: card capabilities (compact-TLV tag 7, third byte bit 7 = extended Lc/Le).
    public var supportsExtendedLength: Bool {
        guard let caps = compactTLV[0x7], caps.count >= 3 else { return false }
        return caps[2] & 0x40 != 0
    }

    /// Compact-TLV objects of category-indicator 0x80 historical bytes, tag nibble → value.
    public var compactTLV: [UInt8: [UInt8]] {
        guard historicalBytes.first == 0x80 else { return [:] }
        var objects: [UInt8: [UInt8]] = [:]
        var i = 1
        while i < historicalBytes.count {
            let tag = historicalBytes[i] >> 4
            let length = Int(historicalBytes[i] & 0x0F)
            guard i + 1 + length <= historicalBytes.count else { break }
            objects[tag] = Array(historicalBytes[(i + 1)..<(i + 1 + length)])
            i += 1 + length
        }
        return objects
    }

    static func historicalBytes(of atr: [UInt8]) -> [UInt8] {
        guard atr.count >= 2 else { return [] }
        let count = Int(atr[1] & 0x0F)
        var i = 1
        var y = atr[1] >> 4
        var tck = false
        // Walk TAi..TDi; each TDi announces the next group and a protocol other than T=0 means TCK.
        while true {
            let hasTD = y & 0x8 != 0
            i += (y & 0x1 != 0 ? 1 : 0) + (y & 0x2 != 0 ? 1 : 0) + (y & 0x4 != 0 ? 1 : 0)
            guard hasTD else { break }
            i += 1
            guard i < atr.count else { return [] }
            if atr[i] & 0x0F != 0 { tck = true }
            y = atr[i] >> 4
        }
        let start = i + 1
        let end = start + count
        // TCK (present when a protocol other than T=0 is announced) follows the historical bytes.
        guard end + (tck ? 1 : 0) <= atr.count else { return [] }
        return Array(atr[start..<end])
    }
}
