import ArgumentParser
import Desk
import FoundationEssentials
import Glibc
import PassportCLI
import PassportKit

struct DeskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desk",
        abstract: "The inspection desk in a browser: each document's face, data and verdicts, read from the chip or a recorded dump.",
        discussion: """
        Starts a web server on the loopback interface (127.0.0.1 and ::1) and opens its page in the \
        default browser (xdg-open); --no-browser prints the address instead. The address holds a \
        one-time access token: open it once, in the browser that will show the desk. Everything read \
        stays in the server's memory until "Clear", a new document, or --idle-clear seconds without \
        use; "Save dump" writes the folder `passport scan --out` writes, into --save-to. \
        From another machine, forward the port over SSH (docs/desk.md). Ctrl-C stops it.

        With --holder (on the holder's own machine) a document read and verified here can be \
        presented: its derived claims (age_over_18, is_human, nationality when ticked) shown to a \
        verifier as a QR code, or sent in answer to a verifier's openid4vp:// QR code read with the \
        webcam or from a photo, after the page shows who asks for what. Presentations are \
        self-issued (level L1), each verifier under its own pairwise key of your key store.
        """)

    @Option(help: "The port to listen on (0: a free one).") var port: Int = 0
    @Option(name: .customLong("listen"), help: "Listen on this loopback address only: 127.0.0.1 or ::1 (default: both). No other address is taken.")
    var listen: String?
    @Flag(help: "Print the address instead of opening a browser.") var noBrowser = false
    @Option(help: "How many documents keep-reading mode lists.") var keep: Int = 10
    @Option(help: "Seconds without use after which everything read is cleared.") var idleClear: Double = 300
    @Option(help: ArgumentHelp("The folder \"Save dump\" writes into (default: the current folder).", valueName: "dir")) var saveTo: String = "."
    @Option(help: "Folder holding mrz.traineddata for the camera and photos (default: searched).") var tessdata: String?
    @Flag(help: "Use short APDUs only, even when reader and chip take extended length.") var noExtendedLength = false
    @Option(help: "Seconds to wait for a passport to come back when it leaves the reader mid-read (0: fail at once).")
    var resumeWait: Double = 30
    @OptionGroup(title: "Extended Access Control (DG3 fingerprints, DG4 irises)") var eac: TerminalOptions
    @OptionGroup(title: "Verification (runs when trust anchors are configured)") var trustOptions: TrustOptions
    @Flag(help: "The holder's own desk: offer to present a verified document's claims (QR code, or an answer to a verifier's QR code), signed with your key store.")
    var holder = false
    @Option(name: .customLong("verifier-ca"), help: "With --holder: a PEM file of CA certificates trusted for verifiers' TLS and request objects (repeatable).")
    var verifierCA: [String] = []
    @Flag(help: "With --holder: allow http:// request and response URIs on loopback (tests only).") var insecureLoopback = false
    @Option(help: "With --holder: seconds each exchange with a verifier may take.") var httpTimeout: Double = 30
    @Flag(help: "Print the address as one JSON object on stdout.") var json = false

    func validate() throws {
        if let listen, !["127.0.0.1", "::1", "localhost"].contains(listen) {
            throw ValidationError(DeskServerError.notLoopback(listen).description)
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535.") }
        guard (1...1000).contains(keep) else { throw ValidationError("--keep takes 1 to 1000 documents.") }
        guard idleClear >= 10 else { throw ValidationError("--idle-clear takes 10 seconds or more.") }
        if !(0...3600).contains(resumeWait) { throw ValidationError("--resume-wait takes 0 to 3600 seconds.") }
        if !holder && (!verifierCA.isEmpty || insecureLoopback) {
            throw ValidationError("--verifier-ca and --insecure-loopback go with --holder.")
        }
    }

    /// What `--json` prints once the server listens.
    struct Started: Encodable {
        var ok = true
        let address: String
        let port: Int
        let listening: [String]
    }

    func run() throws {
        // Ctrl-C and SIGTERM are awaited by this thread (sigwait); every thread started after
        // this inherits the blocked mask, so none of them is interrupted by them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let server: DeskServer
        let readers: DeskReaders
        do {
            var settings = DeskReaders.Settings()
            settings.allowExtendedLength = !noExtendedLength
            settings.resumeWait = resumeWait
            settings.terminalCredentials = try eac.load()
            settings.trust = trustOptions.sources.isConfigured ? try trustOptions.sources.load() : nil
            let state = DeskState(keep: keep, idleSeconds: idleClear)
            let app = DeskApp(state: state, ocr: DeskOCR(tessdata: tessdata), trust: settings.trust,
                              saveFolder: URL(fileURLWithPath: saveTo), holder: try holderSide())
            let hosts = listen.map { $0 == "localhost" ? DeskServer.loopback : [$0] } ?? DeskServer.loopback
            server = try DeskServer.start(app: app, hosts: hosts, port: port)
            readers = DeskReaders(state: state, settings: settings)
            readers.start()
        } catch {
            throw fail(error, json: json)
        }
        if json {
            printJSON(Started(address: server.address, port: server.port, listening: server.addresses))
        } else {
            print("The desk is at \(server.address)")
            print("(open it once: the address holds a one-time token; Ctrl-C stops the desk)")
        }
        fflush(nil)  // the address is read by whoever started the desk, before any later output
        if !noBrowser { openBrowser(server.address) }
        var received: Int32 = 0
        sigwait(&signals, &received)
        printError("Stopping the desk; nothing it read was kept.")
        readers.stop()
        server.stop()
    }

    /// The holder's side, with the user's key store (nil without --holder).
    func holderSide() throws -> DeskHolder? {
        guard holder else { return nil }
        var settings = DeskHolder.Settings(store: try userKeyStore())
        settings.verifierCA = verifierCA
        settings.insecureLoopback = insecureLoopback
        settings.httpTimeout = httpTimeout
        return try DeskHolder(settings: settings)
    }

    /// xdg-open, not waited for; its absence is said, the address is printed anyway.
    func openBrowser(_ address: String) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ["xdg-open", address].map { $0.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        if posix_spawnp(&pid, "xdg-open", nil, &attributes, argv, environ) != 0 {
            printError("Could not start xdg-open (Debian package xdg-utils): open the address above in a browser.")
        }
    }
}
