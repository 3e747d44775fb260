import FoundationEssentials

/// An 8-bit grey image as one flat array, row by row: the cell reader's own pixel work.
struct GreyPlane {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }

    /// Linear interpolation between the four nearest pixels; outside the plane, the nearest edge.
    func sample(_ x: Double, _ y: Double) -> Double {
        let fx = min(max(x - 0.5, 0), Double(width - 1)), fy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let dx = fx - Double(x0), dy = fy - Double(y0)
        let top = Double(self[x0, y0]) * (1 - dx) + Double(self[x1, y0]) * dx
        let bottom = Double(self[x0, y1]) * (1 - dx) + Double(self[x1, y1]) * dx
        return top * (1 - dy) + bottom * dy
    }
}

/// One MRZ line cut into its character cells, each resampled to a small patch of ink values.
struct LineCells {
    static let patchWidth = 16
    static let patchHeight = 24
    static var patchSize: Int { patchWidth * patchHeight }

    /// How many cells: the layout's line length.
    let count: Int
    /// `count` patches of `patchSize` values, row by row; 0 is paper, 1 full ink.
    let patches: [Float]
    /// Cell width in pixels of the plane that was cut.
    let pitch: Double

    /// The line as it reads when the page is upside down: the cells in reverse order, each patch
    /// turned half a turn (a row-major patch turned 180° is its values reversed).
    var turnedHalf: LineCells {
        var turned = [Float](repeating: 0, count: patches.count)
        for cell in 0..<count {
            let source = (count - 1 - cell) * LineCells.patchSize, target = cell * LineCells.patchSize
            for index in 0..<LineCells.patchSize { turned[target + index] = patches[source + LineCells.patchSize - 1 - index] }
        }
        return LineCells(count: count, patches: turned, pitch: pitch)
    }
}

