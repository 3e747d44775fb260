import CLeptonica
import ImageCodecs

extension MRZScanner {
    /// Reads the MRZ from raw 8-bit grey pixels (a video frame: VideoFrames), within `workBudget` (and the outer `timeBudget`), as a photo.
    /// `pixels` holds `height` rows of `bytesPerRow` bytes, the first `width` of each are the image.
    public func scan(greyPixels pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bytesPerRow: Int) throws -> MRZScanResult {
        let budget = SearchBudget(work: workBudget, outerSeconds: timeBudget)
        lastSearch = nil
        guard width > 0, height > 0, bytesPerRow >= width, pixels.count >= bytesPerRow * (height - 1) + width,
              let image = try LeptonicaImage.grey(pixels, width: width, height: height, bytesPerRow: bytesPerRow)
        else { throw MRZScanError.undecodableImage }
        return try scan(upright: image, budget: budget)
    }

    public func scan(greyPixels pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil) throws -> MRZScanResult {
        try pixels.withUnsafeBufferPointer { try scan(greyPixels: $0, width: width, height: height, bytesPerRow: bytesPerRow ?? width) }
    }
}

extension LeptonicaImage {
    /// An 8-bit Leptonica image holding a copy of the grey rows. Leptonica keeps each row as 32-bit
    /// words with the first pixel in the most significant byte (its GET/SET_DATA_BYTE macros).
    /// Throws `MissingLibrary` when Leptonica is not installed.
    static func grey(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bytesPerRow: Int) throws -> LeptonicaImage? {
        let leptonica = try Leptonica.functions()
        guard let image = LeptonicaImage(leptonica.pixCreate(Int32(width), Int32(height), 8)), let data = leptonica.pixGetData(image.pix) else { return nil }
        let wordsPerLine = Int(leptonica.pixGetWpl(image.pix))
        let source = pixels.baseAddress!
        for y in 0..<height {
            let row = data + y * wordsPerLine
            let from = source + y * bytesPerRow
            for word in 0..<(width + 3) / 4 {
                var value: UInt32 = 0
                for byte in 0..<4 {
                    let x = word * 4 + byte
                    value = value << 8 | UInt32(x < width ? from[x] : 255)
                }
                row[word] = value
            }
        }
        return image
    }
}
