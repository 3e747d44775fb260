import CardIO
@testable import Diagnostics
import Foundation
import Testing

/// Known USB readers in a fixture sysfs/devfs tree (PASSPORT_DOCTOR_ROOT's layout): a kernel
/// driver bound, pcscd or another program holding the reader, a node this user cannot open.
@Suite struct USBReaderChecksTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-usb-\(UUID().uuidString)")

    /// A device `1-1` with `usbID`, at bus 1 device 4, whose first interface is bound to `driver`.
    func plug(_ usbID: String, driver: String?, node: Bool = true) throws -> DoctorEnvironment {
        let devices = root.appendingPathComponent("sys/bus/usb/devices")
        let device = devices.appendingPathComponent("1-1")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let parts = usbID.split(separator: ":")
        for (name, value) in [("idVendor", parts[0]), ("idProduct", parts[1]), ("busnum", "1"), ("devnum", "4")] {
            try Data("\(value)\n".utf8).write(to: device.appendingPathComponent(name))
        }
        let interface = devices.appendingPathComponent("1-1:1.0")
        try FileManager.default.createDirectory(at: interface, withIntermediateDirectories: true)
        if let driver {
            try FileManager.default.createSymbolicLink(atPath: interface.appendingPathComponent("driver").path,
                                                       withDestinationPath: "../../../bus/usb/drivers/\(driver)")
        }
        if node {
            let folder = root.appendingPathComponent("dev/bus/usb/001")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent("004").path, contents: nil))
        }
        var environment = DoctorEnvironment()
        environment.sysfs = root.appendingPathComponent("sys").path
        environment.devfs = root.appendingPathComponent("dev").path
        return environment
    }

    @Test func aKernelDriverHoldingTheReaderFails() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let checks = USBReaderChecks.checks(try plug("072f:2200", driver: "pn533_usb"), pcscReaders: [])
        let check = try #require(checks.first)
        #expect(check.status == .fail && check.name == "ACS ACR122U (072f:2200) at /dev/bus/usb/001/004")
        #expect(check.seen.contains("pn533_usb") && check.fix?.contains("modprobe -r pn533_usb") == true)
    }

    @Test func pcscdHoldingAReaderFailsOnlyWhenLibNFCIsWanted() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = try plug("072f:2200", driver: "usbfs")
        let pcsc = ["ACS ACR122U PICC Interface 00 00"]
        #expect(USBReaderChecks.checks(environment, pcscReaders: pcsc).first?.status == .ok)
        environment.wantsNFC = true
        let check = try #require(USBReaderChecks.checks(environment, pcscReaders: pcsc).first)
        #expect(check.status == .fail && check.seen == "pcscd holds it, so libnfc cannot open it")
        #expect(check.fix?.contains("systemctl stop pcscd.socket pcscd") == true)
    }

    @Test func anotherProgramHoldingACCIDReaderFailsForPCSC() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = try plug("072f:2200", driver: "usbfs")
        #expect(USBReaderChecks.checks(environment, pcscReaders: []).first?.status == .fail)
        environment.wantsNFC = true
        #expect(USBReaderChecks.checks(environment, pcscReaders: []).first?.status == .ok)
    }

    @Test func aLibNFCReaderWithoutItsDeviceNodeFails() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let checks = USBReaderChecks.checks(try plug("04e6:5591", driver: nil, node: false), pcscReaders: [])
        let check = try #require(checks.first)
        #expect(check.status == .fail && check.seen.contains("may not open /dev/bus/usb/001/004"))
        #expect(check.fix?.contains("60-passport-readers.rules") == true || check.fix?.contains("plugdev") == true)
    }

    @Test func aCCIDReaderPCSCDoesNotListWarns() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let check = try #require(USBReaderChecks.checks(try plug("04e6:5790", driver: nil), pcscReaders: []).first)
        #expect(check.status == .warn && check.fix?.contains("libccid") == true)
        #expect(USBReaderChecks.checks(try plug("04e6:5790", driver: nil), pcscReaders: ["Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] (55041942700133) 00 00"]).first?.status == .ok)
    }
}
