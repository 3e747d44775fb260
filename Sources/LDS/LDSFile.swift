import TextSupport
/// An elementary file of the eMRTD application (ICAO 9303-10 §3.6): EF.COM, DG1-DG16,
/// EF.SOD, plus EF.ATR/INFO, EF.CardAccess and EF.CardSecurity of the master file.
public enum LDSFile: Hashable, Sendable, Comparable, CustomStringConvertible {
    case com
    case dataGroup(Int)
    case sod
    case cardAccess
    case cardSecurity
    /// EF.ATR/INFO (ISO 7816-4 §8.2.1.1, ICAO 9303-10 §3.11): the chip's extended length information.
    case atrInfo

    /// Every file in the order a reader reads and a dump lists them.
    public static let all: [LDSFile] =
        [.atrInfo, .cardAccess, .cardSecurity, .com] + (1...16).map { .dataGroup($0) } + [.sod]

    /// File identifier for SELECT.
    public var fid: UInt16 {
        switch self {
        case .com: return 0x011E
        case .dataGroup(let n): return 0x0100 + UInt16(n)
        case .sod: return 0x011D
        case .cardAccess: return 0x011C
        case .cardSecurity: return 0x011D
        case .atrInfo: return 0x2F01
        }
    }

    /// Short file identifier for READ BINARY with P1 = 0x80 | SFI.
    public var shortFID: UInt8 {
        switch self {
        case .com: return 0x1E
        case .dataGroup(let n): return UInt8(n)
        case .sod: return 0x1D
        case .cardAccess: return 0x1C
        case .cardSecurity: return 0x1D
        case .atrInfo: return 0x01
        }
    }

    /// True for files of the master file, read before the eMRTD application is selected.
    public var isInMasterFile: Bool { self == .cardAccess || self == .cardSecurity || self == .atrInfo }

    /// The outer tag of the file's content (EF.CardAccess and EF.CardSecurity have SET/SEQUENCE,
    /// EF.ATR/INFO a run of data objects).
    public var tag: UInt32? {
        switch self {
        case .com: return 0x60
        case .sod: return 0x77
        case .dataGroup(let n): return LDSFile.dataGroupTags[n - 1]
        case .cardAccess, .cardSecurity, .atrInfo: return nil
        }
    }

    static let dataGroupTags: [UInt32] =
        [0x61, 0x75, 0x63, 0x76, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F, 0x70]

    /// The data group an EF.COM tag-list entry names.
    public init?(dataGroupTag tag: UInt32) {
        guard let index = LDSFile.dataGroupTags.firstIndex(of: tag) else { return nil }
        self = .dataGroup(index + 1)
    }

    /// The dump-folder name (ARCHITECTURE.md): `COM.bin`, `DG1.bin`, `SOD.bin`, `CardAccess.bin`.
    public var fileName: String { "\(name).bin" }

    /// Short name: COM, DG1 … DG16, SOD, ATRInfo, CardAccess, CardSecurity.
    public var name: String {
        switch self {
        case .com: return "COM"
        case .dataGroup(let n): return "DG\(n)"
        case .sod: return "SOD"
        case .cardAccess: return "CardAccess"
        case .cardSecurity: return "CardSecurity"
        case .atrInfo: return "ATRInfo"
        }
    }

    public var description: String { name }

    /// Other names the same file has in recorded dumps: the BSI style and the FID style.
    public var alternativeFileNames: [String] {
        var names: [String] = []
        switch self {
        case .com: names.append("EF_COM.bin")
        case .dataGroup(let n): names.append("Datagroup\(n).bin")
        case .sod: names.append("EF_SOD.bin")
        case .cardAccess: names.append("EF_CardAccess.bin")
        case .cardSecurity: names.append("EF_CardSecurity.bin")
        case .atrInfo: names.append("EF_ATR_INFO.bin")
        }
        if !isInMasterFile {
            let fid = String(fid, radix: 16).leftPadded(to: 4)
            names.append("ef\(fid).bin")
        }
        return names
    }

    /// Parses a short name as printed by `name` (case-insensitive).
    public init?(name: String) {
        let upper = name.uppercased()
        if let match = LDSFile.all.first(where: { $0.name.uppercased() == upper }) {
            self = match
        } else {
            return nil
        }
    }

    private var order: Int { LDSFile.all.firstIndex(of: self)! }
    public static func < (lhs: LDSFile, rhs: LDSFile) -> Bool { lhs.order < rhs.order }
}
