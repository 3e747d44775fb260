import LibraryLoading
import CardIO
import FoundationEssentials
import Glibc
import LocalFiles
import TextSupport

/// pcsc-lite (installed, running or socket-activated, reachable by this user), the readers of
/// PC/SC and libnfc, and the card on each: an eMRTD or some other card.
enum SmartCardChecks {
    static let pcscdPaths = ["/usr/sbin/pcscd", "/usr/local/sbin/pcscd", "/sbin/pcscd"]
    static let socketUnits = ["/usr/lib/systemd/system/pcscd.socket", "/lib/systemd/system/pcscd.socket"]
    /// SELECT of the eMRTD application (ICAO 9303-10), no answer data asked.
    static let selectEMRTD: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    /// The pcscd checks, and the PC/SC reader names when pcscd answered (nil when it did not).
    static func pcscd(_ environment: DoctorEnvironment) -> ([DoctorCheck], [String]?) {
        var checks: [DoctorCheck] = []
        guard let binary = pcscdPaths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            checks.append(DoctorCheck("pcsc", "pcscd installed", .fail, "no pcscd on this machine",
                                      fix: "sudo apt install pcscd libccid"))
            return (checks, nil)
        }
        checks.append(DoctorCheck("pcsc", "pcscd installed", .ok, binary))
        let running = processIDs(named: "pcscd")
        let socketActivated = socketUnits.contains { FileManager.default.fileExists(atPath: $0) }
            && FileManager.default.fileExists(atPath: "/run/systemd/system")
        if let pid = running.first {
            checks.append(DoctorCheck("pcsc", "pcscd running", .ok, "pid \(pid)"))
        } else if socketActivated {
            checks.append(DoctorCheck("pcsc", "pcscd running", .ok, "not running; systemd starts it on first use (pcscd.socket)"))
        } else {
            checks.append(DoctorCheck("pcsc", "pcscd running", .fail, "pcscd is not running and systemd does not start it on demand",
                                      fix: FileManager.default.fileExists(atPath: "/run/systemd/system")
                                        ? "sudo systemctl enable --now pcscd.socket" : "sudo pcscd"))
        }
        let (reach, readers) = reachability(environment.pcscSocket)
        checks.append(reach)
        return (checks, readers)
    }

    /// Whether this user's programs reach pcscd: the socket, then a PC/SC context through it.
    static func reachability(_ socket: String) -> (DoctorCheck, [String]?) {
        let name = "PC/SC service"
        if let problem = connectProblem(socket) {
            let fix = problem.code == EACCES
                ? "ask the administrator to let you use \(socket) (its folder or socket mode), or run passport as a user who may"
                : "start pcscd: sudo systemctl enable --now pcscd.socket (without systemd: sudo pcscd)"
            return (DoctorCheck("pcsc", name, .fail, "cannot connect to \(socket): \(problem.text)", fix: fix), nil)
        }
        do {
            let context = try PCSCContext()
            let readers = try context.readers()
            return (DoctorCheck("pcsc", name, .ok, "\(socket) answers; \(readers.count) reader(s)"), readers)
        } catch let missing as MissingLibrary {
            return (DoctorCheck("pcsc", name, .fail, "pcscd answers but \(missing.reason)", fix: "sudo apt install \(missing.package)"), nil)
        } catch {
            // The socket takes connections but pcscd refuses a context: on Debian its polkit rule
            // refuses sessions that are not local and active (an ssh login, a system service).
            return (DoctorCheck("pcsc", name, .fail, "pcscd takes connections on \(socket) but refused a PC/SC context (\(error))",
                                fix: "run from a local desktop session, or allow this user in a polkit rule for org.debian.pcsc-lite.access_pcsc and org.debian.pcsc-lite.access_card (/etc/polkit-1/rules.d/)"), nil)
        }
    }

    /// nil when a client can connect to `socket`, else errno and its text.
    static func connectProblem(_ socket: String) -> (code: Int32, text: String)? {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return (errno, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socket.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0 ? nil : (errno, String(cString: strerror(errno)))
    }

    /// The PC/SC readers, each with whether a card is present, and the card on each.
    static func pcscReaders(_ readers: [String]) -> [DoctorCheck] {
        guard let context = try? PCSCContext() else { return [] }
        var checks: [DoctorCheck] = []
        for reader in readers {
            let present = (try? context.isCardPresent(reader: reader)) ?? false
            checks.append(DoctorCheck("readers", reader, .ok, "PC/SC reader, \(present ? "card present" : "no card")"))
            guard present else { continue }
            do {
                // Neither reset on connecting nor on leaving: another program may be reading it.
                let card = try context.connect(reader: reader, reset: false)
                defer { card.disconnect() }
                checks.append(cardCheck(reader, try card.transmit(raw: selectEMRTD)))
            } catch {
                checks.append(DoctorCheck("card", reader, .warn, "a card is present but could not be reached: \(error)",
                                          fix: "move the card a little on the reader, or take it off and put it back"))
            }
        }
        return checks
    }

    /// The libnfc devices, each polled briefly for a card, and the card on each; and how many.
    static func libnfcDevices(_ environment: DoctorEnvironment) -> ([DoctorCheck], Int) {
        guard let context = try? NFCContext() else {
            return ([DoctorCheck("readers", "libnfc", environment.wantsNFC ? .fail : .ok, "libnfc is not installed",
                                 fix: environment.wantsNFC ? "sudo apt install libnfc6" : nil)], 0)
        }
        var checks: [DoctorCheck] = []
        let devices = context.devices()
        for connstring in devices {
            do {
                let device = try context.open(connstring)
                if let card = try? device.waitForCard(timeout: 0.3) {
                    checks.append(DoctorCheck("readers", connstring, .ok, "libnfc device \(device.name), card present"))
                    checks.append(cardCheck(connstring, (try? card.transmit(raw: selectEMRTD)) ?? []))
                } else {
                    checks.append(DoctorCheck("readers", connstring, .ok, "libnfc device \(device.name), no card"))
                }
            } catch {
                checks.append(DoctorCheck("readers", connstring, environment.wantsNFC ? .fail : .warn, "libnfc cannot open it: \(error)",
                                          fix: "if pcscd holds the reader: sudo systemctl stop pcscd.socket pcscd (PC/SC and libnfc cannot share a reader)"))
            }
        }
        return (checks, devices.count)
    }

    /// What the card answered to SELECT of the eMRTD application.
    static func cardCheck(_ reader: String, _ answer: [UInt8]) -> DoctorCheck {
        let status = answer.count >= 2 ? answer.suffix(2).map { $0.hex(2) }.joined() : "no answer"
        if status == "9000" { return DoctorCheck("card", reader, .ok, "an eMRTD (passport or ID card): its application answers SELECT") }
        return DoctorCheck("card", reader, .warn, "a card that is not an eMRTD: no eMRTD application (SELECT answered \(status))",
                           fix: "put the passport's data page (or the ID card) on the reader; this card cannot be read as a passport")
    }

    /// Process ids whose command name is `name` (from /proc/PID/comm).
    static func processIDs(named name: String) -> [Int] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int.init).filter { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmed() == name
        }.sorted()
    }
}
