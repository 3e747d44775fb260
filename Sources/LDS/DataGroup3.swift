import TextSupport
/// DG3, the encoded fingers (ICAO 9303-10 §4.7.3): a biometric information group template
/// 7F61 with one 7F60 template per finger record, each with a biometric header template A1 and
/// a data block, 5F2E (an ISO/IEC 19794-4:2005 finger image record) or 7F2E (enciphered). DG3 is
/// protected by Extended Access Control: a chip only gives it after Terminal Authentication.
public struct DataGroup3: Sendable, Equatable {
    /// Every finger image of every readable record, in file order.
    public let fingers: [FingerImage]
    /// The data blocks stored enciphered (tag 7F2E); their content is not interpreted.
    public let enciphered: [EncipheredBiometricBlock]

    public init(bytes: [UInt8]) throws {
        var fingers: [FingerImage] = []
        var enciphered: [EncipheredBiometricBlock] = []
        for template in try BiometricTemplate.all(in: bytes, tag: 0x63, dataGroup: "DG3") {
            switch template.block {
            case .plain(let record): fingers += try FingerImage.iso19794(record, template: template.index, header: template.header)
            case .enciphered(let block):
                enciphered.append(EncipheredBiometricBlock(templateIndex: template.index, header: template.header, bytes: block))
            }
        }
        self.fingers = fingers
        self.enciphered = enciphered
    }
}

/// One finger (or palm, or slap) image of an ISO/IEC 19794-4:2005 finger image record, with the
/// attributes of its own header and those of the record's general header.
public struct FingerImage: Sendable, Equatable {
    /// The image compression algorithm the record declares (ISO/IEC 19794-4:2005 §7.1.13).
    public enum Compression: Sendable, Equatable, Hashable, CustomStringConvertible {
        case uncompressed
        case bitPacked
        case wsq
        case jpeg
        case jpeg2000
        case png
        case unknown(Int)

        public init(code: Int) {
            switch code {
            case 0: self = .uncompressed
            case 1: self = .bitPacked
            case 2: self = .wsq
            case 3: self = .jpeg
            case 4: self = .jpeg2000
            case 5: self = .png
            default: self = .unknown(code)
            }
        }

        public var code: Int {
            switch self {
            case .uncompressed: return 0
            case .bitPacked: return 1
            case .wsq: return 2
            case .jpeg: return 3
            case .jpeg2000: return 4
            case .png: return 5
            case .unknown(let code): return code
            }
        }

        public var description: String {
            switch self {
            case .uncompressed: return "uncompressed"
            case .bitPacked: return "uncompressed (bit-packed)"
            case .wsq: return "WSQ"
            case .jpeg: return "JPEG"
            case .jpeg2000: return "JPEG 2000"
            case .png: return "PNG"
            case .unknown(let code): return "unknown (\(code))"
            }
        }
    }

    /// Horizontal and vertical resolution in pixels per inch.
    public struct Resolution: Sendable, Equatable, Hashable {
        public let horizontal: Int
        public let vertical: Int

        public init(horizontal: Int, vertical: Int) {
            self.horizontal = horizontal
            self.vertical = vertical
        }
    }

