import Foundation
@testable import ImageCodecs
import MRZ
@testable import MRZScanner
import Testing
import TestSupport

/// The cell reader on its own: the generated fixture pages' MRZ lines cut into their cells and
/// named by the committed cell model; lines that do not make a whole grid refused.
@Suite struct CellReader {
    struct Truth: Decodable { let lines: [String]; let image: String }

    static func scanner() throws -> MRZScanner {
        let scanner = try MRZScanner(model: MRZModel.locate())
        #expect(scanner.readsCells, "Models/mrz-cells.bin should be found beside mrz.traineddata")
        return scanner
    }

    static let classifier = CellClassifier(contentsOf: TestPaths.projectRoot.appendingPathComponent("Models/\(CellClassifier.fileName)").path)

    /// Each MRZ line of a fixture page, as the scanner cuts it (found, deskewed, scaled, flattened).
    static func linePlanes(_ name: String) throws -> (truth: Truth, planes: [GreyPlane]) {
        let folder = TestPaths.fixtures.appendingPathComponent("ocr")
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent("\(name).json")))
        let scanner = try scanner()
        let image = try #require(try LeptonicaImage.decode([UInt8](Data(contentsOf: folder.appendingPathComponent(truth.image)))))
        let working = try #require(image.grey().flatMap(scanner.resized))
        let prepared = try #require(scanner.finder.prepare(working))
        let found = try #require(scanner.finder.find(prepared, skew: prepared.skew))
        let band = try #require(found.bands.first { $0.lines.count == truth.lines.count })
        let zone = band.zone
        let planes = try band.lines.map { try #require(scanner.cellPlane($0, across: zone, in: found.deskewed)) }
        return (truth, planes)
    }

    static func read(_ plane: GreyPlane, length: Int) throws -> [CellClassifier.Reading]? {
        let classifier = try #require(Self.classifier)
        return CellSegmenter.segment(plane, lengths: [length]).map(classifier.read)
    }

    @Test(arguments: ["datapage-td3-uto", "card-td1", "card-td2"])
    func everyLineCutsIntoItsCellsAndReadsAsPrinted(name: String) throws {
        let (truth, planes) = try Self.linePlanes(name)
        for (plane, line) in zip(planes, truth.lines) {
            let cells = try #require(try Self.read(plane, length: line.count), "\(name): \(line) not cut into \(line.count) cells")
            #expect(String(cells.map(\.best)) == line)
        }
    }

    @Test func aLineCutShortIsRefusedRatherThanStretched() throws {
        // The second TD3 line with its last fifth cut off: 35 cells are left, not 44 to be guessed.
        let (_, planes) = try Self.linePlanes("datapage-td3-uto")
        let plane = planes[1]
        let kept = plane.width * 4 / 5
        var pixels = plane.pixels
        for y in 0..<plane.height { for x in kept..<plane.width { pixels[y * plane.width + x] = 255 } }
        let cut = GreyPlane(width: plane.width, height: plane.height, pixels: pixels)
        #expect(CellSegmenter.segment(cut, lengths: [44]) == nil)
    }

    @Test func anUpsideDownLineIsReadTurned() throws {
        // A line of a page upside down: its plane turned half a turn cuts into the same cells,
        // which read as printed only once turned back (lines and cells in reverse, each turned).
        let (truth, planes) = try Self.linePlanes("datapage-td3-uto")
        let classifier = try #require(Self.classifier)
        let plane = planes[1]
        let upsideDown = GreyPlane(width: plane.width, height: plane.height, pixels: plane.pixels.reversed())
        let cells = try #require(CellSegmenter.segment(upsideDown, lengths: [44]))
        #expect(String(classifier.read(cells).map(\.best)) != truth.lines[1])
        #expect(String(classifier.read(cells.turnedHalf).map(\.best)) == truth.lines[1])
        #expect(cells.turnedHalf.turnedHalf.patches == cells.patches)
    }

    @Test func aBlotStaysInItsCell() throws {
        // Ink spilt over one character: the grid does not move, so every other character is read
        // as printed and the blotted one is the only doubt.
        let (truth, planes) = try Self.linePlanes("datapage-td3-uto")
        let plane = planes[1]
        let clean = try #require(CellSegmenter.segment(plane, lengths: [44]))
        let grid = try #require(Self.gridCentres(plane))
        let blotted = 12
        var pixels = plane.pixels
        let x0 = Int(grid[blotted] - clean.pitch * 0.3), x1 = Int(grid[blotted] + clean.pitch * 0.3)
        for y in (plane.height * 2 / 5)..<(plane.height * 3 / 5) { for x in x0...x1 { pixels[y * plane.width + x] = 0 } }
        let readings = try #require(try Self.read(GreyPlane(width: plane.width, height: plane.height, pixels: pixels), length: 44))
        let line = Array(truth.lines[1])
        for (index, reading) in readings.enumerated() where index != blotted {
            #expect(reading.best == line[index], "cell \(index)")
        }
    }

    /// The cell centres the segmenter fits for a plane (from its glyphs, as `segment` does).
    static func gridCentres(_ plane: GreyPlane) -> [Double]? {
        let marks = CellSegmenter.components(plane, threshold: CellSegmenter.otsuThreshold(plane))
        guard let glyphs = CellSegmenter.lineGlyphs(marks),
              let grid = CellSegmenter.fitGrid(glyphs.glyphs, capHeight: glyphs.capHeight, lengths: [44]) else { return nil }
        return (0..<grid.count).map(grid.centre)
    }

    /// A cell read as `best` with probability `p`, the rest on `alternative`.
    static func cell(_ best: Character, _ p: Float = 1, or alternative: Character = "<") -> CellClassifier.Reading {
        var probabilities = [Float](repeating: 0, count: CellClassifier.alphabet.count)
        probabilities[CellClassifier.alphabet.firstIndex(of: alternative)!] = 1 - p
        probabilities[CellClassifier.alphabet.firstIndex(of: best)!] += p
        return CellClassifier.Reading(probabilities: probabilities)
    }

    static func lines(_ texts: [String], doubts: [(line: Int, position: Int, CellClassifier.Reading)] = []) -> [CellClassifier.LineReading] {
        var cells = texts.map { $0.map { Self.cell($0) } }
        for doubt in doubts { cells[doubt.line][doubt.position] = doubt.2 }
        return cells.map(CellClassifier.LineReading.init)
    }

    static let specimen = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]

    @Test func aSureReadingIsDecodedAsReadAndTrusted() throws {
        let decoded = try #require(CellDecoder.decode(Self.lines(Self.specimen)))
        #expect(decoded.lines == Self.specimen)
        #expect(decoded.keyConfidence > 99.99)
    }

    @Test func aFieldsGrammarDecidesBetweenLookalikes() throws {
        // O is likelier than 0 in a date: a date holds digits, so it is 0, and as sure as before.
        let decoded = try #require(CellDecoder.decode(Self.lines(Self.specimen, doubts: [(1, 15, Self.cell("O", 0.7, or: "0"))])))
        #expect(decoded.lines == Self.specimen)
        #expect(decoded.keyConfidence > 99.9)
        // In a name an 0 is an O.
        let name = try #require(CellDecoder.decode(Self.lines(Self.specimen, doubts: [(0, 11, Self.cell("0", 0.8, or: "O"))])))
        #expect(name.lines == Self.specimen)
    }

    @Test func aNumericStateCodeIsDecodedAsPrinted() throws {
        // ICAO 9303-3 allows numeric codes (132 for a state not yet coded): the cells of a code
        // may hold digits, and a sure "132" must not come back as letters or fillers.
        let numeric = ["P<132ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36132" + Self.specimen[1].dropFirst(13)]
        let decoded = try #require(CellDecoder.decode(Self.lines(numeric)))
        #expect(decoded.lines == numeric)
        // A code is read as a whole: "UTO" whose O looks rather like a 0 is still UTO, not UT0.
        let doubted = try #require(CellDecoder.decode(Self.lines(Self.specimen, doubts: [(1, 12, Self.cell("0", 0.6, or: "O"))])))
        #expect(doubted.lines == Self.specimen)
    }

    @Test func theCheckDigitDecidesWhatItCanSee() throws {
        // The document number's "C" (12) doubted against "0" (0): only C satisfies the check digit.
        let decoded = try #require(CellDecoder.decode(Self.lines(Self.specimen, doubts: [(1, 7, Self.cell("0", 0.6, or: "C"))])))
        #expect(decoded.lines == Self.specimen)
        #expect(decoded.keyConfidence > 99.9)
    }

    @Test func aCheckDigitBlindDoubtIsNotTrusted() throws {
        // "2" (2) and "M" (22) are worth the same modulo 10: the check digit holds either way, so a
        // 10% doubt is a 10% chance of a wrong key.
        let decoded = try #require(CellDecoder.decode(Self.lines(Self.specimen, doubts: [(1, 6, Self.cell("2", 0.9, or: "M"))])))
        #expect(decoded.lines == Self.specimen)
        #expect(decoded.keyConfidence < 91)
        #expect(decoded.keyConfidence > 89)
    }

    @Test func aFieldWhoseCheckDigitCannotHoldIsNotTrusted() throws {
        // The birth date's check digit read as 3, sure: no reading of the field satisfies it.
        var lines = Self.specimen
        lines[1] = String(lines[1].prefix(19)) + "3" + lines[1].dropFirst(20)
        let decoded = try #require(CellDecoder.decode(Self.lines(lines)))
        #expect(decoded.keyConfidence == 0)
    }

    @Test func malformedModelFilesAreRefused() throws {
        let path = TestPaths.projectRoot.appendingPathComponent("Models/\(CellClassifier.fileName)").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(CellClassifier.parse(bytes) != nil)
        #expect(CellClassifier.parse(Array(bytes.dropLast())) == nil)
        #expect(CellClassifier.parse(bytes + [0]) == nil)
        #expect(CellClassifier.parse(Array("MRZX".utf8) + bytes.dropFirst(4)) == nil)
        var wrongSize = bytes
        wrongSize[8] = 17 // patch width
        #expect(CellClassifier.parse(wrongSize) == nil)
        #expect(CellClassifier.parse([]) == nil)
    }
}

