import Foundation
import LDS
import Testing
import TestSupport

/// Builders for ISO/IEC 19794-4:2005 finger and 19794-6:2005 iris records and their DG3/DG4
/// wrapping, so that each test states the bytes it parses.
enum BiometricRecords {
    static func be(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Stand-ins with the right signatures (no decoder looks at them).
    static let wsq: [UInt8] = [0xFF, 0xA0, 0xFF, 0xA8, 0x00, 0x04, 0x41, 0x42] + [UInt8](repeating: 0x5A, count: 24) + [0xFF, 0xA1]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0x11, count: 20) + [0xFF, 0xD9]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0x22, count: 12)
    static let j2k: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51] + [UInt8](repeating: 0x33, count: 16) + [0xFF, 0xD9]

    struct Finger {
        var position: Int
        var quality: Int
        var width: Int
        var height: Int
        var impression = 0
        var viewNumber = 1
        var viewCount = 1
        var image: [UInt8] = wsq
    }

    static func fingerRecord(_ fingers: [Finger], compression: Int = 2, scaleUnits: Int = 1, resolution: Int = 500,
                             count: Int? = nil, lengthAdjustment: Int = 0, magic: String = "FIR") -> [UInt8] {
        var body: [UInt8] = []
        for f in fingers {
            body += be(14 + f.image.count, 4) + [UInt8(f.position), UInt8(f.viewCount), UInt8(f.viewNumber), UInt8(f.quality), UInt8(f.impression)]
            body += be(f.width, 2) + be(f.height, 2) + [0] + f.image
        }
        var header = Array(magic.utf8) + [0] + Array("010".utf8) + [0]
        header += be(32 + body.count + lengthAdjustment, 6) + be(0x0123, 2) + be(31, 2)
        header += [UInt8(count ?? fingers.count), UInt8(scaleUnits)]
        header += be(resolution, 2) + be(resolution, 2) + be(resolution, 2) + be(resolution, 2)
        header += [8, UInt8(compression), 0, 0]
        return header + body
    }

    struct Iris {
        var number: Int
        var quality: Int
        var angle = 0xFFFF
        var uncertainty = 0xFFFF
        var image: [UInt8] = j2k
        var lengthAdjustment = 0
    }

    static func irisRecord(_ subtypes: [(eye: Int, images: [Iris])], format: Int = 0x000E, width: Int = 640, height: Int = 480,
                           device: String = "D0012345", imageCounts: [Int]? = nil, magic: String = "IIR") -> [UInt8] {
        var body: [UInt8] = []
        for (index, subtype) in subtypes.enumerated() {
            body += [UInt8(subtype.eye)] + be(imageCounts?[index] ?? subtype.images.count, 2)
            for i in subtype.images {
                body += be(i.number, 2) + [UInt8(i.quality)] + be(i.angle, 2) + be(i.uncertainty, 2)
                body += be(i.image.count + i.lengthAdjustment, 4) + i.image
            }
        }
        var header = Array(magic.utf8) + [0] + Array("010".utf8) + [0]
        header += be(45 + body.count, 4) + be(0x0042, 2) + [UInt8(subtypes.count)] + be(45, 2)
        header += be(0x0005, 2) + be(210, 2) + be(format, 2) + be(width, 2) + be(height, 2) + [8, 0]
        header += Array(device.utf8) + [UInt8](repeating: 0, count: 16 - device.utf8.count)
        return header + body
    }

    /// `tag { 7F61 { 02 count, 7F60 { A1 {…}, 5F2E|7F2E block } … } }`.
    static func dataGroup(_ tag: UInt32, _ blocks: [(record: [UInt8], enciphered: Bool)], formatType: Int) -> [UInt8] {
        var group = TLV.encode(tag: 0x02, value: [UInt8(blocks.count)])
        for block in blocks {
            let header = TLV.encode(tag: 0xA1, value: TLV.encode(tag: 0x80, value: [1, 1]) + TLV.encode(tag: 0x81, value: [tag == 0x63 ? 0x08 : 0x10])
                                    + TLV.encode(tag: 0x87, value: be(0x0101, 2)) + TLV.encode(tag: 0x88, value: be(formatType, 2)))
            group += TLV.encode(tag: 0x7F60, value: header + TLV.encode(tag: block.enciphered ? 0x7F2E : 0x5F2E, value: block.record))
        }
        return TLV.encode(tag: tag, value: TLV.encode(tag: 0x7F61, value: group))
    }

    static func dg3(_ records: [UInt8]...) -> [UInt8] { dataGroup(0x63, records.map { ($0, false) }, formatType: 0x0007) }
    static func dg4(_ records: [UInt8]...) -> [UInt8] { dataGroup(0x76, records.map { ($0, false) }, formatType: 0x0009) }

    static let twoFingers = fingerRecord([
        Finger(position: 2, quality: 80, width: 400, height: 500, impression: 0),
        Finger(position: 7, quality: 254, width: 416, height: 512, impression: 1, viewNumber: 2, viewCount: 2),
    ])

    static let twoEyes = irisRecord([
        (eye: 1, images: [Iris(number: 1, quality: 90, angle: 0x4000, uncertainty: 0x0100)]),
        (eye: 2, images: [Iris(number: 2, quality: 70), Iris(number: 3, quality: 254, image: jpeg)]),
    ])
}

