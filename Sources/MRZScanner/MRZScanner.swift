import ImageCodecs
import CLeptonica
import FoundationEssentials
import LocalFiles
import TextSupport
import MRZ

/// Why no MRZ came out of an image.
public enum MRZScanError: Error, Equatable, Sendable, CustomStringConvertible {
    case undecodableImage
    case noZoneFound
    /// Lines were read but no reading satisfies every check digit.
    case checkDigitsFail(lines: [String], failing: [CheckDigitResult.Field])
    /// The closest reading breaks the MRZ grammar (a letter in a date, a day its month lacks),
    /// whatever its check digits say.
    case breaksGrammar(lines: [String])
    /// Check digits hold only after more substitutions than can be trusted, or after corrections
    /// no second reading confirmed.
    case uncertain(lines: [String])
    /// Text was found but not in any MRZ layout.
    case unreadable(lines: [String])
    /// The outer time limit (`MRZScanner.timeBudget`, seconds) ran out before the search's work
    /// was done: the image was not read to the end, so this says nothing about it.
    case timeLimit(seconds: Double, workSpent: Int, workLimit: Int)
    case modelMissing(String)
    case engine(String)

    public var description: String {
        switch self {
        case .undecodableImage:
            return "Cannot decode the image: it is not a JPEG, PNG, TIFF, BMP, PNM or JPEG 2000 file."
        case .noZoneFound:
            return "No MRZ band found in the image: no stack of two or three long text lines. Photograph the whole "
                + "data page, flat, in focus and evenly lit, with the MRZ lines fully inside the picture."
        case .breaksGrammar:
            return "An MRZ was read but it breaks the MRZ grammar (a letter in a date, an impossible date). "
                + "Take a sharper photo, or give the MRZ with --mrz."
        case .checkDigitsFail(_, let failing):
            let fields = failing.isEmpty ? "" : " (\(failing.map(\.rawValue).joined(separator: ", ")))"
            return "An MRZ was read but its check digits fail\(fields). Take a sharper photo, or give the MRZ with --mrz."
        case .uncertain:
            return "An MRZ was read but not reliably (it needed corrections that a second reading did not confirm). "
                + "Take a sharper photo, or give the MRZ with --mrz."
        case .unreadable(let lines):
            return "Text was found but it is not an MRZ (\(lines.count) line(s) of \(lines.map { String($0.count) }.joined(separator: ", ")) "
                + "characters). Photograph the data page with the MRZ lines fully inside the picture."
        case .timeLimit(let seconds, let spent, let limit):
            let limitText = Self.secondsText(seconds)
            return "The OCR search was stopped by its time limit of \(limitText) s after \(spent) of its \(limit) work units, "
                + "before it could finish: the image was not read to the end, so it may well hold a readable MRZ. Give a larger "
                + "--time-budget than \(limitText) s (the default is \(Self.secondsText(SearchBudget.defaultOuterSeconds)) s), "
                + "or read it when the machine is less busy."
        case .modelMissing(let message), .engine(let message):
            return message
        }
    }

