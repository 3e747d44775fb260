import Foundation
import Testing
import TestSupport

/// `present --qr` / `--qr-out`, `present --request-qr` and `verify-vp --qr` through the real
/// executable (issue 49): our codes read back by zbarimg and by `verify-vp --qr`, every bad input
/// with its error code and exit status, nothing signed or sent when the input is refused, and the
/// libraries made absent.
@Suite(.serialized) final class QRCodeCommands {
    let home = Harness.temporaryFolder()
    var env: [String: String] { ["XDG_CONFIG_HOME": home.path, "PASSPORT_KEYRING": "off"] }
    static let csca = TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem").path
    static let issuerPKI = TestPaths.fixtures.appendingPathComponent("pki/issuer")

    deinit { try? FileManager.default.removeItem(at: home) }

    func file(_ name: String) -> String { home.appendingPathComponent(name).path }

    /// A self-issued credential (L1), or an institution's (L2, its x5c chain in every presentation).
    func credential(institution: Bool = false) throws -> String {
        let out = file(institution ? "issued.credential" : "self.credential")
        if FileManager.default.fileExists(atPath: out) { return out }
        var arguments = ["issue", TestPaths.fixtures.appendingPathComponent("passport").path, "--no-default-trust", "--csca", Self.csca, "--out", out, "--yes"]
        if institution {
            arguments += ["--issuer-key", Self.issuerPKI.appendingPathComponent("TEST-ONLY-issuer.key.pem").path,
                          "--issuer-chain", Self.issuerPKI.appendingPathComponent("TEST-ONLY-issuer-chain.pem").path, "--batch", "2"]
        }
        let r = try Harness.passport(arguments, environment: env)
        try #require(r.status == 0, "issue: \(r.stderr)")
        return out
    }

    func qrencode(_ text: String, to name: String) throws -> String {
        let path = file(name)
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/qrencode"), ["-l", "M", "-s", "6", "-o", path, text])
        try #require(r.status == 0, "qrencode: \(r.stderr)")
        return path
    }

    func zbarimg(_ path: String) throws -> String {
        // QR codes only: with every symbology on, zbarimg now and then also finds a linear barcode
        // (a GS1 DataBar) in a large code's modules and prints it as a second line.
        let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/zbarimg"), ["--raw", "-q", "-Sbinary", "-Sdisable", "-Sqrcode.enable", path])
        try #require(r.status == 0, "zbarimg: \(r.stderr)")
        return r.stdout.hasSuffix("\n") ? String(r.stdout.dropLast()) : r.stdout
    }

    static func code(_ result: Harness.Result) -> String? { (result.json?["error"] as? [String: Any])?["code"] as? String }

