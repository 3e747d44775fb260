import TextSupport
/// DG4, the encoded irises (ICAO 9303-10 §4.7.4): a biometric information group template 7F61
/// with one 7F60 template per iris record, each with a biometric header template A1 and a data
/// block, 5F2E (an ISO/IEC 19794-6:2005 iris image record) or 7F2E (enciphered). DG4 is protected
/// by Extended Access Control: a chip only gives it after Terminal Authentication.
public struct DataGroup4: Sendable, Equatable {
    /// Every iris image of every readable record, in file order.
    public let irises: [IrisImage]
    /// The data blocks stored enciphered (tag 7F2E); their content is not interpreted.
    public let enciphered: [EncipheredBiometricBlock]

    public init(bytes: [UInt8]) throws {
        var irises: [IrisImage] = []
        var enciphered: [EncipheredBiometricBlock] = []
        for template in try BiometricTemplate.all(in: bytes, tag: 0x76, dataGroup: "DG4") {
            switch template.block {
            case .plain(let record): irises += try IrisImage.iso19794(record, template: template.index, header: template.header)
            case .enciphered(let block):
                enciphered.append(EncipheredBiometricBlock(templateIndex: template.index, header: template.header, bytes: block))
            }
        }
        self.irises = irises
        self.enciphered = enciphered
    }
}

/// One iris image of an ISO/IEC 19794-6:2005 iris image record (rectilinear), with the
/// attributes of its own header, its biometric subtype (the eye) and the record header.
public struct IrisImage: Sendable, Equatable {
    /// The biometric subtype of the block the image is in (19794-6:2005 Table 3).
    public enum Eye: Int, Sendable, Equatable, CustomStringConvertible {
        case undefined = 0
        case right = 1
        case left = 2

        public var description: String {
            switch self {
            case .undefined: return "undefined eye"
            case .right: return "right eye"
            case .left: return "left eye"
            }
        }
    }

    /// The image format the record header declares (19794-6:2005 Table 2).
    public enum Format: Sendable, Equatable, Hashable, CustomStringConvertible {
        case monoRaw
        case rgbRaw
        case monoJPEG
        case rgbJPEG
        case monoJPEGLS
        case rgbJPEGLS
        case monoJPEG2000
        case rgbJPEG2000
        case unknown(Int)

        public init(code: Int) {
            switch code {
            case 0x0002: self = .monoRaw
            case 0x0004: self = .rgbRaw
            case 0x0006: self = .monoJPEG
            case 0x0008: self = .rgbJPEG
            case 0x000A: self = .monoJPEGLS
            case 0x000C: self = .rgbJPEGLS
            case 0x000E: self = .monoJPEG2000
            case 0x0010: self = .rgbJPEG2000
            default: self = .unknown(code)
            }
        }

        public var code: Int {
            switch self {
            case .monoRaw: return 0x0002
            case .rgbRaw: return 0x0004
            case .monoJPEG: return 0x0006
            case .rgbJPEG: return 0x0008
            case .monoJPEGLS: return 0x000A
            case .rgbJPEGLS: return 0x000C
            case .monoJPEG2000: return 0x000E
            case .rgbJPEG2000: return 0x0010
            case .unknown(let code): return code
            }
        }

        public var description: String {
            switch self {
            case .monoRaw: return "monochrome raw"
            case .rgbRaw: return "RGB raw"
            case .monoJPEG: return "monochrome JPEG"
            case .rgbJPEG: return "RGB JPEG"
            case .monoJPEGLS: return "monochrome JPEG-LS"
            case .rgbJPEGLS: return "RGB JPEG-LS"
            case .monoJPEG2000: return "monochrome JPEG 2000"
            case .rgbJPEG2000: return "RGB JPEG 2000"
            case .unknown(let code): return "unknown (0x\(String(code, radix: 16, uppercase: true).leftPadded(to: 4)))"
            }
        }

        var isRaw: Bool { self == .monoRaw || self == .rgbRaw }
    }

