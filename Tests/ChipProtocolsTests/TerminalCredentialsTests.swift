@testable import ChipProtocols
import Foundation
import Testing
import TestSupport

/// CV certificates (through libeac) and the inspection system's chain, on the TEST-ONLY EAC PKI
/// of Fixtures/pki/eac (made by cvc-create, OpenPACE's own tool).
@Suite struct TerminalCredentialsTests {
    static let eac = TestPaths.fixtures.appendingPathComponent("pki/eac")

    static func certificate(_ path: String) throws -> CVCertificate {
        try CVCertificate(der: Array(Data(contentsOf: eac.appendingPathComponent(path))))
    }

    @Test func aTerminalCertificateIsDecoded() throws {
        let terminal = try Self.certificate("terminal/UTISTEST00001.cvcert")
        #expect(terminal.holderReference == "UTISTEST00001")
        #expect(terminal.authorityReference == "UTDVTEST00001")
        #expect(terminal.role == .terminal)
        #expect(terminal.terminalType == .inspectionSystem)
        #expect(terminal.readableDataGroups == [3, 4])
        #expect(terminal.effective == CVDate(year: 2025, month: 7, day: 1))
        #expect(terminal.expires == CVDate(year: 2040, month: 12, day: 31))
        #expect(terminal.publicKeyProtocol == "id-TA-ECDSA-SHA-256")
        // PSO:Verify Certificate sends the body and the signature exactly as encoded.
        #expect(terminal.verifyCertificateData == Array(terminal.encoded.dropFirst(terminal.encoded[2] == 0x82 ? 5 : terminal.encoded[2] == 0x81 ? 4 : 3)))

        let rsa = try Self.certificate("terminal-rsa/UTISRSA00001.cvcert")
        #expect(rsa.publicKeyProtocol == "id-TA-RSA-v1-5-SHA-256")
        #expect(try Self.certificate("no-dg3-right/UTISTEST00003.cvcert").readableDataGroups == [4])
        #expect(try Self.certificate("TEST-ONLY-UTCVCA00001.cvcert").role == .cvca)
        #expect(try Self.certificate("TEST-ONLY-UTDVTEST00001.cvcert").role == .documentVerifierDomestic)
    }

    @Test func notACertificateIsAClearError() throws {
        #expect(throws: TerminalAuthenticationError.self) { try CVCertificate(der: [0x7F, 0x21, 0x00]) }
        #expect(throws: TerminalAuthenticationError.self) { try CVCertificate(der: Array("hello".utf8)) }
        let valid = try Self.certificate("terminal/UTISTEST00001.cvcert").encoded
        for cut in stride(from: 1, to: valid.count, by: 7) {
            #expect(throws: TerminalAuthenticationError.self) { try CVCertificate(der: Array(valid.prefix(cut))) }
        }
    }

    @Test func theChainIsOrderedByItsReferencesAndStartsAfterTheChipsTrustPoint() throws {
        let credentials = try TerminalCredentials.load(directory: Self.eac.appendingPathComponent("terminal").path)
        #expect(credentials.chain.map(\.holderReference) == ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"])
        let (trustPoint, send) = credentials.certificatesToSend(chipTrustPoints: ["UTCVCA00001"])
        #expect(trustPoint == "UTCVCA00001")
        #expect(send.map(\.holderReference) == ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"])
        // A chip that has taken the link certificate already needs only the DV and the terminal.
        #expect(credentials.certificatesToSend(chipTrustPoints: ["UTCVCA00002"]).certificates.map(\.holderReference) == ["UTDVTEST00001", "UTISTEST00001"])
        // An unknown CVCA: no trust point (perform then sends nothing; TR-03105 5.1 ISO7816_E_08).
        let wrong = try TerminalCredentials.load(directory: Self.eac.appendingPathComponent("wrong-cvca").path)
        let (none, all) = wrong.certificatesToSend(chipTrustPoints: ["UTCVCA00001"])
        #expect(none == nil)
        #expect(all.map(\.holderReference) == ["UTDVTESTX0001", "UTISTESTX0001"])
    }

    /// A folder that also holds the self-signed CVCA certificate the chip trusts: the chain
    /// still starts after it, so the chip is never asked to verify its own trust point again.
    @Test func theChipsOwnTrustPointIsNeverSent() throws {
        let folder = Self.eac.appendingPathComponent("terminal")
        let certificates = [try Self.certificate("TEST-ONLY-UTCVCA00001.cvcert"), try Self.certificate("terminal/UTCVCA00002.cvcert"),
                            try Self.certificate("terminal/UTDVTEST00001.cvcert"), try Self.certificate("terminal/UTISTEST00001.cvcert")]
        let key = Array(try Data(contentsOf: folder.appendingPathComponent("UTISTEST00001.pkcs8")))
        let credentials = try TerminalCredentials(certificates: certificates.reversed(), privateKey: key)
        #expect(credentials.chain.map(\.holderReference) == ["UTCVCA00001", "UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"])
        let (trustPoint, send) = credentials.certificatesToSend(chipTrustPoints: ["UTCVCA00001"])
        #expect(trustPoint == "UTCVCA00001")
        #expect(send.map(\.holderReference) == ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"])
        let (newer, rest) = credentials.certificatesToSend(chipTrustPoints: ["UTCVCA00001", "UTCVCA00002"])
        #expect(newer == "UTCVCA00002")
        #expect(rest.map(\.holderReference) == ["UTDVTEST00001", "UTISTEST00001"])
    }