    /// The terminal code (no colours when stdout is not a terminal) drawn to pixels, read by zbarimg.
    @Test func presentQRShowsTheTokenPresentPrints() throws {
        let credential = try credential()
        let shown = try Harness.passport(["present", credential, "--aud", "https://shop.example", "--nonce", "n-qr", "--yes", "--qr"], environment: env)
        try #require(shown.status == 0, "\(shown.stderr)")
        #expect(!shown.stdout.contains("\u{1B}"), "colours only on a terminal")
        #expect(shown.stdout.unicodeScalars.allSatisfy { " ▀▄█\n".unicodeScalars.contains($0) })
        #expect(shown.stderr.contains("error correction M"))
        let pgm = file("terminal.pgm")
        try TerminalPixels.pgm(shown.stdout, scale: 3).write(to: URL(fileURLWithPath: pgm))
        let token = try zbarimg(pgm)
        // What the code holds is a presentation for that verifier, which verify-vp accepts.
        let verified = try Harness.passport(["verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-qr", "--require-level", "L1"], environment: env)
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test(arguments: ["png", "svg"])
    func presentQROutWritesAnImageOfTheToken(_ type: String) throws {
        let credential = try credential()
        let image = file("presentation.\(type)")
        let r = try Harness.passport(["present", credential, "--aud", "https://shop.example", "--nonce", "n-\(type)", "--yes", "--qr-out", image, "--json"], environment: env)
        try #require(r.status == 0, "\(r.stderr)")
        try Harness.expectShape(r, "present")
        let token = try #require(r.json?["token"] as? String)
        let described = try #require(r.json?["qr_image"] as? [String: Any])
        #expect(described["file"] as? String == image)
        #expect((described["modules"] as? Int).map { ($0 - 17) / 4 } == described["version"] as? Int)
        let attributes = try FileManager.default.attributesOfItem(atPath: image)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        var readable = image
        if type == "svg" {
            readable = file("rasterized.png")
            let r = try Harness.run(URL(fileURLWithPath: "/usr/bin/rsvg-convert"), ["-o", readable, image])
            try #require(r.status == 0, "rsvg-convert: \(r.stderr)")
        }
        #expect(try zbarimg(readable) == token)
        // And our own reader, the verifier's side.
        let verified = try Harness.passport(["verify-vp", "--qr", readable, "--aud", "https://shop.example", "--nonce", "n-\(type)", "--require-level", "L1", "--json"], environment: env)
        #expect(verified.status == 0, "\(verified.stderr)")
        try Harness.expectShape(verified, "verify-vp")
    }

    /// An institution's presentation carries its certificate chain (x5c): over 2331 bytes, it does
    /// not fit one code, and the error says so with the size and the limit (exit 2); no image is written.
    @Test func aPresentationTooLargeForOneCodeIsNotSplit() throws {
        let credential = try credential(institution: true)
        let image = file("large.png")
        let r = try Harness.passport(["present", credential, "--aud", "https://shop.example", "--nonce", "n-big", "--yes", "--qr-out", image, "--json"], environment: env)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(Self.code(r) == "qr_too_large")
        #expect(r.stderr.contains("one QR code holds at most 2331") && r.stderr.contains("--disclose"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: image))
    }

    struct BadCode: Sendable, CustomTestStringConvertible {
        let name: String
        let code: String
        let status: Int32
        var testDescription: String { name }
    }

    /// verify-vp --qr on images that hold no presentation.
    @Test func verifyVPRefusesWhatIsNotOnePresentation() throws {
        let noCode = TestPaths.fixtures.appendingPathComponent("ocr/card-td1.jpg").path
        let request = try qrencode("openid4vp://?client_id=redirect_uri%3Ahttps%3A%2F%2Fv.example%2Fcb&request_uri=https%3A%2F%2Fv.example%2Fr", to: "request.png")
        let escape = try qrencode("eyJh.eyJh.c2ln\u{1B}[2K", to: "escape.png")
        let notAnImage = file("not-an-image.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: notAnImage))
        let two = file("two.png")
        let montage = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sys; from PIL import Image
            a, b = (Image.open(p).convert("L") for p in sys.argv[1:3])
            out = Image.new("L", (a.width + b.width, max(a.height, b.height)), 255); out.paste(a, (0, 0)); out.paste(b, (a.width, 0)); out.save(sys.argv[3])
            """, request, escape, two])
        try #require(montage.status == 0, "\(montage.stderr)")
        let damaged = file("damaged.png")
        let painted = try Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sys; from PIL import Image, ImageDraw
            i = Image.open(sys.argv[1]).convert("L"); d = ImageDraw.Draw(i)
            d.rectangle([i.width * 0.2, i.height * 0.42, i.width * 0.8, i.height * 0.6], fill=255); i.save(sys.argv[2])
            """, request, damaged])
        try #require(painted.status == 0, "\(painted.stderr)")
        let cases: [(String, String, Int32)] = [(noCode, "qr_not_found", 1), (two, "qr_several_codes", 1), (damaged, "qr_damaged", 1),
                                               (request, "qr_not_a_presentation", 1), (escape, "qr_control_characters", 1),
                                               (notAnImage, "qr_unreadable_image", 1), (file("missing.png"), "qr_unreadable_image", 1)]
        for (image, code, status) in cases {
            let r = try Harness.passport(["verify-vp", "--qr", image, "--aud", "https://shop.example", "--nonce", "n", "--json"], environment: env)
            #expect(r.status == status && Self.code(r) == code, "\(image): exit \(r.status), \(r.stdout) \(r.stderr)")
            #expect(!r.stderr.contains("\u{1B}") && !r.stdout.contains("\u{1B}"), "nothing printed raw: \(r.stderr)")
        }
        let escaped = try Harness.passport(["verify-vp", "--qr", escape, "--aud", "https://shop.example", "--nonce", "n"], environment: env)
        #expect(escaped.stderr.contains("\\u{1B}[2K"), "\(escaped.stderr)")
    }