    /// "ISO/IEC 19794-4 (010)".
    public var standard: String
    /// Which 7F60 template of DG3 the record is in (0 for the first), and that template's
    /// biometric header (biometric subtype: which finger, as a CBEFF bit field).
    public var templateIndex: Int
    public var header: BiometricHeader
    /// Finger or palm position code (19794-4 Tables 5 and 6): 0 unknown, 1 right thumb … 10
    /// left little finger, 13-15 plain multi-finger images, 20-36 palms.
    public var position: Int
    public var viewNumber: Int
    public var viewCount: Int
    /// 0-100, or 254 for undefined (see `qualityDescription`).
    public var quality: Int
    /// Impression type code (19794-4 Table 7): 0 live-scan plain, 1 live-scan rolled, 2 non-live
    /// plain, 3 non-live rolled, 7 latent, 8 swipe, 9 live-scan contactless.
    public var impressionType: Int
    /// Horizontal and vertical line length in pixels.
    public var width: Int
    public var height: Int
    /// From the general record header; converted to pixels per inch when given per centimetre.
    public var scanResolution: Resolution
    public var imageResolution: Resolution
    /// Bits per pixel (1-16).
    public var pixelDepth: Int
    /// Capture device identifier (only the low 12 bits are defined) and image acquisition level
    /// (10, 20, 30, 31, 35, 40 or 41), from the general record header.
    public var captureDeviceID: Int
    public var acquisitionLevel: Int
    /// What the record declares; `detectedFormat` is what the image bytes start with. They can
    /// disagree: keep both.
    public var compression: Compression
    public var detectedFormat: BiometricImageFormat
    /// The image as stored (its declared length, nothing trimmed).
    public var image: [UInt8]

    public var positionName: String { FingerImage.positionName(position) }
    public var impressionTypeName: String { FingerImage.impressionTypeName(impressionType) }

    /// "57/100", "undefined" (254; ISO/IEC 19794-4:2005 has no quality algorithm, so conformant
    /// records carry 254), "invalid (n)" otherwise.
    public var qualityDescription: String {
        switch quality {
        case 0...100: return "\(quality)/100"
        case 254: return "undefined"
        default: return "invalid (\(quality))"
        }
    }

    /// False when the image bytes are of a known kind other than the declared one, or when the
    /// record declares a raw image and the bytes carry a file signature.
    public var formatMatchesDeclared: Bool {
        switch (compression, detectedFormat) {
        case (.wsq, .wsq), (.jpeg, .jpeg), (.jpeg2000, .jp2), (.jpeg2000, .j2k), (.png, .png): return true
        case (.uncompressed, .unknown), (.bitPacked, .unknown), (.unknown, _): return true
        default: return false
        }
    }

    /// A file name extension for saving the image: from the bytes' signature, else from the
    /// declared compression ("raw" for uncompressed pixels, which need width, height and depth).
    public var fileExtension: String {
        if detectedFormat != .unknown { return detectedFormat.fileExtension }
        switch compression {
        case .wsq: return "wsq"
        case .jpeg: return "jpg"
        case .jpeg2000: return "jp2"
        case .png: return "png"
        case .uncompressed, .bitPacked, .unknown: return "raw"
        }
    }

    public static func positionName(_ code: Int) -> String {
        switch code {
        case 0: return "unknown finger"
        case 1: return "right thumb"
        case 2: return "right index finger"
        case 3: return "right middle finger"
        case 4: return "right ring finger"
        case 5: return "right little finger"
        case 6: return "left thumb"
        case 7: return "left index finger"
        case 8: return "left middle finger"
        case 9: return "left ring finger"
        case 10: return "left little finger"
        // 11 and 12 are ANSI/NIST-ITL codes that ISO/IEC 19794-4:2005 does not list.
        case 11: return "plain right thumb"
        case 12: return "plain left thumb"
        case 13: return "plain right four fingers"
        case 14: return "plain left four fingers"
        case 15: return "plain thumbs (both)"
        case 20: return "unknown palm"
        case 21: return "right full palm"
        case 22: return "right writer's palm"
        case 23: return "left full palm"
        case 24: return "left writer's palm"
        case 25: return "right lower palm"
        case 26: return "right upper palm"
        case 27: return "left lower palm"
        case 28: return "left upper palm"
        case 29: return "right other palm"
        case 30: return "left other palm"
        case 31: return "right interdigital"
        case 32: return "right thenar"
        case 33: return "right hypothenar"
        case 34: return "left interdigital"
        case 35: return "left thenar"
        case 36: return "left hypothenar"
        default: return "unknown position (\(code))"
        }
    }

