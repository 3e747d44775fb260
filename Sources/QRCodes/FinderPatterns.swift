/// Counts a QR code's finder patterns (the three squares in its corners: dark, light, dark,
/// light, dark across in the proportions 1:1:3:1:1, across and down). It tells a damaged code
/// (patterns there, nothing decodes) from an image without one; it decodes nothing itself.
enum FinderPatterns {
    static func count(in image: GreyPixels) -> Int {
        guard image.width >= 21, image.height >= 21 else { return 0 }
        let threshold = midGrey(image)
        var centres: [(x: Int, y: Int, module: Double)] = []
        // Every row: runs of dark and light; five in a row in the pattern's proportions, confirmed down its middle column.
        for y in 0..<image.height {
            let runs = runLengths(count: image.width) { image.pixels[y * image.width + $0] < threshold }
            for candidate in patterns(in: runs) {
                let column = runLengths(count: image.height) { image.pixels[$0 * image.width + candidate.centre] < threshold }
                guard patterns(in: column).contains(where: { abs($0.centre - y) <= Int(candidate.module * 1.5) + 1 }) else { continue }
                centres.append((candidate.centre, y, candidate.module))
            }
        }
        return clusters(centres)
    }

    /// The middle of the lightest and darkest grey: enough to find high-contrast squares.
    private static func midGrey(_ image: GreyPixels) -> UInt8 {
        let low = image.pixels.min() ?? 0, high = image.pixels.max() ?? 255
        return UInt8((Int(low) + Int(high) + 1) / 2)
    }

    private struct Run { let dark: Bool; let start: Int; let length: Int }

    private static func runLengths(count: Int, isDark: (Int) -> Bool) -> [Run] {
        var runs: [Run] = []
        var start = 0
        while start < count {
            let dark = isDark(start)
            var end = start + 1
            while end < count && isDark(end) == dark { end += 1 }
            runs.append(Run(dark: dark, start: start, length: end - start))
            start = end
        }
        return runs
    }

    /// Centres and module sizes of dark-light-dark-light-dark runs in 1:1:3:1:1 (each within half a module).
    private static func patterns(in runs: [Run]) -> [(centre: Int, module: Double)] {
        guard runs.count >= 5 else { return [] }
        var found: [(Int, Double)] = []
        for i in 0...(runs.count - 5) where runs[i].dark {
            let lengths = runs[i..<(i + 5)].map { Double($0.length) }
            let module = lengths.reduce(0, +) / 7
            guard module >= 1 else { continue }
            let expected = [1.0, 1, 3, 1, 1]
            let fits = zip(lengths, expected).allSatisfy { abs($0 - $1 * module) <= max(module * 0.5 * $1.squareRoot(), 1) }
            if fits { found.append((runs[i + 2].start + runs[i + 2].length / 2, module)) }
        }
        return found
    }

    /// Centres closer than a few modules are the same pattern; one seen on at least two rows counts.
    private static func clusters(_ centres: [(x: Int, y: Int, module: Double)]) -> Int {
        var groups: [(x: Int, y: Int, module: Double, hits: Int)] = []
        for centre in centres {
            if let index = groups.firstIndex(where: { abs($0.x - centre.x) <= Int(3 * $0.module) + 1 && abs($0.y - centre.y) <= Int(4 * $0.module) + 1 }) {
                groups[index].hits += 1
            } else {
                groups.append((centre.x, centre.y, centre.module, 1))
            }
        }
        return groups.filter { $0.hits >= 2 }.count
    }
}
