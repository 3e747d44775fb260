import LocalFiles
import ArgumentParser
import PassportCLI
import CardIO
import ChipProtocols
import PassiveAuth
import FoundationEssentials
import Glibc
import TextSupport
import LDS
import MRZ
import PassportKit

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read a passport chip (PACE or BAC) and save a dump folder.",
        discussion: """
        The access key comes from the MRZ: give both MRZ lines with --mrz, the three fields, or a
        photo of the data page with --mrz-image (read with Tesseract, as `passport ocr` does).
        Example: passport scan --document-number C01X00T47 --birth 880412 --expiry 340930
        """)

    @Option(name: .customLong("reader"), help: "Reader name, or part of it (default: the first reader). With --watch, repeat it to serve several readers at once.")
    var readers: [String] = []
    @Flag(help: "Keep reading document after document at a desk until Ctrl-C (PC/SC readers; docs/reading.md).") var watch = false
    @Option(help: ArgumentHelp("With --watch: a file of access keys, one document per line (`NUMBER BIRTH EXPIRY` or `can NNNNNN`).", valueName: "file"))
    var accessKeys: String?
    @Flag(help: "With --watch: ask for each document's MRZ (its lines, or number, birth and expiry) on the terminal.") var mrzPrompt = false
    @Flag(help: "With --watch: ask for each document's CAN on the terminal.") var canPrompt = false
    @Flag(help: "Read through libnfc (PN53x boards, ACR122U) instead of PC/SC; give a connstring after it to choose the device.") var nfc = false
    @Argument(help: "With --nfc: the libnfc connstring, e.g. pn532_uart:/dev/ttyUSB0 (default: the first device).") var connstring: String?
    @Option(help: "The MRZ lines, separated by a newline or a literal \\n.") var mrz: String?
    @Option(help: "A photo of the data page; the access key is read from its MRZ.") var mrzImage: String?
    @Option(help: ArgumentHelp("A camera (/dev/video0) or video file; the access key is read from the MRZ two frames agree on.",
                               valueName: "source")) var camera: String?
    @Option(help: "With --mrz-image or --camera: folder holding mrz.traineddata (default: searched).") var tessdata: String?
    @Option(help: "With --mrz-image or --camera: outer safety stop, in seconds, for one image or frame (default 60; the search is bounded by a fixed amount of work, not by time).")
    var timeBudget: Double?
    @Option(help: "Document number as printed in the MRZ.") var documentNumber: String?
    @Option(help: "Birth date YYMMDD.") var birth: String?
    @Option(help: "Expiry date YYMMDD.") var expiry: String?
    @Option(help: "Card access number (PACE with the CAN instead of the MRZ).") var can: String?
    @Option(help: "Folder to save the dump in (must not exist); with --watch, the folder the dumps are saved in (default: the current one).") var out: String?
    @Option(help: "Seconds to wait for a passport on the reader.") var timeout: Double = 15
    @Option(help: "Seconds one exchange with the chip may take before the scan is abandoned.") var apduTimeout: Double = 20
    @Flag(help: "Use short APDUs only, even when reader and chip take extended length.") var noExtendedLength = false
    @Option(help: "Seconds to wait for the passport to come back when it leaves the reader mid-read (0: fail at once).")
    var resumeWait: Double = 30
    @Flag(help: "Fail (exit 1) when the chip offers PACE but the read fell back to BAC.") var requirePace = false
    @OptionGroup(title: "Extended Access Control (DG3 fingerprints, DG4 irises)") var eac: TerminalOptions
    @Flag(name: .shortAndLong, help: "Describe every exchange with the chip on stderr (no data, no keys).") var verbose = false
    @Flag(help: "Print every APDU on stderr. WARNING: reveals keys and personal data.") var traceApdus = false
    @OptionGroup(title: "Verification (runs when trust anchors are configured)") var trustOptions: TrustOptions
    @Option(name: .customLong("dsc"), help: ArgumentHelp("A Document Signer certificate not embedded in the SOD (DER/PEM); repeatable. Not with --watch.", valueName: "file"))
    var dscs: [String] = []
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        if connstring != nil && !nfc { throw ValidationError("A connstring is only taken with --nfc.") }
        if watch && !dscs.isEmpty { throw ValidationError("--dsc is for one scan, not with --watch (import the DSC into the trust store instead).") }
        if let timeBudget, !(timeBudget > 0) { throw ValidationError("--time-budget must be a positive number of seconds.") }
        if !(0...3600).contains(resumeWait) { throw ValidationError("--resume-wait takes 0 to 3600 seconds (0: fail as soon as the passport leaves).") }
        let fields = [documentNumber, birth, expiry].compactMap { $0 }
        try validateWatch(fields: fields)
        if watch && (accessKeys != nil || mrzPrompt || canPrompt) { return }
        if mrz == nil && mrzImage == nil && camera == nil && fields.count != 3 && can == nil {
            throw ValidationError("Give the access key: --mrz \"LINE1\\nLINE2\", --mrz-image PHOTO, or --document-number, --birth and --expiry, or --can.")
        }
        if !fields.isEmpty && fields.count != 3 {
            throw ValidationError("Give all three of --document-number, --birth and --expiry.")
        }
        if [mrz != nil, mrzImage != nil, camera != nil, !fields.isEmpty].filter({ $0 }).count > 1 {
            throw ValidationError("Give the MRZ one way only: --mrz, --mrz-image, --camera or the three fields.")
        }
    }

    /// The inspection system's chain, loaded (and checked) before the chip is touched.
    func terminalCredentials() throws -> TerminalCredentials? {
        let credentials = try eac.load()
        if let credentials {
            let terminal = credentials.terminal, today = CVDate.today()
            if terminal.expires < today {
                printError("warning: \(terminal.holderReference) expired on \(terminal.expires); a chip that has seen a later date refuses it")
            }
            if credentials.keyMatchesTerminalCertificate() == false {
                printError("warning: the terminal private key does not belong to \(terminal.holderReference); the chip will refuse EXTERNAL AUTHENTICATE")
            }
        }
        return credentials
    }

    func accessKey() throws -> MRZAccessKey? {
        if let camera {
            let (reading, _) = try scanMRZCamera(camera, tessdata: tessdata, timeBudget: timeBudget)
            printError("Read the MRZ from \(camera) (\(reading.result.mrz.format.rawValue.uppercased()), check digits valid); waiting for the chip.")
            return reading.result.mrz.accessKey
        }
        if let mrzImage {
            let (result, _) = try scanMRZImage(mrzImage, tessdata: tessdata, timeBudget: timeBudget)
            printError("Read the MRZ from \(mrzImage) (\(result.mrz.format.rawValue.uppercased()), check digits valid).")
            return result.mrz.accessKey
        }
        if let mrz {
            return try MRZ(text: mrz.replacing("\\n", with: "\n")).checkedAccessKey()
        }
        guard let documentNumber, let birth, let expiry else { return nil }
        return MRZAccessKey(documentNumber: documentNumber, birthDate: birth, expiryDate: expiry)
    }

    func run() throws {
        if watch { try runWatch(); return }
        let progress = ProgressPrinter(enabled: true)
        do {
            let credentials = try terminalCredentials()
            let key = try accessKey()
            let destination = URL(fileURLWithPath: out ?? defaultDumpName())
            if FileManager.default.fileExists(atPath: destination.path) { throw DumpError.destinationExists(destination.path) }
            let parent = destination.deletingLastPathComponent()
            if PrivateFiles.isReadableByOthers(parent) {
                printError("warning: other users can list \(parent.path): the dump itself is private (folder 0700, files 0600), "
                           + "but its name shows there. Save dumps in a folder of your own (chmod 700) if the name says whose passport it is.")
            }
            if traceApdus { printError("warning: the APDU trace below contains session keys and personal data. Do not share it.") }
            var request = ScanRequest(reader: readers.first, accessKey: key, can: can, timeout: timeout, allowExtendedLength: !noExtendedLength)
            request.useNFC = nfc
            request.exchangeTimeout = apduTimeout
            request.resumeWait = resumeWait
            request.terminalCredentials = credentials
            let limit = apduTimeout, json = self.json
            request.nfcDevice = connstring
            let scanned = try PassportScanner.scan(
                request,
                trace: traceApdus ? { c, r in printError("> \(hexString(c))\n< \(hexString(r))") } : nil,
                summary: verbose ? { printError($0) } : nil,
                onExchangeTimeout: {
                    // The transmit cannot be interrupted: report and leave (nothing was saved yet).
                    let message = "The chip did not answer within \(formatted(limit)) s. Nothing was saved. Move the passport a little and scan again."
                    printError("error: \(message)")
                    if json { printJSON(ErrorReport(code: "chip_timeout", message: message)) }
                    Glibc.exit(1)
                },
                events: progress.handle)
            progress.finish()
            // Verification first: it decides whether the chip's own authentication counts.
            var verification: PassiveAuthenticationReport?
            var trust: TrustStore?
            if trustOptions.sources.isConfigured {
                let store = try trustOptions.sources.load()
                let documentSigners = try dscs.flatMap { try Certificate.load(file: URL(fileURLWithPath: $0)) }
                verification = PassiveAuthentication.verify(files: scanned.files, trust: store, documentSigners: documentSigners)
                trust = store
            }
            let contents = ChipAuthenticity.assess(scanned, trust: trust, verification: verification)
            // The dump is a faithful recording either way; the checks decide the exit code.
            try DumpWriter.write(contents, to: destination)
            try report(contents, dump: destination, verification: verification, trust: trust)
            try judge(contents, verification: verification)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            progress.finish()
            throw fail(error, json: json)
        }
    }

    /// Exit 1, with the reason on stderr, when the document or the chip did not prove itself.
    func judge(_ contents: ChipContents, verification: PassiveAuthenticationReport?) throws {
        if verification?.passed == false { throw Exit.invalidDocument }
        if ChipAuthenticity.failed(contents) {
            printError("error: the chip failed chip or active authentication: the chip may be a copy. The dump was saved for inspection.")
            throw Exit.invalidDocument
        }
        if requirePace, let fallback = contents.paceFallback {
            printError("error: the chip offers PACE (\(fallback.offered)) but it failed (\(fallback.failure)) and BAC was used; --require-pace refuses that.")
            throw Exit.invalidDocument
        }
    }

    /// "passport-20261126-225930" (UTC), and with --watch "…-r1-0001" for reader 1's first document.
    func defaultDumpName(reader: Int? = nil, sequence: Int = 0) -> String {
        let digits = iso8601(Date()).filter(\.isNumber)   // yyyyMMddHHmmss, UTC
        let name = "passport-\(digits.prefix(8))-\(digits.dropFirst(8))"
        return reader.map { name + "-r\($0)-" + sequence.zeroPadded(4) } ?? name
    }

    func report(_ contents: ChipContents, dump: URL, verification: PassiveAuthenticationReport?, trust: TrustStore?) throws {
        let given = mrz.flatMap { try? MRZ(text: $0.replacing("\\n", with: "\n")) }
        let details = DocumentDetails(files: contents.files, givenMRZ: given)
        let files = contents.files.keys.sorted()
        if json {
            printJSON(ScanReport(contents: contents, dump: dump, details: details, verification: verification, requirePACE: requirePace))
            return
        }
        print("Passport read in \(contents.seconds.fixed(2)) s with \(contents.apdus) APDUs "
              + "(\(contents.accessProtocol), \(contents.extendedLength ? "extended length" : "short APDUs"))")
        for (label, value) in details.lines { print("  \(label.padded(to: 14)) \(value)") }
        print("  Files          " + files.map { "\($0.name) (\(contents.files[$0]?.count ?? 0) B)" }.joined(separator: ", "))
        for (file, reason) in contents.unavailable.sorted(by: { $0.key < $1.key }) {
            print("  Not read       \(file.name): \(reason)")
        }
        if let list = contents.evidence.dataGroupList {
            print("  Data groups    listed by \(list.source), since EF.COM was \(list.comProblem)")
        }
        if contents.accessProtocol == "none" {
            print("  Access         none: the chip offers no access control (no PACE, BAC not supported); its data travelled unprotected")
        }
        for reopened in contents.evidence.reopenedSessions ?? [] {
            print("  Session        opened again: the chip answered \(reopened.after) without secure messaging (\(reopened.statusWord))")
        }
        if let fallback = contents.paceFallback {
            print("  PACE           offered (\(fallback.offered)) but failed: \(fallback.failure); BAC was used")
        }
        for (label, outcome) in [("Chip auth.", contents.chipAuthentication), ("Active auth.", contents.activeAuthentication)] {
            print("  \(label.padded(to: 14)) \(outcome.status.replacing("_", with: " "))" + (outcome.detail.map { ": \($0)" } ?? ""))
        }
        if let terminal = contents.evidence.terminalAuthentication { print("  Terminal auth. \(Self.describe(terminal))") }
        for problem in contents.fileProblems + details.problems { print("  Problem        \(problem)") }
        print("  Dump           \(dump.path)")
        if let verification, let trust {
            print("")
            printReport(verification, trust: trust, recorded: false)
        } else {
            print("  Verified       no: no trust anchors configured (use --masterlist/--csca, or put them in \(TrustStore.defaultFolder.path))")
        }
    }
}