/// A line that glare cut in two (its middle washed out, six characters wide) is still one line;
/// pieces on other rows, or farther apart than the glare of a lamp, are not joined.
@Suite struct LinePieces {
    @Test func piecesOfOneRowAcrossAGlareAreOneLine() {
        let left = PixelRect(x: 100, y: 200, width: 300, height: 12), right = PixelRect(x: 472, y: 201, width: 250, height: 12)
        #expect(MRZBandFinder.mergeRowPieces([right, left]) == [PixelRect(x: 100, y: 200, width: 622, height: 13)])
        let below = PixelRect(x: 472, y: 230, width: 250, height: 12)
        #expect(MRZBandFinder.mergeRowPieces([left, below]).count == 2)
        let far = PixelRect(x: 520, y: 200, width: 250, height: 12)
        #expect(MRZBandFinder.mergeRowPieces([left, far]).count == 2)
    }
}

/// The band finder turns only the region around the zones: it must show what turning the whole
/// photo would show there.
@Suite struct TurnedRegion {
    @Test(arguments: [7.0, -11.0, 0.4])
    func aTurnedRegionMatchesTheTurnedPhoto(degrees: Double) throws {
        let folder = TestPaths.fixtures.appendingPathComponent("ocr")
        let photo = try #require(try LeptonicaImage.decode([UInt8](Data(contentsOf: folder.appendingPathComponent("card-td1.jpg"))))?.grey())
        let whole = try #require(photo.rotated(degrees: degrees))
        let region = PixelRect(x: 300, y: 700, width: 900, height: 300)
        let part = try #require(MRZBandFinder.turnedRegion(photo, degrees: degrees, region: region))
        let wholePixels = try #require(whole.greyBytes()), partPixels = try #require(part.image.greyBytes())
        var difference = 0, count = 0
        for y in stride(from: region.y, to: region.maxY, by: 3) {
            for x in stride(from: region.x, to: region.maxX, by: 3) {
                let (px, py) = (x + part.offset.x, y + part.offset.y)
                guard px >= 0, py >= 0, px < part.image.width, py < part.image.height else { Issue.record("(\(x), \(y)) outside the region"); return }
                difference += abs(Int(wholePixels[y * whole.width + x]) - Int(partPixels[py * part.image.width + px]))
                count += 1
            }
        }
        // Rounding the shift to whole pixels leaves a little difference on edges; a wrong turn
        // or shift leaves tens of grey levels.
        #expect(Double(difference) / Double(count) < 4)
    }
}