    @Test func aForgedSignatureInTheChainIsFoundBeforeTheChipIsAsked() throws {
        let folder = Self.eac.appendingPathComponent("terminal")
        let dv = try Self.certificate("terminal/UTDVTEST00001.cvcert")
        var forged = dv.encoded
        forged[forged.count - 3] ^= 0x01 // inside the signature
        let certificates = [try Self.certificate("terminal/UTCVCA00002.cvcert"), try CVCertificate(der: forged),
                            try Self.certificate("terminal/UTISTEST00001.cvcert")]
        let key = Array(try Data(contentsOf: folder.appendingPathComponent("UTISTEST00001.pkcs8")))
        #expect { try TerminalCredentials(certificates: certificates, privateKey: key) } throws: { error in
            "\(error)".contains("UTDVTEST00001 is not validly signed by UTCVCA00002")
        }
    }

    @Test func incompleteFoldersSayWhatIsMissing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eac-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = Self.eac.appendingPathComponent("terminal")
        try FileManager.default.copyItem(at: source.appendingPathComponent("UTISTEST00001.cvcert"), to: folder.appendingPathComponent("UTISTEST00001.cvcert"))
        try FileManager.default.copyItem(at: source.appendingPathComponent("UTISTEST00001.pkcs8"), to: folder.appendingPathComponent("UTISTEST00001.pkcs8"))
        #expect { try TerminalCredentials.load(directory: folder.path) } throws: { "\($0)".contains("no document verifier certificate for UTISTEST00001") }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("UTISTEST00001.pkcs8"))
        #expect { try TerminalCredentials.load(directory: folder.path) } throws: { "\($0)".contains("holds no terminal private key") }
    }

    @Test func theKeyIsCheckedAgainstTheTerminalCertificate() throws {
        #expect(try TerminalCredentials.load(directory: Self.eac.appendingPathComponent("terminal").path).keyMatchesTerminalCertificate() == true)
        #expect(try TerminalCredentials.load(directory: Self.eac.appendingPathComponent("terminal-rsa").path).keyMatchesTerminalCertificate() == true)
        let folder = Self.eac.appendingPathComponent("terminal")
        let other = try TerminalCredentials.load(certificates: ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"].map { folder.appendingPathComponent("\($0).cvcert").path },
                                                 key: Self.eac.appendingPathComponent("expired/UTISTEST00002.pkcs8").path)
        #expect(other.keyMatchesTerminalCertificate() == false)
    }

    @Test func efCVCAListsTheTrustPoints() throws {
        let efCVCA = Array(try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("passport-eac/CVCA.bin")))
        #expect(TerminalAuthentication.trustPoints(efCVCA: efCVCA) == ["UTCVCA00001"])
        let two: [UInt8] = [0x42, 3] + Array("ABC".utf8) + [0x42, 2] + Array("DE".utf8) + [0, 0, 0]
        #expect(TerminalAuthentication.trustPoints(efCVCA: two) == ["ABC", "DE"])
        #expect(TerminalAuthentication.trustPoints(efCVCA: [0x42, 0x20, 0x41]) == [])
    }

    @Test func compIsTheXCoordinateOrSHA1() {
        let point: [UInt8] = [0x04] + Array(repeating: 0xAA, count: 32) + Array(repeating: 0xBB, count: 32)
        #expect(TerminalAuthenticationBinding.compress(point, isDH: false) == Array(repeating: 0xAA, count: 32))
        #expect(TerminalAuthenticationBinding.compress([1, 2, 3], isDH: true).count == 20)
    }

    /// A refused certificate that expired before today: both causes are named, the signature
    /// first (TR-03105 5.1 ISO7816_E_17: a wrong signature on a long-expired test certificate).
    @Test func aRefusedExpiredCertificateNamesTheSignatureToo() throws {
        let credentials = try TerminalCredentials.load(directory: Self.eac.appendingPathComponent("expired").path)
        let why = TerminalAuthentication.whyRefused(credentials.terminal)
        #expect(why.hasPrefix("it did not verify UTISTEST00002"), "\(why)")
        #expect(why.contains("its signature does not verify under the chip's key for UTDVTEST00001"), "\(why)")
        #expect(why.contains("UTISTEST00002 expired on 2025-06-30"), "\(why)")
    }
}