/// Progress on stderr: one updating line on a terminal, one line per file otherwise.
final class ProgressPrinter {
    let enabled: Bool
    let isTerminal = isatty(STDERR_FILENO) == 1
    private var lineOpen = false

    init(enabled: Bool) { self.enabled = enabled }

    func handle(_ event: ScanEvent) {
        guard enabled else { return }
        if case .reading(let file, let read, let total) = event {
            if isTerminal { update("Reading \(file.name): \(read)/\(total) bytes") }
        } else if let text = event.progressText {
            line(text)
        }
    }

    func finish() {
        if lineOpen { StandardStreams.writeError("\n"); lineOpen = false }
    }

    private func update(_ text: String) {
        StandardStreams.writeError("\r\u{1B}[2K\(text)")
        lineOpen = true
    }

    private func line(_ text: String) {
        if isTerminal && lineOpen { StandardStreams.writeError("\r\u{1B}[2K"); lineOpen = false }
        printError(text)
    }
}

func formatted(_ seconds: Double) -> String { ScanEvent.formatted(seconds) }

extension ScanCommand {
    /// "passed (UTISTEST00001, from the chip's CVCA UTCVCA00001)", or where and why it stopped.
    static func describe(_ terminal: ChipEvidence.TerminalAuthentication) -> String {
        switch terminal.status {
        case "passed":
            return "passed (\(terminal.terminal ?? "?"), sent \((terminal.sent ?? []).joined(separator: " → ")))"
        case "failed":
            if let step = terminal.step, let status = terminal.statusWord {
                return "failed: the chip answered \(step) with \(status): \(terminal.detail ?? "")"
            }
            return "failed: \(terminal.detail ?? "")"
        default:
            return "not attempted: \(terminal.detail ?? "")"
        }
    }
}