    public static func impressionTypeName(_ code: Int) -> String {
        switch code {
        case 0: return "live-scan plain"
        case 1: return "live-scan rolled"
        case 2: return "non-live-scan plain"
        case 3: return "non-live-scan rolled"
        case 7: return "latent"
        case 8: return "swipe"
        case 9: return "live-scan contactless"
        default: return "unknown impression type (\(code))"
        }
    }

    static let generalHeaderLength = 32
    static let imageHeaderLength = 14

    /// ISO/IEC 19794-4:2005 §7: a 32-byte general record header ('FIR\0', '010\0', record length
    /// 6, capture device 2, acquisition level 2, number of images 1, scale units 1, scan
    /// resolution 2+2, image resolution 2+2, pixel depth 1, compression 1, reserved 2), then per
    /// image a 14-byte header (length 4 including the header, position 1, view count 1, view
    /// number 1, quality 1, impression type 1, width 2, height 2, reserved 1) and the image.
    static func iso19794(_ record: [UInt8], template: Int, header: BiometricHeader) throws -> [FingerImage] {
        let context = "DG3 finger image record \(template + 1)"
        var r = RecordReader(record, context: context)
        try r.expectMagic(Array("FIR\0".utf8), field: "format identifier")
        let version = try r.bytes(4, "version")
        guard version == Array("010\0".utf8) else {
            throw TLVError.malformed("\(context): version \(RecordReader.show(version)) is not the supported ISO/IEC 19794-4:2005 version '010'")
        }
        let recordLength = try r.uint(6, "record length")
        try r.limit(toRecordLength: recordLength, minimum: generalHeaderLength)
        let captureDevice = try r.uint(2, "capture device identifier")
        let acquisitionLevel = try r.uint(2, "image acquisition level")
        let count = try r.uint(1, "number of finger images")
        let scaleUnits = try r.uint(1, "scale units")
        let scanH = try r.uint(2, "horizontal scan resolution"), scanV = try r.uint(2, "vertical scan resolution")
        let imageH = try r.uint(2, "horizontal image resolution"), imageV = try r.uint(2, "vertical image resolution")
        let depth = try r.uint(1, "pixel depth")
        let compression = Compression(code: try r.uint(1, "image compression algorithm"))
        _ = try r.uint(2, "reserved bytes")
        guard count > 0 else { throw TLVError.malformed("\(context): the number of finger images is 0") }
        guard count <= r.remaining / imageHeaderLength else {
            throw TLVError.malformed("\(context): the number of finger images is \(count), but the \(r.remaining) bytes after the header hold at most \(r.remaining / imageHeaderLength)")
        }
        guard scaleUnits == 1 || scaleUnits == 2 else {
            throw TLVError.malformed("\(context): scale units \(scaleUnits) is neither 1 (pixels per inch) nor 2 (pixels per centimetre)")
        }
        func ppi(_ value: Int) -> Int { scaleUnits == 2 ? (value * 254 + 50) / 100 : value }
        var images: [FingerImage] = []
        for number in 1...count {
            let start = r.offset
            let what = "finger image \(number) of \(count)"
            let length = try r.uint(4, "length of \(what)")
            guard length >= imageHeaderLength, length <= r.end - start else {
                throw TLVError.malformed("\(context): \(what) declares \(length) bytes at offset \(start), the record has \(r.end - start) left and a finger image needs at least \(imageHeaderLength)")
            }
            let position = try r.uint(1, "finger position of \(what)")
            let viewCount = try r.uint(1, "count of views of \(what)")
            let viewNumber = try r.uint(1, "view number of \(what)")
            let quality = try r.uint(1, "quality of \(what)")
            let impression = try r.uint(1, "impression type of \(what)")
            let width = try r.uint(2, "width of \(what)"), height = try r.uint(2, "height of \(what)")
            _ = try r.uint(1, "reserved byte of \(what)")
            guard length > imageHeaderLength else { throw TLVError.malformed("\(context): \(what) holds no image data") }
            let image = try r.bytes(length - imageHeaderLength, "image data of \(what)")
            images.append(FingerImage(
                standard: "ISO/IEC 19794-4 (010)", templateIndex: template, header: header, position: position,
                viewNumber: viewNumber, viewCount: viewCount, quality: quality, impressionType: impression,
                width: width, height: height,
                scanResolution: Resolution(horizontal: ppi(scanH), vertical: ppi(scanV)),
                imageResolution: Resolution(horizontal: ppi(imageH), vertical: ppi(imageV)),
                pixelDepth: depth, captureDeviceID: captureDevice, acquisitionLevel: acquisitionLevel,
                compression: compression, detectedFormat: BiometricImageFormat.detect(image), image: image))
        }
        return images
    }
}