/// The error's text, for checking that it names the data group, the field and what was seen.
func thrownMessage(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch { return String(describing: error) }
}

@Suite struct FingerDataGroup {
    typealias B = BiometricRecords

    @Test func twoFingerRecordsParse() throws {
        let dg3 = try DataGroup3(bytes: B.dg3(B.twoFingers))
        #expect(dg3.enciphered.isEmpty)
        #expect(dg3.fingers.count == 2)
        let (first, second) = (dg3.fingers[0], dg3.fingers[1])
        #expect(first.position == 2 && first.positionName == "right index finger")
        #expect(second.position == 7 && second.positionName == "left index finger")
        #expect(first.quality == 80 && first.qualityDescription == "80/100")
        #expect(second.quality == 254 && second.qualityDescription == "undefined")
        #expect(first.width == 400 && first.height == 500 && second.width == 416 && second.height == 512)
        #expect(first.impressionTypeName == "live-scan plain" && second.impressionTypeName == "live-scan rolled")
        #expect(first.viewNumber == 1 && first.viewCount == 1 && second.viewNumber == 2 && second.viewCount == 2)
        #expect(first.scanResolution == FingerImage.Resolution(horizontal: 500, vertical: 500))
        #expect(first.pixelDepth == 8 && first.acquisitionLevel == 31 && first.captureDeviceID == 0x0123)
        #expect(first.compression == .wsq && first.compression.description == "WSQ")
        #expect(first.detectedFormat == .wsq && first.formatMatchesDeclared && first.fileExtension == "wsq")
        #expect(first.image == B.wsq && second.image == B.wsq)
        #expect(first.standard == "ISO/IEC 19794-4 (010)")
    }

    @Test func recordsInSeveralTemplatesAndCentimetreResolution() throws {
        let png = B.fingerRecord([B.Finger(position: 13, quality: 40, width: 1600, height: 1500, image: B.png)],
                                 compression: 5, scaleUnits: 2, resolution: 197)
        let dg3 = try DataGroup3(bytes: B.dg3(B.twoFingers, png))
        #expect(dg3.fingers.map(\.templateIndex) == [0, 0, 1])
        let slap = dg3.fingers[2]
        #expect(slap.positionName == "plain right four fingers")
        #expect(slap.scanResolution.horizontal == 500 && slap.imageResolution.vertical == 500)
        #expect(slap.compression == .png && slap.detectedFormat == .png && slap.fileExtension == "png")
    }

