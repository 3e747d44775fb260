import ArgumentParser
import CardIO

struct ReadersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers", abstract: "List the card readers and whether a card is on each.")

    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let context = try PCSCContext()
            let readers = try context.readers()
            let entries: [[String: Any]] = readers.map { name in
                ["name": name, "backend": "pcsc", "card_present": (try? context.isCardPresent(reader: name)) ?? false]
            }
            if json {
                printJSON(["ok": true, "readers": entries])
            } else if readers.isEmpty {
                print("No PC/SC readers found. Plug in a reader; see the README for udev rules and pcscd.")
            } else {
                for entry in entries {
                    let present = entry["card_present"] as? Bool == true ? "card present" : "no card"
                    print("\(entry["name"]!)  [pcsc, \(present)]")
                }
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}
