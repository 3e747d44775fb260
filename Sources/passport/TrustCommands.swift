import ArgumentParser
import LocalFiles
import FoundationEssentials
import TextSupport
import PassiveAuth
import PassportCLI
import PassportKit

/// `passport trust`: the user's trust store (TrustStore.defaultFolder), filled from ICAO PKD
/// LDIF downloads, master lists, certificates and CRLs.
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Manage the trust store that verify, scan and issue use: import, list, remove, export.",
        discussion: """
        The store lives in \(TrustStore.defaultFolder.path) ($XDG_CONFIG_HOME/passport/trust).
        A master list is accepted only when its CMS signature verifies and its signer is issued by
        a --signer-root, a CSCA already in the store or a CSCA of the list itself; otherwise the
        whole import is refused and nothing is added.
        """,
        subcommands: [TrustImportCommand.self, TrustListCommand.self, TrustRemoveCommand.self, TrustExportCommand.self])
}

struct TrustImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add ICAO PKD LDIF files (full or delta), master lists (.ml), certificates and CRLs (DER or PEM).",
        discussion: """
        All or nothing: every file is read and checked first, and the store is replaced in one step
        only when all of them pass. Certificates given as files are CSCAs when they are CA
        certificates and Document Signer certificates otherwise; userCertificate values of an LDIF
        download are Document Signer certificates (never trust anchors). Duplicates are merged.
        """)

    @Argument(help: "Files to import.") var files: [String]
    @Option(name: .customLong("signer-root"), help: "A certificate master list signers may chain to; repeatable.") var signerRoots: [String] = []
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let roots = try signerRoots.flatMap { try Certificate.load(file: URL(fileURLWithPath: $0)) }
            let editor = try TrustStoreEditor(store: TrustStore.defaultFolder, signerRoots: roots)
            for file in files {
                printError("importing \(file) …")
                try editor.importFile(URL(fileURLWithPath: file))
            }
            try editor.commit()
            if json { printJSON(TrustChangeReport(store: editor.url, changes: editor.changes)); return }
            for change in editor.changes { print(describe(change)) }
            print("Trust store: \(editor.url.path)")
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// One line per file: what it added, merged or removed.
func describe(_ change: TrustChange) -> String {
    var parts: [String] = []
    if change.masterLists > 0 { parts.append("\(change.masterLists) master list(s) (signature verified)") }
    if change.cscas > 0 { parts.append("\(change.cscas) CSCA(s)") }
    if change.dscs > 0 { parts.append("\(change.dscs) DSC(s)") }
    if change.crls > 0 { parts.append("\(change.crls) CRL(s)") }
    if change.merged > 0 { parts.append("\(change.merged) already present (merged)") }
    if change.removed > 0 { parts.append("\(change.removed) removed") }
    return "\(change.file): \(parts.isEmpty ? "nothing" : parts.joined(separator: ", "))"
}

struct TrustListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Per country: CSCAs (valid, expiring within 90 days, expired), DSCs, CRLs, sources.")

    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let report = TrustListReport(store: TrustStore.defaultFolder, directory: try TrustDirectory.open(TrustStore.defaultFolder))
            if json { printJSON(report); return }
            render(report)
        } catch {
            throw fail(error, json: json)
        }
    }

    func render(_ report: TrustListReport) {
        print("Trust store \(report.store)")
        if report.countries.isEmpty { print("  (empty: add trust anchors with `passport trust import FILE`)"); return }
        print("country  CSCAs  valid  expiring<90d  expired  DSCs  CRLs  sources")
        for country in report.countries {
            let c = country.cscas
            let figures = [(c.total, 5), (c.valid, 5), (c.expiringSoon, 12), (c.expired, 7), (country.dscs, 4), (country.crls.count, 4)]
            print(([country.country.padded(to: 7)] + figures.map { String($0.0).leftPadded(to: $0.1) }
                   + [country.sources.joined(separator: ", ")]).joined(separator: "  "))
            for crl in country.crls {
                print("         CRL \(crl.issuer), next update \(crl.nextUpdate ?? "none")")
            }
        }
        for list in report.masterLists {
            print("Master list \(list.source) (\(list.country), \(list.cscas) CSCAs): signed by \(list.signer); anchored in \(list.anchor)")
        }
    }
}

struct TrustRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove trust material by country, source file or SHA-256, or everything.")

    @Option(help: "A country code (C= of the certificates).") var country: [String] = []
    @Option(help: "A source file name as `trust list` shows it.") var source: [String] = []
    @Option(name: .customLong("sha256"), help: "The SHA-256 (hex) of a certificate, CRL or master list.") var fingerprints: [String] = []
    @Flag(help: "Empty the store.") var all = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if !all && country.isEmpty && source.isEmpty && fingerprints.isEmpty {
            throw ValidationError("Say what to remove: --country, --source, --sha256 or --all.")
        }
    }

    func run() throws {
        do {
            let editor = try TrustStoreEditor(store: TrustStore.defaultFolder)
            var removed = 0
            if all { removed += editor.remove(.all) }
            for code in country { removed += editor.remove(.country(code)) }
            for name in source { removed += editor.remove(.source(name)) }
            for sha in fingerprints { removed += editor.remove(.fingerprint(sha)) }
            guard removed > 0 else { throw TrustStoreError.nothingMatched("the selection") }
            try editor.commit()
            if json { printJSON(TrustChangeReport(store: editor.url, changes: editor.changes)); return }
            for change in editor.changes { print(describe(change)) }
        } catch {
            throw fail(error, json: json)
        }
    }
}

struct TrustExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the store as an LDIF file (ICAO PKD layout) that `trust import` reads back.")

    @Argument(help: "The LDIF file to write.") var output: String

    func run() throws {
        do {
            guard let directory = try TrustDirectory.open(TrustStore.defaultFolder) else {
                throw TrustStoreError.nothingMatched("anything: the store \(TrustStore.defaultFolder.path) is empty")
            }
            let bytes = try directory.exportLDIF()
            do { try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw OutputFileError(path: output, reason: PrivateFiles.reasonText(error))
            }
            printError("wrote \(output) (\(bytes.count) bytes)")
        } catch {
            throw fail(error, json: false)
        }
    }
}
