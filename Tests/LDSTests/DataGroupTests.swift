import Foundation
import LDS
import Testing
import TestSupport

/// DG2, DG11, DG12, DG14 and DG15 of the fixture passport against the generator's expected
/// values, the BSI reference set, and EF.CardAccess files.
@Suite struct DataGroupParsing {
    let dump = try! DumpFolder(reading: TestPaths.fixtures.appendingPathComponent("passport"))
    let expected = try! JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.fixtures.appendingPathComponent("passport/expected.json"))) as! [String: Any]

    @Test func dg2FaceRecordAndImage() throws {
        let dg2 = try DataGroup2(bytes: try #require(dump.files[.dataGroup(2)]))
        let want = try #require(expected["dg2"] as? [String: Any])
        #expect(dg2.faces.count == 1)
        let face = dg2.faces[0]
        #expect(face.standard.hasPrefix("ISO/IEC 19794-5"))
        #expect(face.width == want["width"] as? Int && face.height == want["height"] as? Int)
        #expect(face.gender == "female" && face.eyeColour == "green" && face.hairColour == "brown" && face.expression == "neutral")
        #expect(face.featurePoints.map(\.code) == ["12.1", "12.2"])
        #expect(face.featurePoints.first?.x == 256 && face.featurePoints.first?.y == 212)
        #expect(face.format == .jpeg)
        #expect(face.image.count == want["jpegLength"] as? Int)
        #expect(hex(SHA256Test.digest(face.image)).lowercased() == want["jpegSha256"] as? String)
    }

    @Test func imageKindsAndPaddingAreRecognised() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        #expect(FaceImage.detect(jpeg) == .jpeg)
        #expect(FaceImage.detect([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .jp2)
        #expect(FaceImage.detect([0xFF, 0x4F, 0xFF, 0x51, 0, 0]) == .j2k)
        #expect(FaceImage.detect([1, 2, 3]) == .unknown)
    }

    @Test func truncatedFaceRecordsThrow() throws {
        let bytes = try #require(dump.files[.dataGroup(2)])
        for cut in [10, 60, 100, 140, bytes.count - 500] {
            // Re-wrap a truncated record so that only the 19794-5 parser sees the damage.
            let record = try #require(try TLV.parse(bytes).child(0x7F61)?.child(0x7F60)?.child(0x5F2E))
            let short = Array(record.value.prefix(cut))
            let dg2 = TLV.encode(tag: 0x75, value: TLV.encode(tag: 0x7F61, value: [0x02, 0x01, 0x01] + TLV.encode(tag: 0x7F60, value: TLV.encode(tag: 0x5F2E, value: short))))
            #expect(throws: (any Error).self, "cut at \(cut)") { try DataGroup2(bytes: dg2) }
        }
    }

    @Test func dg11AndDG12() throws {
        let dg11 = try DataGroup11(bytes: try #require(dump.files[.dataGroup(11)]))
        #expect(dg11.fullName == "SPECIMEN<<ALEX<MARIE")
        #expect(DataGroup11.readable(dg11.fullName!) == "SPECIMEN, ALEX MARIE")
        #expect(dg11.personalNumber == "UTO<TEST<0001")
        #expect(dg11.fullDateOfBirth == "19880412")
        #expect(dg11.placeOfBirth == "UTOPIA<CITY")
        #expect(dg11.profession == "SOFTWARE<TESTER")
        let dg12 = try DataGroup12(bytes: try #require(dump.files[.dataGroup(12)]))
        #expect(dg12.issuingAuthority == "UTOPIA<PASSPORT<OFFICE")
        #expect(dg12.dateOfIssue == "20240930")
    }

    @Test func dg14AndDG15() throws {
        let dg14 = try SecurityInfos(bytes: try #require(dump.files[.dataGroup(14)]))
        let ca = try #require(dg14.chipAuthenticationInfos.first)
        #expect(ca.protocolOID == "0.4.0.127.0.7.2.2.3.2.2")
        #expect(!ca.isDH && ca.cipher == .aes128 && ca.version == 1)
        #expect(dg14.chipAuthenticationPublicKeys.first?.isDH == false)
        let dg15 = try DataGroup15(bytes: try #require(dump.files[.dataGroup(15)]))
        #expect(dg15.isRSA)
    }

    @Test(.enabled(if: TestPaths.reference != nil, "reference data absent"))
    func referenceCardAccessAndDG14Parse() throws {
        let reference = try #require(TestPaths.reference)
        for (path, dh) in [("pace/npa-ecdh/EF_CardAccess.bin", false), ("pace/npa-dh/EF_CardAccess.bin", true)] {
            let infos = try SecurityInfos(bytes: [UInt8](try Data(contentsOf: reference.appendingPathComponent(path))))
            let pace = try #require(infos.paceInfos.first, "\(path)")
            #expect(pace.isDH == dh)
            #expect(pace.mapping == .generic)
            #expect(pace.cipher != nil)
            #expect(!infos.infos.isEmpty)
        }
        for path in ["pace/npa-ecdh/EF_CardSecurity.bin", "pace/npa-dh/EF_CardSecurity.bin", "pace/jmrtd-EF_CardSecurity.bin"] {
            // EF.CardSecurity is a CMS SignedData whose content is SecurityInfos.
            let bytes = [UInt8](try Data(contentsOf: reference.appendingPathComponent(path)))
            #expect(throws: Never.self, "\(path)") { _ = try TLV.parse(bytes) }
        }
        let vector = try #require(TestPaths.icaoVectors()?["pace_G1_gm_ecdh_brainpoolP256r1_aes128"]?["card_access_security_infos"])
        let g1 = try SecurityInfos(bytes: hex(vector))
        #expect(g1.paceInfos.first?.description == "PACE-ECDH-GM-AES-128 (parameters 13)")
        let bsi = try SecurityInfos(bytes: [UInt8](try Data(contentsOf: reference.appendingPathComponent("lds/bsi-tr03105-5/Datagroup14.bin"))))
        #expect(!bsi.chipAuthenticationPublicKeys.isEmpty)
        let bsiDG2 = try DataGroup2(bytes: [UInt8](try Data(contentsOf: reference.appendingPathComponent("lds/bsi-tr03105-5/Datagroup2.bin"))))
        #expect(bsiDG2.faces.first?.format != .unknown)
    }
}