/// The kind of image file a biometric image's bytes start with.
public enum BiometricImageFormat: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case jpeg = "JPEG"
    /// JPEG 2000 in the JP2 file format (boxes).
    case jp2 = "JPEG 2000 (JP2)"
    /// A raw JPEG 2000 codestream without JP2 boxes.
    case j2k = "JPEG 2000 (codestream)"
    case png = "PNG"
    /// FBI Wavelet Scalar Quantization, the usual fingerprint compression.
    case wsq = "WSQ"
    case unknown

    /// By signature: JPEG (also JPEG-LS) FFD8FF, JP2 and J2K as for faces, PNG 89 'PNG' 0D0A1A0A,
    /// WSQ its SOI marker FFA0 followed by another WSQ marker (FFA2-FFA8).
    public static func detect(_ data: [UInt8]) -> BiometricImageFormat {
        switch FaceImage.detect(data) {
        case .jpeg: return .jpeg
        case .jp2: return .jp2
        case .j2k: return .j2k
        case .unknown: break
        }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if data.count >= 4, data[0] == 0xFF, data[1] == 0xA0, data[2] == 0xFF, (0xA2...0xA8).contains(data[3]) { return .wsq }
        return .unknown
    }

    public var description: String { rawValue }

    /// "jpg", "jp2", "j2k", "png", "wsq"; "bin" when unknown.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .jp2: return "jp2"
        case .j2k: return "j2k"
        case .png: return "png"
        case .wsq: return "wsq"
        case .unknown: return "bin"
        }
    }
}

/// The biometric header template (A1) of a 7F60 template: the fields that identify the data
/// block's format (ICAO 9303-10 §4.7.2.1, ISO/IEC 7816-11). Absent fields are nil.
public struct BiometricHeader: Sendable, Equatable {
    /// Tag 81: 0x08 fingerprint, 0x10 iris, 0x02 facial features (ISO/IEC 19785-3).
    public var biometricType: Int?
    /// Tag 82: bit field (right 0x01, left 0x02, finger 0x04 thumb … 0x14 little finger).
    public var biometricSubtype: Int?
    /// Tag 87: format owner (0x0101 for ISO/IEC JTC 1/SC 37).
    public var formatOwner: Int?
    /// Tag 88: format type (0x0007 finger image, 0x0009 iris image, 0x0008 face image).
    public var formatType: Int?

    init(_ template: TLV?) throws {
        guard let template else { return }
        for field in try template.children() where field.value.count <= 4 {
            let value = field.value.reduce(0) { $0 << 8 | Int($1) }
            switch field.tag {
            case 0x81: biometricType = value
            case 0x82: biometricSubtype = value
            case 0x87: formatOwner = value
            case 0x88: formatType = value
            default: continue
            }
        }
    }
}

/// A biometric data block stored enciphered (tag 7F2E): reported, not decoded.
public struct EncipheredBiometricBlock: Sendable, Equatable {
    /// Which 7F60 template it is in (0 for the first).
    public let templateIndex: Int
    public let header: BiometricHeader
    public let bytes: [UInt8]
}

/// One 7F60 template of DG2-DG4 style biometric data groups.
struct BiometricTemplate {
    enum Block { case plain([UInt8]), enciphered([UInt8]) }
    let index: Int
    let header: BiometricHeader
    let block: Block

