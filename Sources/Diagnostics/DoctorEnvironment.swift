import FoundationEssentials

/// Where doctor looks. On a user's machine the real system; tests give a fixture tree holding
/// `sys/bus/usb/devices`, `sys/module` and `dev` through PASSPORT_DOCTOR_ROOT (used by tests
/// only: USB devices and their drivers cannot be made here otherwise).
public struct DoctorEnvironment: Sendable {
    public var sysfs = "/sys"
    public var devfs = "/dev"
    /// pcsc-lite's socket: PCSCLITE_CSOCK_NAME when set (pcsc-lite's own override), else Debian's.
    public var pcscSocket = "/run/pcscd/pcscd.comm"
    /// The person means to read through libnfc (`doctor --nfc`): pcscd holding a reader that
    /// libnfc needs is then a failure, and the other way round without it.
    public var wantsNFC = false

    public init() {}

    public static func current(wantsNFC: Bool) -> DoctorEnvironment {
        var environment = DoctorEnvironment()
        let variables = ProcessInfo.processInfo.environment
        if let root = variables["PASSPORT_DOCTOR_ROOT"], !root.isEmpty {
            environment.sysfs = root + "/sys"
            environment.devfs = root + "/dev"
        }
        if let socket = variables["PCSCLITE_CSOCK_NAME"], !socket.isEmpty { environment.pcscSocket = socket }
        environment.wantsNFC = wantsNFC
        return environment
    }
}
