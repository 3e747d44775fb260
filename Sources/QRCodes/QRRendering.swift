/// A QR code drawn as terminal text, SVG or PNG, each with a quiet zone of 4 modules (ISO/IEC
/// 18004 asks for 4): without it a reader cannot find the code's edge against what surrounds it.
public enum QRRendering {
    public static let quietZone = 4

    /// Unicode half blocks, two module rows per line. The ink draws the LIGHT modules and the
    /// background shows the dark ones: with `colours` the background is set black and the ink
    /// bright white (SGR 40;97 on every line, reset at its end), so the code is dark on light
    /// whatever the terminal's theme; without (not a terminal, NO_COLOR) it is the same glyphs,
    /// which read correctly on a dark background, as `qrencode -t UTF8` prints.
    public static func terminalText(_ matrix: QRMatrix, colours: Bool) -> String {
        let span = -quietZone..<(matrix.size + quietZone)
        var lines: [String] = []
        for top in stride(from: span.lowerBound, to: span.upperBound, by: 2) {
            var line = colours ? "\u{1B}[40;97m" : ""
            for x in span {
                let upperLight = !matrix.isDark(x: x, y: top)
                // An odd number of rows leaves the last line's lower half outside: drawn dark (background).
                let lowerLight = top + 1 < span.upperBound && !matrix.isDark(x: x, y: top + 1)
                line += halfBlock(upper: upperLight, lower: lowerLight)
            }
            lines.append(line + (colours ? "\u{1B}[0m" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func halfBlock(upper: Bool, lower: Bool) -> String {
        switch (upper, lower) {
        case (true, true): return "█"
        case (true, false): return "▀"
        case (false, true): return "▄"
        case (false, false): return " "
        }
    }

    /// An SVG document: one path of unit squares for the dark modules on a white rectangle,
    /// `moduleSize` pixels a module, edges crisp.
    public static func svg(_ matrix: QRMatrix, moduleSize: Int = 8) -> String {
        let side = matrix.size + 2 * quietZone
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            while x < matrix.size {
                guard matrix.isDark(x: x, y: y) else { x += 1; continue }
                var run = 1
                while matrix.isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(side * moduleSize)" height="\(side * moduleSize)" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
        <rect width="\(side)" height="\(side)" fill="#ffffff"/>
        <path d="\(path)" fill="#000000"/>
        </svg>

        """
    }

    /// A greyscale PNG, `moduleSize` pixels a module, black on white.
    public static func png(_ matrix: QRMatrix, moduleSize: Int = 8) -> [UInt8] {
        let side = (matrix.size + 2 * quietZone) * moduleSize
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<side {
            for x in 0..<side where matrix.isDark(x: x / moduleSize - quietZone, y: y / moduleSize - quietZone) {
                pixels[y * side + x] = 0
            }
        }
        return PNGWriter.grey(pixels, width: side, height: side)
    }
}
