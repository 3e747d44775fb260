import LocalFiles
import ImageCodecs
import CLeptonica
import FoundationEssentials
import Glibc

/// Finds the machine-readable zone in a photograph: the MRZ is two or three long, evenly spaced
/// lines of equally sized dark characters, wider than any other text on the page.
///
/// Steps, on a copy shrunk to `detectionWidth` pixels: a black top-hat keeps dark marks smaller
/// than a character cell whatever the lighting; Otsu thresholds them; Leptonica's sweep-and-search
/// finds the skew of the text lines (up to ±`maxSkew` degrees) from the character-sized marks, so
/// that a striped or grained background does not set it; after deskewing, a horizontal closing
/// joins each line's characters, an opening removes specks and thin rules, lines with too few
/// character-tall marks are dropped, and the remaining wide, flat components are grouped into
/// stacks of lines with matching left edges and regular spacing. `bands(_:skew:)` tries other
/// angles cheaply (the 1-bit mask only) when the estimate was wrong.
struct MRZBandFinder {
    /// One candidate zone: its lines, top to bottom, in the coordinates of the deskewed image.
    struct Band {
        var lines: [PixelRect]
        var score: Double
        /// The rectangle that holds every line.
        var zone: PixelRect { lines.dropFirst().reduce(lines[0]) { $0.union($1) } }
    }

    struct Result {
        /// The working image, deskewed, for recognition.
        let deskewed: LeptonicaImage
        let skewDegrees: Double
        /// Candidate zones, most plausible first.
        let bands: [Band]
    }

    var detectionWidth = 900
    /// A developer aid: when PASSPORT_OCR_DEBUG names a folder, the masks and line crops are written
    /// there (they show the MRZ: personal data).
    var debugFolder = ProcessInfo.processInfo.environment["PASSPORT_OCR_DEBUG"]
    var maxSkew = 32.0

    /// Writes a debug image privately (folder 0700, file 0600: it may show the MRZ); a developer
    /// aid, so a failure only costs the image.
    func writeDebugImage(_ image: LeptonicaImage, to path: String) {
        let url = URL(fileURLWithPath: path)
        guard let png = image.pngData() else { return }
        try? PrivateFiles.createFolder(url.deletingLastPathComponent())
        try? PrivateFiles.write(png, to: url)
    }

    /// The photo shrunk to `detectionWidth` and its mask of dark marks.
    struct Prepared {
        let grey: LeptonicaImage
        let mask: LeptonicaImage
        let factor: Double
        /// The skew of the print (character-sized marks), else of every mark, else 0.
        let skew: Double
        /// The skew of every mark, when it differs from `skew` by more than a degree.
        let otherSkew: Double?
    }

    /// `smoothing` averages 3×3 pixels first: in dark, noisy photos sensor noise would otherwise
    /// pass the threshold as print; in clean ones it can merge or thin the MRZ's characters.
    func prepare(_ grey: LeptonicaImage, smoothing: Bool = false) -> Prepared? {
        let factor = min(1.0, Double(detectionWidth) / Double(grey.width))
        guard let small = grey.scaled(by: factor),
              let mask = darkMarks(smoothing ? LeptonicaImage(leptonica.pixBlockconv(small.pix, 1, 1)) : small)
        else { return nil }
        let printSkew = characterMarks(mask).flatMap(skew(of:))
        let markSkew = skew(of: mask)
        let skew = printSkew ?? markSkew ?? 0
        let other = markSkew.flatMap { abs($0 - skew) > 1 ? $0 : nil }
        return Prepared(grey: grey, mask: mask, factor: factor, skew: skew, otherSkew: other)
    }

    func find(in grey: LeptonicaImage, smoothing: Bool = false) -> Result? {
        guard let prepared = prepare(grey, smoothing: smoothing) else { return nil }
        return find(prepared, skew: prepared.skew)
    }

