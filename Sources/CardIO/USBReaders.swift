import FoundationEssentials
import Glibc
import TextSupport

/// Contactless readers on the USB bus that the user may not be allowed to open: found in sysfs
/// by vendor and product id, checked for read/write access to their /dev/bus/usb node and for
/// the kernel's NFC driver holding them (which keeps libnfc out).
public enum USBReaders {
    public struct Finding: Sendable, Equatable {
        public let model: String
        /// "072f:2200".
        public let usbID: String
        public let devicePath: String
        public let accessible: Bool
        /// The driver bound to the reader's first interface: a kernel module (`pn533_usb`), or
        /// `usbfs` when a program (pcscd, libnfc) has claimed it.
        public let kernelDriver: String?
        /// Whether pcscd's CCID driver (libccid) can drive it and whether libnfc can.
        public var speaksCCID: Bool { USBReaders.ccid.contains(usbID) }
        public var speaksLibNFC: Bool { USBReaders.libnfc.contains(usbID) }
    }

    static let known: [String: String] = [
        "072f:2200": "ACS ACR122U", "072f:223b": "ACS ACR1252U", "072f:224f": "ACS ACR1255U-J1",
        "04e6:5591": "SCM SCL3711", "04e6:5790": "Identiv uTrust 3700 F", "04e6:5724": "Identiv uTrust 4701 F",
        "04cc:2533": "NXP PN533", "054c:02e1": "Sony RC-S360",
    ]

    /// The known readers libccid drives (CCID class) and those libnfc drives (acr122_usb, pn53x_usb).
    static let ccid: Set<String> = ["072f:2200", "072f:223b", "072f:224f", "04e6:5790", "04e6:5724"]
    static let libnfc: Set<String> = ["072f:2200", "04e6:5591", "04cc:2533", "054c:02e1"]

    /// `sysfs`: the USB devices folder; `devfs`: the root the device nodes are under (a test's
    /// fixture tree, or /dev).
    public static func scan(sysfs: String = "/sys/bus/usb/devices", devfs: String = "/dev") -> [Finding] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: sysfs) else { return [] }
        var findings: [Finding] = []
        for entry in entries {
            let base = "\(sysfs)/\(entry)"
            func read(_ name: String) -> String? {
                (try? String(contentsOfFile: "\(base)/\(name)", encoding: .utf8))?.trimmed()
            }
            guard let vendor = read("idVendor"), let product = read("idProduct"),
                  let model = known["\(vendor):\(product)"],
                  let bus = read("busnum").flatMap(Int.init), let device = read("devnum").flatMap(Int.init) else { continue }
            let path = "/dev/bus/usb/\(bus.zeroPadded(3))/\(device.zeroPadded(3))"
            let accessible = access(devfs + path.dropFirst(4), R_OK | W_OK) == 0
            let driver = (try? fm.destinationOfSymbolicLink(atPath: "\(base):1.0/driver")).map { URL(fileURLWithPath: $0).lastPathComponent }
            findings.append(Finding(model: model, usbID: "\(vendor):\(product)", devicePath: path, accessible: accessible, kernelDriver: driver))
        }
        return findings.sorted { $0.devicePath < $1.devicePath }
    }
}
