import CLeptonica
import FoundationEssentials

/// Decodes JPEG, JPEG 2000 (JP2 or raw codestream, through Leptonica's OpenJPEG binding) and
/// PNG images, and writes PNG.
public enum ImageConverter {
    public enum Error: Swift.Error, CustomStringConvertible {
        case undecodable(String)
        case writeFailed(String)
        public var description: String {
            switch self {
            case .undecodable(let why): return "Cannot decode the image: \(why)."
            case .writeFailed(let path): return "Cannot write \(path)."
            }
        }
    }

    /// The image's width and height after decoding.
    public static func dimensions(of data: [UInt8]) throws -> (width: Int, height: Int) {
        let image = try decode(data)
        return (image.width, image.height)
    }

    /// Decodes `data` and returns it PNG-encoded.
    public static func png(from data: [UInt8]) throws -> [UInt8] {
        let image = try decode(data)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard leptonica.pixWriteMemPng(&out, &size, image.pix, 0) == 0, let out else { throw Error.writeFailed("PNG in memory") }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    static func decode(_ data: [UInt8]) throws -> LeptonicaImage {
        guard !data.isEmpty else { throw Error.undecodable("no image data") }
        guard let image = try LeptonicaImage.decode(data) else {
            throw Error.undecodable("not a JPEG, JPEG 2000 or PNG image Leptonica can read")
        }
        return image
    }
}
