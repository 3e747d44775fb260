import ArgumentParser
import CardIO
import FoundationEssentials
import Glibc
import TextSupport
import LDS
import LocalFiles
import MRZ
import PassiveAuth
import PassportCLI
import PassportKit
import Synchronization

/// Ctrl-C at a desk: the first stops the loop (the document being read is dropped), the second
/// leaves at once. Counted here because a signal handler may touch nothing but atomics.
let interruptions = Atomic<Int>(0)
let stoppingMessage = Array("\nStopping: the document being read, if any, is not saved. Ctrl-C again to quit at once.\n".utf8)

func installInterruptHandler() {
    signal(SIGINT) { _ in
        if interruptions.add(1, ordering: .relaxed).newValue >= 2 { _exit(130) }
        stoppingMessage.withUnsafeBufferPointer { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// One line of `scan --watch --json` (JSON Lines; docs/schemas/scan-watch-line.schema.json).
struct WatchLine: Encodable {
    let ok: Bool
    let reader: String
    let sequence: Int
    @NullEncoded var scan: ScanReport?
    @NullEncoded var error: ErrorReport.Detail?
}

extension ScanCommand {
    func validateWatch(fields: [String]) throws {
        let prompts = [mrzPrompt, canPrompt].filter { $0 }.count
        guard watch else {
            if readers.count > 1 { throw ValidationError("Several --reader options are for --watch; a single scan reads one reader.") }
            if accessKeys != nil || prompts > 0 { throw ValidationError("--access-keys, --mrz-prompt and --can-prompt are for --watch.") }
            return
        }
        if nfc { throw ValidationError("--watch reads through PC/SC readers; --nfc is for single scans.") }
        let fixed = mrz != nil || mrzImage != nil || !fields.isEmpty || can != nil
        let sources = [camera != nil, accessKeys != nil, fixed].filter { $0 }.count + prompts
        if sources != 1 {
            throw ValidationError("With --watch give one source of access keys: --camera SOURCE, --mrz-prompt, --can-prompt, --access-keys FILE, or the same --mrz/--can for every document.")
        }
        if readers.count > 1 && (camera != nil || prompts > 0) {
            throw ValidationError("--camera and the prompts serve one reader; with several readers give --access-keys FILE or one --mrz/--can.")
        }
    }

    func runWatch() throws {
        let output = WatchOutput(json: json, readers: readers.count)
        do {
            let folder = URL(fileURLWithPath: out ?? ".")
            try PrivateFiles.createFolder(folder)
            let trust = trustOptions.sources.isConfigured ? try trustOptions.sources.load() : nil
            let names = try resolveReaders()
            var settings = DeskWatch.Settings()
            settings.allowExtendedLength = !noExtendedLength
            settings.resumeWait = resumeWait
            settings.terminalCredentials = try terminalCredentials()
            installInterruptHandler()
            let watch = DeskWatch(readers: names, keys: try deskKeys(), settings: settings) { interruptions.load(ordering: .relaxed) > 0 }
            let counter = Mutex((read: 0, failed: 0))
            nonisolated(unsafe) let command = self  // read-only options, used from the readers' threads
            try watch.run(
                events: { reader, event in output.progress(reader, event) },
                waitingForRemoval: { reader in output.removeDocument(reader) },
                handle: { document in
                    let good = command.record(document, names: names, folder: folder, trust: trust, output: output)
                    counter.withLock { good ? ($0.read += 1) : ($0.failed += 1) }
                })
            let counts = counter.withLock { $0 }
            printError("\(counts.read + counts.failed) document(s): \(counts.read) read and saved, \(counts.failed) failed.")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }

    /// The readers to serve: each --reader matched against pcscd's list, or the first reader.
    func resolveReaders() throws -> [String] {
        let context = try PCSCContext()
        if readers.isEmpty { return [try context.resolveReader(nil)] }
        let names = try readers.map { try context.resolveReader($0) }
        guard Set(names).count == names.count else { throw ValidationError("Two --reader options name the same reader (\(names.joined(separator: ", "))).") }
        return names
    }

    func deskKeys() throws -> DeskAccessKeys {
        if let accessKeys {
            let text: String
            do { text = try String(contentsOfFile: accessKeys, encoding: .utf8) } catch {
                throw OutputFileError(path: accessKeys, reason: PrivateFiles.reasonText(error))
            }
            return .list(try DeskKeysFile.parse(text))
        }
        if mrzPrompt { return .perDocument { try TerminalKeys.askMRZ() } }
        if canPrompt { return .perDocument { try TerminalKeys.askCAN() } }
        if let camera {
            let tessdata = self.tessdata, budget = timeBudget
            return .perDocument {
                while interruptions.load(ordering: .relaxed) == 0 {
                    do {
                        let (reading, _) = try scanMRZCamera(camera, tessdata: tessdata, timeBudget: budget)
                        printError("Read the MRZ from \(camera); place the document on the reader.")
                        return AccessCredentials(mrz: reading.result.mrz.accessKey)
                    } catch let error as ReportableError where error.exitStatus == ExitStatus.environment {
                        throw error  // no camera, no libraries: asking again will not help
                    } catch {
                        printError("No MRZ read from \(camera) yet (\(userMessage(error))); trying again.")
                    }
                }
                return nil
            }
        }
        return .same(AccessCredentials(mrz: try accessKey(), can: can))
    }

    /// Verifies, saves and reports one document; true when it was read and saved.
    func record(_ document: DeskDocument, names: [String], folder: URL, trust: TrustStore?, output: WatchOutput) -> Bool {
        let readerNumber = (names.firstIndex(of: document.reader) ?? 0) + 1
        switch document.outcome {
        case .failed(let error):
            output.failed(document, error)
            return false
        case .read(let scanned):
            do {
                let verification = trust.map { PassiveAuthentication.verify(files: scanned.files, trust: $0) }
                let contents = ChipAuthenticity.assess(scanned, trust: trust, verification: verification)
                let destination = folder.appendingPathComponent(defaultDumpName(reader: readerNumber, sequence: document.sequence))
                try DumpWriter.write(contents, to: destination)
                let report = ScanReport(contents: contents, dump: destination, details: DocumentDetails(files: contents.files),
                                        verification: verification, requirePACE: requirePace)
                output.read(document, report) {
                    try? self.report(contents, dump: destination, verification: verification, trust: trust)
                }
                return true
            } catch {
                output.failed(document, error)
                return false
            }
        }
    }

}

/// What `--watch` prints, one document at a time even with several readers at once.
final class WatchOutput: @unchecked Sendable {
    let json: Bool
    let prefixReaders: Bool
    private let lock = Mutex(())
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(json: Bool, readers: Int) {
        self.json = json
        prefixReaders = readers > 1
    }

    /// At a desk only what needs the person: waiting, and what goes wrong in a read (the single
    /// scan's own words); not each file.
    func progress(_ reader: String, _ event: ScanEvent) {
        switch event {
        case .waitingForCard: say(reader, "Waiting for a document on \(reader)…")
        case .interrupted, .resumed, .recovering, .paceFailed, .extendedLengthRefused, .retryingChipAuthentication, .sessionReopened, .noAccessControl, .terminalAuthenticationFailed:
            if let text = event.progressText { say(reader, text) }
        default: return
        }
    }

    func removeDocument(_ reader: String) {
        say(reader, "Done: remove the document." + (isTerminal ? "\u{7}" : ""))
    }

    func read(_ document: DeskDocument, _ report: ScanReport, text: () -> Void) {
        lock.withLock { _ in
            if json {
                emit(WatchLine(ok: report.ok, reader: document.reader, sequence: document.sequence, scan: report, error: nil))
            } else {
                print("Document \(document.sequence) on \(document.reader): \(report.ok ? "read" : "read, NOT VALID")")
                text()
                print("")
            }
        }
    }

    func failed(_ document: DeskDocument, _ error: any Error) {
        let (_, code) = classify(error)
        let message = userMessage(error)
        lock.withLock { _ in
            if json {
                emit(WatchLine(ok: false, reader: document.reader, sequence: document.sequence, scan: nil,
                               error: ErrorReport(code: code, message: message).error))
            } else {
                print("Document \(document.sequence) on \(document.reader): FAILED (\(code)): \(message)\n")
            }
        }
    }

    private func emit(_ line: WatchLine) {
        guard let data = try? ReportEncoding.line(line) else { return }
        StandardStreams.writeOutput(data + Data("\n".utf8))
    }

    private func say(_ reader: String, _ text: String) {
        lock.withLock { _ in printError(prefixReaders ? "[\(reader)] \(text)" : text) }
    }
}

/// Each document's key asked on the terminal (`--mrz-prompt`, `--can-prompt`); the end of the
/// input ends the watch.
enum TerminalKeys {
    static func askMRZ() throws -> AccessCredentials? {
        printError("MRZ of the next document (its lines, or: NUMBER BIRTH EXPIRY):")
        guard let first = readLine()?.trimmed() else { return nil }
        let words = first.split(separator: " ")
        if words.count == 3 {
            let key = MRZAccessKey(documentNumber: String(words[0]), birthDate: String(words[1]), expiryDate: String(words[2]))
            try key.validate()
            return AccessCredentials(mrz: key)
        }
        // TD3 (passports) has two lines of 44, TD2 two of 36, TD1 (ID cards) three of 30.
        var lines = [first]
        let count = first.count == 30 ? 3 : 2
        while lines.count < count, let next = readLine() { lines.append(next.trimmed()) }
        return AccessCredentials(mrz: try MRZ(text: lines.joined(separator: "\n")).accessKey)
    }

    static func askCAN() throws -> AccessCredentials? {
        printError("CAN of the next document (6 digits):")
        guard let can = readLine()?.trimmed() else { return nil }
        guard can.count == 6, can.allSatisfy(\.isNumber) else { throw MRZError.invalidField("The CAN is the 6-digit card access number printed on the document.") }
        return AccessCredentials(can: can)
    }
}
