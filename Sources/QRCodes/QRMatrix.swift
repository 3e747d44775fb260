import CQREncode

/// A QR code's modules, without its quiet zone: `size` × `size`, row by row, true for dark.
public struct QRMatrix: Equatable, Sendable {
    /// The symbol's version, 1 to 40 (size 21 + 4 × (version − 1)).
    public let version: Int
    public let size: Int
    public let modules: [Bool]

    public init(version: Int, size: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "a QR matrix holds size × size modules")
        self.version = version
        self.size = size
        self.modules = modules
    }

    /// Whether the module at column `x`, row `y` is dark; outside the symbol (the quiet zone) light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

/// Text → QR code, through libqrencode: byte mode (the text's UTF-8 bytes unchanged), error
/// correction level M (15% of the code may be lost), the smallest version 1-40 that holds it.
public enum QREncoder {
    /// What version 40 holds at level M in byte mode (ISO/IEC 18004, table 7).
    public static let capacity = 2331

    /// Throws `MissingLibrary` (naming the package) when libqrencode is not installed: checked
    /// before a presentation is signed, so that nothing is made that cannot be shown.
    public static func requireLibrary() throws { _ = try QRLibraries.qrencode() }

    public static func encode(_ text: String) throws -> QRMatrix {
        let bytes = Array(text.utf8)
        guard bytes.count <= capacity else { throw QRCodeError.tooLarge(bytes: bytes.count, limit: capacity) }
        let qrencode = try QRLibraries.qrencode()
        guard let code = bytes.withUnsafeBufferPointer({ qrencode.QRcode_encodeData(Int32($0.count), $0.baseAddress!, 0, QR_ECLEVEL_M) }) else {
            throw QRCodeError.tooLarge(bytes: bytes.count, limit: capacity)
        }
        defer { qrencode.QRcode_free(code) }
        let size = Int(code.pointee.width)
        // Bit 0 of each module's byte is its colour; the other bits say what the module is part of.
        let modules = (0..<size * size).map { (code.pointee.data![$0] & 1) == 1 }
        return QRMatrix(version: Int(code.pointee.version), size: size, modules: modules)
    }
}