/// Where the inspection system's CV certificates and key come from: a folder, or the files.
struct TerminalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A folder with the inspection system's CV certificates (CVCA link certificates, DV, terminal; .cvcert) and its private key (.pkcs8 or .pem): terminal authentication then opens DG3 and DG4.", valueName: "dir"))
    var eac: String?
    @Option(help: ArgumentHelp("The terminal (inspection system) CV certificate.", valueName: "file")) var terminalCert: String?
    @Option(help: ArgumentHelp("The document verifier CV certificate that signed it.", valueName: "file")) var dvCert: String?
    @Option(help: ArgumentHelp("A CVCA link certificate leading from the chip's CVCA to the DV's (repeatable).", valueName: "file"))
    var linkCert: [String] = []
    @Option(help: ArgumentHelp("The terminal's private key (PKCS#8 DER or PEM).", valueName: "file")) var terminalKey: String?

    func validate() throws {
        let files = terminalCert != nil || dvCert != nil || terminalKey != nil || !linkCert.isEmpty
        if eac != nil && files {
            throw ValidationError("Give the terminal's chain one way: --eac DIR, or --terminal-cert, --dv-cert and --terminal-key.")
        }
        if files && (terminalCert == nil || dvCert == nil || terminalKey == nil) {
            throw ValidationError("Give all three of --terminal-cert, --dv-cert and --terminal-key (and --link-cert when the chip's CVCA is older than the DV's).")
        }
    }

    func load() throws -> TerminalCredentials? {
        if let eac { return try TerminalCredentials.load(directory: eac) }
        guard let terminalCert, let dvCert, let terminalKey else { return nil }
        return try TerminalCredentials.load(certificates: linkCert + [dvCert, terminalCert], key: terminalKey)
    }
}