    @Test func declaredAndDetectedFormatsCanDisagree() throws {
        // Declared JPEG 2000, bytes are a JPEG: both are kept.
        let record = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 10, height: 10, image: B.jpeg)], compression: 4)
        let finger = try #require(try DataGroup3(bytes: B.dg3(record)).fingers.first)
        #expect(finger.compression == .jpeg2000 && finger.detectedFormat == .jpeg)
        #expect(!finger.formatMatchesDeclared)
        #expect(finger.fileExtension == "jpg")
        let raw = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 2, height: 2, image: [0, 1, 2, 3])], compression: 0)
        let pixels = try #require(try DataGroup3(bytes: B.dg3(raw)).fingers.first)
        #expect(pixels.compression == .uncompressed && pixels.detectedFormat == .unknown && pixels.formatMatchesDeclared)
        #expect(pixels.fileExtension == "raw")
    }

    @Test func truncationAtEveryByteThrows() {
        let record = B.twoFingers
        for cut in 0..<record.count {
            #expect(throws: TLVError.self, "record cut at \(cut)") { try DataGroup3(bytes: B.dg3(Array(record.prefix(cut)))) }
        }
        let whole = B.dg3(record)
        for cut in 0..<whole.count {
            #expect(throws: TLVError.self, "DG3 cut at \(cut)") { try DataGroup3(bytes: Array(whole.prefix(cut))) }
        }
    }

    @Test func lengthsPastTheEndThrow() throws {
        let long = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 10, height: 10)], lengthAdjustment: 1)
        let message = try #require(thrownMessage { _ = try DataGroup3(bytes: B.dg3(long)) })
        #expect(message.contains("DG3") && message.contains("record length") && message.contains("\(long.count + 1)"))
        // A finger image's own length running past the record.
        var image = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 10, height: 10)])
        image[35] &+= 1
        let imageMessage = try #require(thrownMessage { _ = try DataGroup3(bytes: B.dg3(image)) })
        #expect(imageMessage.contains("DG3") && imageMessage.contains("finger image 1"))
    }

    @Test func wrongMagicOrVersionThrows() throws {
        let face = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 10, height: 10)], magic: "FAC")
        let message = try #require(thrownMessage { _ = try DataGroup3(bytes: B.dg3(face)) })
        #expect(message.contains("DG3") && message.contains("format identifier") && message.contains("'FAC\\0'"))
        var v2011 = B.twoFingers
        v2011[5] = 0x32 // "020"
        let version = try #require(thrownMessage { _ = try DataGroup3(bytes: B.dg3(v2011)) })
        #expect(version.contains("DG3") && version.contains("'020\\0'"))
    }

    @Test func absurdCountsThrowWithoutAllocating() throws {
        let record = B.fingerRecord([B.Finger(position: 1, quality: 50, width: 10, height: 10)], count: 255)
        let message = try #require(thrownMessage { _ = try DataGroup3(bytes: B.dg3(record)) })
        #expect(message.contains("DG3") && message.contains("number of finger images is 255"))
        let none = B.fingerRecord([], count: 0)
        #expect(throws: TLVError.self) { try DataGroup3(bytes: B.dg3(none)) }
    }

    @Test func wrongOuterTagAndMissingTemplatesThrow() throws {
        let asDG4 = B.dg4(B.twoFingers)
        let message = try #require(thrownMessage { _ = try DataGroup3(bytes: asDG4) })
        #expect(message.contains("DG3") && message.contains("76"))
        #expect(throws: TLVError.self) { try DataGroup3(bytes: TLV.encode(tag: 0x63, value: [UInt8]())) }
        let noBlock = TLV.encode(tag: 0x63, value: TLV.encode(tag: 0x7F61, value: TLV.encode(tag: 0x7F60, value: TLV.encode(tag: 0xA1, value: [UInt8]()))))
        #expect(throws: TLVError.self) { try DataGroup3(bytes: noBlock) }
    }

    @Test func encipheredBlockIsReported() throws {
        let secret: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05]
        let bytes = B.dataGroup(0x63, [(B.twoFingers, false), (secret, true)], formatType: 0x0007)
        let dg3 = try DataGroup3(bytes: bytes)
        #expect(dg3.fingers.count == 2)
        let block = try #require(dg3.enciphered.first)
        #expect(dg3.enciphered.count == 1 && block.templateIndex == 1 && block.bytes == secret)
        #expect(block.header.formatOwner == 0x0101 && block.header.formatType == 0x0007 && block.header.biometricType == 0x08)
        let only = try DataGroup3(bytes: B.dataGroup(0x63, [(secret, true)], formatType: 0x0007))
        #expect(only.fingers.isEmpty && only.enciphered.count == 1)
    }

    @Test func imageSignatures() {
        #expect(BiometricImageFormat.detect(BiometricRecords.wsq) == .wsq)
        #expect(BiometricImageFormat.detect(BiometricRecords.png) == .png)
        #expect(BiometricImageFormat.detect(BiometricRecords.jpeg) == .jpeg)
        #expect(BiometricImageFormat.detect(BiometricRecords.j2k) == .j2k)
        #expect(BiometricImageFormat.detect([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .jp2)
        #expect(BiometricImageFormat.detect([0xFF, 0xA0]) == .unknown)
        #expect(BiometricImageFormat.detect([]) == .unknown)
    }
}

