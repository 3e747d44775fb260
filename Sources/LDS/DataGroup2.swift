/// DG2, the encoded face (ICAO 9303-10 §4.7.2): one or more biometric information templates,
/// each with an ISO/IEC 19794-5 facial record (or an ISO/IEC 39794-5 one) holding the image.
public struct DataGroup2: Sendable, Equatable {
    public let faces: [FaceImage]

    public init(bytes: [UInt8]) throws {
        let outer = try TLV.parse(bytes)
        guard outer.tag == 0x75 else { throw TLVError.unexpectedTag(expected: 0x75, found: outer.tag) }
        guard let group = try outer.child(0x7F61) else { throw TLVError.missing("the biometric information group template 7F61 in DG2") }
        var faces: [FaceImage] = []
        for template in try group.children() where template.tag == 0x7F60 {
            for data in try template.children() {
                switch data.tag {
                case 0x5F2E: faces += try FaceImage.iso19794(Array(data.value))
                case 0x7F2E: faces.append(try FaceImage.iso39794(Array(data.value)))
                default: continue
                }
            }
        }
        guard !faces.isEmpty else { throw TLVError.missing("a facial record in DG2") }
        self.faces = faces
    }
}

/// One face image with the attributes the record gives.
public struct FaceImage: Sendable, Equatable {
    public enum Format: String, Sendable, Codable {
        case jpeg = "JPEG"
        /// JPEG 2000 in the JP2 file format (boxes).
        case jp2 = "JPEG 2000 (JP2)"
        /// A raw JPEG 2000 codestream without JP2 boxes.
        case j2k = "JPEG 2000 (codestream)"
        case unknown
    }

    public struct FeaturePoint: Sendable, Equatable {
        public let type: Int
        /// "major.minor", e.g. "12.1" for the left eye centre.
        public let code: String
        public let x: Int
        public let y: Int
    }

    public var standard: String
    public var width: Int?
    public var height: Int?
    public var gender: String?
    public var eyeColour: String?
    public var hairColour: String?
    public var expression: String?
    public var featurePoints: [FeaturePoint] = []
    public var format: Format
    /// The image bytes, without padding after the image's own end.
    public var image: [UInt8]

    /// ISO/IEC 19794-5:2005: 'FAC\0', version, length, count, then per face a header, feature
    /// points, image information and the image.
    static func iso19794(_ record: [UInt8]) throws -> [FaceImage] {
        var r = ByteReader(record)
        guard try r.bytes(4) == Array("FAC\0".utf8) else { throw TLVError.missing("the ISO 19794-5 'FAC' header") }
        let version = String(decoding: try r.bytes(4).prefix(3), as: UTF8.self)
        _ = try r.uint(4) // record length
        let count = try r.uint(2)
        var faces: [FaceImage] = []
        for _ in 0..<count {
            let blockStart = r.offset
            let blockLength = try r.uint(4)
            let points = try r.uint(2)
            let gender = try r.uint(1), eyes = try r.uint(1), hair = try r.uint(1)
            _ = try r.uint(3) // feature mask
            let expression = try r.uint(2)
            _ = try r.bytes(6) // pose angles and their uncertainty
            var featurePoints: [FeaturePoint] = []
            for _ in 0..<points {
                let type = try r.uint(1), code = try r.uint(1), x = try r.uint(2), y = try r.uint(2)
                _ = try r.uint(2)
                featurePoints.append(FeaturePoint(type: type, code: "\(code >> 4).\(code & 0x0F)", x: x, y: y))
            }
            _ = try r.uint(1) // face image type
            let dataType = try r.uint(1)
            let width = try r.uint(2), height = try r.uint(2)
            _ = try r.bytes(6) // colour space, source, device, quality
            let imageEnd = blockStart + blockLength
            guard blockLength > 0, imageEnd <= record.count, imageEnd > r.offset else {
                throw TLVError.missing("a complete face image block (length \(blockLength))")
            }
            let raw = Array(record[r.offset..<imageEnd])
            r.offset = imageEnd
            var format = FaceImage.detect(raw)
            if format == .unknown { format = dataType == 0 ? .jpeg : .jp2 }
            faces.append(FaceImage(standard: "ISO/IEC 19794-5 (\(version))", width: width, height: height,
                                   gender: ["unspecified", "male", "female", "unknown"][safe: gender],
                                   eyeColour: ["unspecified", "black", "blue", "brown", "gray", "green", "multi-coloured", "pink"][safe: eyes],
                                   hairColour: ["unspecified", "bald", "black", "blonde", "brown", "gray", "white", "red", "green", "blue"][safe: hair],
                                   expression: ["unspecified", "neutral", "smile (closed)", "smile (open)", "raised eyebrows", "eyes looking away", "squinting", "frowning"][safe: expression],
                                   featurePoints: featurePoints, format: format, image: FaceImage.trim(raw, format: format)))
        }
        return faces
    }

    /// ISO/IEC 39794-5 (tagged, extensible). The image is located by its signature in the
    /// encoded block, the attributes other than the image are not interpreted.
    static func iso39794(_ block: [UInt8]) throws -> FaceImage {
        let signatures: [[UInt8]] = [[0xFF, 0xD8, 0xFF], [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], [0xFF, 0x4F, 0xFF, 0x51]]
        for start in block.indices {
            for signature in signatures where block[start...].starts(with: signature) {
                let raw = Array(block[start...])
                let format = detect(raw)
                return FaceImage(standard: "ISO/IEC 39794-5", format: format, image: trim(raw, format: format))
            }
        }
        throw TLVError.missing("an image in the ISO 39794-5 face record")
    }

    public static func detect(_ data: [UInt8]) -> Format {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if data.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jp2 }
        if data.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return .j2k }
        return .unknown
    }

    /// Cuts padding after the image: JPEG and J2K end with their EOI/EOC marker FFD9; JP2 ends
    /// after its last box.
    static func trim(_ data: [UInt8], format: Format) -> [UInt8] {
        switch format {
        case .jpeg, .j2k:
            var i = data.count - 2
            while i >= 2 {
                if data[i] == 0xFF && data[i + 1] == 0xD9 { return Array(data[...(i + 1)]) }
                i -= 1
            }
            return data
        case .jp2:
            var offset = 0
            while offset + 8 <= data.count {
                // A box type is four printable characters; anything else is padding.
                guard data[(offset + 4)..<(offset + 8)].allSatisfy({ (0x20...0x7E).contains($0) }) else { break }
                var length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
                if length == 1, offset + 16 <= data.count { // 64-bit box length
                    length = data[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) }
                } else if length == 0 {
                    // The last box runs to the end; if it is the codestream, that ends at EOC (FFD9).
                    let box = Array(data[offset...])
                    return Array(data[..<offset]) + trim(box, format: .j2k)
                }
                guard length >= 8, offset + length <= data.count else { return data }
                offset += length
            }
            return Array(data[..<offset])
        case .unknown:
            return data
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// Big-endian reader over a byte array with bounds checks.
struct ByteReader {
    let data: [UInt8]
    var offset = 0
    init(_ data: [UInt8]) { self.data = data }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= data.count - offset else { throw TLVError.truncated(offset: offset) }
        defer { offset += count }
        return Array(data[offset..<(offset + count)])
    }

    mutating func uint(_ count: Int) throws -> Int {
        try bytes(count).reduce(0) { $0 << 8 | Int($1) }
    }
}
