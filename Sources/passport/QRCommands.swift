import ArgumentParser
import Credentials
import FoundationEssentials
import Glibc
import LocalFiles
import OpenID4VP
import PassportCLI
import PassportKit
import QRCodes
import VideoFrames

/// Where a QR code is read from: an image file, or a camera or video file.
enum QRSource {
    case image(String)
    case camera(String)

    /// The one QR code's text: the image decoded through Leptonica, or frames read until one decodes.
    func read() throws -> String {
        switch self {
        case .image(let path):
            let bytes: [UInt8]
            do { bytes = try StandardStreams.readFile(path, limit: QRImageLimits.maxImageBytes) } catch {
                throw QRCodeError.unreadableImage(source: MessageText.bounded(path), reason: "\(error)")
            }
            guard bytes.count <= QRImageLimits.maxImageBytes else {
                throw QRCodeError.unreadableImage(source: MessageText.bounded(path), reason: "it is larger than \(QRImageLimits.maxImageBytes / 1_048_576) MiB")
            }
            return try QRImageReader.read(bytes, source: MessageText.bounded(path))
        case .camera(let source):
            let video = try VideoFrameSource(source: source)
            let reader = VideoQRReader()
            printError("Reading a QR code from \(video.isDevice ? "camera" : "video") \(MessageText.bounded(source)): hold it flat and in view "
                + "(at most \(reader.maxFramesScanned) frames are read).")
            reader.progress = { printError($0) }
            return try reader.read(video)
        }
    }

    /// How messages name it.
    var name: String {
        switch self {
        case .image(let path): return MessageText.bounded(path)
        case .camera(let source): return MessageText.bounded(source)
        }
    }

    /// The source the options name, or nil; both at once is a usage error.
    static func from(image: String?, camera: String?, imageOption: String, cameraOption: String) throws -> QRSource? {
        switch (image, camera) {
        case (nil, nil): return nil
        case (let path?, nil): return .image(path)
        case (nil, let device?): return .camera(device)
        default: throw OpenID4VPError.usage("give \(imageOption) or \(cameraOption), not both")
        }
    }
}

enum QRImageLimits {
    /// A photo of a QR code is read up to 64 MiB (a phone's largest JPEGs are a tenth of that).
    static let maxImageBytes = 64 * 1_048_576
}

/// `present --qr` / `--qr-out`: the presentation as a QR code on the terminal and in an image file.
enum QRPresentation {
    /// The matrix, made before anything is printed: a presentation too large for one code is an
    /// error (`qr_too_large`), never split.
    static func matrix(for token: String) throws -> QRMatrix { try QREncoder.encode(token) }

    /// Half blocks on stdout, with colours when it is a terminal and NO_COLOR is not set.
    static func show(_ matrix: QRMatrix) {
        let colours = isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        StandardStreams.writeOutput(Array(QRRendering.terminalText(matrix, colours: colours).utf8))
    }

    /// A PNG or SVG file (0600: a presentation is personal data), by the name's extension.
    static func write(_ matrix: QRMatrix, to path: String) throws {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".png") {
            try writePrivateFile(Data(QRRendering.png(matrix)), to: path)
        } else if lowered.hasSuffix(".svg") {
            try writePrivateFile(Data(QRRendering.svg(matrix).utf8), to: path)
        } else {
            throw QRCodeError.unsupportedImageType(path: MessageText.bounded(path))
        }
    }

    /// Checked before anything is signed: the image type of --qr-out.
    static func checkImageName(_ path: String) throws {
        let lowered = path.lowercased()
        guard lowered.hasSuffix(".png") || lowered.hasSuffix(".svg") else {
            throw QRCodeError.unsupportedImageType(path: MessageText.bounded(path))
        }
    }
}
