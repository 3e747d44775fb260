import ImageCodecs

/// An image file (PNG, JPEG, TIFF, BMP, PNM: what Leptonica decodes) → the one QR code in it.
public enum QRImageReader {
    /// Decodes the image to 8-bit grey through Leptonica and reads the one QR code in it.
    public static func read(_ data: [UInt8], source: String) throws -> String {
        // ZBar first: without it, the message names the QR reader's own package before Leptonica's.
        try QRDecoder.requireLibrary()
        return try QRDecoder.single(in: try greyPixels(data, source: source), source: source)
    }

    /// The image as 8-bit grey pixels (throws `MissingLibrary` without Leptonica).
    public static func greyPixels(_ data: [UInt8], source: String) throws -> GreyPixels {
        guard let image = try LeptonicaImage.decode(data) else {
            throw QRCodeError.unreadableImage(source: source, reason: data.isEmpty ? "the file is empty" : "not a PNG, JPEG, TIFF, BMP or PNM image")
        }
        guard let grey = image.grey(), let pixels = grey.greyBytes() else {
            throw QRCodeError.unreadableImage(source: source, reason: "it could not be turned to 8-bit grey")
        }
        return GreyPixels(width: grey.width, height: grey.height, pixels: pixels)
    }
}
