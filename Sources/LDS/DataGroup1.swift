import MRZ

/// DG1 (ICAO 9303-10 §4.7.1): the MRZ as printed on the document, in data object 5F1F.
public struct DataGroup1: Sendable, Equatable {
    public let mrz: MRZ

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x61 else { throw TLVError.unexpectedTag(expected: 0x61, found: outer.tag) }
        guard let data = try outer.child(0x5F1F) else { throw TLVError.missing("the MRZ data object 5F1F in DG1") }
        mrz = try MRZ(text: String(decoding: data.value, as: UTF8.self))
    }
}
