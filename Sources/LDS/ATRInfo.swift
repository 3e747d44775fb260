import TextSupport
/// EF.ATR/INFO of the master file (ISO/IEC 7816-4 §8.2.1.1, ICAO 9303-10 §3.11): data objects
/// about the chip, readable without access control. A reader uses the extended length
/// information, DO'7F66': two INTEGERs, the most bytes a command APDU and a response APDU may
/// have. The file exists to say that; one without it, or with another count of lengths, is
/// malformed (BSI TR-03105 5.1 LDS_K).
public struct ATRInfo: Sendable, Equatable {
    public let maxCommandBytes: Int
    public let maxResponseBytes: Int

    public init(bytes: [UInt8]) throws {
        let objects = try TLV.parseAll(bytes[...])
        guard let info = objects.first(where: { $0.tag == 0x7F66 }) else {
            let found = objects.map { hexTag($0.tag) }.joined(separator: ", ")
            throw TLVError.missing("the extended length information (DO'7F66'; the file holds \(found.isEmpty ? "nothing" : found))")
        }
        let lengths = try info.children()
        guard lengths.count == 2, lengths.allSatisfy({ $0.tag == 0x02 }) else {
            throw TLVError.malformed("the extended length information (7F66) holds \(lengths.count) object(s) "
                + "(\(lengths.map { hexTag($0.tag) }.joined(separator: ", "))), not two INTEGERs: the longest command and response")
        }
        maxCommandBytes = try Self.length(lengths[0], "command")
        maxResponseBytes = try Self.length(lengths[1], "response")
    }

    private static func length(_ integer: TLV, _ what: String) throws -> Int {
        let value = integer.value
        guard (1...3).contains(value.count), value.first! & 0x80 == 0 else {
            let bytes = value.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
            throw TLVError.malformed("the longest \(what) in 7F66 (\(bytes.isEmpty ? "empty" : bytes)) is not a positive length of 1 to 3 bytes")
        }
        let length = value.reduce(0) { $0 << 8 | Int($1) }
        guard length > 0 else { throw TLVError.malformed("the longest \(what) in 7F66 is 0 bytes") }
        return length
    }
}
