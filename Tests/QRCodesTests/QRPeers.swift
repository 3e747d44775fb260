import Foundation
import QRCodes
import TestSupport

/// The independent peers the QR tests check against: Debian's zbar-tools (`zbarimg`), qrencode,
/// librsvg's `rsvg-convert`, and the photo and video generator scripts/qr/make-screen-photos
/// (Python PIL, ffmpeg). scripts/setup installs them; a missing one fails the test.
enum QRPeers {
    struct Output { let status: Int32; let stdout: Data; let stderr: String }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // stdout read to its end first; the tools write little on stderr, well within a pipe's buffer.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: stdoutData, stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// What zbarimg reads from an image file: each code's bytes (--raw, binary so nothing is converted).
    static func zbarimg(_ path: String) throws -> Data {
        let r = try run("zbarimg", ["--raw", "-q", "-Sbinary", "-Sdisable", "-Sqrcode.enable", path])
        guard r.status == 0 else { throw PeerError("zbarimg \(path) exited \(r.status): \(r.stderr)") }
        return r.stdout
    }

    /// A PNG of `text`'s bytes made by qrencode (level M, 8-bit mode, 6 pixels a module).
    static func qrencodePNG(_ bytes: Data, to path: String, level: String = "M") throws {
        let r = try run("qrencode", ["-8", "-l", level, "-s", "6", "-o", path], stdin: bytes)
        guard r.status == 0 else { throw PeerError("qrencode exited \(r.status): \(r.stderr)") }
    }

    static func temporaryFolder() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qr-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A text of exactly `count` bytes that looks like what travels: an openid4vp:// link or a JWT-like token.
    static func text(bytes count: Int, seed: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
        var state = UInt64(truncatingIfNeeded: seed) &* 6364136223846793005 &+ 1442695040888963407
        let prefix = "openid4vp://?client_id=x509_hash%3A"
        var text = prefix
        while text.utf8.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            text.append(alphabet[Int(state >> 33) % alphabet.count])
        }
        return String(text.prefix(count))
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Terminal text drawn by `QRRendering.terminalText` back to pixels, the way a screen shows it:
/// each character two modules high, ink (light) where the half block is, background (dark) elsewhere.
enum TerminalRaster {
    static func pixels(_ text: String, scale: Int) -> GreyPixels {
        let lines = text.split(separator: "\n").map { Array($0) }
        let columns = lines.map(\.count).max() ?? 0
        let width = columns * scale, height = lines.count * 2 * scale
        var pixels = [UInt8](repeating: 0, count: width * height)
        for (row, line) in lines.enumerated() {
            for (column, character) in line.enumerated() {
                let (upper, lower): (Bool, Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                default: (false, false)
                }
                for (half, light) in [(0, upper), (1, lower)] where light {
                    for dy in 0..<scale {
                        let y = (row * 2 + half) * scale + dy
                        for dx in 0..<scale { pixels[y * width + column * scale + dx] = 255 }
                    }
                }
            }
        }
        return GreyPixels(width: width, height: height, pixels: pixels)
    }

    /// A binary PGM (P5) file, which zbarimg reads through ImageMagick.
    static func pgm(_ image: GreyPixels) -> Data {
        Data("P5\n\(image.width) \(image.height)\n255\n".utf8) + Data(image.pixels)
    }
}

/// Matrices drawn to grey pixels by the test (black on white, quiet zone of 4), for images the
/// library is not asked to make: two codes side by side, a damaged code.
enum MatrixRaster {
    static func pixels(_ matrices: [QRMatrix], scale: Int) -> GreyPixels {
        let sides = matrices.map { ($0.size + 8) * scale }
        let width = sides.reduce(0, +), height = sides.max() ?? 0
        var pixels = [UInt8](repeating: 255, count: width * height)
        var left = 0
        for (matrix, side) in zip(matrices, sides) {
            for y in 0..<side {
                for x in 0..<side where matrix.isDark(x: x / scale - 4, y: y / scale - 4) { pixels[y * width + left + x] = 0 }
            }
            left += side
        }
        return GreyPixels(width: width, height: height, pixels: pixels)
    }
}
