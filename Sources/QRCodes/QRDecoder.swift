import CZBar

/// An 8-bit grey image in memory, `width` bytes a row (a decoded photo, a video frame).
public struct GreyPixels: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "grey pixels hold width × height bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// Grey pixels → the QR codes in them, through ZBar: QR Code the only symbology enabled, binary
/// mode on so that each code's bytes come back as they were encoded, every symbol found reported.
public enum QRDecoder {
    /// Throws `MissingLibrary` (naming the package) when ZBar is not installed.
    public static func requireLibrary() throws { _ = try QRLibraries.zbar() }

    /// The bytes of every QR code ZBar decodes in the image, in the order it reports them.
    public static func decode(_ image: GreyPixels) throws -> [[UInt8]] {
        let zbar = try QRLibraries.zbar()
        guard image.width > 0, image.height > 0, let scanner = zbar.zbar_image_scanner_create() else { return [] }
        defer { zbar.zbar_image_scanner_destroy(scanner) }
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        guard let zimage = zbar.zbar_image_create() else { return [] }
        defer { zbar.zbar_image_destroy(zimage) }
        zbar.zbar_image_set_format(zimage, passport_zbar_grey_format())
        zbar.zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { buffer in
            // ZBar reads the buffer in place (no cleanup handler: the array stays ours).
            zbar.zbar_image_set_data(zimage, buffer.baseAddress, UInt(buffer.count), nil)
            guard zbar.zbar_scan_image(scanner, zimage) > 0 else { return [] }
            var found: [[UInt8]] = []
            var symbol = zbar.zbar_image_first_symbol(zimage)
            while let current = symbol {
                if zbar.zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar.zbar_symbol_get_data(current) {
                    let length = Int(zbar.zbar_symbol_get_data_length(current))
                    found.append(data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) })
                }
                symbol = zbar.zbar_symbol_next(current)
            }
            return found
        }
    }

    /// The one QR code in the image as checked text (`QRText.checked`). No code: `damaged` when
    /// the image shows a QR code's three finder patterns, else `noCode`; two or more: `severalCodes`.
    public static func single(in image: GreyPixels, source: String) throws -> String {
        let codes = try decode(image)
        switch codes.count {
        case 0:
            if FinderPatterns.count(in: image) >= 3 { throw QRCodeError.damaged(source: source) }
            throw QRCodeError.noCode(source: source, detail: "")
        case 1:
            return try QRText.checked(codes[0], source: source)
        default:
            throw QRCodeError.severalCodes(source: source, count: codes.count)
        }
    }
}
