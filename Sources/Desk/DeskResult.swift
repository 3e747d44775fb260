import FoundationEssentials
import ImageCodecs
import LDS
import MRZ
import PassiveAuth
import PassportKit

/// What the page shows of one document, as JSON: the CLI's own reports (`scan` or `verify`, and
/// `show`'s document report) with the verdict lines drawn from them, and where its images are.
public struct DeskResult: Encodable, Sendable {
    public struct Image: Codable, Sendable, Equatable {
        public let url: String
        public let label: String
        public let width: Int
        public let height: Int
        public let format: String
    }

    /// The MRZ of the data page (read by the camera or typed in full) beside DG1's.
    public struct MRZComparison: Codable, Sendable, Equatable {
        public let printed: [String]
        public let chip: [String]
        public let same: Bool
    }

    public let id: Int
    /// "chip" (read at the desk) or "dump" (a recorded dump dropped on the page).
    public let source: String
    /// The reader, or the name of what was dropped.
    public let label: String
    public let at: String
    public let ok: Bool
    public let document: DocumentReport
    public let verdicts: [DeskVerdict]
    @NullEncoded public var face: Image?
    public let biometrics: [Image]
    @NullEncoded public var mrz: MRZComparison?
    @NullEncoded public var scan: ScanReport?
    @NullEncoded public var verify: VerifyReport?
    /// Whether "Save dump" can write it (chip reads; a dropped dump is already on disk).
    public let savable: Bool

    enum CodingKeys: String, CodingKey {
        case id, source, label, at, ok, document, verdicts, face, biometrics, mrz, scan, verify, savable
    }
}

/// A result with what it was made from, kept in memory only: the images as PNG, and for a chip
/// read the contents that "Save dump" writes.
struct DeskRecord: Sendable {
    let result: DeskResult
    let images: [String: [UInt8]]
    let contents: ChipContents?
    let evidence: [UInt8]?
    /// Passive authentication of a chip read (nil without trust anchors, and for dumps).
    var verification: PassiveAuthenticationReport? = nil
}

enum DeskRecords {
    /// A chip read: verified when trust anchors are configured, the chip's own authentication
    /// judged as `passport scan` judges it.
    static func chip(_ scanned: ChipContents, id: Int, trust: TrustStore?, givenMRZ: MRZ?) -> DeskRecord {
        let verification = trust.map { PassiveAuthentication.verify(files: scanned.files, trust: $0) }
        let contents = ChipAuthenticity.assess(scanned, trust: trust, verification: verification)
        let details = DocumentDetails(files: contents.files, givenMRZ: givenMRZ)
        let scan = ScanReport(contents: contents, dumpName: "not saved (in the desk's memory)", details: details, verification: verification)
        let (face, biometrics, images) = self.images(contents.files, id: id)
        var result = DeskResult(id: id, source: "chip", label: contents.readerName, at: ReportEncoding.time(Date()),
                                ok: scan.ok && (scan.document.problems ?? []).isEmpty, document: scan.document,
                                verdicts: DeskVerdicts.forScan(scan), biometrics: biometrics, savable: true)
        result.face = face
        result.scan = scan
        result.mrz = comparison(givenMRZ, contents.files)
        return DeskRecord(result: result, images: images, contents: contents, evidence: contents.evidence.json, verification: verification)
    }

    /// A recorded dump: the report `passport verify` gives.
    static func dump(_ dump: DumpFolder, label: String, id: Int, trust: TrustStore) throws -> DeskRecord {
        let report = try DumpVerifier.verify(dump: dump, trust: trust)
        let verify = VerifyReport(dump: label, trust: trust, report: report)
        let details = DocumentDetails(files: dump.files)
        let (face, biometrics, images) = self.images(dump.files, id: id)
        var result = DeskResult(id: id, source: "dump", label: label, at: ReportEncoding.time(Date()), ok: verify.ok,
                                document: details.report, verdicts: DeskVerdicts.forDump(verify), biometrics: biometrics, savable: false)
        result.face = face
        result.verify = verify
        return DeskRecord(result: result, images: images, contents: nil, evidence: dump.evidence)
    }

    /// The face of DG2 and the images of DG3/DG4 as PNG (as `passport photo` writes them); images
    /// Leptonica cannot decode (WSQ) are listed in the document report, not shown.
    static func images(_ files: [LDSFile: [UInt8]], id: Int) -> (DeskResult.Image?, [DeskResult.Image], [String: [UInt8]]) {
        var stored: [String: [UInt8]] = [:]
        var face: DeskResult.Image?
        if let bytes = files[.dataGroup(2)], let first = try? DataGroup2(bytes: bytes).faces.first,
           let png = try? ImageConverter.png(from: first.image), let size = try? ImageConverter.dimensions(of: first.image) {
            stored["face.png"] = png
            face = DeskResult.Image(url: "/api/results/\(id)/face.png", label: "Face (DG2)", width: size.width, height: size.height,
                                    format: first.format.rawValue)
        }
        var biometrics: [DeskResult.Image] = []
        for number in [3, 4] {
            guard let bytes = files[.dataGroup(number)], let all = try? BiometricImage.all(in: .dataGroup(number), bytes) else { continue }
            for (index, image) in all.enumerated() where image.decodable {
                guard let png = try? ImageConverter.png(from: image.bytes) else { continue }
                let name = "dg\(number)-\(index + 1).png"
                stored[name] = png
                biometrics.append(DeskResult.Image(url: "/api/results/\(id)/\(name)", label: "\(image.position) (DG\(number))",
                                                   width: image.width, height: image.height, format: image.format))
            }
        }
        return (face, biometrics, stored)
    }

    static func comparison(_ given: MRZ?, _ files: [LDSFile: [UInt8]]) -> DeskResult.MRZComparison? {
        guard let given, let bytes = files[.dataGroup(1)], let dg1 = try? DataGroup1(bytes: bytes) else { return nil }
        return DeskResult.MRZComparison(printed: given.lines, chip: dg1.mrz.lines, same: given.lines == dg1.mrz.lines)
    }
}
