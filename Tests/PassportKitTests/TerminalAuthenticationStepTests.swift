import CardIO
@testable import ChipProtocols
import Foundation
import LDS
@testable import PassportKit
import Testing
import TestSupport

/// The last read step (DG3/DG4 after terminal authentication) against a scripted chip: which
/// commands go out, in which order, and what a refusal leaves behind.
@Suite struct TerminalAuthenticationStepTests {
    static let eac = TestPaths.fixtures.appendingPathComponent("pki/eac")
    static let com = try! EFCOM(bytes: Array(Data(contentsOf: TestPaths.fixtures.appendingPathComponent("passport-eac/COM.bin"))))
    static let efCVCA = Array(try! Data(contentsOf: TestPaths.fixtures.appendingPathComponent("passport-eac/CVCA.bin")))
    static let dg3 = TLV.encode(tag: 0x63, value: [UInt8](repeating: 0xAB, count: 396))
    static let dg4 = TLV.encode(tag: 0x76, value: [UInt8](repeating: 0xCD, count: 396))
    static let binding = TerminalAuthenticationBinding(idPICC: Array("C01X00T478".utf8), compressedTerminalKey: [UInt8](repeating: 0x5A, count: 32))

    static func credentials(_ folder: String) throws -> TerminalCredentials {
        try TerminalCredentials.load(directory: eac.appendingPathComponent(folder).path)
    }

    /// A BAC session in which chip authentication has passed.
    static func authenticatedSession(_ bench: ReaderBench) throws -> ReadSession {
        let session = try bench.bacSession()
        session.chipAuthentication = .passed
        session.terminalBinding = binding
        return session
    }

