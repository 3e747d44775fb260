import Foundation
import QRCodes
import Testing
import TestSupport

/// What the reader refuses, each with its own error: no code, two codes, a damaged code, bytes
/// that are not text, control characters, and (for the commands) what is not a request or a
/// presentation, or too long.
@Suite struct QRBadInput {
    @Test func anImageWithoutACodeIsNoCode() throws {
        let blank = GreyPixels(width: 300, height: 200, pixels: [UInt8](repeating: 200, count: 300 * 200))
        #expect(throws: QRCodeError.noCode(source: "blank", detail: "")) { try QRDecoder.single(in: blank, source: "blank") }
    }

    @Test func twoCodesInOneImageAreRefused() throws {
        let image = MatrixRaster.pixels([try QREncoder.encode("openid4vp://?a=1"), try QREncoder.encode("openid4vp://?b=2")], scale: 4)
        #expect(try QRDecoder.decode(image).count == 2)
        #expect(throws: QRCodeError.severalCodes(source: "two", count: 2)) { try QRDecoder.single(in: image, source: "two") }
    }

    /// A third of the code painted over, its three finder patterns left: damaged, not "none".
    @Test func aDamagedCodeIsNamedAsSuch() throws {
        let matrix = try QREncoder.encode(QRPeers.text(bytes: 300, seed: 4))
        var image = MatrixRaster.pixels([matrix], scale: 4)
        var pixels = image.pixels
        let side = image.width
        for y in (side * 2 / 5)..<(side * 3 / 5) { for x in (side / 5)..<(side * 4 / 5) { pixels[y * side + x] = 255 } }
        image = GreyPixels(width: side, height: side, pixels: pixels)
        #expect(throws: QRCodeError.damaged(source: "damaged")) { try QRDecoder.single(in: image, source: "damaged") }
    }

    @Test func bytesThatAreNotUTF8AreRefused() throws {
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("binary.png")
        try QRPeers.qrencodePNG(Data([0x6F, 0xFF, 0xFE, 0x00, 0x80]), to: png.path)
        #expect(throws: QRCodeError.notText(source: "binary.png", bytes: 5)) { try QRImageReader.read(Array(try Data(contentsOf: png)), source: "binary.png") }
    }

    /// ESC[2K and a carriage return in the code: refused, and the message shows them escaped, never raw.
    @Test func controlCharactersAreRefusedAndShownEscaped() throws {
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("escape.png")
        try QRPeers.qrencodePNG(Data("openid4vp://?client_id=\u{1B}[2Kbank.example\r".utf8), to: png.path)
        do {
            _ = try QRImageReader.read(Array(try Data(contentsOf: png)), source: "escape.png")
            Issue.record("a code with escape codes was accepted")
        } catch let error as QRCodeError {
            guard case .controlCharacters = error else { Issue.record("\(error)"); return }
            #expect(!error.description.contains("\u{1B}") && !error.description.contains("\r"))
            #expect(error.description.contains("\\u{1B}[2Kbank.example\\u{D}"))
        }
        for scalar in ["\u{9B}", "\u{202E}", "\u{2028}", "\t", "\n", "\u{7F}"] {
            #expect(throws: QRCodeError.self) { try QRText.checked(Array("openid4vp://x\(scalar)".utf8), source: "s") }
        }
    }

    @Test func onlyOpenID4VPAndHAIPLinksAreRequests() throws {
        #expect(try QRContent.request("openid4vp://?client_id=a", source: "s", limit: 1_048_576) == "openid4vp://?client_id=a")
        #expect(try QRContent.request("HAIP-VP://?client_id=a", source: "s", limit: 1_048_576) == "HAIP-VP://?client_id=a")
        #expect(throws: QRCodeError.notARequest(source: "s", excerpt: "\"https://shop.example/\"")) {
            try QRContent.request("https://shop.example/", source: "s", limit: 1_048_576)
        }
        #expect(throws: QRCodeError.tooLong(source: "s", bytes: 1_048_577, limit: 1_048_576)) {
            try QRContent.request("openid4vp://?" + String(repeating: "a", count: 1_048_577 - 13), source: "s", limit: 1_048_576)
        }
    }

    @Test func onlyJWTsAndSDJWTsArePresentations() throws {
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.c2ln"
        #expect(try QRContent.presentation(jwt, source: "s", limit: 100) == jwt)
        #expect(try QRContent.presentation(jwt + "~WyJhIl0~" + jwt, source: "s", limit: 1000) == jwt + "~WyJhIl0~" + jwt)
        for text in ["openid4vp://?client_id=a", "hello", "a.b", "{\"vp_token\":1}", ".x.y"] {
            #expect(throws: QRCodeError.self) { try QRContent.presentation(text, source: "s", limit: 1000) }
        }
        #expect(throws: QRCodeError.tooLong(source: "s", bytes: jwt.utf8.count, limit: 10)) { try QRContent.presentation(jwt, source: "s", limit: 10) }
    }

    @Test func anImageThatIsNoImageIsNamed() throws {
        #expect(throws: QRCodeError.self) { try QRImageReader.read(Array("not an image".utf8), source: "x.png") }
    }
}
