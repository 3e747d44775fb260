import CLeptonica
import FoundationEssentials

/// The EXIF Orientation tag (0x0112) of a JPEG: how the stored pixels must be turned to show the
/// picture upright. Phones store a photo taken sideways as the sensor saw it and set this tag;
/// Leptonica decodes the pixels as stored and ignores it, so it is read here from the JPEG's APP1
/// segment (TIFF structure, either byte order).
package enum ExifOrientation {
    /// The tag's value (1-8) when `data` is a JPEG carrying one; nil otherwise.
    package static func read(from data: [UInt8]) -> Int? {
        guard data.count > 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= data.count {
            guard data[offset] == 0xFF else { return nil }
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue } // fill byte
            // Start of scan or end of image: no more metadata segments.
            if marker == 0xDA || marker == 0xD9 { return nil }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            guard length >= 2, offset + 2 + length <= data.count else { return nil }
            if marker == 0xE1, let value = orientation(inAPP1: data[(offset + 4)..<(offset + 2 + length)]) {
                return value
            }
            offset += 2 + length
        }
        return nil
    }

    /// The orientation in one APP1 payload ("Exif\0\0" + TIFF header + IFD0).
    static func orientation(inAPP1 payload: ArraySlice<UInt8>) -> Int? {
        let bytes = Array(payload)
        guard bytes.count >= 14, Array(bytes[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let tiff = Array(bytes[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                guard let type = u16(at + 2), type == 3, let value = u16(at + 8), (1...8).contains(value) else { return nil }
                return value
            }
        }
        return nil
    }
}

extension LeptonicaImage {
    /// The image turned as EXIF orientation `value` says (1: as stored; 2-8: mirrored and/or
    /// turned by a multiple of 90°), so that it shows upright.
    package func oriented(exif value: Int) -> LeptonicaImage? {
        switch value {
        case 2: return LeptonicaImage(leptonica.pixFlipLR(nil, pix))
        case 3: return LeptonicaImage(leptonica.pixRotateOrth(pix, 2))
        case 4: return LeptonicaImage(leptonica.pixFlipTB(nil, pix))
        case 5: return LeptonicaImage(leptonica.pixRotateOrth(pix, 1)).flatMap { LeptonicaImage(leptonica.pixFlipLR(nil, $0.pix)) }
        case 6: return LeptonicaImage(leptonica.pixRotateOrth(pix, 1))
        case 7: return LeptonicaImage(leptonica.pixRotateOrth(pix, 1)).flatMap { LeptonicaImage(leptonica.pixFlipTB(nil, $0.pix)) }
        case 8: return LeptonicaImage(leptonica.pixRotateOrth(pix, 3))
        default: return LeptonicaImage(leptonica.pixClone(pix))
        }
    }

    /// Turned clockwise by `quarterTurns` × 90°.
    package func turned(quarterTurns: Int) -> LeptonicaImage? {
        let quads = ((quarterTurns % 4) + 4) % 4
        return quads == 0 ? LeptonicaImage(leptonica.pixClone(pix)) : LeptonicaImage(leptonica.pixRotateOrth(pix, Int32(quads)))
    }

    /// Each pixel the lightest of its three colour channels (8-bit grey for any other depth): black
    /// print stays black, while marks in colour (a red pen, a yellow or green highlighter, a
    /// blue stamp) and a tinted security background become light.
    package func lightestChannel() -> LeptonicaImage? {
        guard leptonica.pixGetDepth(pix) == 32 else { return grey() }
        return LeptonicaImage(leptonica.pixConvertRGBToGrayMinMax(pix, Int32(L_CHOOSE_MAX)))
    }

    /// The share of pixels (0-1) in strong colour (channels more than `spread` apart): a pen or
    /// highlighter mark, a coloured box drawn on the picture; 0 for grey images.
    package func strongColourShare(spread: Int = 100) -> Double {
        // A share needs no more than about 600 pixels a side: every n-th pixel of a large photo.
        let step = Int32(max(1, max(width, height) / 600))
        guard leptonica.pixGetDepth(pix) == 32, let sample = step == 1 ? self : LeptonicaImage(leptonica.pixScaleByIntSampling(pix, step)),
              let diff = LeptonicaImage(leptonica.pixConvertRGBToGrayMinMax(sample.pix, Int32(L_CHOOSE_MAXDIFF))),
              let mask = LeptonicaImage(leptonica.pixThresholdToBinary(diff.pix, Int32(spread)))
        else { return 0 }
        // The mask is set where the spread is below the threshold.
        var below: Int32 = 0
        _ = leptonica.pixCountPixels(mask.pix, &below, nil)
        return 1 - Double(below) / Double(max(1, sample.width * sample.height))
    }

    /// JPEG-encoded (quality 0-100), for tests and tools.
    package func jpegData(quality: Int = 90) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard leptonica.pixWriteMemJpeg(&out, &size, pix, Int32(quality), 0) == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// PNG-encoded.
    package func pngData() -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard leptonica.pixWriteMemPng(&out, &size, pix, 0) == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
