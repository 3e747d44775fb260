import Foundation
import ImageCodecs
import LDS
import Testing
import TestSupport

/// DG2 images of every kind are found, trimmed and decoded to PNG.
@Suite struct FaceImageDecoding {
    static let images = TestPaths.fixtures.appendingPathComponent("images")

    /// A DG2 with one ISO 19794-5 record around `image`, followed by `padding` zero bytes.
    static func dg2(around image: [UInt8], dataType: UInt8, width: Int, height: Int, padding: Int) -> [UInt8] {
        var face: [UInt8] = []
        let body = 20 + 12 + image.count + padding
        face += [UInt8(body >> 24), UInt8(body >> 16 & 0xFF), UInt8(body >> 8 & 0xFF), UInt8(body & 0xFF)]
        face += [0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0] // no points, female, neutral
        face += [1, dataType, UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF), 1, 2, 0, 0, 0, 0]
        face += image + [UInt8](repeating: 0, count: padding)
        let total = 14 + face.count
        let record: [UInt8] = Array("FAC\0010\0".utf8) + [UInt8(total >> 24), UInt8(total >> 16 & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF), 0, 1] + face
        return TLV.encode(tag: 0x75, value: TLV.encode(tag: 0x7F61, value: [0x02, 0x01, 0x01]
            + TLV.encode(tag: 0x7F60, value: TLV.encode(tag: 0xA1, value: [0x81, 0x01, 0x02]) + TLV.encode(tag: 0x5F2E, value: record))))
    }

    @Test(arguments: [("face-160x206.j2k", FaceImage.Format.j2k), ("face-160x206.jp2", .jp2)])
    func jpeg2000InDG2(file: String, format: FaceImage.Format) throws {
        let image = [UInt8](try Data(contentsOf: Self.images.appendingPathComponent(file)))
        let dg2 = try DataGroup2(bytes: Self.dg2(around: image, dataType: 1, width: 160, height: 206, padding: 37))
        let face = try #require(dg2.faces.first)
        #expect(face.format == format)
        let sameBytes = face.image == image
        #expect(sameBytes, "the padding after the image must be stripped (\(face.image.count) vs \(image.count) bytes)")
        let size = try ImageConverter.dimensions(of: face.image)
        #expect(size.width == 160 && size.height == 206)
        let png = try ImageConverter.png(from: face.image)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try ImageConverter.dimensions(of: png).width == 160)
    }

    @Test func fixtureJPEGDecodes() throws {
        let dump = try DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
        let face = try DataGroup2(bytes: try #require(dump.files[.dataGroup(2)])).faces[0]
        let size = try ImageConverter.dimensions(of: face.image)
        #expect(size.width == 413 && size.height == 531)
    }

    @Test func garbageIsAnError() {
        #expect(throws: ImageConverter.Error.self) { try ImageConverter.png(from: [0xFF, 0xD8, 0xFF, 0x00, 0x01]) }
        #expect(throws: ImageConverter.Error.self) { try ImageConverter.png(from: []) }
    }
}
