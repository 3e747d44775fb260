import ArgumentParser
import Foundation
import MRZScanner
import PassportCLI

/// Writes the cell model's training data: every MRZ cell of a folder of images with NNNN.json
/// ground truth (scripts/ocr/make-dataset), cut as a scan cuts it and labelled with the true
/// character. scripts/ocr/train-cell-model runs it on the tuning generator's pages only.
struct OCRCellsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr-cells",
        abstract: "Training data for the MRZ cell model: labelled character cells from a generated dataset.")

    @Argument(help: "A folder from scripts/ocr/make-dataset.") var dataset: String
    @Option(help: "Output file: per cell one label byte (index in A-Z0-9<) and width × height ink bytes.") var out: String
    @Option(help: "Folder holding mrz.traineddata (default: searched).") var tessdata: String?

    struct Truth: Decodable {
        let lines: [String]
        let image: String
    }

    func run() throws {
        let folder = URL(fileURLWithPath: dataset)
        let names = try FileManager.default.contentsOfDirectory(atPath: dataset).filter { $0.hasSuffix(".json") }.sorted()
        guard !names.isEmpty else {
            printError("error: no ground-truth .json files in \(dataset)")
            throw Exit.environment
        }
        let scanner = try MRZScanner(model: MRZModel.locate(explicit: tessdata))
        var output = Data()
        var used = 0, cells = 0
        for name in names {
            let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent(name)))
            let image = try [UInt8](Data(contentsOf: folder.appendingPathComponent(truth.image)))
            let samples = try scanner.cellSamples(imageData: image, truth: truth.lines)
            if !samples.isEmpty { used += 1 }
            for sample in samples {
                output.append(UInt8(sample.label))
                output.append(contentsOf: sample.patch.map { UInt8(($0 * 255).rounded()) })
                cells += 1
            }
        }
        try output.write(to: URL(fileURLWithPath: out))
        print("\(cells) cells from \(used) of \(names.count) images (\(MRZScanner.cellPatchWidth)×\(MRZScanner.cellPatchHeight) patches) → \(out)")
    }
}
