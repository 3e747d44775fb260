import Credentials
import FoundationEssentials

/// `passport doctor`: what stops a reader (or the rest of the toolkit) from working here, in the
/// order a person would look, each with the exact fix. It changes nothing.
public enum Doctor {
    /// The known USB readers' checks alone (`passport readers` shows the ones not ok).
    public static func usbReaders(_ environment: DoctorEnvironment, pcscReaders: [String]) -> [DoctorCheck] {
        USBReaderChecks.checks(environment, pcscReaders: pcscReaders)
    }

    /// What is wrong with pcscd and the readers, each with its fix, as `passport doctor` says it
    /// (the desk shows it while no reader can be used); empty when a PC/SC reader is there.
    public static func readerProblems(_ environment: DoctorEnvironment) -> [DoctorCheck] {
        let (pcsc, readers) = SmartCardChecks.pcscd(environment)
        var checks = pcsc
        if (readers ?? []).isEmpty {
            checks.append(DoctorCheck("readers", "readers", .fail, "no PC/SC reader",
                                      fix: "plug in the reader; if it is plugged in, the USB checks say why it is not seen"))
        }
        checks += USBReaderChecks.checks(environment, pcscReaders: readers ?? [])
        return checks.filter { $0.status != .ok }
    }

    public static func run(_ environment: DoctorEnvironment, keyStore: KeyStore, weakKeyFix: String) -> DoctorReport {
        var checks: [DoctorCheck] = []
        let (pcsc, readers) = SmartCardChecks.pcscd(environment)
        checks += pcsc
        let (nfc, nfcDevices) = SmartCardChecks.libnfcDevices(environment)
        checks += SmartCardChecks.pcscReaders(readers ?? []) + nfc
        if (readers ?? []).isEmpty && nfcDevices == 0 {
            checks.append(DoctorCheck("readers", "readers", .fail, "no PC/SC reader and no libnfc device",
                                      fix: "plug in the reader; if it is plugged in, the USB checks below say why it is not seen"))
        }
        checks += USBReaderChecks.checks(environment, pcscReaders: readers ?? [])
        checks += TrustChecks.checks()
        checks += KeyStoreChecks.checks(keyStore, weakKeyFix: weakKeyFix)
        checks += ToolChecks.ocr()
        checks += ToolChecks.cameras(environment)
        checks += ToolChecks.versions()
        return DoctorReport(checks: checks)
    }
}
