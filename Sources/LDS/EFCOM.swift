/// EF.COM (ICAO 9303-10 §4.6.1): LDS version, Unicode version and the list of data groups present.
public struct EFCOM: Sendable, Equatable {
    /// LDS version "aabb" (e.g. "0107" for LDS 1.7).
    public let ldsVersion: String?
    /// Unicode version "aabbcc" (e.g. "040000").
    public let unicodeVersion: String?
    /// The data groups the chip says it holds, in the order listed.
    public let dataGroups: [LDSFile]

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x60 else { throw TLVError.unexpectedTag(expected: 0x60, found: outer.tag) }
        let children = try outer.children()
        func text(_ tag: UInt32) -> String? {
            children.first { $0.tag == tag }.map { String(decoding: $0.value, as: UTF8.self) }
        }
        ldsVersion = text(0x5F01)
        unicodeVersion = text(0x5F36)
        guard let list = children.first(where: { $0.tag == 0x5C }) else {
            throw TLVError.missing("EF.COM tag list (5C)")
        }
        // Tags in the list are one byte each except for multi-byte tags, which no data group uses.
        var groups: [LDSFile] = []
        groups.reserveCapacity(list.value.count)
        for tag in list.value { if let file = LDSFile(dataGroupTag: UInt32(tag)) { groups.append(file) } }
        dataGroups = groups
    }
}
