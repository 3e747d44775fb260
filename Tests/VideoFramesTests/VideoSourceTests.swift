import Foundation
import MRZ
import MRZScanner
import Testing
import TestSupport
import VideoFrames

/// Test videos made at test time by scripts/ocr/make-camera-videos (Debian's ffmpeg CLI) from the
/// generated data-page photo Fixtures/ocr/datapage-td3-uto.jpg.
enum TestVideos {
    static let truth = ["P<UTOSPECIMEN<<ALEX<MARIE<<<<<<<<<<<<<<<<<<<", "C01X00T478UTO8804123F3409305<<<<<<<<<<<<<<<8"]

    static let folder: Result<URL, Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("camera-videos-\(getpid())")
        let process = Process()
        process.executableURL = TestPaths.projectRoot.appendingPathComponent("scripts/ocr/make-camera-videos")
        process.arguments = [folder.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "make-camera-videos failed (is ffmpeg installed? scripts/setup)"])
        }
        return folder
    }

    static func path(_ name: String) throws -> String { try folder.get().appendingPathComponent(name).path }
}

@Suite struct VideoSource {
    @Test func decodesEveryFrameAsGrey() throws {
        let video = try VideoFrameSource(source: TestVideos.path("slide-in.mp4"))
        #expect(!video.isDevice)
        #expect(video.frameRate == 10)
        var count = 0
        var last: GreyFrame?
        while let frame = try video.nextFrame() {
            #expect(frame.width == 1280 && frame.height == 960 && frame.pixels.count == 1280 * 960)
            #expect(frame.index == count)
            count += 1
            last = frame
        }
        #expect(count == 36)
        #expect(video.framesDecoded == 36)
        // The background colour (0xd8d4cc) comes out as its luma, not as black or noise.
        let corner = Int(last?.pixels[1280 * 20 + 20] ?? 0)
        #expect((200...225).contains(corner), "grey value \(corner)")
        #expect(try video.nextFrame() == nil)
    }

    @Test func skippedFramesAreDecodedButNotConverted() throws {
        let video = try VideoFrameSource(source: TestVideos.path("slide-in.mp4"))
        var kept: [Int] = []
        while let frame = try video.nextFrame(where: { seconds, _ in ((seconds ?? 0) * 10).rounded().truncatingRemainder(dividingBy: 5) == 0 }) {
            kept.append(frame.index)
        }
        #expect(kept == [0, 5, 10, 15, 20, 25, 30, 35])
        #expect(video.framesDecoded == 36)
    }

    @Test func stillFrameGivesTheMRZThroughTheGreyEntryPoint() throws {
        let video = try VideoFrameSource(source: TestVideos.path("slide-in.mp4"))
        // t = 2.0 s: the page lies still in the middle of the picture.
        let frame = try #require(try video.nextFrame(where: { _, index in index == 20 }))
        let scanner = try MRZScanner(model: MRZModel.locate())
        scanner.timeBudget = 60 // debug builds, tests in parallel
        let result = try scanner.scan(greyPixels: frame.pixels, width: frame.width, height: frame.height)
        #expect(result.mrz.lines == TestVideos.truth)
    }

    @Test func greyEntryPointRefusesABufferTooSmall() throws {
        let scanner = try MRZScanner(model: MRZModel.locate())
        #expect(throws: MRZScanError.undecodableImage) { try scanner.scan(greyPixels: [0, 1, 2], width: 4, height: 4) }
    }

    @Test func missingSourceCannotBeOpened() {
        #expect {
            _ = try VideoFrameSource(source: "/nonexistent/page.mp4")
        } throws: { error in
            guard case .cannotOpen(let source, let reason) = error as? VideoSourceError else { return false }
            return source == "/nonexistent/page.mp4" && reason.contains("No such file")
        }
        #expect(throws: VideoSourceError.self) { _ = try VideoFrameSource(source: "/dev/video-nonexistent") }
    }

    @Test func fileThatIsNoVideoIsRefused() throws {
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-video-\(getpid()).mp4")
        try Data("not a video".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        #expect(throws: VideoSourceError.self) { _ = try VideoFrameSource(source: text.path) }
    }
}
