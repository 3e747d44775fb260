import FoundationEssentials
import MRZ
import MRZScanner

/// No MRZ that two frames agree on.
public struct VideoMRZError: Error, Equatable, Sendable, CustomStringConvertible {
    public let source: String
    public let framesDecoded: Int
    public let framesScanned: Int
    /// How many scanned frames gave a valid MRZ, and how many different MRZs those were.
    public let framesWithMRZ: Int
    public let distinctMRZs: Int
    /// Why the last frame without an MRZ was refused.
    public let lastRefusal: MRZScanError?
    /// Whether the time limit ended the reading (else the video ended).
    public let timedOut: Bool

    public var description: String {
        var text = "No two frames of \(source) agree on an MRZ "
            + (timedOut ? "before the time limit" : "before the video ended")
            + " (\(framesDecoded) frames decoded, \(framesScanned) scanned, \(framesWithMRZ) gave an MRZ"
        if distinctMRZs > 1 { text += ", \(distinctMRZs) different ones" }
        text += ")."
        if let lastRefusal { text += " Last frame refused: \(lastRefusal)" }
        else { text += " Hold the data page still, flat and in focus, with the MRZ lines fully in view." }
        return text
    }
}

/// What was read from a camera or video.
public struct VideoMRZReading: Sendable {
    /// The reading of the frame that confirmed the MRZ.
    public let result: MRZScanResult
    public let framesDecoded: Int
    public let framesScanned: Int
    /// The numbers (from 1, decoding order) of the two frames that agree.
    public let agreeingFrames: [Int]
    /// Seconds from opening the source to the result (wall clock).
    public let seconds: Double
}

/// Frames → MRZ: scans a sample of the frames (bounded per frame by the scanner's work budget, as a photo)
/// until two frames give the same MRZ lines. A single frame's reading is never reported.
public final class VideoMRZReader {
    public let scanner: MRZScanner
    /// Seconds of video between two scanned frames. On a camera the gap is also at least the last
    /// scan's duration: frames captured while a frame was being read are skipped, not queued.
    public var sampleInterval = 0.2
    /// Wall-clock seconds after which a camera (or a long video) is given up.
    public var maxSeconds: Double = 60
    /// Progress lines (stderr in the command line).
    public var progress: (String) -> Void = { _ in }

    public init(scanner: MRZScanner) { self.scanner = scanner }

    public func read(_ video: VideoFrameSource) throws -> VideoMRZReading {
        let started = Date()
        let rate = video.frameRate ?? 25
        var lastScanned: Double?
        var lastScanDuration = 0.0
        var scanned = 0, withMRZ = 0
        var seen: [[String]: Int] = [:] // lines → the frame that first gave them
        var lastRefusal: MRZScanError?
        func keep(_ seconds: Double?, _ index: Int) -> Bool {
            let time = seconds ?? Double(index) / rate
            guard let last = lastScanned else { return true }
            let gap = video.isDevice ? max(sampleInterval, lastScanDuration) : sampleInterval
            return time >= last + gap - 0.5 / rate
        }
        func failure(timedOut: Bool) -> VideoMRZError {
            VideoMRZError(source: video.source, framesDecoded: video.framesDecoded, framesScanned: scanned,
                          framesWithMRZ: withMRZ, distinctMRZs: seen.count, lastRefusal: lastRefusal, timedOut: timedOut)
        }
        while let frame = try video.nextFrame(where: keep) {
            if Date().timeIntervalSince(started) > maxSeconds { throw failure(timedOut: true) }
            lastScanned = frame.seconds ?? Double(frame.index) / rate
            scanned += 1
            let scanStart = Date()
            let result: MRZScanResult
            do {
                result = try scanner.scan(greyPixels: frame.pixels, width: frame.width, height: frame.height)
            } catch let error as MRZScanError {
                lastScanDuration = Date().timeIntervalSince(scanStart)
                if case .modelMissing = error { throw error }
                if case .engine = error { throw error }
                lastRefusal = error
                continue
            }
            lastScanDuration = Date().timeIntervalSince(scanStart)
            withMRZ += 1
            let lines = result.mrz.lines
            if let first = seen[lines] {
                progress("Frame \(frame.index + 1) confirms the MRZ of frame \(first + 1).")
                return VideoMRZReading(result: result, framesDecoded: video.framesDecoded, framesScanned: scanned,
                                       agreeingFrames: [first + 1, frame.index + 1], seconds: Date().timeIntervalSince(started))
            }
            seen[lines] = frame.index
            progress("Frame \(frame.index + 1): an MRZ read (\(result.mrz.format.rawValue.uppercased())); waiting for a second frame to agree.")
        }
        throw failure(timedOut: false)
    }
}
