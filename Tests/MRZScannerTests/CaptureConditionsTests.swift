import CLeptonica
import Foundation
@testable import ImageCodecs
import MRZ
@testable import MRZScanner
import Testing
import TestSupport

/// The capture conditions people have, each made at test time from the generated TD3 data page
/// (Fixtures/ocr, written by scripts/ocr/make-dataset): the scanner must still give the exact
/// MRZ, or refuse; never another one.
@Suite(.serialized) struct CaptureConditions {
    struct Truth: Decodable { let lines: [String]; let image: String; let mrz_quad: [[Double]] }

    static let truth = try! JSONDecoder().decode(Truth.self, from: Data(contentsOf:
        TestPaths.fixtures.appendingPathComponent("ocr/datapage-td3-uto.json")))
    static func page() throws -> LeptonicaImage {
        let data = try [UInt8](Data(contentsOf: TestPaths.fixtures.appendingPathComponent("ocr/\(truth.image)")))
        return try #require(try LeptonicaImage.decode(data))
    }
    static func scanner() throws -> MRZScanner {
        let scanner = try MRZScanner(model: MRZModel.locate())
        // Debug builds are several times slower than release builds: time is the benchmark's business.
        scanner.timeBudget = 60
        return scanner
    }
    /// The access key exact and every check digit holding. (Fields no check digit covers, the name
    /// and the nationality, can still be misread under a pen stroke or glare: see `linesExact`.)
    static func expectExact(_ image: LeptonicaImage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let data = try #require(image.jpegData(quality: 92))
        let result = try scanner().scan(imageData: data)
        #expect(result.mrz.accessKey == (try MRZ(lines: truth.lines)).accessKey, sourceLocation: sourceLocation)
        #expect(result.mrz.isValid, sourceLocation: sourceLocation)
        #expect(result.mrz.documentCode == "P" && result.mrz.birthDate == "880412", sourceLocation: sourceLocation)
    }

