import ArgumentParser
import Foundation
import PassportKit

/// Benchmarks print figures; they are not tests and not part of the user's `passport` command.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passport-bench",
        abstract: "Benchmarks of the passport toolkit: figures next to a peer or the raw OpenSSL cost.",
        version: PassportKitVersion.description,
        subcommands: [VerifyBenchmark.self, CredentialsBenchmark.self, OCRBenchmark.self, OCRCellsCommand.self])
}
