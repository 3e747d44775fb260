import Foundation
@testable import QRCodes
import Testing
import TestSupport

/// Our QR codes read by an independent reader (ZBar's zbarimg), and codes made by an independent
/// encoder (qrencode) read by ours: the exact bytes back, from a 200-byte request to the largest
/// presentation one code holds at level M (2331 bytes, version 40).
@Suite struct QRRoundTrips {
    static let sizes = [200, 700, 1400, 2331]

    /// zbarimg --raw ends each code with a newline.
    static func decoded(_ data: Data) -> String {
        String(decoding: data.last == 0x0A ? data.dropLast() : data, as: UTF8.self)
    }

    @Test(arguments: sizes)
    func ourPNGReadsBackInZbarimg(_ size: Int) throws {
        let text = QRPeers.text(bytes: size, seed: size)
        let matrix = try QREncoder.encode(text)
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("code.png")
        try Data(QRRendering.png(matrix, moduleSize: 4)).write(to: png)
        #expect(Self.decoded(try QRPeers.zbarimg(png.path)) == text)
        if size == 2331 { #expect(matrix.version == 40 && matrix.size == 177) }
    }

    @Test(arguments: sizes)
    func ourSVGRasterizedByLibrsvgReadsBack(_ size: Int) throws {
        let text = QRPeers.text(bytes: size, seed: size + 1)
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = folder.appendingPathComponent("code.svg"), png = folder.appendingPathComponent("code.png")
        try Data(QRRendering.svg(try QREncoder.encode(text), moduleSize: 4).utf8).write(to: svg)
        let rasterized = try QRPeers.run("rsvg-convert", ["-o", png.path, svg.path])
        try #require(rasterized.status == 0, "rsvg-convert: \(rasterized.stderr)")
        #expect(Self.decoded(try QRPeers.zbarimg(png.path)) == text)
    }

    /// The terminal's half blocks drawn as a screen shows them (ink light, background dark),
    /// with and without the colour codes, read by zbarimg.
    @Test(arguments: sizes)
    func ourTerminalTextReadsBackInZbarimg(_ size: Int) throws {
        let text = QRPeers.text(bytes: size, seed: size + 2)
        let matrix = try QREncoder.encode(text)
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = QRRendering.terminalText(matrix, colours: false)
        let coloured = QRRendering.terminalText(matrix, colours: true)
        // The colours wrap each line and change no glyph.
        #expect(coloured.replacingOccurrences(of: "\u{1B}[40;97m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "") == plain)
        #expect(plain.unicodeScalars.allSatisfy { " ▀▄█\n".unicodeScalars.contains($0) })
        // A quiet zone of 4 modules on every side: the first two lines and the first four columns are all ink.
        let lines = plain.split(separator: "\n")
        #expect(lines.count == (matrix.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == matrix.size + 8 && $0.prefix(4).allSatisfy { "█▀".contains($0) } })
        #expect(lines.prefix(2).allSatisfy { $0.allSatisfy { $0 == "█" } })
        let pgm = folder.appendingPathComponent("terminal.pgm")
        try TerminalRaster.pgm(TerminalRaster.pixels(plain, scale: 3)).write(to: pgm)
        #expect(Self.decoded(try QRPeers.zbarimg(pgm.path)) == text)
    }

    @Test func oneByteOverTheLimitDoesNotFit() throws {
        let text = QRPeers.text(bytes: QREncoder.capacity + 1, seed: 9)
        #expect(throws: QRCodeError.tooLarge(bytes: 2332, limit: 2331)) { try QREncoder.encode(text) }
        let message = QRCodeError.tooLarge(bytes: 2332, limit: 2331).description
        #expect(message.contains("2332 bytes") && message.contains("2331") && message.contains("--disclose"))
    }

    @Test(arguments: sizes)
    func qrencodesPNGReadsBackInOurReader(_ size: Int) throws {
        let text = QRPeers.text(bytes: size, seed: size + 3)
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("peer.png")
        try QRPeers.qrencodePNG(Data(text.utf8), to: png.path)
        #expect(try QRImageReader.read(Array(try Data(contentsOf: png)), source: "peer.png") == text)
    }

    /// Binary mode: UTF-8 beyond ASCII comes back as the same bytes, not re-encoded from a guessed charset.
    @Test func utf8BytesComeBackUnchanged() throws {
        let text = "openid4vp://?client_id=redirect_uri%3Ahttps://caf\u{E9}.example/\u{20AC}\u{4E2D}"
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("utf8.png")
        try QRPeers.qrencodePNG(Data(text.utf8), to: png.path)
        #expect(try QRImageReader.read(Array(try Data(contentsOf: png)), source: "utf8.png") == text)
        let ours = folder.appendingPathComponent("ours.png")
        try Data(QRRendering.png(try QREncoder.encode(text))).write(to: ours)
        #expect(Self.decoded(try QRPeers.zbarimg(ours.path)) == text)
    }

    /// The PNG is well formed for an independent decoder (PIL checks every chunk's CRC and the zlib stream's Adler-32).
    @Test func pngIsReadByPIL() throws {
        let matrix = try QREncoder.encode("openid4vp://?request_uri=https://v.example/r")
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("code.png")
        try Data(QRRendering.png(matrix, moduleSize: 8)).write(to: png)
        let script = "import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.load(); print(i.mode, i.size[0], i.size[1], i.getpixel((0, 0)), i.getpixel((32, 32)))"
        let r = try QRPeers.run("/usr/bin/python3", ["-c", script, png.path])
        let side = (matrix.size + 8) * 8
        #expect(String(decoding: r.stdout, as: UTF8.self) == "L \(side) \(side) 255 0\n", "\(r.stderr)")
        // Compressed through zlib: a few KiB, not the 8-bit pixels' side² bytes.
        let size = try Data(contentsOf: png).count
        #expect(size < side * side / 50, "\(size) bytes for \(side)×\(side)")
    }

    /// Without zlib the image data is stored deflate blocks: Python's zlib inflates them to the
    /// same bytes and checks their Adler-32 (several 65535-byte blocks and a short last one).
    @Test func storedBlocksInflateInPythonsZlib() throws {
        let data = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stream = folder.appendingPathComponent("stored.zlib")
        try Data(PNGWriter.zlibStored(data)).write(to: stream)
        let script = "import sys, zlib, hashlib; print(hashlib.sha256(zlib.decompress(open(sys.argv[1], 'rb').read())).hexdigest())"
        let r = try QRPeers.run("/usr/bin/python3", ["-c", script, stream.path])
        #expect(String(decoding: r.stdout, as: UTF8.self) == hex(SHA256Test.digest(data)).lowercased() + "\n", "\(r.stderr)")
    }
}
