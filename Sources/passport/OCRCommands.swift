import ArgumentParser
import PassportCLI
import FoundationEssentials
import TextSupport
import MRZ
import MRZScanner
import PassportKit
import VideoFrames

/// Reads the MRZ from a photo, explaining on stderr when the fallback model is in use.
func scanMRZImage(_ path: String, tessdata: String?, timeBudget: Double? = nil) throws -> (MRZScanResult, MRZModel) {
    let (scanner, model) = try makeMRZScanner(tessdata: tessdata, timeBudget: timeBudget)
    return (try scanner.scan(imageAt: path), model)
}

/// The scanner `passport ocr` and `passport scan` use, explaining on stderr when the fallback model is in use.
func makeMRZScanner(tessdata: String?, timeBudget: Double?) throws -> (MRZScanner, MRZModel) {
    let model = try MRZModel.locate(explicit: tessdata)
    if model.isFallback {
        printError("warning: the MRZ model (mrz.traineddata) was not found; using Tesseract's general English model, "
            + "which misreads the MRZ font more often. Run scripts/setup or pass --tessdata.")
    }
    let scanner = try MRZScanner(model: model)
    if let timeBudget { scanner.timeBudget = timeBudget }
    return (scanner, model)
}

/// Reads the MRZ from a camera (V4L2 device) or a video file until two frames agree, with
/// progress on stderr.
func scanMRZCamera(_ source: String, tessdata: String?, timeBudget: Double? = nil, sampleInterval: Double? = nil,
                   maxSeconds: Double? = nil) throws -> (VideoMRZReading, MRZModel) {
    let (scanner, model) = try makeMRZScanner(tessdata: tessdata, timeBudget: timeBudget)
    return (try readMRZCamera(source, scanner: scanner, sampleInterval: sampleInterval, maxSeconds: maxSeconds), model)
}

/// The same with a scanner the caller keeps (`ocr --json` reports the last frame's search).
func readMRZCamera(_ source: String, scanner: MRZScanner, sampleInterval: Double?, maxSeconds: Double?) throws -> VideoMRZReading {
    let video = try VideoFrameSource(source: source)
    printError("Reading the MRZ from \(video.isDevice ? "camera" : "video") \(source)"
        + (video.frameRate.map { " (\($0.fixed(0)) frames/s)" } ?? "") + ": hold the data page still, MRZ in view.")
    let reader = VideoMRZReader(scanner: scanner)
    if let sampleInterval { reader.sampleInterval = sampleInterval }
    if let maxSeconds { reader.maxSeconds = maxSeconds }
    reader.progress = { printError($0) }
    let reading = try reader.read(video)
    printError("Two frames agree (frames \(reading.agreeingFrames[0]) and \(reading.agreeingFrames[1])): "
               + "\(reading.framesDecoded) frames decoded, \(reading.framesScanned) scanned, \(reading.seconds.fixed(1)) s.")
    return reading
}

extension OCRReport.Search {
    /// The scanner's account of a search, as `ocr --json` reports it.
    init(_ summary: SearchBudget.Summary) {
        self.init(stoppedBy: summary.stoppedBy.rawValue, workUnits: summary.spent, workLimit: summary.limit,
                  tesseractLines: summary.tesseractLines, elapsedMs: summary.elapsedMilliseconds, timeLimitSeconds: summary.outerSeconds)
    }
}

/// `passport ocr --camera --json`: the OCR report with what was read from the video (additive).
struct CameraOCRReport: Encodable {
    struct Camera: Encodable {
        let source: String
        let framesDecoded: Int
        let framesScanned: Int
        let agreeingFrames: [Int]
        let seconds: Double
        enum CodingKeys: String, CodingKey {
            case source, seconds
            case framesDecoded = "frames_decoded", framesScanned = "frames_scanned", agreeingFrames = "agreeing_frames"
        }
    }
    let report: OCRReport
    let camera: Camera
    enum CodingKeys: String, CodingKey { case camera }
    func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(camera, forKey: .camera)
    }
}

extension VideoSourceError: ReportableError {
    public var code: String {
        if case .librariesMissing = self { return "camera_libraries_missing" }
        return "camera_error"
    }
    public var exitStatus: Int32 { ExitStatus.environment }
}

extension VideoMRZError: ReportableError {
    public var code: String { "no_mrz_agreement" }
    public var exitStatus: Int32 { ExitStatus.invalid }
}

