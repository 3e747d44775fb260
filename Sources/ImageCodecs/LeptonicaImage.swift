import CLeptonica

/// Owns one Leptonica image and destroys it with the wrapper.
package final class LeptonicaImage {
    package let pix: UnsafeMutablePointer<PIX>

    package init(_ pix: UnsafeMutablePointer<PIX>) { self.pix = pix }

    /// Wraps the result of a Leptonica call; nil when the call failed.
    package convenience init?(_ pix: UnsafeMutablePointer<PIX>?) {
        guard let pix else { return nil }
        self.init(pix)
    }

    deinit {
        var p: UnsafeMutablePointer<PIX>? = pix
        leptonica.pixDestroy(&p)
    }

    package var width: Int { Int(leptonica.pixGetWidth(pix)) }
    package var height: Int { Int(leptonica.pixGetHeight(pix)) }

    /// Decodes JPEG, PNG, TIFF, BMP, PNM or JPEG 2000 data; nil when it is none of them. Throws
    /// `MissingLibrary` when Leptonica is not installed.
    package static func decode(_ data: [UInt8]) throws -> LeptonicaImage? {
        let leptonica = try Leptonica.functions()
        guard !data.isEmpty else { return nil }
        return LeptonicaImage(data.withUnsafeBufferPointer { leptonica.pixReadMem($0.baseAddress, $0.count) })
    }

    /// Decodes like `decode(_:)`, but a JPEG whose longer side is at least twice `atLeast` is
    /// decoded at a half, quarter or eighth of its size (libjpeg skips the detail, several times
    /// faster) while its longer side stays at least `atLeast`.
    package static func decode(_ data: [UInt8], reducedTo atLeast: Int) throws -> LeptonicaImage? {
        let leptonica = try Leptonica.functions()
        guard !data.isEmpty else { return nil }
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        let header = data.withUnsafeBufferPointer { leptonica.pixReadHeaderMem($0.baseAddress, $0.count, &format, &width, &height, nil, nil, nil) }
        let side = Int(max(width, height))
        guard header == 0, format == Int32(IFF_JFIF_JPEG), atLeast > 0, side >= 2 * atLeast else { return try decode(data) }
        let reduction = [8, 4, 2].first { side / $0 >= atLeast } ?? 1
        return try LeptonicaImage(data.withUnsafeBufferPointer { leptonica.pixReadMemJpeg($0.baseAddress, $0.count, 0, Int32(reduction), nil, 0) })
            ?? decode(data)
    }

    /// 8-bit grey, whatever the source depth and colour map.
    package func grey() -> LeptonicaImage? {
        if leptonica.pixGetDepth(pix) == 32 { return LeptonicaImage(leptonica.pixConvertRGBToLuminance(pix)) }
        return LeptonicaImage(leptonica.pixConvertTo8(pix, 0))
    }

    package func scaled(by factor: Double) -> LeptonicaImage? {
        if factor == 1 { return LeptonicaImage(leptonica.pixClone(pix)) }
        // Smooth (area) scaling when shrinking keeps thin strokes; linear interpolation when growing.
        return factor < 0.7 ? LeptonicaImage(leptonica.pixScaleSmooth(pix, Float(factor), Float(factor)))
                            : LeptonicaImage(leptonica.pixScaleGrayLI(pix, Float(factor), Float(factor)))
    }

    /// Rotated about the centre by `degrees` (counter-clockwise positive, as Leptonica's skew angles),
    /// keeping the size and bringing in white.
    /// With `expand`, the canvas grows so that no corner is cut off.
    package func rotated(degrees: Double, expand: Bool = false) -> LeptonicaImage? {
        if abs(degrees) < 0.05 { return LeptonicaImage(leptonica.pixClone(pix)) }
        let method = leptonica.pixGetDepth(pix) == 1 ? L_ROTATE_SAMPLING : L_ROTATE_AREA_MAP
        // Leptonica embeds the image in a larger one when given its size.
        let (w, h) = expand ? (Int32(width), Int32(height)) : (0, 0)
        return LeptonicaImage(leptonica.pixRotate(pix, Float(degrees * .pi / 180), Int32(method), Int32(L_BRING_IN_WHITE), w, h))
    }

    /// The pixels of an 8-bit image, row by row (`width` bytes each); nil for other depths.
    /// (Leptonica stores each row as 32-bit words, the first pixel in the most significant byte.)
    package func greyBytes() -> [UInt8]? {
        guard leptonica.pixGetDepth(pix) == 8, let data = leptonica.pixGetData(pix) else { return nil }
        let (w, h, wordsPerLine) = (width, height, Int(leptonica.pixGetWpl(pix)))
        var bytes = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let row = data + y * wordsPerLine
            for x in 0..<w {
                bytes[y * w + x] = UInt8(truncatingIfNeeded: row[x >> 2] >> UInt32(24 - 8 * (x & 3)))
            }
        }
        return bytes
    }

    package func cropped(_ rect: PixelRect) -> LeptonicaImage? {
        let clipped = rect.clamped(width: width, height: height)
        guard clipped.width > 0, clipped.height > 0 else { return nil }
        var box: UnsafeMutablePointer<BOX>? = leptonica.boxCreate(Int32(clipped.x), Int32(clipped.y), Int32(clipped.width), Int32(clipped.height))
        defer { leptonica.boxDestroy(&box) }
        return LeptonicaImage(leptonica.pixClipRectangle(pix, box, nil))
    }
}

/// An axis-aligned rectangle in pixels.
package struct PixelRect: Equatable, Sendable {
    package var x: Int, y: Int, width: Int, height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    package var maxX: Int { x + width }
    package var maxY: Int { y + height }
    package var midY: Double { Double(y) + Double(height) / 2 }

    package func clamped(width limitW: Int, height limitH: Int) -> PixelRect {
        let x0 = max(0, x), y0 = max(0, y)
        return PixelRect(x: x0, y: y0, width: max(0, min(limitW, maxX) - x0), height: max(0, min(limitH, maxY) - y0))
    }

    package func union(_ other: PixelRect) -> PixelRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    package func scaled(by factor: Double) -> PixelRect {
        PixelRect(x: Int((Double(x) * factor).rounded(.down)), y: Int((Double(y) * factor).rounded(.down)),
                  width: Int((Double(width) * factor).rounded(.up)), height: Int((Double(height) * factor).rounded(.up)))
    }
}
