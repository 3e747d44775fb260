import ArgumentParser
import PassportCLI
import Foundation
import MRZ
import MRZScanner

/// Accuracy and speed of the MRZ scanner on a folder made by scripts/ocr/make-dataset
/// (NNNN.jpg/png with NNNN.json ground truth). Runs on one thread.
struct OCRBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Benchmark: MRZ read accuracy and milliseconds per image on a generated dataset.")

    @Argument(help: "A folder from scripts/ocr/make-dataset.") var dataset: String
    @Option(help: "Folder holding mrz.traineddata (default: searched).") var tessdata: String?
    @Option(help: "Use at most this many images.") var limit: Int?
    @Flag(help: "Print each miss on stderr.") var verbose = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    struct Truth: Decodable {
        let lines: [String]
        let document_number: String
        let birth_date: String
        let expiry_date: String
        let image: String
        let level: String?
        let format: String?
    }

    func run() throws {
        let folder = URL(fileURLWithPath: dataset)
        var truths = try FileManager.default.contentsOfDirectory(atPath: dataset)
            .filter { $0.hasSuffix(".json") }.sorted()
            .map { try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent($0))) }
        if let limit { truths = Array(truths.prefix(limit)) }
        guard !truths.isEmpty else {
            printError("error: no ground-truth .json files in \(dataset); make them with scripts/ocr/make-dataset")
            throw Exit.environment
        }
        let model = try MRZModel.locate(explicit: tessdata)
        let scanner = try MRZScanner(model: model)

        var keyExact = 0, linesExact = 0, found = 0
        var perLevel: [String: (images: Int, key: Int)] = [:]
        var elapsed = 0.0
        var costs: [Int: Int] = [:]
        for truth in truths {
            let data = try [UInt8](Data(contentsOf: folder.appendingPathComponent(truth.image)))
            let start = DispatchTime.now().uptimeNanoseconds
            var failure: Error?
            let result: MRZScanResult?
            do { result = try scanner.scan(imageData: data) } catch { result = nil; failure = error }
            elapsed += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let level = truth.level ?? "all"
            var entry = perLevel[level] ?? (0, 0)
            entry.images += 1
            if let result {
                found += 1
                let mrz = result.mrz
                let keyOK = mrz.documentNumber == truth.document_number && mrz.birthDate == truth.birth_date
                    && mrz.expiryDate == truth.expiry_date
                if keyOK { keyExact += 1; entry.key += 1 }
                costs[result.cost, default: 0] += 1
                if mrz.lines == truth.lines { linesExact += 1 }
                if verbose && (!keyOK || mrz.lines != truth.lines) {
                    printError("\(truth.image) [\(level)] read \(mrz.lines) (cost \(result.cost)) expected \(truth.lines)")
                }
            } else if verbose {
                var detail = failure.map { String(describing: $0) } ?? ""
                if case .checkDigitsFail(let lines, _)? = failure as? MRZScanError { detail += " read \(lines)" }
                if case .unreadable(let lines)? = failure as? MRZScanError { detail += " read \(lines)" }
                if case .uncertain(let lines)? = failure as? MRZScanError { detail += " read \(lines)" }
                printError("\(truth.image) [\(level)] \(detail) expected \(truth.lines)")
            }
            perLevel[level] = entry
        }
        let n = Double(truths.count)
        let msPerImage = elapsed / n * 1000
        if json {
            printJSON(["tool": "passport", "model": model.language, "images": truths.count,
                       "bac_key_exact": Double(keyExact) / n, "all_lines_exact": Double(linesExact) / n,
                       "valid_mrz_found": Double(found) / n, "ms_per_image": (msPerImage * 10).rounded() / 10,
                       "bac_key_exact_by_level": perLevel.mapValues { Double($0.key) / Double($0.images) }])
        } else {
            print(String(format: "passport (%@ model): %d images, BAC key exact %.1f%%, all lines exact %.1f%%, valid MRZ found %.1f%%, %.0f ms per image",
                         model.language, truths.count, 100 * Double(keyExact) / n, 100 * Double(linesExact) / n, 100 * Double(found) / n, msPerImage))
            if verbose { printError("correction costs of accepted reads: \(costs.sorted { $0.key < $1.key })") }
            for (level, entry) in perLevel.sorted(by: { $0.key < $1.key }) {
                print(String(format: "  %@: BAC key exact %d/%d", level, entry.key, entry.images))
            }
        }
    }
}
