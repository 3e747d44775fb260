import PassportKit

/// One finding of `passport doctor`: what was checked, what was seen and, when it is not ok,
/// the exact fix (a command, a package, a file). Doctor never applies a fix.
public struct DoctorCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case ok, warn, fail
    }

    /// The group the check belongs to: pcsc, readers, usb, card, trust, keys, ocr, camera, versions.
    public let area: String
    public let name: String
    public let status: Status
    public let seen: String
    @NullEncoded public var fix: String?

    public init(_ area: String, _ name: String, _ status: Status, _ seen: String, fix: String? = nil) {
        self.area = area
        self.name = name
        self.status = status
        self.seen = seen
        self.fix = fix
    }
}

/// `docs/schemas/doctor.schema.json`.
public struct DoctorReport: Encodable, Sendable {
    public let checks: [DoctorCheck]
    /// No check failed (warnings allowed).
    public var ok: Bool { !checks.contains { $0.status == .fail } }

    public init(checks: [DoctorCheck]) { self.checks = checks }

    enum CodingKeys: String, CodingKey { case ok, checks, counts }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        try container.encode(checks, forKey: .checks)
        let counts = Dictionary(grouping: checks, by: \.status.rawValue).mapValues(\.count)
        try container.encode(["ok": counts["ok"] ?? 0, "warn": counts["warn"] ?? 0, "fail": counts["fail"] ?? 0], forKey: .counts)
    }
}