/// Cuts an MRZ line into cells. OCR-B is a fixed-pitch font and every position of an MRZ line is
/// printed (an empty position as the filler '<'), so a line of N characters is N cells of equal
/// width: the centres of the characters' ink, numbered by pitch, give the grid. No reading is
/// involved, so a misread character cannot shift the others (as an extra or lost character does in
/// a line reader), and a blot or a faded stroke stays in its own cell.
///
/// The grid is fitted as x = a + b·k + c·k² (a page held at an angle has a pitch that changes
/// along the line); the cap line and the base line are fitted the same way. A line whose marks do
/// not make a grid of one of the `lengths` is refused (nil): another reader takes it.
enum CellSegmenter {
    /// A connected set of ink pixels.
    struct Mark {
        var minX: Int, maxX: Int, minY: Int, maxY: Int, area: Int
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }
        var centreX: Double { Double(minX + maxX + 1) / 2 }
        var centreY: Double { Double(minY + maxY + 1) / 2 }
    }

    static func segment(_ plane: GreyPlane, lengths: Set<Int>) -> LineCells? {
        guard plane.width > 16, plane.height > 8 else { return nil }
        let threshold = otsuThreshold(plane)
        let marks = components(plane, threshold: threshold)
        guard let glyphs = lineGlyphs(marks), glyphs.glyphs.count >= 8 else { return nil }
        guard let grid = fitGrid(glyphs.glyphs, capHeight: glyphs.capHeight, lengths: lengths) else { return nil }
        let rows = fitRows(glyphs.glyphs, capHeight: glyphs.capHeight)
        let middle = Double(plane.width) / 2
        let levels = inkLevels(plane, top: rows.top(middle), bottom: rows.bottom(middle), threshold: threshold)
        var patches = [Float](repeating: 0, count: grid.count * LineCells.patchSize)
        for cell in 0..<grid.count {
            let centre = grid.centre(cell), pitch = grid.pitch(cell)
            let top = rows.top(centre), bottom = rows.bottom(centre)
            let margin = 0.12 * (bottom - top)
            cut(plane, x0: centre - pitch / 2, width: pitch, y0: top - margin, height: bottom - top + 2 * margin,
                levels: levels, into: &patches, at: cell * LineCells.patchSize)
        }
        return LineCells(count: grid.count, patches: patches, pitch: grid.pitch(grid.count / 2))
    }

    // MARK: - Ink

    /// Otsu's threshold over the plane's histogram: below it is ink.
    static func otsuThreshold(_ plane: GreyPlane) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        for value in plane.pixels { histogram[Int(value)] += 1 }
        let total = Double(plane.pixels.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var backgroundWeight = 0.0, backgroundSum = 0.0, best = 0.0, threshold = 128
        for level in 0..<256 {
            backgroundWeight += Double(histogram[level])
            guard backgroundWeight > 0, backgroundWeight < total else { continue }
            backgroundSum += Double(level * histogram[level])
            let meanLow = backgroundSum / backgroundWeight
            let meanHigh = (sum - backgroundSum) / (total - backgroundWeight)
            let between = backgroundWeight * (total - backgroundWeight) * (meanLow - meanHigh) * (meanLow - meanHigh)
            if between > best { best = between; threshold = level + 1 }
        }
        return threshold
    }

    /// The 8-connected sets of pixels darker than `threshold`.
    static func components(_ plane: GreyPlane, threshold: Int) -> [Mark] {
        let (w, h) = (plane.width, plane.height)
        var label = [Bool](repeating: false, count: w * h)
        var marks: [Mark] = []
        var stack: [Int] = []
        for start in 0..<(w * h) where !label[start] && Int(plane.pixels[start]) < threshold {
            label[start] = true
            stack.append(start)
            var mark = Mark(minX: start % w, maxX: start % w, minY: start / w, maxY: start / w, area: 0)
            while let index = stack.popLast() {
                let x = index % w, y = index / w
                mark.area += 1
                mark.minX = min(mark.minX, x); mark.maxX = max(mark.maxX, x)
                mark.minY = min(mark.minY, y); mark.maxY = max(mark.maxY, y)
                for ny in max(0, y - 1)...min(h - 1, y + 1) {
                    for nx in max(0, x - 1)...min(w - 1, x + 1) {
                        let neighbour = ny * w + nx
                        if !label[neighbour] && Int(plane.pixels[neighbour]) < threshold {
                            label[neighbour] = true
                            stack.append(neighbour)
                        }
                    }
                }
            }
            marks.append(mark)
        }
        return marks
    }

    /// The marks that belong to the line's characters, and the cap height: the line is the row
    /// of marks of one height (letters and digits are all capitals of one size); specks, rules,
    /// and the edges of the lines above and below are dropped.
    static func lineGlyphs(_ marks: [Mark]) -> (glyphs: [Mark], capHeight: Double)? {
        let tall = marks.filter { $0.height >= 6 && $0.width <= 3 * $0.height && $0.area >= 8 }
        guard tall.count >= 8 else { return nil }
        let heights = tall.map(\.height).sorted()
        let capHeight = Double(heights[heights.count * 7 / 10])
        let full = tall.filter { Double($0.height) >= 0.8 * capHeight && Double($0.height) <= 1.25 * capHeight }
        guard full.count >= 5 else { return nil }
        let middle = median(full.map(\.centreY))
        let glyphs = marks.filter { mark in
            Double(mark.height) >= 0.3 * capHeight && Double(mark.height) <= 1.35 * capHeight
                && Double(mark.width) <= 2.4 * capHeight && abs(mark.centreY - middle) <= 0.45 * capHeight
        }.sorted { $0.centreX < $1.centreX }
        return (glyphs, capHeight)
    }

    // MARK: - The grid

    struct Grid {
        /// Cell k's centre is a + b·k + c·k², k = 0..<count.
        let a: Double, b: Double, c: Double
        let count: Int
        func centre(_ k: Int) -> Double { a + b * Double(k) + c * Double(k * k) }
        func pitch(_ k: Int) -> Double { b + 2 * c * Double(k) }
    }

    /// The cells the glyphs' centres lie on, if they make a line of one of `lengths` cells.
    static func fitGrid(_ glyphs: [Mark], capHeight: Double, lengths: Set<Int>) -> Grid? {
        // The pitch: the usual distance between neighbouring characters (about one cap height).
        let steps = zip(glyphs, glyphs.dropFirst()).map { $1.centreX - $0.centreX }
            .filter { $0 >= 0.6 * capHeight && $0 <= 1.6 * capHeight }
        guard steps.count >= 5 else { return nil }
        let pitch = median(steps)
        // Marks as wide as two cells are characters run together: they place no centre.
        let single = glyphs.filter { Double($0.width) <= 1.25 * pitch }
        guard single.count >= 8 else { return nil }
        // Number the marks by walking left to right in steps of the pitch (pieces of one broken
        // character get the same number), then fit and drop the marks off the grid.
        var indices: [Int] = [0]
        for (previous, next) in zip(single, single.dropFirst()) {
            indices.append(indices.last! + max(0, Int(((next.centreX - previous.centreX) / pitch).rounded())))
        }
        var points = zip(indices, single.map(\.centreX)).map { (k: Double($0), x: $1) }
        var fit = fitQuadratic(points)
        for _ in 0..<2 {
            guard let current = fit else { return nil }
            let kept = points.filter { abs(current.value($0.k) - $0.x) <= 0.3 * pitch }
            guard kept.count >= 8 else { return nil }
            // Renumber against the fit: a wrong step in the walk shows as a whole-pitch residual.
            points = kept.map { point in (k: current.index(of: point.x).rounded(), x: point.x) }
            fit = fitQuadratic(points)
        }
        guard let line = fit, line.b > 0.5 * capHeight, line.b < 1.7 * capHeight else { return nil }
        // The extent: every mark near the line, wide ones included, covers cells; a speck beside
        // the line (a guilloche's end) may add a weak cell at either end, which is trimmed when
        // that gives a line of a permitted length.
        var evidence: [Int: Int] = [:]
        for mark in glyphs {
            let left = Int(line.index(of: Double(mark.minX) + 0.5 * line.b).rounded())
            let right = Int(line.index(of: Double(mark.maxX + 1) - 0.5 * line.b).rounded())
            for cell in min(left, right)...max(left, right) { evidence[cell] = max(evidence[cell] ?? 0, mark.area) }
        }
        guard var first = evidence.keys.min(), var last = evidence.keys.max() else { return nil }
        let typical = median(evidence.values.map(Double.init))
        func weak(_ cell: Int) -> Bool { Double(evidence[cell] ?? 0) < 0.25 * typical }
        while !lengths.contains(last - first + 1), last - first + 1 > (lengths.min() ?? 0) {
            if weak(first) && (!weak(last) || (evidence[first] ?? 0) <= (evidence[last] ?? 0)) { first += 1 }
            else if weak(last) { last -= 1 }
            else { break }
        }
        let count = last - first + 1
        guard lengths.contains(count) else { return nil }
        let k0 = Double(first)
        // Re-based so that cell 0 is the first cell.
        return Grid(a: line.value(k0), b: line.b + 2 * line.c * k0, c: line.c, count: count)
    }

    struct Quadratic {
        let a: Double, b: Double, c: Double
        func value(_ k: Double) -> Double { a + b * k + c * k * k }
        /// The (fractional) cell at `x`: the linear estimate, refined once for the curvature.
        func index(of x: Double) -> Double {
            let linear = (x - a) / b
            return (x - a - c * linear * linear) / b
        }
    }

    /// Least squares x = a + b·k + c·k² (c only when the points span enough cells to show it).
    static func fitQuadratic(_ points: [(k: Double, x: Double)]) -> Quadratic? {
        guard points.count >= 3 else { return nil }
        let ks = points.map(\.k)
        let span = (ks.max() ?? 0) - (ks.min() ?? 0)
        if span >= 12, let solved = leastSquares(points.map { [1, $0.k, $0.k * $0.k] }, points.map(\.x)) {
            return Quadratic(a: solved[0], b: solved[1], c: solved[2])
        }
        guard let solved = leastSquares(points.map { [1, $0.k] }, points.map(\.x)) else { return nil }
        return Quadratic(a: solved[0], b: solved[1], c: 0)
    }

    /// The cap line and the base line of the characters, fitted along the line.
    struct Rows {
        let topA: Double, topB: Double, bottomA: Double, bottomB: Double
        func top(_ x: Double) -> Double { topA + topB * x }
        func bottom(_ x: Double) -> Double { bottomA + bottomB * x }
    }

    static func fitRows(_ glyphs: [Mark], capHeight: Double) -> Rows {
        let full = glyphs.filter { Double($0.height) >= 0.8 * capHeight }
        let top = leastSquares(full.map { [1, $0.centreX] }, full.map { Double($0.minY) })
        let bottom = leastSquares(full.map { [1, $0.centreX] }, full.map { Double($0.maxY + 1) })
        if let top, let bottom, abs(top[1]) < 0.1, abs(bottom[1]) < 0.1 {
            return Rows(topA: top[0], topB: top[1], bottomA: bottom[0], bottomB: bottom[1])
        }
        let flatTop = median(full.map { Double($0.minY) }), flatBottom = median(full.map { Double($0.maxY + 1) })
        return Rows(topA: flatTop, topB: 0, bottomA: flatBottom, bottomB: 0)
    }

    // MARK: - Patches

    /// The paper and ink grey levels of the line's band (each patch is scaled between them, so
    /// that faint print and strong print look alike and a filler is not mistaken for a blot).
    static func inkLevels(_ plane: GreyPlane, top: Double, bottom: Double, threshold: Int) -> (paper: Double, ink: Double) {
        var histogram = [Int](repeating: 0, count: 256)
        let y0 = max(0, Int(top)), y1 = min(plane.height, Int(bottom.rounded(.up)))
        for y in y0..<max(y0, y1) {
            for x in 0..<plane.width { histogram[Int(plane[x, y])] += 1 }
        }
        func percentile(_ share: Double, in range: ClosedRange<Int>) -> Double {
            let total = range.reduce(0) { $0 + histogram[$1] }
            guard total > 0 else { return Double(range.lowerBound) }
            var seen = 0
            for level in range {
                seen += histogram[level]
                if Double(seen) >= share * Double(total) { return Double(level) }
            }
            return Double(range.upperBound)
        }
        let cut = min(max(threshold, 1), 255)
        let ink = percentile(0.1, in: 0...(cut - 1))
        let paper = percentile(0.5, in: cut...255)
        return (paper, min(ink, paper - 24))
    }

    /// Resamples one cell into a patch (2×2 samples per patch pixel, so that shrinking averages).
    static func cut(_ plane: GreyPlane, x0: Double, width: Double, y0: Double, height: Double,
                    levels: (paper: Double, ink: Double), into patches: inout [Float], at offset: Int) {
        let (pw, ph) = (LineCells.patchWidth, LineCells.patchHeight)
        let stepX = width / Double(pw), stepY = height / Double(ph)
        let range = levels.paper - levels.ink
        for row in 0..<ph {
            for column in 0..<pw {
                let x = x0 + (Double(column) + 0.25) * stepX, y = y0 + (Double(row) + 0.25) * stepY
                let grey = (plane.sample(x, y) + plane.sample(x + stepX / 2, y)
                    + plane.sample(x, y + stepY / 2) + plane.sample(x + stepX / 2, y + stepY / 2)) / 4
                patches[offset + row * pw + column] = Float(min(1, max(0, (levels.paper - grey) / range)))
            }
        }
    }

    // MARK: - Arithmetic

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The least-squares solution of rows · β = targets (normal equations; nil when singular).
    static func leastSquares(_ rows: [[Double]], _ targets: [Double]) -> [Double]? {
        guard let n = rows.first?.count, rows.count >= n else { return nil }
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for (row, target) in zip(rows, targets) {
            for i in 0..<n {
                for j in 0..<n { matrix[i][j] += row[i] * row[j] }
                matrix[i][n] += row[i] * target
            }
        }
        // Gaussian elimination with partial pivoting.
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(matrix[$0][column]) < abs(matrix[$1][column]) }),
                  abs(matrix[pivot][column]) > 1e-9 else { return nil }
            matrix.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = matrix[row][column] / matrix[column][column]
                for k in column...n { matrix[row][k] -= factor * matrix[column][k] }
            }
        }
        return (0..<n).map { matrix[$0][n] / matrix[$0][$0] }
    }
}