    /// The templates of the group 7F61 inside the data group with outer `tag`. A data group
    /// without any template, or a template without data block, is an error.
    static func all(in bytes: [UInt8], tag: UInt32, dataGroup: String) throws -> [BiometricTemplate] {
        do {
            let outer = try TLV.parse(bytes)
            guard outer.tag == tag else {
                throw TLVError.malformed("\(dataGroup) starts with tag \(hexTag(outer.tag)) where \(hexTag(tag)) belongs")
            }
            guard let group = try outer.child(0x7F61) else {
                throw TLVError.missing("the biometric information group template 7F61 in \(dataGroup)")
            }
            var templates: [BiometricTemplate] = []
            for template in try group.children() where template.tag == 0x7F60 {
                let index = templates.count
                let children = try template.children()
                let header = try BiometricHeader(children.first { $0.tag == 0xA1 })
                guard let data = children.first(where: { $0.tag == 0x5F2E || $0.tag == 0x7F2E }) else {
                    throw TLVError.missing("the biometric data block (5F2E or 7F2E) of template \(index + 1) in \(dataGroup)")
                }
                let block: Block = data.tag == 0x5F2E ? .plain(Array(data.value)) : .enciphered(Array(data.value))
                templates.append(BiometricTemplate(index: index, header: header, block: block))
            }
            guard !templates.isEmpty else { throw TLVError.missing("a biometric information template 7F60 in \(dataGroup)") }
            return templates
        } catch let error as TLVError {
            switch error {
            case .malformed, .missing: throw error
            default:
                var text = Substring(error.description)
                let prefix = "Malformed TLV data: "
                if text.hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
                if text.hasSuffix(".") { text = text.dropLast() }
                throw TLVError.malformed("\(dataGroup) is not well-formed BER-TLV (\(text))")
            }
        }
    }
}

/// Big-endian reader over one ISO/IEC 19794 record, bounded by the record's declared length
/// once known; every error names the record, the field and what was there.
struct RecordReader {
    let data: [UInt8]
    let context: String
    var offset = 0
    private(set) var end: Int

    init(_ data: [UInt8], context: String) {
        self.data = data
        self.context = context
        self.end = data.count
    }

    var remaining: Int { end - offset }

    mutating func bytes(_ count: Int, _ field: String) throws -> [UInt8] {
        guard count >= 0, count <= end - offset else {
            throw TLVError.malformed("\(context): the \(field) (\(count) bytes at offset \(offset)) runs past the end of the record (\(end) bytes)")
        }
        defer { offset += count }
        return Array(data[offset..<(offset + count)])
    }

    mutating func uint(_ count: Int, _ field: String) throws -> Int {
        try bytes(count, field).reduce(0) { $0 << 8 | Int($1) }
    }

    mutating func expectMagic(_ magic: [UInt8], field: String) throws {
        guard data.count >= magic.count else {
            throw TLVError.malformed("\(context): \(data.count) bytes are too few for the \(field) \(RecordReader.show(magic))")
        }
        let found = try bytes(magic.count, field)
        guard found == magic else {
            throw TLVError.malformed("\(context): the \(field) is \(RecordReader.show(found)) where \(RecordReader.show(magic)) belongs")
        }
    }

    /// Checks the declared record length against the bytes present and reads no further than it.
    mutating func limit(toRecordLength length: Int, minimum: Int) throws {
        guard length >= minimum else {
            throw TLVError.malformed("\(context): the record length is \(length), less than its \(minimum)-byte header")
        }
        guard length <= data.count else {
            throw TLVError.malformed("\(context): the record length is \(length) but the data block holds \(data.count) bytes")
        }
        end = length
    }

    /// 'FIR\0' as text when printable, as hex otherwise.
    static func show(_ bytes: [UInt8]) -> String {
        let trimmed = bytes.last == 0 ? Array(bytes.dropLast()) : bytes
        if !trimmed.isEmpty, trimmed.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "'" + String(decoding: trimmed, as: UTF8.self) + (bytes.last == 0 ? "\\0'" : "'")
        }
        return "0x" + bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }
}