    static func expectChain(_ chip: ScriptedChip, _ credentials: TerminalCredentials, refuseAt refused: String? = nil, with status: StatusWord = StatusWord(0x6A80),
                            shortIdentifierRefusal: StatusWord? = nil) {
        if let shortIdentifierRefusal {
            // A chip that takes no short identifiers: EF.CVCA is selected, then read.
            chip.expectSecure(CommandAPDU(ins: 0xB0, p1: 0x9C, p2: 0, ne: 256), ResponseAPDU(data: [], status: shortIdentifierRefusal))
            chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1C]), ResponseAPDU(data: [], status: .success))
            chip.expectSecure(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256), ResponseAPDU(data: efCVCA, status: StatusWord(0x6282)))
        } else {
            chip.expectSecure(CommandAPDU(ins: 0xB0, p1: 0x9C, p2: 0, ne: 256), ResponseAPDU(data: efCVCA, status: StatusWord(0x6282)))
        }
        for certificate in credentials.chain {
            chip.expectSecure(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xB6, data: TLV.encode(tag: 0x83, value: Array(certificate.authorityReference.utf8))),
                              ResponseAPDU(data: [], status: .success))
            let answer = certificate.holderReference == refused ? status : .success
            // The scripted reader takes no extended length: a long certificate goes as a command
            // chain of 200-byte links (CLA 10 on all but the last).
            let data = certificate.verifyCertificateData
            let links = stride(from: 0, to: data.count, by: 200).map { Array(data[$0..<min($0 + 200, data.count)]) }
            for (index, link) in links.enumerated() {
                let last = index == links.count - 1
                chip.expectSecure(CommandAPDU(cla: last ? 0x00 : 0x10, ins: 0x2A, p1: 0x00, p2: 0xBE, data: link),
                                  ResponseAPDU(data: [], status: last ? answer : .success))
            }
            if certificate.holderReference == refused { return }
        }
        let terminal = credentials.terminal.holderReference
        chip.expectSecure(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xA4, data: TLV.encode(tag: 0x83, value: Array(terminal.utf8))), ResponseAPDU(data: [], status: .success))
        chip.expectSecure(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8), ResponseAPDU(data: Array(1...8), status: .success))
        chip.expectSecure("EXTERNAL AUTHENTICATE", where: { $0.ins == 0x82 && $0.p1 == 0 && $0.p2 == 0 }) { command in
            // brainpoolP256r1: r ‖ s, 32 bytes each (the virtual passport's OpenPACE checks the value).
            ResponseAPDU(data: [], status: command.data.count == 64 ? .success : StatusWord(0x6300))
        }
    }

    @Test func withoutAChainTheProtectedFilesAreReportedNotFailed() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.dataGroup(3), .securityStatusNotSatisfied)
        bench.chip.expectWithheld(.dataGroup(4), .securityStatusNotSatisfied)
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: nil)
        let reason = "protected by EAC: needs an inspection system certificate (not given)"
        #expect(session.unavailable == [.dataGroup(3): reason, .dataGroup(4): reason])
        #expect(session.terminalAuthentication?.status == "not_attempted")
        bench.complete()
    }

    @Test func withoutChipAuthenticationNothingIsSent() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.chipAuthentication = .failed("a copy")
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: try Self.credentials("terminal"))
        #expect(session.terminalAuthentication?.status == "not_attempted")
        #expect(session.unavailable[.dataGroup(3)] == "protected by EAC: terminal authentication not run (chip authentication did not pass)")
        bench.complete()
    }

    /// The chain from the chip's trust point, then the terminal's signature. EF.CVCA comes by its
    /// short identifier, or, on a chip that refuses that (6F00, as one independent chip does),
    /// selected by 011C and read.
    @Test(arguments: [nil, StatusWord(0x6F00)])
    func theChainGoesFromTheChipsTrustPointThenTheTerminalSigns(shortIdentifierRefusal: StatusWord?) throws {
        let bench = ReaderBench()
        let session = try Self.authenticatedSession(bench)
        let credentials = try Self.credentials("terminal")
        Self.expectChain(bench.chip, credentials, shortIdentifierRefusal: shortIdentifierRefusal)
        bench.chip.expectFile(.dataGroup(3), Self.dg3)
        bench.chip.expectWithheld(.dataGroup(4), .securityStatusNotSatisfied)
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: credentials)
        let outcome = try #require(session.terminalAuthentication)
        #expect(outcome.status == "passed")
        #expect(outcome.chipTrustPoints == ["UTCVCA00001"])
        #expect(outcome.sent == ["UTCVCA00002", "UTDVTEST00001", "UTISTEST00001"])
        #expect(session.files[.dataGroup(3)] == Self.dg3)
        // The CHAT grants DG4; the chip's refusal then comes from the DV's or CVCA's limits.
        #expect(session.unavailable[.dataGroup(4)]?.hasPrefix("protected by EAC: refused after terminal authentication") == true)
        bench.complete()
    }

    @Test func aRefusedCertificateStopsThereAndTheFilesAreNotAsked() throws {
        let bench = ReaderBench()
        let session = try Self.authenticatedSession(bench)
        let credentials = try Self.credentials("terminal")
        Self.expectChain(bench.chip, credentials, refuseAt: "UTDVTEST00001")
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: credentials)
        let outcome = try #require(session.terminalAuthentication)
        #expect(outcome.status == "failed")
        #expect(outcome.step == "PSO:Verify Certificate of UTDVTEST00001")
        #expect(outcome.statusWord == "6A80")
        #expect(session.unavailable[.dataGroup(3)] == "protected by EAC: terminal authentication failed (PSO:Verify Certificate of UTDVTEST00001 6A80)")
        #expect(bench.log.lines.contains { $0.hasPrefix("terminal authentication failed: The chip answered PSO:Verify Certificate of UTDVTEST00001 with 6A80") })
        bench.complete()
    }

    /// TR-03105 5.1 ISO7816_E_08/09, LDS_G_01/02: EF.CVCA names another CVCA (or none), so no
    /// chain starts from a trust point the chip shows; nothing is sent, terminal authentication
    /// fails and the protected files are not asked.
    @Test(arguments: [
        (TLV.encode(tag: 0x42, value: Array("UTCVCA00009".utf8)) + [0, 0], ["UTCVCA00009"]),
        ([0x42, 0x00, 0x00, 0x00, 0x00], []),
        (TLV.encode(tag: 0x00, value: Array("UTCVCA00001".utf8)) + [0, 0], []),
    ] as [([UInt8], [String])])
    func aChainNotFromTheChipsTrustPointIsNotSent(efCVCA: [UInt8], trustPoints: [String]) throws {
        let bench = ReaderBench()
        let session = try Self.authenticatedSession(bench)
        bench.chip.expectSecure(CommandAPDU(ins: 0xB0, p1: 0x9C, p2: 0, ne: 256), ResponseAPDU(data: efCVCA, status: StatusWord(0x6282)))
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: try Self.credentials("terminal"))
        let outcome = try #require(session.terminalAuthentication)
        #expect(outcome.status == "failed")
        #expect(outcome.step == "EF.CVCA")
        #expect(outcome.chipTrustPoints == trustPoints)
        #expect(outcome.detail?.contains("does not start from it, so no certificate was sent") == true, "\(outcome)")
        #expect(session.unavailable[.dataGroup(3)] == "protected by EAC: terminal authentication failed (no chain from the chip's trust point (EF.CVCA))")
        bench.complete()
    }

    /// TR-03105 5.1 ISO7816_E_22/23: DG14's TerminalAuthenticationInfo names EF.CVCA by another
    /// file identifier (or short identifier) than 011C / 1C: terminal authentication is not run.
    @Test(arguments: [([0x01, 0x1D], [0x1C]), ([0x01, 0x1C], [0x1D])] as [([UInt8], [UInt8])])
    func aTerminalAuthenticationInfoNamingAnotherFileStopsIt(fid: [UInt8], sfid: [UInt8]) throws {
        let bench = ReaderBench()
        let session = try Self.authenticatedSession(bench)
        let taInfo = TLV.encode(tag: 0x30, value: [0x06, 0x08, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02, 0x02, 0x01, 0x01]
                                + TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x04, value: fid) + TLV.encode(tag: 0x04, value: sfid)))
        session.files[.dataGroup(14)] = TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: taInfo))
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: try Self.credentials("terminal"))
        let outcome = try #require(session.terminalAuthentication)
        #expect(outcome.status == "failed")
        #expect(outcome.step == "TerminalAuthenticationInfo")
        #expect(outcome.detail?.contains("names EF.CVCA as file") == true, "\(outcome)")
        #expect(session.unavailable[.dataGroup(4)]?.hasPrefix("protected by EAC: terminal authentication failed") == true)
        // The default (011C, 1C) is no contradiction.
        let same = TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: TLV.encode(tag: 0x30, value: [0x06, 0x08, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02, 0x02, 0x01, 0x01]
            + TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x04, value: [0x01, 0x1C]) + TLV.encode(tag: 0x04, value: [0x1C])))))
        #expect(TerminalAuthentication.efCVCAElsewhere(dg14: same) == nil)
        bench.complete()
    }

    /// TR-03105 5.1 ISO7816_E_26: DG11 refused with 6982 before terminal authentication (the
    /// chip puts it behind EAC too) is asked again after it, and read.
    @Test func aFileRefusedBeforeIsReadAfterTerminalAuthentication() throws {
        let bench = ReaderBench()
        let session = try Self.authenticatedSession(bench)
        session.unavailable[.dataGroup(11)] = "access denied (6982 (security status not satisfied)); this file needs Extended Access Control"
        session.unavailableStatus[.dataGroup(11)] = .securityStatusNotSatisfied
        let credentials = try Self.credentials("terminal")
        Self.expectChain(bench.chip, credentials)
        bench.chip.expectFile(.dataGroup(3), Self.dg3)
        bench.chip.expectFile(.dataGroup(4), Self.dg4)
        let dg11 = TLV.encode(tag: 0x6B, value: [UInt8](repeating: 0x11, count: 40))
        bench.chip.expectFile(.dataGroup(11), dg11)
        try session.readProtectedFiles(listed: Self.com.dataGroups, credentials: credentials)
        #expect(session.terminalAuthentication?.status == "passed")
        #expect(session.files[.dataGroup(11)] == dg11)
        #expect(session.unavailable[.dataGroup(11)] == nil && session.unavailableStatus[.dataGroup(11)] == nil)
        bench.complete()
    }
}
