import ArgumentParser
import PassportCLI
import Credentials
import FoundationEssentials
import PassportKit
import TokenKeys

/// The backup passphrase: PASSPORT_EXPORT_PASSPHRASE (scripts), else typed on the terminal
/// (twice when `confirmTwice`, for a new export).
func backupPassphrase(confirmTwice: Bool) throws -> String {
    if let passphrase = ProcessInfo.processInfo.environment["PASSPORT_EXPORT_PASSPHRASE"] { return passphrase }
    guard let first = TerminalSecret.read(prompt: "Backup passphrase: ") else {
        throw CredentialError.keyStore("no terminal to ask the backup passphrase on; set PASSPORT_EXPORT_PASSPHRASE.")
    }
    if confirmTwice {
        guard TerminalSecret.read(prompt: "Again: ") == first else { throw CredentialError.keyStore("the two passphrases differ; nothing was written.") }
    }
    return first
}

struct KeysExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a backup of your private keys, encrypted with a passphrase (scrypt, AES-256-GCM).",
        discussion: """
        Shows which keys would leave the key store and asks first (--yes in scripts; a closed stdin \
        exports nothing). The passphrase is typed on the terminal twice, or PASSPORT_EXPORT_PASSPHRASE. \
        A holder key on a token stays there and is not exported. `passport keys import FILE` restores.
        """)

    @Option(help: "The backup file to write (mode 0600; an existing file is not overwritten).") var out: String
    @Flag(help: "Export without asking (scripts).") var yes = false

    func run() throws {
        do {
            let store = try userKeyStore()
            guard !FileManager.default.fileExists(atPath: out) else { throw OutputFileError(path: out, reason: "it exists; choose a new file") }
            let (holder, pairwise) = store.exportSummary()
            let token = try HolderToken.recorded(in: store.folder)
            try confirm(["These private keys will be written to \(out), encrypted with a passphrase you choose:",
                         "  holder key: \(holder ?? "none in the key store")\(token.map { " (the holder key on token \"\($0.tokenLabel)\" stays there)" } ?? "")",
                         "  \(pairwise) pairwise key(s), one per verifier you have presented to",
                         "Anyone with the file and the passphrase can sign as you."],
                        question: "Export", action: "exported", yes: yes)
            let bytes = try store.exportKeys(passphrase: try backupPassphrase(confirmTwice: true))
            try writePrivateFile(Data(bytes), to: out)
            print("Exported \(pairwise + (holder == nil ? 0 : 1)) key(s) to \(out)")
        } catch {
            throw fail(error, json: false)
        }
    }
}

struct KeysImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore keys from a `passport keys export` backup into this key store.",
        discussion: "All or nothing: every key is decrypted first; a place already holding a different key is refused.")

    @Argument(help: "The backup file.") var file: String
    @Flag(help: "Import without asking (scripts).") var yes = false

    func run() throws {
        do {
            guard let data = FileManager.default.contents(atPath: file) else { throw CredentialError.keyStore("cannot read \(file).") }
            let store = try userKeyStore()
            try confirm(["The keys in \(file) will be added to \(store.folder.path)."], question: "Import", action: "imported", yes: yes)
            let dids = try store.importKeys([UInt8](data), passphrase: try backupPassphrase(confirmTwice: false))
            print("Imported \(dids.count) key(s)")
        } catch {
            throw fail(error, json: false)
        }
    }
}
