import Foundation
import Testing
import TestSupport

/// `passport ocr --camera` on video files made at test time (scripts/ocr/make-camera-videos: a
/// generated data page sliding into view with motion blur, still for 1.5 s, sliding out).
@Suite struct CameraOCR {
    static let truth = ["P<UTOSPECIMEN<<ALEX<MARIE<<<<<<<<<<<<<<<<<<<", "C01X00T478UTO8804123F3409305<<<<<<<<<<<<<<<8"]

    static let videos: Result<URL, Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("camera-e2e-\(getpid())")
        let made = try Harness.run(TestPaths.projectRoot.appendingPathComponent("scripts/ocr/make-camera-videos"), [folder.path])
        guard made.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "make-camera-videos: \(made.stderr)"])
        }
        return folder
    }

    static func video(_ name: String) throws -> String { try videos.get().appendingPathComponent(name).path }

    // Debug builds and tests in parallel: each frame gets more than the release default (0.9 s).
    static let budget = ["--time-budget", "5"]

    @Test func readsTheMRZWhenTwoFramesAgree() throws {
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "--camera", Self.video("slide-in.mp4"), "--json"] + Self.budget)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(r.json)
        #expect(json["lines"] as? [String] == Self.truth)
        let fields = try #require(json["fields"] as? [String: Any])
        #expect(fields["document_number"] as? String == "C01X00T47")
        #expect(fields["birth_date"] as? String == "880412")
        #expect(fields["expiry_date"] as? String == "340930")
        let camera = try #require(json["camera"] as? [String: Any])
        let agreeing = try #require(camera["agreeing_frames"] as? [Int])
        #expect(agreeing.count == 2 && agreeing[0] < agreeing[1])
        // The page is still from frame 14 (t 1.3 s) to 28; tmix blurs the first two of them.
        #expect(agreeing.allSatisfy { (14...30).contains($0) }, "agreeing frames \(agreeing)")
        // Stops once two frames agree: the frames after are not decoded.
        #expect((camera["frames_decoded"] as? Int ?? 99) < 36)
        #expect(r.stderr.contains("Two frames agree"))
        try checkSchema(r.stdout)
    }

    @Test func plainOutputPrintsTheLines() throws {
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "--camera", Self.video("slide-in.mp4")] + Self.budget)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix(Self.truth.joined(separator: "\n") + "\n"))
        #expect(r.stdout.contains("C01X00T47"))
    }

    @Test func videoWithoutReadableMRZIsATypedError() throws {
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "--camera", Self.video("no-mrz.mp4"), "--json", "--sample-interval", "0.4"] + Self.budget)
        #expect(r.status == 1, "\(r.stderr)")
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "no_mrz_agreement")
        #expect((error["message"] as? String ?? "").contains("before the video ended"))
        #expect(r.json?["lines"] == nil)
    }

    @Test func framesStoppedByTheTimeLimitSaySo() throws {
        // A microsecond per frame: every frame's search is stopped by the clock on any machine.
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "--camera", Self.video("slide-in.mp4"), "--json",
                                                             "--sample-interval", "0.4", "--time-budget", "0.000001"])
        #expect(r.status == 1, "\(r.stderr)")
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "no_mrz_agreement")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("time limit of 0.000001 s") && message.contains("--time-budget"), "\(message)")
        #expect((r.json?["search"] as? [String: Any])?["stopped_by"] as? String == "time", "\(r.stdout)")
    }

    @Test func missingSourceIsAnEnvironmentError() throws {
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "--camera", "/nonexistent/video.mp4", "--json"])
        #expect(r.status == 2)
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "camera_error")
        #expect((error["message"] as? String ?? "").contains("/nonexistent/video.mp4"))
    }

    @Test func imageAndCameraTogetherIsAUsageError() throws {
        let r = try Harness.run(Harness.passportExecutable, ["ocr", "x.jpg", "--camera", "/dev/video0"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--camera"))
    }

    @Test func scanReadsTheKeyFromTheVideoThenGoesToTheChip() throws {
        // A reader no one has: the MRZ is read from the video first, then the chip step fails
        // (no virtual passport is disturbed; the full chip read is ScanThroughPCSCTests' business).
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("camera-scan-\(UUID().uuidString)")
        let r = try Harness.run(Harness.passportExecutable, ["scan", "--camera", Self.video("slide-in.mp4"), "--reader", "no-such-reader-camera-test",
                                                             "--out", out.path, "--json"] + Self.budget)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("Two frames agree"))
        #expect(r.stderr.contains("Read the MRZ from \(try Self.video("slide-in.mp4")) (TD3, check digits valid)"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// scripts/check-json-schema against docs/schemas/ocr.schema.json.
    func checkSchema(_ stdout: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("camera-ocr-\(UUID().uuidString).json")
        try Data(stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try Harness.run(TestPaths.projectRoot.appendingPathComponent("scripts/check-json-schema"), ["ocr", file.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
