import FoundationEssentials

@_exported import CUniFFI

extension RustBuffer {
    var bytes: [UInt8] { data.map { Array(UnsafeBufferPointer(start: $0, count: Int(len))) } ?? [] }
}

/// Serialization of UniFFI compound types: big-endian, i32 lengths, i8 option tags.
public enum UniFFICodec {
    public static func vecU8(_ bytes: [UInt8]) -> [UInt8] { int32(bytes.count) + bytes }

    public static func vecString(_ strings: [String]) -> [UInt8] {
        strings.reduce(int32(strings.count)) { $0 + int32($1.utf8.count) + Array($1.utf8) }
    }

    public static func optionString(_ value: String?) -> [UInt8] {
        guard let value else { return [0] }
        return [1] + int32(value.utf8.count) + Array(value.utf8)
    }

    static func int32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        return [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Reads a Vec<u8> (i32 count + bytes) that must fill `buffer` exactly.
    public static func readVecU8(_ buffer: [UInt8]) throws -> [UInt8] {
        guard buffer.count >= 4 else { throw ProverError.garbage("a Vec<u8> shorter than its length field") }
        let count = Int(Int32(bitPattern: UInt32(buffer[0]) << 24 | UInt32(buffer[1]) << 16 | UInt32(buffer[2]) << 8 | UInt32(buffer[3])))
        guard count >= 0, count == buffer.count - 4 else {
            throw ProverError.garbage("a Vec<u8> whose length field (\(count)) does not match its \(buffer.count - 4) bytes")
        }
        return Array(buffer[4...])
    }

    /// Decodes mopro's MoproError: i32 variant (1 Circom, 2 Halo2, 3 Noir, 4 Gnark) + a String.
    public static func decodeError(_ buffer: [UInt8]) -> String {
        guard buffer.count >= 8 else { return "an error the library did not describe" }
        let variant = Int32(bitPattern: UInt32(buffer[0]) << 24 | UInt32(buffer[1]) << 16 | UInt32(buffer[2]) << 8 | UInt32(buffer[3]))
        let length = Int(UInt32(buffer[4]) << 24 | UInt32(buffer[5]) << 16 | UInt32(buffer[6]) << 8 | UInt32(buffer[7]))
        let names = [1: "CircomError", 2: "Halo2Error", 3: "NoirError", 4: "GnarkError"]
        let message = length <= buffer.count - 8 ? String(decoding: buffer[8..<(8 + length)], as: UTF8.self) : "(malformed message)"
        return "\(names[Int(variant)] ?? "error \(variant)"): \(message)"
    }
}

public enum ProverError: Error, CustomStringConvertible {
    case libraryMissing(String)
    case incompatible(String)
    case failed(String)
    case garbage(String)

    public var description: String {
        switch self {
        case .libraryMissing(let why): return "prover library not available: \(why)"
        case .incompatible(let why): return "prover library incompatible: \(why)"
        case .failed(let why): return "prover failed: \(why)"
        case .garbage(let why): return "prover returned garbage: \(why)"
        }
    }
}
