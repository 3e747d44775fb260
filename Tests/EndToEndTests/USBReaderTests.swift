import Foundation
import LDS
import Testing
import TestSupport

/// Real reader drivers in the loop (issue 31): pcscd with Debian's own CCID driver (libccid),
/// talking libusb to an emulated USB reader (emulator/vpassport/usb_device.py through the
/// LD_PRELOAD shim in emulator/vpassport/usbshim) that holds the virtual passport's chip.
/// Nothing of pcscd or libccid is changed; the reader is declared in reader.conf.d as udev
/// would announce it.
extension VirtualPassportStack {
@Suite(.serialized)
final class USBReaderTests {
    static let passport = TestPaths.fixtures.appendingPathComponent("passport")
    static let pace = TestPaths.fixtures.appendingPathComponent("passport-pace")
    static let key = ["--document-number", "C01X00T47", "--birth", "880412", "--expiry", "340930"]
    /// Model, the name libccid gives the reader, whether it takes extended-length APDUs.
    static let models: [(model: String, reader: String, extended: Bool)] = [
        ("ccid-extended", "Identiv uTrust 3700 F CL Reader 00 00", true),
        ("acr122u", "ACS ACR122U PICC Interface 00 00", false),
    ]
    let work = Harness.temporaryFolder()

    deinit {
        _ = try? Harness.run(Harness.virtualPassportScript, ["stop", "--usb"], timeout: 60)
        try? FileManager.default.removeItem(at: work)
    }

    func start(_ model: String, _ dump: URL = USBReaderTests.passport, _ options: [String] = []) throws {
        let r = try Harness.run(Harness.virtualPassportScript, ["start", dump.path, "--usb", model] + options, timeout: 90)
        try #require(r.status == 0, "virtual-passport start --usb \(model) failed: \(r.stderr)")
    }

    func usb(_ command: String) throws {
        let r = try Harness.run(Harness.virtualPassportScript, [command, "--usb"], timeout: 60)
        try #require(r.status == 0, "virtual-passport \(command) --usb failed: \(r.stderr)")
    }

    func scan(_ reader: String, _ out: URL, _ extra: [String] = []) throws -> Harness.Result {
        try Harness.passport(["scan", "--json", "--reader", reader, "--out", out.path] + Self.key + extra, timeout: 90)
    }

    /// Unplugs the reader once the scan is inside DG2; the scan's exit status.
    func unplugMidRead(_ scanning: BackgroundProcess) throws -> Int32? {
        let deadline = Date().addingTimeInterval(30)
        while !scanning.stderr.contains("Read DG1") && Date() < deadline { usleep(50_000) }
        try usb("unplug")
        return scanning.waitForExit(seconds: 30)
    }

