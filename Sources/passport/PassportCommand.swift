import ArgumentParser
import PassportCLI
import FoundationEssentials
import Glibc
import LocalFiles
import PassportKit
import Proving

@main
struct PassportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passport",
        abstract: "Read and verify electronic passports (ICAO 9303) from a PC/SC reader.",
        version: PassportKitVersion.description,
        subcommands: [ReadersCommand.self, ScanCommand.self, VerifyCommand.self, IssueCommand.self, PresentCommand.self,
                      VerifyPresentationCommand.self, KeysCommand.self, ShowCommand.self, PhotoCommand.self, OCRCommand.self,
                      TrustCommand.self, ConvertCommand.self, ProveCommand.self, DoctorCommand.self, DeskCommand.self])

    /// Like ArgumentParser's own entry point, but usage errors exit with 2 (ARCHITECTURE.md)
    /// instead of its default 64.
    static func main() {
        // The prover's child (ProverRunner): this same binary in a separate process, before any
        // other work, so that its memory limit applies first.
        if ProverChild.isRequested() { ProverChild.run() }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                StandardStreams.writeError(fullMessage(for: error) + "\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}