    /// present --request-qr with a code that is not a request: refused before the key store is
    /// opened, so no pairwise key is made and nothing is signed or sent.
    @Test func presentRefusesACodeThatIsNotARequest() throws {
        let credential = try credential()
        let keys = home.appendingPathComponent("passport/keys")
        let before = try FileManager.default.contentsOfDirectory(atPath: keys.path).sorted()
        let notRequest = try qrencode("https://shop.example/pay?amount=10", to: "not-request.png")
        let escape = try qrencode("openid4vp://?client_id=\u{1B}]0;owned\u{07}", to: "request-escape.png")
        for (image, code) in [(notRequest, "qr_not_a_request"), (escape, "qr_control_characters")] {
            let r = try Harness.passport(["present", credential, "--request-qr", image, "--yes", "--json"], environment: env)
            #expect(r.status == 1 && Self.code(r) == code, "exit \(r.status): \(r.stdout) \(r.stderr)")
            #expect(!r.stderr.contains("\u{1B}") && !r.stderr.contains("\u{07}"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: keys.path).sorted() == before)
    }

    @Test func usageErrorsExitTwo() throws {
        let credential = try credential()
        let cases: [[String]] = [
            ["present", credential, "--aud", "https://a.example", "--nonce", "n", "--yes", "--qr-out", file("code.gif")],
            ["present", credential, "--request", "openid4vp://?x=1", "--qr"],
            ["present", credential, "--request-qr", "a.png", "--request-qr-camera", "/dev/video0"],
            ["present", credential, "--aud", "https://a.example", "--nonce", "n", "--qr", "--json"],
            ["verify-vp", "token", "--qr", "a.png", "--aud", "a", "--nonce", "n"],
            ["verify-vp", "--aud", "a", "--nonce", "n"],
        ]
        for arguments in cases {
            let r = try Harness.passport(arguments, environment: env)
            #expect(r.status == 2, "\(arguments): exit \(r.status) \(r.stderr)")
        }
    }

    /// libqrencode or ZBar made absent: exit 2 naming the package; present --qr signs nothing.
    @Test func absentLibrariesNameTheirPackage() throws {
        let credential = try credential()
        let keys = home.appendingPathComponent("passport/keys")
        let before = try FileManager.default.contentsOfDirectory(atPath: keys.path).sorted()
        let encoder = try Harness.passport(["present", credential, "--aud", "https://new.example", "--nonce", "n", "--yes", "--qr", ],
                                           environment: env.merging(["PASSPORT_QRENCODE_LIBRARY": "libqrencode-absent.so.4"]) { $1 })
        #expect(encoder.status == 2, "\(encoder.stderr)")
        #expect(encoder.stderr.contains("libqrencode-absent.so.4 could not be loaded") && encoder.stderr.contains("sudo apt install libqrencode4"), "\(encoder.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: keys.path).sorted() == before, "no pairwise key made")
        let image = try qrencode("openid4vp://?client_id=a", to: "absent.png")
        for arguments in [["verify-vp", "--qr", image, "--aud", "a", "--nonce", "n", "--json"], ["present", credential, "--request-qr", image, "--json"]] {
            let r = try Harness.passport(arguments, environment: env.merging(["PASSPORT_ZBAR_LIBRARY": "libzbar-absent.so.0"]) { $1 })
            #expect(r.status == 2 && Self.code(r) == "library_missing", "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("libzbar-absent.so.0 could not be loaded") && r.stderr.contains("sudo apt install libzbar0"), "\(r.stderr)")
        }
    }

    /// verify-vp --qr-camera through a video file: the camera path (FFmpeg) until a frame decodes.
    @Test func verifyVPReadsAPresentationFromAVideo() throws {
        let credential = try credential()
        let image = file("video-code.png")
        let r = try Harness.passport(["present", credential, "--aud", "https://shop.example", "--nonce", "n-video", "--yes", "--qr-out", image], environment: env)
        try #require(r.status == 0, "\(r.stderr)")
        let folder = home.appendingPathComponent("video")
        // A presentation is a large code (version 36 here): shown at 840 pixels, as on a laptop's screen.
        let made = try Harness.run(TestPaths.projectRoot.appendingPathComponent("scripts/qr/make-screen-photos"), [image, folder.path, "840"], timeout: 300)
        try #require(made.status == 0, "make-screen-photos: \(made.stderr)")
        let video = folder.appendingPathComponent("screen-video.mp4").path
        let verified = try Harness.passport(["verify-vp", "--qr-camera", video, "--aud", "https://shop.example", "--nonce", "n-video", "--require-level", "L1"], environment: env)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("a QR code read"), "\(verified.stderr)")
        let empty = try Harness.passport(["verify-vp", "--qr-camera", folder.appendingPathComponent("empty-video.mp4").path, "--aud", "a", "--nonce", "n", "--json"], environment: env)
        #expect(empty.status == 1 && Self.code(empty) == "qr_not_found", "\(empty.stderr)")
    }
}

/// The terminal's half blocks drawn as a screen shows them: ink (light) where the block is.
enum TerminalPixels {
    static func pgm(_ text: String, scale: Int) -> Data {
        let lines = text.split(separator: "\n").map { Array($0) }
        let width = (lines.map(\.count).max() ?? 0) * scale, height = lines.count * 2 * scale
        var pixels = [UInt8](repeating: 0, count: width * height)
        for (row, line) in lines.enumerated() {
            for (column, character) in line.enumerated() {
                let halves: [Bool] = character == "█" ? [true, true] : character == "▀" ? [true, false] : character == "▄" ? [false, true] : [false, false]
                for (half, light) in halves.enumerated() where light {
                    for dy in 0..<scale { for dx in 0..<scale { pixels[((row * 2 + half) * scale + dy) * width + column * scale + dx] = 255 } }
                }
            }
        }
        return Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }
}
