import ArgumentParser
import PassportCLI
import Foundation
import MRZ
import MRZScanner

/// The MRZ fields and check-digit statuses, for `ocr` and `scan --mrz-image`.
func mrzReport(_ mrz: MRZ) -> [String: Any] {
    [
        "format": mrz.format.rawValue.uppercased(),
        "document_code": mrz.documentCode,
        "issuing_state": mrz.issuingState,
        "document_number": mrz.documentNumber,
        "nationality": mrz.nationality,
        "birth_date": mrz.birthDate,
        "sex": mrz.sex,
        "expiry_date": mrz.expiryDate,
        "optional_data": mrz.optionalData,
        "primary_identifier": mrz.primaryIdentifier,
        "secondary_identifier": mrz.secondaryIdentifier,
    ]
}

func checkReport(_ checks: [CheckDigitResult]) -> [[String: Any]] {
    checks.map { ["field": $0.field.rawValue, "found": String($0.found), "expected": $0.expected.map(String.init) ?? "", "valid": $0.isValid] }
}

/// Reads the MRZ from a photo, explaining on stderr when the fallback model is in use.
func scanMRZImage(_ path: String, tessdata: String?) throws -> (MRZScanResult, MRZModel) {
    let model = try MRZModel.locate(explicit: tessdata)
    if model.isFallback {
        printError("warning: the MRZ model (mrz.traineddata) was not found; using Tesseract's general English model, "
            + "which misreads the MRZ font more often. Run scripts/setup or pass --tessdata.")
    }
    let scanner = try MRZScanner(model: model)
    return (try scanner.scan(imageAt: path), model)
}

struct OCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Read the MRZ from a photo of the data page (Tesseract), correct it with its check digits.")

    @Argument(help: "The image (JPEG, PNG, TIFF, BMP, PNM or JPEG 2000).") var image: String
    @Option(help: "Folder holding mrz.traineddata (default: searched, see README).") var tessdata: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let (result, model) = try scanMRZImage(image, tessdata: tessdata)
            let mrz = result.mrz
            if json {
                let object: [String: Any] = ["ok": true, "lines": mrz.lines, "fields": mrzReport(mrz),
                                             "checks": checkReport(mrz.checks),
                                             "recognised_lines": result.recognisedLines,
                                             "corrections": result.corrections.map { ["line": $0.line, "position": $0.position, "from": String($0.from), "to": String($0.to)] },
                                             "model": model.language, "skew_degrees": (result.skewDegrees * 10).rounded() / 10]
                printJSON(object)
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
