import CardIO
import FoundationEssentials
import Glibc
import TextSupport

/// Known USB readers that are present but cannot be used: no permission on the device node,
/// claimed by the kernel's NFC driver, or held by pcscd while libnfc is wanted (and the other way
/// round). Read from sysfs and the device nodes; nothing is opened.
enum USBReaderChecks {
    /// How a driver's reader name shows each model (libccid's names, libnfc's device names).
    static let nameFragments = ["072f:2200": "ACR122", "072f:223b": "ACR1252", "072f:224f": "ACR1255",
                                "04e6:5790": "3700 F", "04e6:5724": "4701 F", "04e6:5591": "SCL3711"]
    static let kernelNFCDrivers: Set<String> = ["pn533_usb", "pn533", "nfc", "port100"]
    static let ruleFile = "60-passport-readers.rules"
    static let ruleFolders = ["/usr/lib/udev/rules.d", "/etc/udev/rules.d", "/lib/udev/rules.d"]

    static func checks(_ environment: DoctorEnvironment, pcscReaders: [String]) -> [DoctorCheck] {
        USBReaders.scan(sysfs: environment.sysfs + "/bus/usb/devices", devfs: environment.devfs).map { reader in
            let fragment = nameFragments[reader.usbID] ?? reader.model
            return check(reader, environment, inPCSC: pcscReaders.contains { $0.contains(fragment) })
        }
    }

    static func check(_ reader: USBReaders.Finding, _ environment: DoctorEnvironment, inPCSC: Bool) -> DoctorCheck {
        let name = "\(reader.model) (\(reader.usbID)) at \(reader.devicePath)"
        // Through pcscd (root) the user needs no access to the device; through libnfc they do.
        let throughLibNFC = environment.wantsNFC || !reader.speaksCCID
        if let driver = reader.kernelDriver, kernelNFCDrivers.contains(driver) {
            return DoctorCheck("usb", name, .fail, "claimed by the kernel's \(driver) driver: neither pcscd nor libnfc can use it",
                               fix: "sudo modprobe -r pn533_usb pn533 nfc (now) and sudo install -m 644 /usr/share/doc/passport/examples/blacklist-passport-nfc.conf /etc/modprobe.d/ (for good)")
        }
        if throughLibNFC && !reader.accessible {
            return DoctorCheck("usb", name, .fail, "this user may not open \(reader.devicePath) (\(describeNode(environment.devfs + reader.devicePath.dropFirst(4))))",
                               fix: ruleInstalled() ? "sudo usermod -aG plugdev $USER, then log out and in again"
                                   : "sudo install -m 644 udev/\(ruleFile) /etc/udev/rules.d/ && sudo udevadm control --reload-rules && sudo udevadm trigger (the passport package installs it), then replug the reader")
        }
        switch reader.kernelDriver {
        case "usbfs" where inPCSC:
            if environment.wantsNFC && reader.speaksLibNFC {
                return DoctorCheck("usb", name, .fail, "pcscd holds it, so libnfc cannot open it",
                                   fix: "sudo systemctl stop pcscd.socket pcscd while you use passport scan --nfc, or read through PC/SC (passport scan without --nfc)")
            }
            return DoctorCheck("usb", name, .ok, "driven by pcscd (libccid)")
        case "usbfs":
            if !environment.wantsNFC && reader.speaksCCID {
                return DoctorCheck("usb", name, .fail, "another program (libnfc?) holds it, so pcscd cannot",
                                   fix: "close the program that holds it (sudo fuser -v \(reader.devicePath) names it), then replug the reader")
            }
            return DoctorCheck("usb", name, .ok, "held by a program (libnfc?)")
        default:
            if !environment.wantsNFC && reader.speaksCCID && !inPCSC {
                return DoctorCheck("usb", name, .warn, "pcscd does not list it",
                                   fix: "sudo apt install libccid, then replug the reader (pcscd must be running)")
            }
            return DoctorCheck("usb", name, .ok, throughLibNFC ? "free for libnfc" : "usable")
        }
    }

    static func ruleInstalled() -> Bool {
        ruleFolders.contains { FileManager.default.fileExists(atPath: "\($0)/\(ruleFile)") }
    }

    /// "mode 0600, root:root".
    static func describeNode(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return String(cString: strerror(errno)) }
        let owner = getpwuid(status.st_uid).map { String(cString: $0.pointee.pw_name) } ?? String(status.st_uid)
        let group = getgrgid(status.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(status.st_gid)
        return "mode \(String(status.st_mode & 0o7777, radix: 8).leftPadded(to: 4, with: "0")), \(owner):\(group)"
    }
}
