import LDS
import Testing
import TestSupport

/// EF.ATR/INFO's extended length information, with the encodings of BSI TR-03105 5.1 LDS_K.
@Suite struct ATRInfoParsing {
    @Test(arguments: [("7F66080202078002020780", 1920, 1920),        // LDS_K_01: two-byte lengths
                      ("7F660A0203000780020300FFF0", 1920, 65520),   // LDS_K_02: three-byte lengths
                      ("4701F17F660802020104020200FF", 260, 255)])     // another data object first
    func wellFormedLengthsAreRead(bytes: String, command: Int, response: Int) throws {
        let info = try ATRInfo(bytes: hex(bytes))
        #expect(info.maxCommandBytes == command && info.maxResponseBytes == response)
    }

    @Test(arguments: [
        ("7F66040202 0780", "holds 1 object(s) (02), not two INTEGERs"),                 // LDS_K_03
        ("7F65080202078002020780", "the file holds 7F65"),                               // LDS_K_04
        ("7F660802020780 04020780", "holds 2 object(s) (02, 04), not two INTEGERs"),
        ("7F66080202078002020000", "the longest response in 7F66 is 0 bytes"),
        ("7F660702020780020180", "the longest response in 7F66 (80) is not a positive length of 1 to 3 bytes"),
    ])
    func malformedLengthsAreRefused(bytes: String, why: String) throws {
        do {
            let info = try ATRInfo(bytes: hex(bytes.replacingOccurrences(of: " ", with: "")))
            Issue.record("accepted: \(info)")
        } catch {
            #expect("\(error)".contains(why), "\(error)")
        }
    }

    @Test func bytesThatAreNoDataObjectsAreRefused() {
        #expect(throws: TLVError.self) { try ATRInfo(bytes: [0x7F, 0x66, 0x08, 0x02]) }
    }
}
