import FoundationEssentials
import JSONCore

/// One line of `passport verify DUMP… --json` for a dump that could not be read
/// (docs/schemas/verify-line.schema.json; a dump that was verified gets a `VerifyReport` line).
public struct VerifyLineError: Codable, Sendable, Equatable {
    public var ok = false
    public let dump: String
    public let error: ErrorReport.Detail

    public init(dump: String, code: String, message: String) {
        self.dump = dump
        error = ErrorReport(code: code, message: message).error
    }
}

extension ReportEncoding {
    /// One report on one line (JSON Lines), keys sorted as in `data`.
    public static func line(_ report: some Encodable) throws -> Data {
        Data(try JSON.encoded(report, style: [.sortedKeys]))
    }

    /// The same bytes, written by the report itself (a batch's lines).
    public static func line(_ report: some Encodable & JSONLineWritable) -> Data {
        Data(JSONLine.bytes(of: report))
    }

    /// The same bytes appended to `output` (a batch's lines, with no copy of each).
    public static func append(_ report: some Encodable & JSONLineWritable, to output: inout [UInt8]) {
        JSONLine.append(report, to: &output)
    }
}