@Suite struct IrisDataGroup {
    typealias B = BiometricRecords

    @Test func rightAndLeftEyes() throws {
        let dg4 = try DataGroup4(bytes: B.dg4(B.twoEyes))
        #expect(dg4.enciphered.isEmpty)
        #expect(dg4.irises.map(\.eye) == [.right, .left, .left])
        #expect(dg4.irises.map(\.imageNumber) == [1, 2, 3])
        #expect(dg4.irises.map(\.quality) == [90, 70, 254])
        let right = dg4.irises[0]
        #expect(right.eye.description == "right eye" && right.qualityDescription == "90/100")
        #expect(right.rotationAngle == 90 && right.rotationUncertainty == 0.703125)
        #expect(dg4.irises[1].rotationAngle == nil && dg4.irises[1].rotationUncertainty == nil)
        #expect(right.width == 640 && right.height == 480 && right.intensityDepth == 8 && right.irisDiameter == 210)
        #expect(right.format == .monoJPEG2000 && right.format.description == "monochrome JPEG 2000")
        #expect(right.detectedFormat == .j2k && right.formatMatchesDeclared && right.fileExtension == "j2k")
        #expect(right.deviceUniqueIdentifier == "D0012345" && right.captureDeviceID == 0x42)
        #expect(right.image == B.j2k)
        let third = dg4.irises[2]
        #expect(third.qualityDescription == "not computed" && third.detectedFormat == .jpeg && !third.formatMatchesDeclared)
        #expect(third.image == B.jpeg)
    }

    @Test func imageFormatCodes() {
        let codes = [2, 4, 6, 8, 10, 12, 14, 16]
        let formats: [IrisImage.Format] = [.monoRaw, .rgbRaw, .monoJPEG, .rgbJPEG, .monoJPEGLS, .rgbJPEGLS, .monoJPEG2000, .rgbJPEG2000]
        #expect(codes.map(IrisImage.Format.init(code:)) == formats)
        #expect(formats.map(\.code) == codes)
        #expect(IrisImage.Format(code: 0x14) == .unknown(0x14) && IrisImage.Format(code: 0x14).description == "unknown (0x0014)")
    }

    @Test func truncationAtEveryByteThrows() {
        let record = B.twoEyes
        for cut in 0..<record.count {
            #expect(throws: TLVError.self, "record cut at \(cut)") { try DataGroup4(bytes: B.dg4(Array(record.prefix(cut)))) }
        }
        let whole = B.dg4(record)
        for cut in 0..<whole.count {
            #expect(throws: TLVError.self, "DG4 cut at \(cut)") { try DataGroup4(bytes: Array(whole.prefix(cut))) }
        }
    }

