import ImageCodecs
import MRZ

extension MRZScanner {
    /// One cell of a known MRZ: a training example for the cell model.
    public struct CellSample: Sendable {
        /// The index of the true character in `MRZScanner.cellAlphabet`.
        public let label: Int
        /// `cellPatchWidth` × `cellPatchHeight` ink values (0 paper, 1 ink), row by row.
        public let patch: [Float]
    }

    public static let cellAlphabet = CellClassifier.alphabet
    public static let cellPatchWidth = LineCells.patchWidth
    public static let cellPatchHeight = LineCells.patchHeight

    /// The cells of the MRZ in an image whose lines are known (`truth`), cut exactly as a scan cuts
    /// them: the training data of the cell model (`passport-bench ocr-cells`,
    /// scripts/ocr/train-cell-model). A zone counts only when it has as many lines as the truth,
    /// each line cuts into the true number of cells, and Tesseract's reading of each line is
    /// within a quarter of its length of the true line (so the zone is the MRZ, in order). Empty
    /// when no zone does. Throws `MissingLibrary` when Leptonica is not installed.
    public func cellSamples(imageData: [UInt8], truth: [String]) throws -> [CellSample] {
        guard let upright = try upright(imageData), let working = greys(of: upright)?.working,
              let prepared = finder.prepare(working), let found = finder.find(prepared, skew: prepared.skew)
        else { return [] }
        for band in found.bands.prefix(3) where band.lines.count == truth.count {
            let zone = band.zone
            var samples: [CellSample] = []
            for (line, text) in zip(band.lines, truth) {
                guard let plane = cellPlane(line, across: zone, in: found.deskewed),
                      let cells = CellSegmenter.segment(plane, lengths: [text.count]),
                      editDistance(readLine(line, across: zone, in: found.deskewed, textHeight: textHeight).text, text) <= text.count / 4
                else { samples = []; break }
                for (index, character) in text.enumerated() {
                    guard let label = CellClassifier.alphabet.firstIndex(of: character) else { continue }
                    let patch = cells.patches[(index * LineCells.patchSize)..<((index + 1) * LineCells.patchSize)]
                    samples.append(CellSample(label: label, patch: Array(patch)))
                }
            }
            if !samples.isEmpty { return samples }
        }
        return []
    }

    private func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
