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

    /// The issuing state alone (positions 3–5 in every MRZ format), without parsing the rest:
    /// passive authentication needs only this, to match it with the CSCA's country.
    public static func issuingState(in bytes: [UInt8]) -> String? {
        guard let outer = try? TLV.parse(bytes), outer.tag == 0x61,
              let data = try? outer.child(0x5F1F), data.value.count >= 5 else { return nil }
        let code = data.value.dropFirst(2).prefix(3)
        guard code.allSatisfy({ (0x41...0x5A).contains($0) || $0 == 0x3C }) else { return nil }
        let state = String(decoding: code, as: UTF8.self).trimmingFillers()
        return state.isEmpty ? nil : state
    }
}
