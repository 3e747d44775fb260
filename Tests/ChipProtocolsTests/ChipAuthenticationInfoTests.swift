@testable import ChipProtocols
import LDS
import Testing
import TestSupport

/// DG14's ChipAuthenticationInfo as chip authentication takes it (BSI TR-03105-5.1 LDS_F_06).
@Suite struct ChipAuthenticationInfoTests {
    /// Fixtures/passport's DG14: id-CA-ECDH-AES-CBC-CMAC-128 version VV, and its brainpoolP256r1 key.
    static func dg14(version: String) -> [UInt8] {
        hex("6e7c317a300f060a04007f0007020203020202" + "01" + version
            + "3067060904007f000702020102305a301406072a8648ce3d020106092b2403030208010107034200043ee4091624532f85"
            + "16276319c4b92ee850b6c00c1f29d9bc573b650a5cab153697ce1f6540c4133d2ce33bcf07db182c72d1bf14482a2e46ce1af7d0c19a8ca5")
    }

    @Test func versionOneIsTaken() throws {
        let ca = try ChipAuthentication(dg14: try SecurityInfos(bytes: Self.dg14(version: "01")))
        #expect(ca.info.protocolOID == "0.4.0.127.0.7.2.2.3.2.2")
    }

    @Test func aVersionNoStandardDefinesIsRefused() throws {
        let infos = try SecurityInfos(bytes: Self.dg14(version: "0a"))
        #expect(throws: SecurityError.self) { try ChipAuthentication(dg14: infos) }
    }

    /// The key alone: ICAO 9303-11 §9.2.5 implies 3DES; with a TerminalAuthenticationInfo (an EAC
    /// chip, BSI TR-03110) the missing ChipAuthenticationInfo is an error (TR-03105-5.1 LDS_F_05).
    @Test func aKeyWithoutItsInfoIs3DESUnlessTheChipIsAnEACChip() throws {
        let key = "3067060904007f000702020102305a301406072a8648ce3d020106092b2403030208010107034200043ee4091624532f85"
            + "16276319c4b92ee850b6c00c1f29d9bc573b650a5cab153697ce1f6540c4133d2ce33bcf07db182c72d1bf14482a2e46ce1af7d0c19a8ca5"
        let plain = try ChipAuthentication(dg14: try SecurityInfos(bytes: hex("6e6b3169" + key)))
        #expect(plain.info.protocolOID == "0.4.0.127.0.7.2.2.3.2.1")
        let eac = try SecurityInfos(bytes: hex("6e7a3178" + "300d060804007f00070202020201 01".replacingOccurrences(of: " ", with: "") + key))
        #expect(throws: SecurityError.self) { try ChipAuthentication(dg14: eac) }
    }
}
