import Foundation
import MRZ
import MRZScanner
import Testing
import TestSupport

/// The whole OCR path (Leptonica, the band finder, Tesseract with the committed OCR-B model, the
/// corrector) on generated photos of data pages whose MRZ is known.
@Suite struct MRZScanning {
    struct Truth: Decodable { let lines: [String]; let image: String }

    static let folder = TestPaths.fixtures.appendingPathComponent("ocr")

    static func scanner() throws -> MRZScanner {
        let model = try MRZModel.locate()
        #expect(!model.isFallback, "Models/mrz.traineddata should be found from the source tree")
        let scanner = try MRZScanner(model: model)
        scanner.timeBudget = 60 // debug builds, tests in parallel: time is the benchmark's business
        return scanner
    }

    @Test(arguments: ["datapage-td3-uto", "card-td1", "card-td2"])
    func photoGivesTheExactMRZ(name: String) throws {
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.folder.appendingPathComponent("\(name).json")))
        let result = try Self.scanner().scan(imageAt: Self.folder.appendingPathComponent(truth.image).path)
        #expect(result.mrz.lines == truth.lines)
        #expect(result.mrz.isValid)
    }

    @Test func imageWithoutMRZIsReportedAsSuch() throws {
        let face = TestPaths.fixtures.appendingPathComponent("images/face-160x206.jp2").path
        #expect(throws: MRZScanError.noZoneFound) { try Self.scanner().scan(imageAt: face) }
    }

    @Test func bytesThatAreNoImageAreRefused() throws {
        #expect(throws: MRZScanError.undecodableImage) { try Self.scanner().scan(imageData: Array("not an image".utf8)) }
    }

    @Test func explicitModelFolderWithoutModelIsAnError() {
        #expect(throws: MRZScanError.self) { try MRZModel.locate(explicit: "/nonexistent") }
    }
}