    func expectSame(_ dump: URL, as source: URL) throws {
        let read = try DumpFolder(reading: dump)
        let original = try DumpFolder(reading: source)
        for (file, bytes) in original.files { #expect(read.files[file] == bytes, "\(file) differs from \(source.lastPathComponent)") }
        #expect(Set(read.files.keys).subtracting(original.files.keys).subtracting([.cardAccess]).isEmpty)
    }

    @Test(arguments: [0, 1])
    func readersAndFullScans(index: Int) throws {
        let (model, reader, extended) = Self.models[index]
        try start(model)
        let listed = try Harness.passport(["readers", "--json"])
        let names = (listed.json?["readers"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(names.contains(reader), "\(names)")
        let out = work.appendingPathComponent("bac-\(model)")
        let r = try scan(reader, out)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.json?["extended_length"] as? Bool == extended)
        #expect(r.json?["reader"] as? String == reader)
        try expectSame(out, as: Self.passport)
        let apdus = try #require(r.json?["apdus"] as? Int)
        // One read per file with extended length (16 APDUs in all, as in ScanThroughPCSC); DG2
        // alone takes ~100 short reads. A short-APDU reader is known from its driver (PC/SC part
        // 10), so no extended command is tried on it.
        if extended { #expect(apdus <= 16) } else { #expect(apdus > 90 && !r.stderr.contains("refused an extended-length command")) }
        print("libccid × \(model): BAC \(apdus) APDUs, \(r.json?["seconds"] ?? "?") s at the chip, \(String(format: "%.2f", r.seconds)) s wall")

        try start(model, Self.pace, ["--pace", "--mapping", "cam"])
        let paceOut = work.appendingPathComponent("pace-\(model)")
        let p = try scan(reader, paceOut)
        try #require(p.status == 0, "\(p.stderr)")
        #expect((p.json?["access_protocol"] as? String)?.hasPrefix("PACE") == true, "\(p.stdout)")
        try expectSame(paceOut, as: Self.pace)
        print("libccid × \(model): PACE \(p.json?["apdus"] ?? "?") APDUs, \(String(format: "%.2f", p.seconds)) s wall")
    }

    /// The document leaves mid-file and comes back: the read resumes as over vpcd.
    @Test(arguments: [0, 1])
    func theDocumentLeavesAndComesBack(index: Int) throws {
        let (model, reader, _) = Self.models[index]
        try start(model, Self.passport, ["--no-extended-length", "--drop-during", "DG2", "--return-after", "1"])  // mid-file: short reads
        let out = work.appendingPathComponent("resumed-\(model)")
        let r = try scan(reader, out)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Read interrupted at DG2"), "\(r.stderr)")
        try expectSame(out, as: Self.passport)
    }

    /// The reader is unplugged mid-read: the driver's own error path ends the scan with exit 1,
    /// a message that says the reader went away, nothing saved; plugged back, the next scan works.
    @Test(arguments: [0, 1])
    func theReaderIsUnplugged(index: Int) throws {
        let (model, reader, _) = Self.models[index]
        try start(model, Self.passport, ["--no-extended-length", "--fault", "slow:0.05@DG2/any:always"])
        let out = work.appendingPathComponent("unplugged-\(model)")
        let scanning = try BackgroundProcess(Harness.passportExecutable.path, ["scan", "--json", "--reader", reader, "--out", out.path] + Self.key,
                                             folder: work, name: "unplugged-\(model)")
        #expect(try unplugMidRead(scanning) == 1, "\(scanning.stderr)")
        let error = try #require((try? JSONSerialization.jsonObject(with: Data(scanning.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any],
                                 "\(scanning.stdout)")
        #expect(error["code"] as? String == "reader_removed")
        #expect((error["message"] as? String)?.contains("went away during the read") == true)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        try usb("plug")
        let again = work.appendingPathComponent("replugged-\(model)")
        let r = try scan(reader, again, ["--timeout", "60"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    // MARK: libnfc's USB drivers (libusb-0.1), the shim loaded into passport itself

    /// Starts `model` for libnfc and gives the environment a libnfc client needs.
    func startForLibNFC(_ model: String, _ dump: URL = USBReaderTests.passport, _ options: [String] = []) throws -> [String: String] {
        let r = try Harness.run(Harness.virtualPassportScript, ["start", dump.path, "--usb", model, "--no-pcscd"] + options, timeout: 90)
        try #require(r.status == 0, "virtual-passport start --usb \(model) --no-pcscd failed: \(r.stderr)")
        var environment: [String: String] = [:]
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst(7).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { environment[String(pair[0])] = String(pair[1]) }
        }
        try #require(environment["LD_PRELOAD"] != nil && environment["PASSPORT_USB_SOCKET"] != nil, "\(r.stdout)")
        return environment
    }

    /// Driver, model, the device name libnfc gives it, whether extended APDUs pass.
    static let libnfcPaths: [(driver: String, model: String, name: String, extended: Bool)] = [
        ("pn53x_usb", "pn533", "SCM Micro / SCL3711-NFC&RW", true),
        ("acr122_usb", "acr122u", "ACS / ACR122U PICC Interface", false),
    ]

    @Test(arguments: [0, 1])
    func libnfcScans(index: Int) throws {
        let (driver, model, name, extended) = Self.libnfcPaths[index]
        let environment = try startForLibNFC(model)
        let listed = try Harness.passport(["readers", "--json"], environment: environment)
        let names = (listed.json?["readers"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(names.contains { $0.hasPrefix(driver) }, "\(names)")
        let out = work.appendingPathComponent("libnfc-\(model)")
        let r = try Harness.passport(["scan", "--json", "--nfc", driver, "--out", out.path] + Self.key, environment: environment, timeout: 90)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.json?["reader"] as? String == name)
        #expect(r.json?["extended_length"] as? Bool == extended)
        try expectSame(out, as: Self.passport)
        print("libnfc × \(driver): BAC \(r.json?["apdus"] ?? "?") APDUs, \(String(format: "%.2f", r.seconds)) s wall")

        let paceEnvironment = try startForLibNFC(model, Self.pace, ["--pace", "--mapping", "cam"])
        let paceOut = work.appendingPathComponent("libnfc-pace-\(model)")
        let p = try Harness.passport(["scan", "--json", "--nfc", driver, "--out", paceOut.path] + Self.key, environment: paceEnvironment, timeout: 90)
        try #require(p.status == 0, "\(p.stderr)")
        #expect((p.json?["access_protocol"] as? String)?.hasPrefix("PACE") == true)
        try expectSame(paceOut, as: Self.pace)

        // The document leaves mid-file and comes back.
        let dropEnvironment = try startForLibNFC(model, Self.passport, ["--no-extended-length", "--drop-during", "DG2", "--return-after", "1"])
        let resumed = work.appendingPathComponent("libnfc-resumed-\(model)")
        let d = try Harness.passport(["scan", "--json", "--nfc", driver, "--out", resumed.path] + Self.key, environment: dropEnvironment, timeout: 90)
        try #require(d.status == 0, "\(d.stderr)")
        #expect(d.stderr.contains("Read interrupted at DG2"), "\(d.stderr)")
        try expectSame(resumed, as: Self.passport)
    }

    /// The reader is unplugged mid-read under libnfc: exit 1, nothing saved; back, it reads again.
    @Test(arguments: [0, 1])
    func libnfcReaderUnplugged(index: Int) throws {
        let (driver, model, _, _) = Self.libnfcPaths[index]
        let environment = try startForLibNFC(model, Self.passport, ["--no-extended-length", "--fault", "slow:0.05@DG2/any:always"])
        let out = work.appendingPathComponent("libnfc-unplugged-\(model)")
        let scanning = try BackgroundProcess(Harness.passportExecutable.path, ["scan", "--json", "--nfc", driver, "--out", out.path] + Self.key,
                                             folder: work, name: "libnfc-unplugged-\(model)", environment: environment)
        #expect(try unplugMidRead(scanning) == 1, "\(scanning.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let error = (try? JSONSerialization.jsonObject(with: Data(scanning.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "reader_removed", "\(scanning.stdout)")
        try usb("plug")
        let again = work.appendingPathComponent("libnfc-replugged-\(model)")
        let r = try Harness.passport(["scan", "--json", "--nfc", driver, "--out", again.path, "--timeout", "60"] + Self.key,
                                     environment: environment, timeout: 90)
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// No document on a libnfc USB reader: the scan polls for --timeout and says so.
    @Test(arguments: [0, 1])
    func libnfcNoDocument(index: Int) throws {
        let (driver, model, _, _) = Self.libnfcPaths[index]
        let environment = try startForLibNFC(model)
        try usb("eject")
        let started = Date()
        let r = try Harness.passport(["scan", "--json", "--nfc", driver, "--timeout", "2", "--out", work.appendingPathComponent("none-\(model)").path] + Self.key,
                                     environment: environment, timeout: 60)
        #expect(r.status == 1, "\(r.stderr)")
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "no_card", "\(r.stdout)")
        #expect(Date().timeIntervalSince(started) >= 2)
    }

    /// A reader with no document: the scan waits --timeout and says so.
    @Test func noDocumentOnTheReader() throws {
        let (model, reader, _) = Self.models[0]
        try start(model)
        try usb("eject")
        let started = Date()
        let r = try scan(reader, work.appendingPathComponent("empty"), ["--timeout", "2"])
        #expect(r.status == 1)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "no_card", "\(r.stdout)")
        #expect(Date().timeIntervalSince(started) >= 2)
    }
}
}