    /// The JPEG with an APP1 Exif segment (one IFD entry: Orientation) put after SOI.
    static func withOrientation(_ jpeg: [UInt8], _ value: UInt16, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { littleEndian ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) }
        let tiff = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(1)
            + u16(0x0112) + u16(3) + u32(1) + u16(value) + [0, 0] + u32(0)
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }

    @Test func exifOrientationIsReadInBothByteOrders() throws {
        let jpeg = try #require(try Self.page().scaled(by: 0.1)?.jpegData())
        #expect(ExifOrientation.read(from: jpeg) == nil)
        for value in 1...8 {
            #expect(ExifOrientation.read(from: Self.withOrientation(jpeg, UInt16(value), littleEndian: true)) == value)
            #expect(ExifOrientation.read(from: Self.withOrientation(jpeg, UInt16(value), littleEndian: false)) == value)
        }
        #expect(ExifOrientation.read(from: Array("not a jpeg".utf8)) == nil)
    }

    @Test func exifOrientationTurnsThePixelsUpright() throws {
        // An asymmetric image; stored as a camera would for each tag value, then turned back.
        let upright = try #require(try Self.page().scaled(by: 0.05))
        let stored: [Int: Int] = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6] // the inverse of each
        for (value, inverse) in stored {
            let sensor = try #require(upright.oriented(exif: inverse))
            let shown = try #require(sensor.oriented(exif: value))
            var same: Int32 = 0
            _ = leptonica.pixEqual(shown.pix, upright.pix, &same)
            #expect(same == 1, "orientation \(value)")
        }
    }

    @Test(arguments: [6, 8, 3])
    func phonePhotoStoredSidewaysIsReadUpright(value: Int) throws {
        let inverse = [6: 8, 8: 6, 3: 3][value]!
        let sensor = try #require(try Self.page().oriented(exif: inverse))
        let jpeg = Self.withOrientation(try #require(sensor.jpegData(quality: 92)), UInt16(value), littleEndian: value != 8)
        let result = try Self.scanner().scan(imageData: jpeg)
        #expect(result.mrz.lines == Self.truth.lines)
    }

    @Test(arguments: [1, 2, 3])
    func pageTurnedByQuarterTurnsIsFound(quarters: Int) throws {
        try Self.expectExact(try #require(try Self.page().turned(quarterTurns: quarters)))
    }

    @Test(arguments: [-30.0, -25.0, -18.0, 18.0, 25.0, 30.0])
    func pageTiltedUpToThirtyDegreesIsFound(degrees: Double) throws {
        try Self.expectExact(try #require(try Self.page().rotated(degrees: degrees, expand: true)))
    }

    /// A straight page with other print leaning across it (here three mirrored copies of its own
    /// MRZ, turned 6°, pasted above the zone: many character-sized marks, none readable) pulls the
    /// skew estimate off; the photo as found is still read straight, in the first view.
    @Test func aStraightPageIsReadStraightWhenOtherPrintLeans() throws {
        let scanner = try Self.scanner()
        let working = try #require(try Self.page().grey().flatMap(scanner.resized))
        let tilt = try #require(scanner.finder.prepare(working)).skew
        let straight = try #require(working.rotated(degrees: tilt))
        let prepared = try #require(scanner.finder.prepare(straight))
        let zone = try #require(scanner.finder.bands(prepared, skew: 0)?.first).zone
        let band = try #require(straight.cropped(PixelRect(x: zone.x, y: zone.y - zone.height / 4, width: zone.width, height: zone.height * 3 / 2)))
        let leaning = try #require(LeptonicaImage(leptonica.pixFlipLR(nil, band.pix))?.rotated(degrees: 6, expand: true))
        for copy in 1...3 {
            let y = Int32(zone.y - copy * (leaning.height + 10))
            _ = leptonica.pixRasterop(straight.pix, Int32(zone.x), y, Int32(leaning.width), Int32(leaning.height), PIX_SRC, leaning.pix, 0, 0)
        }
        let misled = try #require(scanner.finder.prepare(straight))
        try #require(abs(misled.skew) > 3, "the leaning print should pull the estimate off (it is \(misled.skew)°)")
        let budget = SearchBudget(work: scanner.workBudget, outerSeconds: 60)
        var views = SearchViews(scanner: scanner, working: straight, otherGrey: nil, budget: budget)
        let next = views.next(budget: budget)
        let first = try #require(next)
        #expect(abs(first.skewDegrees) < 1)
        try Self.expectExact(straight)
    }

    @Test func smallImageIsEnlarged() throws {
        // The whole photo 380 pixels wide: the MRZ's characters are about 5 pixels tall.
        let page = try Self.page()
        try Self.expectExact(try #require(page.scaled(by: 380.0 / Double(page.width))))
    }

    /// The MRZ band's bounding box in the page.
    static func band() -> (x: Int32, y: Int32, w: Int32, h: Int32) {
        let xs = truth.mrz_quad.map { $0[0] }, ys = truth.mrz_quad.map { $0[1] }
        return (Int32(xs.min()!), Int32(ys.min()!), Int32(xs.max()! - xs.min()!), Int32(ys.max()! - ys.min()!))
    }

    @Test func redPenOverTheBand() throws {
        let page = try Self.page()
        let b = Self.band()
        // A red ring drawn around the zone and a stroke across both lines, as a reviewer marks it.
        _ = leptonica.pixRenderLineArb(page.pix, b.x, b.y + b.h / 3, b.x + b.w, b.y + b.h * 2 / 3, 5, 220, 20, 30)
        var box: UnsafeMutablePointer<BOX>? = leptonica.boxCreate(b.x - 10, b.y - 10, b.w + 20, b.h + 20)
        _ = leptonica.pixRenderBoxArb(page.pix, box, 6, 230, 30, 30)
        leptonica.boxDestroy(&box)
        try Self.expectExact(page)
    }

    @Test func highlighterOverTheBand() throws {
        let page = try Self.page()
        let b = Self.band()
        var box: UnsafeMutablePointer<BOX>? = leptonica.boxCreate(b.x, b.y, b.w, b.h)
        _ = leptonica.pixBlendInRect(page.pix, box, 0xF5_E6_1E_00, 0.55) // yellow
        leptonica.boxDestroy(&box)
        try Self.expectExact(page)
    }

    @Test func glareOverPartOfTheBand() throws {
        let page = try Self.page()
        let b = Self.band()
        // A bright spot, strongest at its centre, over the left third of the zone.
        for step in 0..<4 {
            let inset = Int32(step) * b.h / 8
            var box: UnsafeMutablePointer<BOX>? = leptonica.boxCreate(b.x + inset, b.y - b.h / 2 + inset, b.w / 3 - 2 * inset, 2 * b.h - 2 * inset)
            _ = leptonica.pixBlendInRect(page.pix, box, 0xFF_FF_FF_00, 0.15)
            leptonica.boxDestroy(&box)
        }
        try Self.expectExact(page)
    }

    @Test func faintPrint() throws {
        // The whole page washed out to 35% of its contrast.
        let page = try Self.page()
        var box: UnsafeMutablePointer<BOX>? = leptonica.boxCreate(0, 0, Int32(page.width), Int32(page.height))
        _ = leptonica.pixBlendInRect(page.pix, box, 0xFF_FF_FF_00, 0.65)
        leptonica.boxDestroy(&box)
        try Self.expectExact(page)
    }

    @Test func spentTimeBudgetRefuses() throws {
        let scanner = try Self.scanner()
        scanner.timeBudget = 0
        let data = try #require(try Self.page().jpegData())
        #expect(throws: MRZScanError.self) { try scanner.scan(imageData: data) }
    }

    /// The real specimen photos of ../shared/reference/mrz-photos (not ours; skipped when absent):
    /// a reading returned must be the printed one.
    @Test(.enabled(if: TestPaths.reference.map { FileManager.default.fileExists(atPath: $0.appendingPathComponent("mrz-photos/truth.json").path) } ?? false,
                   "../shared/reference/mrz-photos absent"))
    func realSpecimenPhotosGiveNoWrongKey() throws {
        struct Entry: Decodable { let mrz: [String] }
        let folder = TestPaths.reference!.appendingPathComponent("mrz-photos")
        let truth = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: folder.appendingPathComponent("truth.json")))
        let scanner = try MRZScanner(model: MRZModel.locate())
        scanner.timeBudget = 8 // a debug build under a loaded test run is several times slower than the release build the budget is set for
        var read = 0
        for (name, entry) in truth.sorted(by: { $0.key < $1.key }) {
            guard let result = try? scanner.scan(imageAt: folder.appendingPathComponent(name).path) else { continue }
            read += 1
            #expect(result.mrz.accessKey == (try MRZ(lines: entry.mrz)).accessKey, "\(name)")
        }
        #expect(read > truth.count / 2)
    }
}

/// A phone photo several times larger than the scanner works at is decoded at a fraction of its
/// size (libjpeg's reduction), and still read exactly.
@Suite struct LargePhotos {
    @Test func aLargeJPEGIsDecodedReducedAndReadExactly() throws {
        let page = try CaptureConditions.page()
        let large = try #require(LeptonicaImage(leptonica.pixScale(page.pix, 3, 3)))
        let jpeg = try #require(large.jpegData(quality: 90))
        let reduced = try #require(try LeptonicaImage.decode(jpeg, reducedTo: 2000))
        // 4434 pixels wide: a half is 2217, the least reduction that stays above 2000.
        #expect(reduced.width == (large.width + 1) / 2)
        #expect(try LeptonicaImage.decode(jpeg, reducedTo: 5000)?.width == large.width)
        // Not a JPEG: decoded whole.
        let png = try #require(page.pngData())
        #expect(try LeptonicaImage.decode(png, reducedTo: 100)?.width == page.width)
        try CaptureConditions.expectExact(large)
    }
}