struct OCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Read the MRZ from a photo of the data page, or from a camera or video (Tesseract), correct it with its check digits.")

    @Argument(help: "The image (JPEG, PNG, TIFF, BMP, PNM or JPEG 2000).") var image: String?
    @Option(help: ArgumentHelp("Read from a camera (V4L2 device such as /dev/video0) or a video file until two frames agree on the MRZ.",
                               valueName: "source")) var camera: String?
    @Option(help: "Folder holding mrz.traineddata (default: $PASSPORT_TESSDATA, $XDG_DATA_HOME/passport/tessdata, ../share/passport/tessdata beside the executable, /usr/local/share/passport/tessdata, /usr/share/passport/tessdata, the source tree's Models).") var tessdata: String?
    @Option(help: "Outer safety stop, in seconds, for one image or video frame (default 60). The search is bounded by a fixed amount of work, not by time, so the same image reads the same on any machine; this stop only ends a search on a machine so slow or loaded that the work is not done by then (the image is then refused, saying so: ocr_time_limit).") var timeBudget: Double?
    @Option(help: "With --camera: seconds of video between two frames read (default 0.2; a camera also skips the frames captured during a read).")
    var sampleInterval: Double?
    @Option(help: "With --camera: seconds before giving up (default 60).") var cameraTimeout: Double?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if let timeBudget, !(timeBudget > 0) { throw ValidationError("--time-budget must be a positive number of seconds.") }
        if (image == nil) == (camera == nil) { throw ValidationError("Give an image or --camera SOURCE (one of them).") }
        if camera == nil && (sampleInterval != nil || cameraTimeout != nil) {
            throw ValidationError("--sample-interval and --camera-timeout go with --camera.")
        }
        if let sampleInterval, !(sampleInterval >= 0) { throw ValidationError("--sample-interval must be 0 or more seconds.") }
        if let cameraTimeout, !(cameraTimeout > 0) { throw ValidationError("--camera-timeout must be a positive number of seconds.") }
    }

    func run() throws {
        var scanner: MRZScanner?
        do {
            let (made, model) = try makeMRZScanner(tessdata: tessdata, timeBudget: timeBudget)
            scanner = made
            let result: MRZScanResult, cameraInfo: CameraOCRReport.Camera?
            if let camera {
                let reading = try readMRZCamera(camera, scanner: made, sampleInterval: sampleInterval, maxSeconds: cameraTimeout)
                result = reading.result
                cameraInfo = .init(source: camera, framesDecoded: reading.framesDecoded, framesScanned: reading.framesScanned,
                                   agreeingFrames: reading.agreeingFrames, seconds: (reading.seconds * 1000).rounded() / 1000)
            } else {
                result = try made.scan(imageAt: image!)
                cameraInfo = nil
            }
            let mrz = result.mrz
            if json {
                // Every scan that returns a reading has recorded its search.
                let report = OCRReport(mrz: mrz, recognisedLines: result.recognisedLines, corrections: result.corrections,
                                       model: model.language, skewDegrees: result.skewDegrees, search: .init(made.lastSearch!))
                if let cameraInfo { printJSON(CameraOCRReport(report: report, camera: cameraInfo)) } else { printJSON(report) }
            } else {
                for line in mrz.lines { print(line) }
                print("")
                for (label, value) in [("Format", mrz.format.rawValue.uppercased()), ("Document", "\(mrz.documentCode) \(mrz.documentNumber)"),
                                       ("Issuing state", mrz.issuingState), ("Name", "\(mrz.primaryIdentifier), \(mrz.secondaryIdentifier)"),
                                       ("Nationality", mrz.nationality), ("Birth date", mrz.birthDate), ("Sex", mrz.sex),
                                       ("Expiry date", mrz.expiryDate)] {
                    print("  \(label.padded(to: 14)) \(value)")
                }
                print("  Check digits   " + mrz.checks.map { "\($0.field.rawValue) \($0.isValid ? "ok" : "FAILED")" }.joined(separator: ", "))
                if !result.corrections.isEmpty {
                    print("  Corrected      " + result.corrections.map(\.description).joined(separator: "; "))
                }
            }
        } catch {
            // The search of the image, or of the last frame scanned; null when none ran.
            let search = scanner?.lastSearch.map(OCRReport.Search.init)
            throw fail(error, json: json) { OCRErrorReport($0, search: search) }
        }
    }
}
