import ArgumentParser
import Diagnostics
import PassportCLI
import CardIO
import LibraryLoading
import PassportKit

struct ReadersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers", abstract: "List the card readers and whether a card is on each.")

    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        var entries: [ReadersReport.Reader] = []
        var problems: [String] = []
        do {
            let context = try PCSCContext()
            for name in try context.readers() {
                entries.append(.init(name: name, backend: "pcsc", cardPresent: (try? context.isCardPresent(reader: name)) ?? false))
            }
        } catch let error as CardIOError where error == .serviceUnavailable || error == .noReaders {
            problems.append(error.description)
        } catch let missing as MissingLibrary {
            // Like pcscd not running: noted, and the libnfc devices are still listed.
            problems.append(missing.description)
        } catch {
            throw fail(error, json: json)
        }
        if let nfc = try? NFCContext() {
            for connstring in nfc.devices() { entries.append(.init(name: connstring, backend: "libnfc", cardPresent: nil)) }
        }
        // Known USB readers present but unusable, judged as `passport doctor` judges them.
        let pcscNames = entries.filter { $0.backend == "pcsc" }.map(\.name)
        problems += Doctor.usbReaders(.current(wantsNFC: false), pcscReaders: pcscNames).filter { $0.status != .ok }
            .map { "\($0.name): \($0.seen)" + ($0.fix.map { ". Fix: \($0)" } ?? "") }
        if json {
            printJSON(ReadersReport(readers: entries, problems: problems))
            return
        }
        if entries.isEmpty {
            print("No readers found. Plug in a reader; see the README for pcscd, the udev rules and libnfc.")
        }
        for entry in entries {
            let present = entry.cardPresent.map { $0 ? ", card present" : ", no card" } ?? ""
            print("\(entry.name)  [\(entry.backend)\(present)]")
        }
        for problem in problems { print("note: \(problem)") }
    }
}
