import CFFmpeg
import FoundationEssentials
import TextSupport

/// Why frames could not be had from a camera or a video file.
public enum VideoSourceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device or file could not be opened (missing, no permission, not a video, busy camera).
    case cannotOpen(source: String, reason: String)
    /// The source opened but holds no video stream FFmpeg can decode.
    case noVideoStream(source: String, reason: String)
    /// Decoding failed after the source opened (the step named, FFmpeg's message).
    case decoding(source: String, step: String, reason: String)
    /// FFmpeg's libraries are not installed (they are opened only when a camera or video is read).
    case librariesMissing(reason: String, packages: String)

    public var description: String {
        switch self {
        case .cannotOpen(let source, let reason):
            return "Cannot open the camera or video \(source): \(reason)."
        case .noVideoStream(let source, let reason):
            return "\(source) holds no video that can be decoded: \(reason)."
        case .decoding(let source, let step, let reason):
            return "Decoding \(source) failed while \(step): \(reason)."
        case .librariesMissing(let reason, let packages):
            return "Reading a camera or video needs FFmpeg's libraries, and \(reason). Install them: sudo apt install \(packages)"
        }
    }
}

/// One decoded frame as 8-bit grey, `width` bytes a row.
public struct GreyFrame: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]
    /// The frame's number in decoding order, from 0.
    public let index: Int
    /// Its presentation time in seconds (from the stream's start for a file; the capture clock
    /// for a camera), or nil when the stream gives none.
    public let seconds: Double?
}

/// Frames from a V4L2 camera (`/dev/video0`, through libavdevice) or a video file (libavformat),
/// decoded with libavcodec and turned grey with libswscale. Frames that `keep` refuses are decoded
/// (later frames depend on them) but not converted.
public final class VideoFrameSource {
    public let source: String
    /// Whether the source is a capture device (its frames come in real time).
    public let isDevice: Bool
    /// Frames decoded so far, kept or not.
    public private(set) var framesDecoded = 0
    /// Frames per second the stream declares (nil when unknown).
    public let frameRate: Double?

    private let av: PassportFFmpeg
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    private let streamIndex: Int32
    private let timeBase: AVRational
    private var inputEnded = false
    private var decoderDrained = false