    /// The candidate zones when the page is turned by `skew` degrees (`known`: those `bands` gave
    /// for this angle already).
    func find(_ prepared: Prepared, skew: Double, known: [Band]? = nil) -> Result? {
        guard let bands = known ?? bands(prepared, skew: skew) else { return nil }
        guard !bands.isEmpty else { return Result(deskewed: prepared.grey, skewDegrees: skew, bands: []) }
        // Only the part of the photo around the zones is turned (a full photo costs ~10 ms): the
        // zones, with room for a line above and below and the margins the line readers cut.
        let lines = bands.prefix(maxBandsTurned).flatMap(\.lines)
        let tallest = lines.map(\.height).max() ?? 0
        let needed = lines.dropFirst().reduce(lines[0]) { $0.union($1) }
        let region = PixelRect(x: needed.x - 3 * tallest, y: needed.y - 4 * tallest,
                               width: needed.width + 6 * tallest, height: needed.height + 8 * tallest)
        guard let turned = Self.turnedRegion(prepared.grey, degrees: skew, region: region) else { return nil }
        let moved = bands.map { band in
            Band(lines: band.lines.map { PixelRect(x: $0.x + turned.offset.x, y: $0.y + turned.offset.y, width: $0.width, height: $0.height) },
                 score: band.score)
        }
        return Result(deskewed: turned.image, skewDegrees: skew, bands: moved)
    }

    /// How many of the likeliest zones the turned region covers (MRZScanner reads no more).
    var maxBandsTurned = 6

