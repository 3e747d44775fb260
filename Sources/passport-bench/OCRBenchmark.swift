import ArgumentParser
import PassportCLI
import Foundation
import MRZ
import MRZScanner

/// Accuracy and speed of the MRZ scanner on a folder of images with NNNN.json ground truth (as
/// scripts/ocr/make-dataset and scripts/ocr/make-eval-pages write them; scripts/bench-ocr links the
/// real photos into such a folder). Runs on one thread. A wrong key is an MRZ returned whose
/// access-key fields differ from the truth (a refusal is not one); times are per image, wall clock.
struct OCRBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Benchmark: MRZ read accuracy and milliseconds per image on a generated dataset.")

    @Argument(help: "A folder from scripts/ocr/make-dataset.") var dataset: String
    @Option(help: "Folder holding mrz.traineddata (default: searched).") var tessdata: String?
    @Option(help: "Use at most this many images.") var limit: Int?
    @Option(help: "Outer safety stop: seconds after which an image's search is stopped whatever work is left (the scanner's default: 60).") var timeBudget: Double?
    @Option(help: "Work units one image's search may spend (the scanner's default: SearchBudget.defaultWork).") var workBudget: Int?
    @Option(help: "Write each image's reading (its lines, or the refusal), work spent and time as JSON to this file.") var readings: String?
    @Option(help: "A name for the set, printed with its figures.") var name: String?
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
        if let timeBudget { scanner.timeBudget = timeBudget }
        if let workBudget { scanner.workBudget = workBudget }
        var perImage: [[String: Any]] = []
        var stoppedByClock = 0

        var keyExact = 0, linesExact = 0, found = 0, wrongKeys = 0
        var times: [Double] = []
        var perLevel: [String: (images: Int, key: Int)] = [:]
        var elapsed = 0.0
        var costs: [Int: Int] = [:]
        for truth in truths {
            let data = try [UInt8](Data(contentsOf: folder.appendingPathComponent(truth.image)))
            let start = DispatchTime.now().uptimeNanoseconds
            var failure: Error?
            let result: MRZScanResult?
            do { result = try scanner.scan(imageData: data) } catch { result = nil; failure = error }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            elapsed += seconds
            times.append(seconds * 1000)
            let search = scanner.lastSearch
            if search?.stoppedByClock == true { stoppedByClock += 1 }
            var record: [String: Any] = ["image": truth.image, "ms": (seconds * 10000).rounded() / 10, "work": search?.spent ?? 0,
                                         "clock_stop": search?.stoppedByClock ?? false,
                                         "steps": Dictionary(uniqueKeysWithValues: (search?.steps ?? [:]).map { ("\($0.key)", $0.value) })]
            if let result { record["lines"] = result.mrz.lines } else { record["refused"] = failure.map { "\($0)" } ?? "" }
            perImage.append(record)
            let level = truth.level ?? "all"
            var entry = perLevel[level] ?? (0, 0)
            entry.images += 1
            if let result {
                found += 1
                let mrz = result.mrz
                let keyOK = mrz.documentNumber == truth.document_number && mrz.birthDate == truth.birth_date
                    && mrz.expiryDate == truth.expiry_date
                if keyOK { keyExact += 1; entry.key += 1 } else { wrongKeys += 1 }
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
                if case .breaksGrammar(let lines)? = failure as? MRZScanError { detail += " read \(lines)" }
                printError("\(truth.image) [\(level)] \(detail) expected \(truth.lines)")
            }
            perLevel[level] = entry
        }
        if let readings {
            let data = try JSONSerialization.data(withJSONObject: perImage, options: [.sortedKeys])
            try data.write(to: URL(fileURLWithPath: readings))
        }
        let n = Double(truths.count)
        let msPerImage = elapsed / n * 1000
        let sorted = times.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
        let (p50, p90, p95, slowest) = (percentile(0.5), percentile(0.9), percentile(0.95), sorted.last!)
        let (over1s, over3s) = (sorted.filter { $0 > 1000 }.count, sorted.filter { $0 > 3000 }.count)
        if json {
            printJSON(["tool": "passport", "model": model.language, "images": truths.count,
                       "bac_key_exact": Double(keyExact) / n, "all_lines_exact": Double(linesExact) / n,
                       "wrong_keys": Double(wrongKeys), "ms_p50": p50.rounded(), "ms_p90": p90.rounded(), "ms_p95": p95.rounded(),
                       "ms_max": slowest.rounded(), "stopped_by_clock": Double(stoppedByClock), "over_1s": Double(over1s), "over_3s": Double(over3s),
                       "valid_mrz_found": Double(found) / n, "ms_per_image": (msPerImage * 10).rounded() / 10,
                       "bac_key_exact_by_level": perLevel.mapValues { Double($0.key) / Double($0.images) }])
        } else {
            print(String(format: "%@passport (%@ model): %d images, BAC key exact %.1f%%, all lines exact %.1f%%, wrong keys %d, valid MRZ found %.1f%%, ms per image: mean %.0f, p50 %.0f, p90 %.0f, p95 %.0f, max %.0f (%d over 1 s, %d over 3 s), %d stopped by the outer clock",
                         name.map { "[\($0)] " } ?? "", model.language, truths.count, 100 * Double(keyExact) / n, 100 * Double(linesExact) / n,
                         wrongKeys, 100 * Double(found) / n, msPerImage, p50, p90, p95, slowest, over1s, over3s, stoppedByClock))
            if verbose { printError("correction costs of accepted reads: \(costs.sorted { $0.key < $1.key })") }
            for (level, entry) in perLevel.sorted(by: { $0.key < $1.key }) {
                print(String(format: "  %@: BAC key exact %d/%d", level, entry.key, entry.images))
            }
        }
    }
}