    /// Seconds as a person gave them: 60, 0.5, 0.000001 (not 1e-06).
    public static func secondsText(_ seconds: Double) -> String {
        guard seconds >= 0.000001 else { return seconds == 0 ? "0" : seconds.description }
        var text = seconds.fixed(6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension MRZScanError {
    /// The stable code of this refusal in `--json` errors (docs/errors.md).
    public var code: String {
        switch self {
        case .undecodableImage: return "image_error"
        case .noZoneFound, .unreadable: return "no_mrz_found"
        case .checkDigitsFail: return "check_digits_fail"
        case .breaksGrammar: return "mrz_grammar"
        case .uncertain: return "mrz_unreliable"
        case .timeLimit: return "ocr_time_limit"
        case .modelMissing: return "ocr_model_missing"
        case .engine: return "ocr_error"
        }
    }
}

/// What the scanner read.
public struct MRZScanResult: Sendable {
    /// The corrected, valid MRZ.
    public let mrz: MRZ
    /// The lines as Tesseract read them, before correction.
    public let recognisedLines: [String]
    public let corrections: [MRZCorrector.Change]
    public let skewDegrees: Double
    /// How far the correction departed from what Tesseract read (see MRZCorrector.Result.cost).
    public let cost: Int
    /// Tesseract's lowest confidence (0-100) in a character of the access-key lines.
    public let keyConfidence: Float
}

/// Image → MRZ: finds the zone (MRZBandFinder), reads each line with Tesseract's C API and the
/// MRZ model, and corrects the reading with the field grammar and check digits (MRZCorrector).
public final class MRZScanner {
    public let model: MRZModel
    private let reader: TesseractLineReader
    let finder = MRZBandFinder()
    /// Candidate zones tried before giving up.
    public var maxBands = 6
    /// Photos larger than this (longer side, pixels) are shrunk first; the MRZ stays legible.
    public var maxImageSide = 2000

    /// The cell model, when its file (`mrz-cells.bin`) lies beside the MRZ Tesseract model.
    private let cellClassifier: CellClassifier?

    public init(model: MRZModel) throws {
        self.model = model
        self.reader = try TesseractLineReader(dataPath: model.dataPath, language: model.language)
        self.cellClassifier = model.isFallback ? nil
            : CellClassifier(contentsOf: Paths.join(model.dataPath, CellClassifier.fileName))
    }

    /// Whether the cell model was found (else every zone is read by Tesseract alone).
    public var readsCells: Bool { cellClassifier != nil }

    public func scan(imageAt path: String) throws -> MRZScanResult {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MRZScanError.engine("Cannot read \(path): no such file or no permission.")
        }
        return try scan(imageData: [UInt8](data))
    }

    /// How much work one image (or video frame) may take, in work units (`SearchBudget.Cost`: about a
    /// millisecond each of this project's 2-core development machine, release build, one core): the
    /// search over views, angles, zones and line readings stops when it is spent and the image is
    /// refused (the least broken reading's error). It is counted, not timed, so the same image gives
    /// the same reading or the same refusal on any machine under any load. The likeliest readings
    /// come first, so a readable photo is rarely near it.
    public var workBudget = SearchBudget.defaultWork
    /// An outer safety stop only, in seconds (60 by default): a search still running after this
    /// long (a machine many times slower than intended, or starved for seconds) is stopped and the
    /// image refused. It never decides the ordinary case: `workBudget` does.
    public var timeBudget: Double = SearchBudget.defaultOuterSeconds
    /// What the last scan spent (work units, time) and why it ended; nil when the image could not be decoded.
    public internal(set) var lastSearch: SearchBudget.Summary?
    /// Above this share of pixels in strong colour, a photo is read from its lightest channel first.
    var colourMarkShare = 0.004
    /// A best zone scoring below this (MRZBandFinder's score: about 1.5-2 for an MRZ across the
    /// page) does not look like an MRZ.
    var weakZoneScore = 1.2
    /// Images whose longer side is shorter than this are enlarged first (at most 4×): the band
    /// finder and the line reader need a few pixels per stroke.
    public var minImageSide = 1000

    public func scan(imageData: [UInt8]) throws -> MRZScanResult {
        let budget = SearchBudget(work: workBudget, outerSeconds: timeBudget)
        lastSearch = nil
        guard let upright = try upright(imageData) else { throw MRZScanError.undecodableImage }
        return try scan(upright: upright, budget: budget)
    }

    /// The decoded image, turned as its EXIF orientation says (a phone photo stored sideways). A
    /// photo larger than twice the working size is decoded at a fraction of it (it is shrunk anyway).
    func upright(_ imageData: [UInt8]) throws -> LeptonicaImage? {
        guard let decoded = try LeptonicaImage.decode(imageData, reducedTo: maxImageSide) else { return nil }
        return ExifOrientation.read(from: imageData).flatMap { decoded.oriented(exif: $0) } ?? decoded
    }

    /// The photo in grey at the working size, and in the other grey (nil for a grey photo). Marks
    /// in strong colour (a red pen, a highlighter, a box drawn round the zone): each pixel its
    /// lightest channel first, which keeps the black print only, then luminance (a dark blue print
    /// fades in the lightest channel); otherwise luminance first.
    func greys(of upright: LeptonicaImage) -> (working: LeptonicaImage, other: LeptonicaImage?)? {
        let marked = upright.strongColourShare() > colourMarkShare
        guard let grey = marked ? upright.lightestChannel() : upright.grey(), let working = resized(grey) else { return nil }
        let other = leptonica.pixGetDepth(upright.pix) == 32 ? (marked ? upright.grey() : upright.lightestChannel()).flatMap(resized) : nil
        return (working, other)
    }

    /// The search on a decoded, upright image (a photo, or a video frame: MRZScanner+Grey.swift),
    /// and what it spent and why it ended (`lastSearch`). A search the outer clock stopped is
    /// refused as such (`timeLimit`), not with the closest refusal it had found by then.
    func scan(upright: LeptonicaImage, budget: SearchBudget) throws -> MRZScanResult {
        guard let greys = greys(of: upright) else { throw MRZScanError.undecodableImage }
        do {
            let result = try search(greys, budget: budget)
            lastSearch = budget.summary(stoppedBy: .accepted)
            return result
        } catch let refusal as MRZScanError {
            let summary = budget.summary(stoppedBy: budget.refusalReason)
            lastSearch = summary
            guard summary.stoppedBy == .time else { throw refusal }
            throw MRZScanError.timeLimit(seconds: summary.outerSeconds, workSpent: summary.spent, workLimit: summary.limit)
        }
    }

    /// The search itself. The views of the photo worth trying come in order of likelihood
    /// (`SearchViews`): as found, smoothed, in the other grey, upside down, at other angles, turned
    /// a quarter or tilted, in three rounds. Each view is first read by the cell model alone, which takes milliseconds;
    /// when no view of a round gives a reading that stands alone, the round's views are read again
    /// with Tesseract (tens of milliseconds a line), for a reading or for a second opinion.
    private func search(_ greys: (working: LeptonicaImage, other: LeptonicaImage?), budget: SearchBudget) throws -> MRZScanResult {
        var views = SearchViews(scanner: self, working: greys.working, otherGrey: greys.other, budget: budget)

        var failure: (problems: Int, error: MRZScanError)?
        func note(_ attempt: Attempt) -> MRZScanResult? {
            switch attempt {
            case .success(let result): return result
            case .failure(let problems, let error):
                if failure == nil || problems < failure!.problems { failure = (problems, error) }
                return nil
            }
        }
        var unread: [ReadView] = [] // read by the cell model, not yet by Tesseract
        func readUnread() -> MRZScanResult? {
            defer { unread = [] }
            for index in unread.indices where !budget.exhausted {
                if let result = note(read(&unread[index], budget: budget, withTesseract: true)) { return result }
            }
            return nil
        }
        while !budget.exhausted, let found = views.next(budget: budget) {
            if !found.bands.isEmpty {
                var view = ReadView(found: found)
                if let result = note(read(&view, budget: budget, withTesseract: false)) { return result }
                unread.append(view)
            }
            if views.endsRound, let result = readUnread() { return result }
        }
        if let result = readUnread() { return result }
        throw failure?.error ?? MRZScanError.noZoneFound
    }

    /// A date with a filler, or a month or day 00 (ICAO 9303-3 allows them; they prove little).
    static func hasWeakDates(_ mrz: MRZ) -> Bool {
        [mrz.birthDate, mrz.expiryDate].contains { date in
            date.contains("<") || date.dropFirst(2).prefix(2) == "00" || date.suffix(2) == "00"
        }
    }

    /// Shrunk to `maxImageSide`, or enlarged (at most 4×) to `minImageSide`.
    func resized(_ grey: LeptonicaImage) -> LeptonicaImage? {
        let side = max(grey.width, grey.height)
        if side > maxImageSide { return grey.scaled(by: Double(maxImageSide) / Double(side)) }
        if side < minImageSide { return grey.scaled(by: min(4, Double(minImageSide) / Double(max(1, side)))) }
        return grey
    }

    /// One view's candidate zones and, zone by zone, what the cell model made of them.
    private struct ReadView {
        let found: MRZBandFinder.Result
        var cellDecodings: [Int: [CellDecoder.Decoded]] = [:]
        /// Tesseract's readings of line crops: zones of one view share lines (a pair and the
        /// triple that holds it), and a crop is read once.
        var lineReadings: [LineCrop: TesseractLineReader.Reading] = [:]
    }

    /// Where a line is cut from a view and the size it is scaled to.
    struct LineCrop: Hashable {
        let x: Int, y: Int, width: Int, height: Int, lineHeight: Int, textHeight: Int
    }

    private enum Attempt {
        case success(MRZScanResult)
        case failure(problems: Int, MRZScanError)
    }

    /// Reads the candidate zones until one gives a valid MRZ; else the least broken reading.
    ///
    /// Each zone is first cut into character cells and read by the cell model (a few
    /// milliseconds), then, if that does not settle it, by Tesseract line by line at up to three
    /// scales. A reading whose access-key lines are clean (no substitution or realignment there; a
    /// filler or two miscounted at most; the reader sure of every character) is taken at once,
    /// whatever had to be fixed in the name. Any other valid reading is taken only when another
    /// reading of the zone (the other reader, or another scale) gives the same access key and none
    /// gives another: on a garbled line the check digits can hold by chance, some misreadings (A
    /// for 0) satisfy them all, and two independent misreadings rarely agree.
    private func read(_ view: inout ReadView, budget: SearchBudget, withTesseract: Bool) -> Attempt {
        let found = view.found
        var judge = ReadingJudge(skewDegrees: found.skewDegrees, maxCorrectionCost: maxCorrectionCost)
        for (index, band) in found.bands.prefix(maxBands).enumerated() {
            if budget.exhausted { break }
            judge.startZone()
            // The cell model's decodings are kept: Tesseract's round needs them again as a second opinion.
            let decodings = view.cellDecodings[index] ?? cellDecodings(of: band, in: found.deskewed, budget: budget)
            view.cellDecodings[index] = decodings
            trace("view at \(found.skewDegrees)°, zone \(index) (\(band.lines.count) lines, score \(band.score)), cells: \(decodings.map { "\($0.lines) \($0.keyConfidence)%" })")
            for decoded in decodings {
                let verdict = judge.consider(decoded.lines, minimumKeyConfidence: minimumCellConfidence) { _ in decoded.keyConfidence }
                if case .accept(let result) = verdict { return .success(result) }
            }
            guard withTesseract else { continue }
            // Most photos are read at the first scale; a failing one is read again smaller and larger.
            let heights = index < 2 ? [textHeight, textHeight - 5, textHeight + 7] : [textHeight]
            for height in heights {
                if budget.exhausted { break }
                for reading in readings(of: band, in: found.deskewed, textHeight: height, budget: budget, known: &view.lineReadings) {
                    trace("  tesseract at \(height) px: \(reading.map(\.text)), least sure \(reading.map { $0.confidences.min() ?? 0 })")
                    if case .accept(let result) = judge.consider(reading, minimumKeyConfidence: minimumKeyConfidence) {
                        return .success(result)
                    }
                }
            }
            judge.endZone()
        }
        return .failure(problems: judge.failureProblems, judge.failure ?? .noZoneFound)
    }

    /// What the cell model reads in the band: its decodings as the zone stands and, when none of
    /// those stands alone, upside down (the zone's lines and cells in reverse order, each cell
    /// turned: a page upside down is then read at once, without a view of its own).
    private func cellDecodings(of band: MRZBandFinder.Band, in image: LeptonicaImage, budget: SearchBudget) -> [CellDecoder.Decoded] {
        guard let classifier = cellClassifier else { return [] }
        budget.spend(.cellZone)
        let zones = cellZones(of: band, in: image)
        func decode(_ lines: [LineCells]) -> CellDecoder.Decoded? {
            CellDecoder.decode(lines.map { CellClassifier.LineReading(cells: classifier.read($0)) })
        }
        let upright = zones.compactMap(decode)
        if upright.contains(where: { $0.keyConfidence >= minimumCellConfidence }) { return upright }
        if !zones.isEmpty { budget.spend(.cellZone) }
        return upright + zones.compactMap { decode($0.reversed().map(\.turnedHalf)) }
    }

    /// The band's lines cut into cells (for two lines of a TD1 card, completed by the line below
    /// or the line above: two zones); none when a line does not cut into the cells of an MRZ line
    /// (the zone is then Tesseract's).
    private func cellZones(of band: MRZBandFinder.Band, in image: LeptonicaImage) -> [[LineCells]] {
        let zone = band.zone
        func cut(_ line: PixelRect, lengths: Set<Int>) -> LineCells? {
            guard let plane = cellPlane(line, across: zone, in: image) else { return nil }
            return CellSegmenter.segment(plane, lengths: lengths)
        }
        // Two lines of 30 cells are a TD1 card whose third line was not found as a line: the
        // line one pitch below, or above, completes it.
        let lengths: Set<Int> = band.lines.count == 3 ? [30] : [30, 36, 44]
        guard let first = cut(band.lines[0], lengths: lengths) else { return [] }
        let length: Set<Int> = [first.count]
        var lines = [first]
        for line in band.lines.dropFirst() {
            guard let next = cut(line, lengths: length) else { return [] }
            lines.append(next)
        }
        guard band.lines.count == 2 && first.count == 30 else { return [lines] }
        let (below, above) = Self.neighbours(of: band)
        return [cut(below, lengths: length).map { lines + [$0] }, cut(above, lengths: length).map { [$0] + lines }].compactMap { $0 }
    }

    /// Cap height, in pixels, a line is scaled to before it is cut into cells.
    static let cellCapHeight = 32.0

    /// One line and the paper around it, across the zone's width, scaled to `cellCapHeight` and
    /// with its background flattened, as a plane of grey bytes.
    func cellPlane(_ line: PixelRect, across zone: PixelRect, in image: LeptonicaImage) -> GreyPlane? {
        let margin = line.height
        let rect = PixelRect(x: zone.x - margin, y: line.y - line.height / 2, width: zone.width + 2 * margin, height: line.height * 2)
        guard let cut = image.cropped(rect), let scaled = cut.scaled(by: Self.cellCapHeight / Double(max(1, line.height))) else { return nil }
        let flat = LeptonicaImage(leptonica.pixBackgroundNormMorph(scaled.pix, nil, 2, 7, 230)) ?? scaled
        guard let bytes = flat.greyBytes() else { return nil }
        return GreyPlane(width: flat.width, height: flat.height, pixels: bytes)
    }

    /// The band's lines as read; for two lines of about 30 characters (a TD1 card whose third
    /// line was not found as such) also with the line one pitch below, and one pitch above, added.
    private func readings(of band: MRZBandFinder.Band, in image: LeptonicaImage, textHeight: Int,
                          budget: SearchBudget, known: inout [LineCrop: TesseractLineReader.Reading]) -> [[TesseractLineReader.Reading]] {
        let zone = band.zone
        func readLine(_ line: PixelRect) -> TesseractLineReader.Reading {
            // Out of work: an empty line, which no layout accepts.
            if budget.exhausted { return TesseractLineReader.Reading(text: "", confidences: []) }
            let rect = Self.lineCrop(line, across: zone)
            let key = LineCrop(x: rect.x, y: rect.y, width: rect.width, height: rect.height, lineHeight: line.height, textHeight: textHeight)
            if let reading = known[key] { return reading }
            // Tesseract's time grows with the crop it is given (the line scaled to `textHeight`).
            let scale = Double(textHeight) / Double(max(1, line.height))
            budget.spend(.tesseractLine)
            budget.spend(.tesseractKilopixel, times: Int(Double(rect.width) * scale * Double(rect.height) * scale / 1000))
            let reading = self.readLine(line, across: zone, in: image, textHeight: textHeight)
            known[key] = reading
            return reading
        }
        let lines = band.lines.map(readLine)
        guard lines.count == 2, lines.map(\.text.count).reduce(0, +) < 2 * 33, !budget.exhausted else { return [lines] }
        let (below, above) = Self.neighbours(of: band)
        return [lines + [readLine(below)], [readLine(above)] + lines, lines]
    }

    /// A zone of two lines may be a TD1 card's first two or last two: the line one pitch below
    /// the zone and the one a pitch above it.
    static func neighbours(of band: MRZBandFinder.Band) -> (below: PixelRect, above: PixelRect) {
        let pitch = band.lines[1].y - band.lines[0].y
        var below = band.lines[1], above = band.lines[0]
        below.y += pitch
        above.y -= pitch
        return (below, above)
    }

    /// A developer aid beside the debug images (PASSPORT_OCR_DEBUG): what each view and zone read,
    /// on stderr (the MRZ: personal data).
    func trace(_ message: @autoclosure () -> String) {
        if finder.debugFolder != nil { StandardStreams.writeError("ocr: " + message() + "\n") }
    }

    /// Cap height, in pixels, each line is scaled to before recognition.
    public var textHeight = 22
    /// Readings that needed more substitutions than this are refused: on a garbled line the
    /// check digits can be satisfied by chance (measured on generated pages: correct reads
    /// cost 0-2, wrong ones that got through cost 3 or more).
    public var maxCorrectionCost = 2
    /// A reading whose access-key lines needed no correction is still taken only after a second
    /// reading agrees when Tesseract was less sure than this (0-100) of one of their characters:
    /// some misreadings (A for 0, L for 1: values 10 apart) satisfy every check digit.
    public var minimumKeyConfidence: Float = 90
    /// The same for the cell model: the chance, in percent, that its reading of the access key is
    /// the printed one (CellDecoder).
    public var minimumCellConfidence: Float = 99.9

    /// Where `readLine` cuts a line: across the whole zone's width, with the margin Tesseract needs.
    static func lineCrop(_ line: PixelRect, across zone: PixelRect) -> PixelRect {
        let margin = line.height
        return PixelRect(x: zone.x - margin, y: line.y - line.height * 3 / 10, width: zone.width + 2 * margin, height: line.height * 16 / 10)
    }

    /// One line cut out across the whole zone's width (the lines share their edges; a line whose
    /// trailing fillers faded is still read to the end), with the margin Tesseract needs.
    func readLine(_ line: PixelRect, across zone: PixelRect, in image: LeptonicaImage,
                          textHeight: Int) -> TesseractLineReader.Reading {
        let rect = Self.lineCrop(line, across: zone)
        // The model was trained on lines with a cap height of about 12-22 pixels; at that size
        // it reads better (a thin first 'I' is kept) and faster.
        guard let cut = image.cropped(rect),
              let scaled = cut.scaled(by: Double(textHeight) / Double(max(1, line.height)))
        else { return TesseractLineReader.Reading(text: "", confidences: []) }
        // Uneven light (a shadow, a lamp's glare) can leave one end of a line much darker than the
        // other, and Tesseract's global threshold then blackens it: flatten the background first
        // (a closing removes the print and estimates the paper; each pixel is scaled to it).
        let crop = LeptonicaImage(leptonica.pixBackgroundNormMorph(scaled.pix, nil, 2, 7, 230)) ?? scaled
        if let dir = finder.debugFolder { finder.writeDebugImage(crop, to: "\(dir)/line-\(line.y).png") }
        return reader.read(crop)
    }
}