    public init(source: String) throws {
        self.source = source
        av = try Self.loadFFmpeg()
        av.av_log_set_level(AV_LOG_FATAL) // FFmpeg's own messages: the typed errors below name the source and the reason
        isDevice = source.hasPrefix("/dev/")
        var inputFormat: UnsafePointer<AVInputFormat>?
        if isDevice {
            av.avdevice_register_all()
            inputFormat = av.av_find_input_format("video4linux2")
            guard inputFormat != nil else {
                throw VideoSourceError.cannotOpen(source: source, reason: "this FFmpeg has no video4linux2 input (libavdevice)")
            }
        }
        var opened: UnsafeMutablePointer<AVFormatContext>?
        var status = av.avformat_open_input(&opened, source, inputFormat, nil)
        guard status >= 0, let context = opened else { throw VideoSourceError.cannotOpen(source: source, reason: Self.message(status, av)) }
        status = av.avformat_find_stream_info(context, nil)
        guard status >= 0 else {
            av.avformat_close_input(&opened)
            throw VideoSourceError.noVideoStream(source: source, reason: "reading the stream information: \(Self.message(status, av))")
        }
        var found: UnsafePointer<AVCodec>?
        status = av.av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &found, 0)
        guard status >= 0, let decoder = found, let stream = context.pointee.streams[Int(status)] else {
            av.avformat_close_input(&opened)
            throw VideoSourceError.noVideoStream(source: source, reason: Self.message(status, av))
        }
        format = context
        streamIndex = status
        timeBase = stream.pointee.time_base
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        frameRate = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
        codec = av.avcodec_alloc_context3(decoder)
        packet = av.av_packet_alloc()
        frame = av.av_frame_alloc()
        guard let codec, packet != nil, frame != nil else {
            throw VideoSourceError.decoding(source: source, step: "allocating the decoder", reason: "out of memory")
        }
        status = av.avcodec_parameters_to_context(codec, stream.pointee.codecpar)
        if status >= 0 { status = av.avcodec_open2(codec, decoder, nil) }
        guard status >= 0 else {
            throw VideoSourceError.noVideoStream(source: source,
                                                 reason: "opening the \(String(cString: decoder.pointee.name)) decoder: \(Self.message(status, av))")
        }
    }

    deinit {
        av.sws_freeContext(scaler)
        av.av_frame_free(&frame)
        av.av_packet_free(&packet)
        av.avcodec_free_context(&codec)
        av.avformat_close_input(&format)
    }

    /// The next frame that `keep` accepts (given its time in seconds, or nil, and its index), as
    /// grey; nil at the end of the video.
    public func nextFrame(where keep: (_ seconds: Double?, _ index: Int) -> Bool = { _, _ in true }) throws -> GreyFrame? {
        guard let format, let codec, let packet, let frame else { return nil }
        while !decoderDrained {
            let received = av.avcodec_receive_frame(codec, frame)
            if received >= 0 {
                defer { av.av_frame_unref(frame) }
                let index = framesDecoded
                framesDecoded += 1
                let pts = frame.pointee.best_effort_timestamp
                let seconds = pts == Int64.min ? nil : Double(pts) * Double(timeBase.num) / Double(max(1, timeBase.den))
                guard keep(seconds, index) else { continue }
                return try grey(frame, index: index, seconds: seconds)
            }
            if received == passport_averror_eof() { decoderDrained = true; break }
            guard received == passport_averror_eagain() else {
                throw VideoSourceError.decoding(source: source, step: "decoding frame \(framesDecoded + 1)", reason: Self.message(received, av))
            }
            // The decoder wants more input: the next packet of the video stream, or the end.
            if inputEnded { decoderDrained = true; break }
            let read = av.av_read_frame(format, packet)
            if read < 0 {
                if read != passport_averror_eof() && framesDecoded == 0 {
                    throw VideoSourceError.decoding(source: source, step: "reading the first packet", reason: Self.message(read, av))
                }
                // The end of the file (or a read error late in it: what was decoded stands).
                inputEnded = true
                _ = av.avcodec_send_packet(codec, nil) // flush: the decoder hands over its last frames
                continue
            }
            defer { av.av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = av.avcodec_send_packet(codec, packet)
            // A damaged packet: skip it, the following ones may decode.
            if sent < 0 && sent != passport_averror_eagain() { continue }
        }
        return nil
    }

    private func grey(_ frame: UnsafeMutablePointer<AVFrame>, index: Int, seconds: Double?) throws -> GreyFrame {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard width > 0, height > 0 else {
            throw VideoSourceError.decoding(source: source, step: "converting frame \(index + 1) to grey", reason: "the frame is \(width)×\(height)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let rows = pixels.withUnsafeMutableBufferPointer { buffer in
            withUnsafePointer(to: av) { passport_frame_to_grey($0, &scaler, frame, buffer.baseAddress!, Int32(width)) }
        }
        guard rows == height else {
            throw VideoSourceError.decoding(source: source, step: "converting frame \(index + 1) to grey (libswscale)",
                                            reason: rows < 0 ? "no conversion from pixel format \(frame.pointee.format)" : "\(rows) of \(height) rows converted")
        }
        return GreyFrame(width: width, height: height, pixels: pixels, index: index, seconds: seconds)
    }

    /// Throws `librariesMissing` (naming the Debian packages) when FFmpeg cannot be loaded.
    public static func requireLibraries() throws { _ = try loadFFmpeg() }
    /// The Debian packages of the FFmpeg libraries this build opens (from the headers it was built with).
    public static var debianPackages: String { String(cString: passport_ffmpeg_packages()).trimmed() }

    /// FFmpeg's functions, from its libraries opened on first use.
    static func loadFFmpeg() throws -> PassportFFmpeg {
        var error = [CChar](repeating: 0, count: 512)
        guard let table = passport_ffmpeg_load(&error, error.count) else {
            throw VideoSourceError.librariesMissing(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                                    packages: debianPackages)
        }
        return table.pointee
    }

    static func message(_ status: Int32, _ av: PassportFFmpeg) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard av.av_strerror(status, &buffer, buffer.count) == 0 else { return "FFmpeg error \(status)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