    /// "ISO/IEC 19794-6 (010)".
    public var standard: String
    /// Which 7F60 template of DG4 the record is in (0 for the first), and that template's
    /// biometric header.
    public var templateIndex: Int
    public var header: BiometricHeader
    public var eye: Eye
    public var imageNumber: Int
    /// 0-100, 254 not computed, 255 not available (see `qualityDescription`).
    public var quality: Int
    /// Rotation of the eye from horizontal in degrees (the record stores 65536·angle/360), nil
    /// when undefined (FFFF).
    public var rotationAngle: Double?
    /// The rotation angle's uncertainty in degrees (stored as 65536·uncertainty/180), nil when
    /// undefined (FFFF).
    public var rotationUncertainty: Double?
    /// From the record header: the image size in pixels, bits per colour, expected iris diameter
    /// in pixels (0 when unknown), the image property bit field (orientation, scan type,
    /// occlusion bits) and image transformation (0 undefined, 1 standard).
    public var width: Int
    public var height: Int
    public var intensityDepth: Int
    public var irisDiameter: Int
    public var imageProperties: Int
    public var imageTransformation: Int
    public var captureDeviceID: Int
    /// The 16-byte device unique identifier: 'D' serial number, 'M' MAC address, 'P' processor
    /// id, then text; nil when all zeros (none given).
    public var deviceUniqueIdentifier: String?
    /// What the record declares; `detectedFormat` is what the image bytes start with.
    public var format: Format
    public var detectedFormat: BiometricImageFormat
    /// The image as stored (its declared length).
    public var image: [UInt8]

    /// "57/100", "not computed" (254), "not available" (255), "invalid (n)" otherwise.
    public var qualityDescription: String {
        switch quality {
        case 0...100: return "\(quality)/100"
        case 254: return "not computed"
        case 255: return "not available"
        default: return "invalid (\(quality))"
        }
    }

    /// False when the image bytes are of a known kind other than the declared one, or when the
    /// record declares a raw image and the bytes carry a file signature. JPEG-LS shares JPEG's
    /// signature.
    public var formatMatchesDeclared: Bool {
        switch (format, detectedFormat) {
        case (.monoJPEG, .jpeg), (.rgbJPEG, .jpeg), (.monoJPEGLS, .jpeg), (.rgbJPEGLS, .jpeg): return true
        case (.monoJPEG2000, .jp2), (.monoJPEG2000, .j2k), (.rgbJPEG2000, .jp2), (.rgbJPEG2000, .j2k): return true
        case (.monoRaw, .unknown), (.rgbRaw, .unknown), (.unknown, _): return true
        default: return false
        }
    }

    /// A file name extension for saving the image: from the bytes' signature, else from the
    /// declared format ("raw" for raw pixels, which need width, height and depth).
    public var fileExtension: String {
        if detectedFormat != .unknown { return detectedFormat.fileExtension }
        switch format {
        case .monoJPEG, .rgbJPEG: return "jpg"
        case .monoJPEGLS, .rgbJPEGLS: return "jls"
        case .monoJPEG2000, .rgbJPEG2000: return "jp2"
        case .monoRaw, .rgbRaw, .unknown: return "raw"
        }
    }

    static let recordHeaderLength = 45
    static let subtypeHeaderLength = 3
    static let imageHeaderLength = 11