    @Test func lengthsPastTheEndThrow() throws {
        var long = B.twoEyes
        long[11] &+= 1 // record length (4 bytes at offset 8)
        let message = try #require(thrownMessage { _ = try DataGroup4(bytes: B.dg4(long)) })
        #expect(message.contains("DG4") && message.contains("record length"))
        let image = B.irisRecord([(eye: 1, images: [B.Iris(number: 1, quality: 50, lengthAdjustment: 1)])])
        let imageMessage = try #require(thrownMessage { _ = try DataGroup4(bytes: B.dg4(image)) })
        #expect(imageMessage.contains("DG4") && imageMessage.contains("image 1 of 1"))
        let huge = B.irisRecord([(eye: 1, images: [B.Iris(number: 1, quality: 50, lengthAdjustment: 0x7FFF_0000)])])
        #expect(throws: TLVError.self) { try DataGroup4(bytes: B.dg4(huge)) }
    }

    @Test func wrongMagicAndBadFieldsThrow() throws {
        let finger = B.irisRecord([(eye: 1, images: [B.Iris(number: 1, quality: 50)])], magic: "FIR")
        let message = try #require(thrownMessage { _ = try DataGroup4(bytes: B.dg4(finger)) })
        #expect(message.contains("DG4") && message.contains("'FIR\\0'"))
        let thirdEye = B.irisRecord([(eye: 3, images: [B.Iris(number: 1, quality: 50)])])
        let eye = try #require(thrownMessage { _ = try DataGroup4(bytes: B.dg4(thirdEye)) })
        #expect(eye.contains("DG4") && eye.contains("eye") && eye.contains("3"))
        var header = B.twoEyes
        header[16] = 44 // record header length 45 → 44
        #expect(throws: TLVError.self) { try DataGroup4(bytes: B.dg4(header)) }
    }

    @Test func absurdImageCountThrows() throws {
        let record = B.irisRecord([(eye: 2, images: [B.Iris(number: 1, quality: 50)])], imageCounts: [0xFFFF])
        let message = try #require(thrownMessage { _ = try DataGroup4(bytes: B.dg4(record)) })
        #expect(message.contains("DG4") && message.contains("65535 images"))
    }

    @Test func encipheredBlockIsReported() throws {
        let dg4 = try DataGroup4(bytes: B.dataGroup(0x76, [([0xAA, 0xBB], true), (B.twoEyes, false)], formatType: 0x0009))
        #expect(dg4.irises.count == 3 && dg4.irises.allSatisfy { $0.templateIndex == 1 })
        let block = try #require(dg4.enciphered.first)
        #expect(block.templateIndex == 0 && block.bytes == [0xAA, 0xBB] && block.header.formatType == 0x0009)
    }
}