    /// The part of `image` that, turned by `degrees` about the image's centre (as
    /// `LeptonicaImage.rotated` turns it), covers `region`: cut from the photo and turned about its
    /// own centre instead. `offset` moves a point of the fully turned image into it (turning about
    /// another centre differs only by a shift).
    static func turnedRegion(_ image: LeptonicaImage, degrees: Double, region: PixelRect) -> (image: LeptonicaImage, offset: (x: Int, y: Int))? {
        let angle = degrees * .pi / 180
        let (cosine, sine) = (cos(angle), sin(angle))
        // Leptonica turns clockwise for a positive angle, y pointing down: turned = C + R(p - C).
        func turn(_ x: Double, _ y: Double, by sign: Double, about centre: (Double, Double)) -> (Double, Double) {
            let dx = x - centre.0, dy = y - centre.1
            return (centre.0 + cosine * dx - sign * sine * dy, centre.1 + sign * sine * dx + cosine * dy)
        }
        let centre = (Double(image.width) / 2, Double(image.height) / 2)
        let corners = [(region.x, region.y), (region.maxX, region.y), (region.x, region.maxY), (region.maxX, region.maxY)]
            .map { turn(Double($0.0), Double($0.1), by: -1, about: centre) }
        let minX = Int(corners.map(\.0).min()!.rounded(.down)), maxX = Int(corners.map(\.0).max()!.rounded(.up))
        let minY = Int(corners.map(\.1).min()!.rounded(.down)), maxY = Int(corners.map(\.1).max()!.rounded(.up))
        let box = PixelRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY).clamped(width: image.width, height: image.height)
        guard box.width > 0, box.height > 0, let cut = image.cropped(box), let turned = cut.rotated(degrees: degrees) else { return nil }
        // A point d of the fully turned image is at d + t in the turned cut, where
        // t = c - C + R(C - Cc): c the cut's own centre, Cc that centre in the photo.
        let cutCentre = (Double(box.x) + Double(box.width) / 2, Double(box.y) + Double(box.height) / 2)
        let shifted = turn(centre.0, centre.1, by: 1, about: cutCentre)
        let t = (Double(box.width) / 2 - centre.0 + shifted.0 - cutCentre.0, Double(box.height) / 2 - centre.1 + shifted.1 - cutCentre.1)
        return (turned, (Int(t.0.rounded()), Int(t.1.rounded())))
    }

    /// The zones at `skew`, without turning the full-size photo (cheap: the 1-bit mask only).
    func bands(_ prepared: Prepared, skew: Double) -> [Band]? {
        guard let straightMask = prepared.mask.rotated(degrees: skew) else { return nil }
        // A line of print is many separate marks; the stripes of a textured background are a few
        // long streaks however straight and evenly spaced they are.
        let lines = lineComponents(straightMask).filter { marks(in: $0, of: straightMask) >= minimumMarksPerLine }
        if let dir = debugFolder {
            writeDebugImage(straightMask, to: "\(dir)/mask.png")
        }
        return group(lines, imageWidth: straightMask.width).map { band in Band(lines: band.lines.map { $0.scaled(by: 1 / prepared.factor) }, score: band.score) }
    }

    /// An MRZ line holds 30 to 44 characters; blur merges some (a run of fillers), never most.
    var minimumMarksPerLine = 10

    /// The separate marks of `mask` inside `rect` at least half as tall as the line (characters,
    /// not the specks a hatched or noisy background leaves).
    private func marks(in rect: PixelRect, of mask: LeptonicaImage) -> Int {
        var changed: Int32 = 0
        guard let clip = mask.cropped(rect),
              let tall = LeptonicaImage(leptonica.pixSelectBySize(clip.pix, 0, Int32(max(2, rect.height / 2)), 8, Int32(L_SELECT_HEIGHT),
                                                        Int32(L_SELECT_IF_GTE), &changed))
        else { return 0 }
        var count: Int32 = 0
        guard leptonica.pixCountConnComp(tall.pix, 8, &count) == 0 else { return 0 }
        return Int(count)
    }

    /// The skew of the text lines in a mask, in degrees, if the sweep finds one.
    private func skew(of mask: LeptonicaImage) -> Double? {
        var angle: Float = 0, confidence: Float = 0
        guard leptonica.pixFindSkewSweepAndSearch(mask.pix, &angle, &confidence, 2, 1, Float(maxSkew), 1, 0.02) == 0, confidence > 0 else {
            return nil
        }
        return Double(angle)
    }

    /// The marks no larger than a character cell (and not specks): textured backgrounds (wavy
    /// stripes, wood grain) leave long streaks in the mask that would otherwise set the skew
    /// instead of the print.
    private func characterMarks(_ mask: LeptonicaImage) -> LeptonicaImage? {
        let cell = Int32(max(12, mask.width / 22))
        var changed: Int32 = 0
        guard let small = LeptonicaImage(leptonica.pixSelectBySize(mask.pix, cell, cell, 8, Int32(L_SELECT_IF_BOTH), Int32(L_SELECT_IF_LTE), &changed)),
              let marks = LeptonicaImage(leptonica.pixSelectBySize(small.pix, 3, 3, 8, Int32(L_SELECT_IF_EITHER), Int32(L_SELECT_IF_GTE), &changed))
        else { return nil }
        return marks
    }

    /// Dark marks on a lighter ground, as a 1-bit mask.
    private func darkMarks(_ small: LeptonicaImage?) -> LeptonicaImage? {
        guard let small else { return nil }
        let cell = oddSize(Double(small.width) / 60)
        guard let hat = LeptonicaImage(leptonica.pixTophat(small.pix, cell, cell, Int32(L_TOPHAT_BLACK))),
              let inverted = LeptonicaImage(leptonica.pixInvert(nil, hat.pix))
        else { return nil }
        var mask: UnsafeMutablePointer<PIX>?
        // One tile covering the whole image: a global Otsu threshold on the top-hat response.
        guard leptonica.pixOtsuAdaptiveThreshold(inverted.pix, Int32(small.width), Int32(small.height), 0, 0, 0.1, nil, &mask) == 0 else {
            return nil
        }
        return LeptonicaImage(mask)
    }

    /// Wide, flat components of the deskewed mask once each text line is joined into one. The
    /// character spacing is unknown (the page may fill the photo or a third of it), so lines are
    /// joined at two gap widths and the components of both are kept.
    private func lineComponents(_ mask: LeptonicaImage) -> [PixelRect] {
        var rects: [PixelRect] = []
        for divisor in [70.0, 40.0] {
            rects += components(mask, join: oddSize(Double(mask.width) / divisor))
        }
        // The same from the character-sized marks alone: a background's streaks that touch the
        // MRZ would otherwise join its lines into one block.
        if let characters = characterMarks(mask) {
            rects += components(characters, join: oddSize(Double(mask.width) / 70))
        }
        var unique: [PixelRect] = []
        for rect in rects where !unique.contains(rect) { unique.append(rect) }
        return unique
    }

    private func components(_ mask: LeptonicaImage, join: Int32) -> [PixelRect] {
        // Join neighbouring characters, fill the holes the joins leave, then drop specks and rules
        // thinner than three pixels.
        guard let joined = LeptonicaImage(leptonica.pixCloseBrick(nil, mask.pix, join, 1)),
              let filled = LeptonicaImage(leptonica.pixCloseBrick(nil, joined.pix, 1, 3)),
              let opened = LeptonicaImage(leptonica.pixOpenBrick(nil, filled.pix, 5, 3)),
              let boxes = leptonica.pixConnCompBB(opened.pix, 8)
        else { return [] }
        if let dir = debugFolder { writeDebugImage(opened, to: "\(dir)/opened-\(join).png") }
        var boxa: UnsafeMutablePointer<BOXA>? = boxes
        defer { leptonica.boxaDestroy(&boxa) }
        var rects: [PixelRect] = []
        for index in 0..<leptonica.boxaGetCount(boxes) {
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            _ = leptonica.boxaGetBoxGeometry(boxes, index, &x, &y, &w, &h)
            let rect = PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
            guard rect.height >= 4, rect.width >= rect.height * 3 else { continue }
            rects.append(rect)
        }
        return Self.mergeRowPieces(rects)
    }

    /// A line split where its fillers faded or glare washed its print out: pieces on the same row,
    /// less than eight line heights (about eight characters) apart, become one.
    static func mergeRowPieces(_ rects: [PixelRect]) -> [PixelRect] {
        var pieces = rects.sorted { $0.x < $1.x }
        var merged: [PixelRect] = []
        while let first = pieces.first {
            pieces.removeFirst()
            var line = first
            var index = 0
            while index < pieces.count {
                let piece = pieces[index]
                let overlap = min(line.maxY, piece.maxY) - max(line.y, piece.y)
                let gap = piece.x - line.maxX
                if overlap >= min(line.height, piece.height) / 2, gap < 8 * max(line.height, piece.height) {
                    line = line.union(piece)
                    pieces.remove(at: index)
                } else {
                    index += 1
                }
            }
            merged.append(line)
        }
        return merged
    }

    /// Stacks of two or three lines that could be one MRZ, most plausible first: wide lines, similar
    /// heights, aligned left edges, even spacing; lower on the page wins ties (the MRZ is at the foot).
    private func group(_ lines: [PixelRect], imageWidth: Int) -> [Band] {
        let widest = lines.map(\.width).max() ?? 0
        let candidates = lines.filter { $0.width >= max(imageWidth / 6, widest / 3) && $0.width >= 12 * $0.height / 2 }
            .sorted { $0.y < $1.y }
        func follows(_ upper: PixelRect, _ lower: PixelRect) -> Bool {
            let pitch = lower.midY - upper.midY
            let height = Double(max(upper.height, lower.height))
            // Lines left a little tilted have taller boxes that may overlap: their centres must
            // still be nearly a line apart.
            return pitch >= 0.9 * height && pitch <= 3.0 * height
                && abs(upper.x - lower.x) <= max(upper.height, lower.height) * 2
                && Double(min(upper.height, lower.height)) >= 0.5 * height
        }
        var bands: [Band] = []
        for (i, top) in candidates.enumerated() {
            for j in candidates.indices where j > i && follows(top, candidates[j]) {
                let pair = [top, candidates[j]]
                bands.append(Band(lines: pair, score: score(pair, imageWidth: imageWidth)))
                for k in candidates.indices where k > j && follows(candidates[j], candidates[k]) {
                    let triple = pair + [candidates[k]]
                    bands.append(Band(lines: triple, score: score(triple, imageWidth: imageWidth) + 0.05))
                }
            }
        }
        return bands.sorted { $0.score > $1.score }
    }

    private func score(_ lines: [PixelRect], imageWidth: Int) -> Double {
        let widths = lines.map { Double($0.width) }
        let minW = widths.min()!, maxW = widths.max()!
        let heights = lines.map { Double($0.height) }
        let heightSpread = (heights.max()! - heights.min()!) / heights.max()!
        let lowness = Double(lines.last!.maxY) / Double(max(1, imageWidth))
        return maxW / Double(imageWidth) + minW / maxW - heightSpread + 0.1 * lowness
    }

    private func oddSize(_ value: Double) -> Int32 {
        let n = max(3, Int(value.rounded()))
        return Int32(n | 1)
    }
}
