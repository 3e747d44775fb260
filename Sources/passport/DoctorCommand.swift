import ArgumentParser
import Diagnostics
import FoundationEssentials
import TextSupport
import PassportCLI

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Find what stops a reader (or OCR, verification, the key store) from working here, with the fix for each.",
        discussion: """
        Checks, in order: pcsc-lite (installed, running or socket-activated, reachable by you),
        the readers of PC/SC and libnfc and the card on each (an eMRTD or another card), known USB
        readers that are present but unusable (device permissions, the kernel's pn533 driver,
        pcscd or libnfc holding them), the trust store, the key store, OCR, cameras, and the
        versions of pcsc-lite, libnfc, OpenSSL and Tesseract. One line per check: ok, warn or
        fail, what was seen, and the fix. Nothing is changed: every fix is printed, not applied.
        Exit 0 when no check fails, 1 when one does.
        """)

    @Flag(help: "You mean to read through libnfc (scan --nfc): pcscd holding such a reader is then a failure.") var nfc = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        let (store, keyringProblem) = userKeyStoreOrFiles()
        let fix = keyringProblem.map { "\($0); then passport keys migrate" }
            ?? (store.vault != nil ? "passport keys migrate (moves the device key into the system keyring)"
                : "run `passport keys migrate` in a desktop session with GNOME Keyring or KWallet (a Secret Service on D-Bus), or set PASSPORT_KEYSTORE_PASSPHRASE before keys are made")
        let report = Doctor.run(.current(wantsNFC: nfc), keyStore: store, weakKeyFix: fix)
        if json {
            printJSON(report)
        } else {
            for check in report.checks {
                let label = check.status.rawValue.padded(to: 6)
                let area = check.area.padded(to: 9)
                print("\(label)\(area)\(check.name): \(check.seen)")
                if let fix = check.fix { print("               fix: \(fix)") }
            }
            let counts = Dictionary(grouping: report.checks, by: \.status).mapValues(\.count)
            printError("\(counts[.ok] ?? 0) ok, \(counts[.warn] ?? 0) warning(s), \(counts[.fail] ?? 0) failure(s)")
        }
        if !report.ok { throw Exit.invalidDocument }
    }
}
