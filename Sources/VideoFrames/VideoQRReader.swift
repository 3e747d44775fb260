import QRCodes

/// Frames → the one QR code they show: frames sampled from the camera or video and read with
/// ZBar until one decodes. A single frame is enough (a QR code carries its own error correction).
/// Bounded by work, not time: at most `maxFramesScanned` frames are read, so the result does not
/// depend on the machine's speed; a camera's frames that come while one is read are skipped.
public final class VideoQRReader {
    /// Seconds of video between two scanned frames.
    public var sampleInterval = 0.1
    /// Frames read with ZBar before giving up (about 30 s of a camera at the default interval).
    public var maxFramesScanned = 300
    /// Progress lines (stderr in the command line).
    public var progress: (String) -> Void = { _ in }

    public init() {}

    /// The text of the first QR code decoded. Two codes in one frame: `severalCodes`; none by the
    /// end of the video or the bound: `damaged` when some frame showed a code that did not decode, else `noCode`.
    public func read(_ video: VideoFrameSource) throws -> String {
        let rate = video.frameRate ?? 25
        var lastScanned: Double?
        var scanned = 0
        var sawDamagedCode = false
        func keep(_ seconds: Double?, _ index: Int) -> Bool {
            guard let last = lastScanned else { return true }
            return (seconds ?? Double(index) / rate) >= last + sampleInterval - 0.5 / rate
        }
        while scanned < maxFramesScanned, let frame = try video.nextFrame(where: keep) {
            lastScanned = frame.seconds ?? Double(frame.index) / rate
            scanned += 1
            let source = "frame \(frame.index + 1) of \(video.source)"
            do {
                let text = try QRDecoder.single(in: GreyPixels(width: frame.width, height: frame.height, pixels: frame.pixels), source: source)
                progress("Frame \(frame.index + 1): a QR code read.")
                return text
            } catch QRCodeError.noCode {
                continue
            } catch QRCodeError.damaged {
                sawDamagedCode = true
                continue
            }
        }
        if sawDamagedCode { throw QRCodeError.damaged(source: video.source) }
        let bound = scanned >= maxFramesScanned ? ", the most read" : ", to the end of the video"
        throw QRCodeError.noCode(source: video.source, detail: "\(video.framesDecoded) frames decoded, \(scanned) read\(bound)")
    }
}
