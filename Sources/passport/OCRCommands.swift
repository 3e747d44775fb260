import ArgumentParser
import PassportCLI
import Foundation
import MRZ
import MRZScanner
import PassportKit

/// Reads the MRZ from a photo, explaining on stderr when the fallback model is in use.
func scanMRZImage(_ path: String, tessdata: String?, timeBudget: Double? = nil) throws -> (MRZScanResult, MRZModel) {
    let model = try MRZModel.locate(explicit: tessdata)
    if model.isFallback {
        printError("warning: the MRZ model (mrz.traineddata) was not found; using Tesseract's general English model, "
            + "which misreads the MRZ font more often. Run scripts/setup or pass --tessdata.")
    }
    let scanner = try MRZScanner(model: model)
    if let timeBudget { scanner.timeBudget = timeBudget }
    return (try scanner.scan(imageAt: path), model)
}

struct OCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Read the MRZ from a photo of the data page (Tesseract), correct it with its check digits.")

    @Argument(help: "The image (JPEG, PNG, TIFF, BMP, PNM or JPEG 2000).") var image: String
    @Option(help: "Folder holding mrz.traineddata (default: searched, see README).") var tessdata: String?
    @Option(help: "Seconds the search may take before the image is refused (default 1).") var timeBudget: Double?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if let timeBudget, !(timeBudget > 0) { throw ValidationError("--time-budget must be a positive number of seconds.") }
    }

    func run() throws {
        do {
            let (result, model) = try scanMRZImage(image, tessdata: tessdata, timeBudget: timeBudget)
            let mrz = result.mrz
            if json {
                printJSON(OCRReport(mrz: mrz, recognisedLines: result.recognisedLines, corrections: result.corrections,
                                    model: model.language, skewDegrees: result.skewDegrees))
            } else {
                for line in mrz.lines { print(line) }
                print("")
                for (label, value) in [("Format", mrz.format.rawValue.uppercased()), ("Document", "\(mrz.documentCode) \(mrz.documentNumber)"),
                                       ("Issuing state", mrz.issuingState), ("Name", "\(mrz.primaryIdentifier), \(mrz.secondaryIdentifier)"),
                                       ("Nationality", mrz.nationality), ("Birth date", mrz.birthDate), ("Sex", mrz.sex),
                                       ("Expiry date", mrz.expiryDate)] {
                    print("  \(label.padding(toLength: 14, withPad: " ", startingAt: 0)) \(value)")
                }
                print("  Check digits   " + mrz.checks.map { "\($0.field.rawValue) \($0.isValid ? "ok" : "FAILED")" }.joined(separator: ", "))
                if !result.corrections.isEmpty {
                    print("  Corrected      " + result.corrections.map(\.description).joined(separator: "; "))
                }
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}