    /// ISO/IEC 19794-6:2005 §6.5: a 45-byte record header ('IIR\0', '010\0', record length 4,
    /// capture device 2, number of biometric subtypes 1, record header length 2, image property
    /// bits 2, iris diameter 2, image format 2, width 2, height 2, intensity depth 1, image
    /// transformation 1, device unique identifier 16); per subtype a 3-byte header (eye 1,
    /// number of images 2); per image an 11-byte header (number 2, quality 1, rotation angle 2,
    /// rotation uncertainty 2, image length 4) and the image. A record header length above 45 is
    /// taken as extra header bytes and skipped.
    static func iso19794(_ record: [UInt8], template: Int, header: BiometricHeader) throws -> [IrisImage] {
        let context = "DG4 iris image record \(template + 1)"
        var r = RecordReader(record, context: context)
        try r.expectMagic(Array("IIR\0".utf8), field: "format identifier")
        let version = try r.bytes(4, "version")
        guard version == Array("010\0".utf8) else {
            throw TLVError.malformed("\(context): version \(RecordReader.show(version)) is not the supported ISO/IEC 19794-6:2005 version '010'")
        }
        let recordLength = try r.uint(4, "record length")
        try r.limit(toRecordLength: recordLength, minimum: recordHeaderLength)
        let captureDevice = try r.uint(2, "capture device identifier")
        let subtypes = try r.uint(1, "number of biometric subtypes")
        let headerLength = try r.uint(2, "record header length")
        guard headerLength >= recordHeaderLength, headerLength <= r.end else {
            throw TLVError.malformed("\(context): the record header length is \(headerLength), expected \(recordHeaderLength) (and no more than the record's \(r.end) bytes)")
        }
        let properties = try r.uint(2, "image property bit field")
        let diameter = try r.uint(2, "iris diameter")
        let format = Format(code: try r.uint(2, "image format"))
        let width = try r.uint(2, "image width"), height = try r.uint(2, "image height")
        let depth = try r.uint(1, "intensity depth")
        let transformation = try r.uint(1, "image transformation")
        let device = try r.bytes(16, "device unique identifier")
        _ = try r.bytes(headerLength - recordHeaderLength, "extra record header bytes")
        guard subtypes > 0 else { throw TLVError.malformed("\(context): the number of biometric subtypes is 0") }
        guard subtypes <= r.remaining / subtypeHeaderLength else {
            throw TLVError.malformed("\(context): the number of biometric subtypes is \(subtypes), but the \(r.remaining) bytes after the header hold at most \(r.remaining / subtypeHeaderLength)")
        }
        let deviceID: String? = device.allSatisfy { $0 == 0 || $0 == 0x30 } ? nil
            : String(decoding: device.prefix { $0 != 0 }, as: UTF8.self)
        var images: [IrisImage] = []
        for subtypeNumber in 1...subtypes {
            let block = "biometric subtype \(subtypeNumber) of \(subtypes)"
            let code = try r.uint(1, "eye of \(block)")
            guard let eye = Eye(rawValue: code) else {
                throw TLVError.malformed("\(context): the eye of \(block) is \(code), not 0 (undefined), 1 (right) or 2 (left)")
            }
            let count = try r.uint(2, "number of images of \(block)")
            guard count > 0 else { throw TLVError.malformed("\(context): \(block) (\(eye)) holds 0 images") }
            guard count <= r.remaining / imageHeaderLength else {
                throw TLVError.malformed("\(context): \(block) (\(eye)) declares \(count) images, but the \(r.remaining) bytes left hold at most \(r.remaining / imageHeaderLength)")
            }
            for imageIndex in 1...count {
                let what = "image \(imageIndex) of \(count) of \(block)"
                let number = try r.uint(2, "image number of \(what)")
                let quality = try r.uint(1, "quality of \(what)")
                let angle = try r.uint(2, "rotation angle of \(what)")
                let uncertainty = try r.uint(2, "rotation uncertainty of \(what)")
                let length = try r.uint(4, "image length of \(what)")
                guard length > 0, length <= r.remaining else {
                    throw TLVError.malformed("\(context): \(what) declares \(length) bytes of image data at offset \(r.offset), the record has \(r.remaining) left")
                }
                let image = try r.bytes(length, "image data of \(what)")
                images.append(IrisImage(
                    standard: "ISO/IEC 19794-6 (010)", templateIndex: template, header: header, eye: eye, imageNumber: number,
                    quality: quality,
                    rotationAngle: angle == 0xFFFF ? nil : Double(angle) * 360 / 65536,
                    rotationUncertainty: uncertainty == 0xFFFF ? nil : Double(uncertainty) * 180 / 65536,
                    width: width, height: height, intensityDepth: depth, irisDiameter: diameter,
                    imageProperties: properties, imageTransformation: transformation, captureDeviceID: captureDevice,
                    deviceUniqueIdentifier: deviceID, format: format,
                    detectedFormat: BiometricImageFormat.detect(image), image: image))
            }
        }
        return images
    }
}