/// DG3 and DG4 of the EAC fixture passport (Fixtures/passport-eac, written by
/// scripts/make-fixtures) against the generator's expected.json.
@Suite struct EACFixtureBiometrics {
    static let folder = TestPaths.fixtures.appendingPathComponent("passport-eac")
    static func file(_ name: String) -> [UInt8]? {
        (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
    }
    static var expected: [String: Any]? { file("expected.json").flatMap {
        try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
    } }
    static func hexNumber(_ value: Any?) -> Int? { (value as? String).flatMap { Int($0, radix: 16) } }

    @Test(.enabled(if: file("DG3.bin") != nil && expected?["dg3"] != nil,
                   "Fixtures/passport-eac/DG3.bin or the dg3 entry of its expected.json is absent (scripts/make-fixtures writes them)"))
    func dg3MatchesExpected() throws {
        let bytes = try #require(Self.file("DG3.bin"))
        let dg3 = try DataGroup3(bytes: bytes)
        let want = try #require(Self.expected?["dg3"] as? [String: Any])
        let records = try #require(want["records"] as? [[String: Any]])
        #expect(dg3.enciphered.isEmpty)
        #expect(Set(dg3.fingers.map(\.templateIndex)).count == want["templates"] as? Int)
        try #require(dg3.fingers.count == records.count)
        for (finger, record) in zip(dg3.fingers, records) {
            let position = try #require(record["fingerPosition"] as? Int)
            #expect(finger.position == position)
            #expect(finger.positionName.hasPrefix(try #require(record["fingerPositionName"] as? String)), "\(finger.positionName)")
            #expect(finger.compression.code == record["compression"] as? Int)
            #expect(finger.compression.description == record["compressionName"] as? String)
            #expect(finger.formatMatchesDeclared, "finger \(position): declared \(finger.compression), bytes \(finger.detectedFormat)")
            #expect(finger.width == record["width"] as? Int && finger.height == record["height"] as? Int)
            #expect(finger.scanResolution.horizontal == record["resolutionPPI"] as? Int)
            #expect(finger.imageResolution.vertical == record["resolutionPPI"] as? Int)
            #expect(finger.pixelDepth == record["pixelDepth"] as? Int)
            #expect(finger.quality == record["imageQuality"] as? Int)
            #expect(finger.impressionType == record["impressionType"] as? Int)
            #expect(finger.header.biometricType == Self.hexNumber(record["biometricType"]))
            #expect(finger.header.biometricSubtype == Self.hexNumber(record["biometricSubtype"]))
            #expect(finger.header.formatOwner == Self.hexNumber(record["formatOwner"]))
            #expect(finger.header.formatType == Self.hexNumber(record["formatType"]))
            let offset = try #require(record["imageOffsetInFile"] as? Int)
            #expect(finger.image.count == record["imageLength"] as? Int)
            #expect(bytes.dropFirst(offset).starts(with: finger.image), "the image at offset \(offset)")
            #expect(hex(SHA256Test.digest(finger.image)).lowercased() == record["imageSha256"] as? String)
        }
    }

    @Test(.enabled(if: file("DG4.bin") != nil && expected?["dg4"] != nil,
                   "Fixtures/passport-eac/DG4.bin or the dg4 entry of its expected.json is absent (scripts/make-fixtures writes them)"))
    func dg4MatchesExpected() throws {
        let bytes = try #require(Self.file("DG4.bin"))
        let dg4 = try DataGroup4(bytes: bytes)
        let want = try #require(Self.expected?["dg4"] as? [String: Any])
        let eyes = try #require(want["eyes"] as? [[String: Any]])
        #expect(dg4.enciphered.isEmpty)
        #expect(Set(dg4.irises.map(\.templateIndex)).count == want["templates"] as? Int)
        try #require(dg4.irises.count == eyes.count)
        for (iris, eye) in zip(dg4.irises, eyes) {
            #expect(iris.eye.rawValue == eye["subtype"] as? Int)
            #expect(iris.eye.description == "\(eye["eye"] as? String ?? "?") eye")
            #expect(iris.imageNumber == eye["imageNumber"] as? Int)
            #expect(iris.quality == eye["imageQuality"] as? Int)
            #expect(iris.format.code == Self.hexNumber(want["imageFormat"]))
            #expect(iris.width == want["width"] as? Int && iris.height == want["height"] as? Int)
            #expect(iris.intensityDepth == want["intensityDepth"] as? Int)
            #expect(iris.irisDiameter == want["irisDiameter"] as? Int)
            #expect(iris.imageProperties == Self.hexNumber(want["imageProperties"]))
            #expect(iris.header.biometricType == Self.hexNumber(want["biometricType"]))
            #expect(iris.header.formatOwner == Self.hexNumber(want["formatOwner"]))
            #expect(iris.header.formatType == Self.hexNumber(want["formatType"]))
            if (eye["imageType"] as? String)?.hasPrefix("JPEG 2000 (JP2") == true { #expect(iris.detectedFormat == .jp2) }
            #expect(iris.formatMatchesDeclared)
            let offset = try #require(eye["imageOffsetInFile"] as? Int)
            #expect(iris.image.count == eye["imageLength"] as? Int)
            #expect(bytes.dropFirst(offset).starts(with: iris.image), "the image at offset \(offset)")
            #expect(hex(SHA256Test.digest(iris.image)).lowercased() == eye["imageSha256"] as? String)
        }
    }
}
