import Foundation
import QRCodes
import Testing
import TestSupport
import VideoFrames

/// A verifier's QR code as a camera sees it: on a phone's screen, at an angle, out of focus, noisy
/// and JPEG-compressed (scripts/qr/make-screen-photos, PIL), and as a video through the camera
/// path (FFmpeg), as `ocr --camera` is tested.
@Suite(.serialized) struct QRPhotographed {
    static let request = "openid4vp://?client_id=x509_hash%3AUvRZ4w3xHk0Zg2m0lR9c1nX8WQpV6b1fJ7a2yE5sT3o"
        + "&request_uri=https%3A%2F%2Fverifier.example%2Frequests%2F8f2c41d0-7a6e-4c1b-9d3e-2b5f6a7c8d9e&request_uri_method=post"

    static let folder: Result<URL, Error> = Result {
        let folder = QRPeers.temporaryFolder()
        let code = folder.appendingPathComponent("code.png")
        try QRPeers.qrencodePNG(Data(request.utf8), to: code.path)
        let r = try QRPeers.run(TestPaths.projectRoot.appendingPathComponent("scripts/qr/make-screen-photos").path, [code.path, folder.path])
        guard r.status == 0 else { throw PeerError("make-screen-photos failed (python3-pil and ffmpeg: scripts/setup): \(r.stderr)") }
        return folder
    }

    static func path(_ name: String) throws -> String { try folder.get().appendingPathComponent(name).path }

    @Test func aPhotoOfAScreenReadsBack() throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: try Self.path("screen-photo.jpg")))
        #expect(try QRImageReader.read(Array(photo), source: "screen-photo.jpg") == Self.request)
    }

    @Test func aVideoReadsBackOnceTheCodeIsInView() throws {
        let video = try VideoFrameSource(source: try Self.path("screen-video.mp4"))
        let reader = VideoQRReader()
        var lines: [String] = []
        reader.progress = { lines.append($0) }
        #expect(try reader.read(video) == Self.request)
        // The first ten frames show an empty screen: the code is read after them.
        let frame = try #require(lines.last.flatMap { Int($0.dropFirst("Frame ".count).prefix { $0.isNumber }) })
        #expect(frame > 10, "\(lines)")
    }

    @Test func aVideoWithoutACodeEndsWithNoCode() throws {
        let video = try VideoFrameSource(source: try Self.path("empty-video.mp4"))
        do {
            _ = try VideoQRReader().read(video)
            Issue.record("a code was read from an empty video")
        } catch QRCodeError.noCode(_, let detail) {
            #expect(detail == "30 frames decoded, 30 read, to the end of the video")
        }
    }

    /// The bound is a number of frames read, not time: with a bound of 5, the reader gives up
    /// before the code comes into view, whatever the machine's speed.
    @Test func theFrameBoundEndsTheReading() throws {
        let video = try VideoFrameSource(source: try Self.path("screen-video.mp4"))
        let reader = VideoQRReader()
        reader.maxFramesScanned = 5
        do {
            _ = try reader.read(video)
            Issue.record("a code was read within 5 frames")
        } catch QRCodeError.noCode(_, let detail) {
            #expect(detail == "5 frames decoded, 5 read, the most read")
        }
    }
}
