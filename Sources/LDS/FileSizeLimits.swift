/// How large a file of a dump (or of a chip) may be before it is refused unread.
///
/// ICAO 9303 fixes no byte maximum for an elementary file, and READ BINARY does not bound one
/// either (INS B0 reaches offset 32 767, INS B1 with an offset data object goes beyond). What
/// bounds a file is what it may hold, so the limits follow the content, with a margin of ten
/// times or more over the largest real files we know of:
/// - images and biometrics (DG2–DG7), and the groups whose content is national or open (DG8–DG10
///   features, DG12 which may carry images of the document, DG13): 1 MiB each. A passport's
///   DG2 is 10–60 KB; two WSQ fingerprints in DG3 about 20–100 KB.
/// - structured data (EF.COM, DG1, DG11, DG14, DG15, DG16, EF.SOD, EF.ATR/INFO, EF.CardAccess,
///   EF.CardSecurity): 64 KiB each. They hold a few hundred bytes to a few KB; an EF.SOD with its
///   Document Signer certificate is 2–5 KB.
/// - our own `manifest.json` and `evidence.json`: 256 KiB each.
/// An NFCPassportReader export holds every file in base64: its bound is the sum of theirs.
public enum FileSizeLimits {
    public static let largeFile = 1 << 20
    public static let structuredFile = 64 << 10
    public static let recordFile = 256 << 10

    /// The bound on `file`'s size in bytes: `largeFile` for the data groups whose content is
    /// images, biometrics or open-ended (DG2–DG10, DG12, DG13).
    public static func limit(for file: LDSFile) -> Int {
        switch file {
        case .dataGroup(2...10), .dataGroup(12), .dataGroup(13): return largeFile
        default: return structuredFile
        }
    }

    /// The largest dump folder: every file at its bound, plus the manifest and the evidence.
    public static let dumpFolder = LDSFile.all.reduce(2 * recordFile) { $0 + limit(for: $1) }

    /// An NFCPassportReader export: every file in base64 (4 bytes for 3), plus room for the
    /// names, the recorded Active Authentication answer and white space.
    public static let export = LDSFile.all.reduce(recordFile) { $0 + (limit(for: $1) + 2) / 3 * 4 + 64 }

    /// "1 MiB", "64 KiB", "15.7 MiB", for messages.
    public static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 20 { return "\(Double(bytes * 10 / (1 << 20)) / 10) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
