import LocalFiles
import FoundationEssentials
import JSONCore
import LDS

/// An optional that `--json` output spells as `null` when absent: the documented shapes keep
/// such keys (a missing certificate, an unknown hash algorithm) rather than dropping them.
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A `NullEncoded` key that is missing altogether decodes as nil too.
    public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullEncoded(wrappedValue: nil)
    }
}

/// Any JSON value: claims of credentials and presentations, whose set is open.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A value parsed by `JSON.parse` (or built of the same types).
    public init(_ any: Any) throws {
        switch any {
        case is JSON.Null: self = .null
        case let value as Bool where type(of: any) == Bool.self: self = .bool(value)
        case let value as String: self = .string(value)
        case let value as Int where type(of: any) == Int.self: self = .number(Double(value))
        case let value as Double where value.isFinite: self = .number(value)
        case let value as [Any]: self = .array(try value.map(JSONValue.init))
        case let value as [String: Any]: self = .object(try value.mapValues(JSONValue.init))
        default: throw EncodingError.invalidValue(any, .init(codingPath: [], debugDescription: "a \(type(of: any)) is not a JSON value"))
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Whole numbers as integers, as JSON.serialize writes them.
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A claim map as JSON values.
    public static func object(_ pairs: [(String, Any)]) throws -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (name, value) in pairs { object[name] = try JSONValue(value) }
        return object
    }
}

/// How every command's `--json` object is written: one object, keys sorted, slashes unescaped.
public enum ReportEncoding {
    /// JSONEncoder's bytes with [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes], through JSONCore (faster).
    public static func data(_ report: some Encodable) throws -> Data {
        Data(try JSON.encoded(report, style: [.prettyPrinted, .sortedKeys]))
    }

    /// ISO 8601 time as the reports spell it.
    public static func time(_ date: Date) -> String { iso8601(date) }
}

/// `{"ok": false, "error": {"code", "message"}}`: what every command prints with `--json` when
/// it fails.
public struct ErrorReport: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public let code: String
        public let message: String
    }
    public var ok = false
    public let error: Detail

    public init(code: String, message: String) { error = Detail(code: code, message: message) }

    /// Any error as the command lines report it.
    public init(_ error: Error) { self.init(code: Self.code(of: error), message: Self.message(of: error)) }

    /// The stable code of `--json` errors: our errors' own; Foundation's or the OS's that no step
    /// wrapped are the machine's ("system_error").
    public static func code(of error: Error) -> String {
        if let error = error as? ReportableError { return error.code }
        return SystemErrorText.describe(error) != nil ? "system_error" : "error"
    }

    /// 1: the document, chip, image or token; 2: usage or the environment (the machine).
    public static func exitStatus(of error: Error) -> Int32 {
        if let error = error as? ReportableError { return error.exitStatus }
        return SystemErrorText.describe(error) != nil ? ExitStatus.environment : ExitStatus.invalid
    }

    /// Our errors as written, Foundation's and the OS's in plain words.
    public static func message(of error: Error) -> String { SystemErrorText.describe(error) ?? String(describing: error) }
}
