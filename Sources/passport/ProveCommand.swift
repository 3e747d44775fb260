import ArgumentParser
import PassportCLI
import FoundationEssentials
import LDS
import PassportKit

struct ProveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prove",
        abstract: "Export the zero-knowledge inputs of a verified dump: one nargo Prover.toml per zkPassport circuit.",
        discussion: """
        After passive authentication passes (same trust flags as `passport verify`), writes for each of the \
        four zkPassport circuits (zkpassport/circuits 0.17.0) this passport needs DIR/<circuit>/Prover.toml, \
        the values of the circuit's `main` parameters in declaration order, and DIR/README.md with the \
        `nargo execute` commands that check them. The files hold DG1 and the EF.SOD (personal data): the \
        folders are made 0700 and the files 0600. Nothing is written when verification fails.
        """)

    @Argument(help: "The dump folder.") var dump: String
    @OptionGroup var trustOptions: TrustOptions
    @Option(help: "The folder to write (created when missing).") var export: String
    @Option(help: "The minimum age the compare_age circuit checks.") var minAge = 18
    @Option(help: "The current date compare_age is given, ISO 8601 (default: now).") var currentDate: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            guard (0...120).contains(minAge) else { throw ValidationError("--min-age must be between 0 and 120") }
            var now = Date()
            if let currentDate {
                guard let date = parseISO8601(currentDate) else {
                    throw ValidationError("--current-date \(currentDate) is not an ISO 8601 time such as 2026-11-24T12:00:00Z")
                }
                now = date
            }
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let written = try ProofExport.write(dump: folder, trust: try trustOptions.sources.load(), to: URL(fileURLWithPath: export),
                                                minimumAge: minAge, now: now)
            if json {
                printJSON(ProveReport(folder: export, circuits: written.map {
                    .init(name: $0.circuit, proverToml: $0.file.path, parameters: $0.parameters, values: $0.values)
                }))
            } else {
                for file in written { print("\(file.circuit): \(file.file.path) (\(file.parameters) parameters, \(file.values) values)") }
                printError("Nothing was proved or executed here; \(export)/README.md says how to check these with nargo.")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// `docs/schemas/prove.schema.json`.
struct ProveReport: Encodable {
    struct Circuit: Encodable {
        let name: String
        let proverToml: String
        let parameters: Int
        let values: Int
        enum CodingKeys: String, CodingKey { case name, parameters, values, proverToml = "prover_toml" }
    }
    let ok = true
    let folder: String
    let circuits: [Circuit]
}
