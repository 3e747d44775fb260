import ArgumentParser
import FoundationEssentials
import LDS
import PassportCLI
import PassportKit

/// `passport convert IN OUT`: any dump the toolkit reads (a folder in another naming style, an
/// EF.SOD file, an NFCPassportReader JSON export) written as a plain dump folder with a manifest.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert", abstract: "Write a dump (any naming style, EF.SOD file, NFCPassportReader JSON) as a dump folder.")

    @Argument(help: "The dump to read.") var input: String
    @Argument(help: "The folder to create (must not exist).") var output: String

    func run() throws {
        do {
            let dump = try DumpSource.read(URL(fileURLWithPath: input))
            var entries: [String: DumpManifest.FileEntry] = [:]
            for (file, bytes) in dump.files {
                entries[file.fileName] = .init(size: bytes.count, sha256: DumpManifest.FileEntry.sha256(of: bytes), apdus: 0, seconds: 0)
            }
            if let evidence = dump.evidence {
                entries[ChipEvidence.fileName] = .init(size: evidence.count, sha256: DumpManifest.FileEntry.sha256(of: evidence), apdus: 0, seconds: 0)
            }
            // The manifest records what was converted, not a scan: no reader, no APDUs.
            let manifest = dump.manifest ?? DumpManifest(
                tool: "passport convert", toolVersion: PassportKitVersion.version, createdAt: isoTime(Date()),
                reader: "converted from \(URL(fileURLWithPath: input).lastPathComponent)", accessProtocol: "none",
                extendedLength: false, apdus: 0, seconds: 0, files: entries)
            try DumpFolder.write(files: dump.files, manifest: manifest, evidence: dump.evidence, to: URL(fileURLWithPath: output))
            printError("wrote \(output): \(dump.files.keys.sorted().map(\.name).joined(separator: ", "))")
        } catch {
            throw fail(error, json: false)
        }
    }
}
