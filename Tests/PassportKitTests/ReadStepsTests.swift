import CardIO
@testable import ChipProtocols
import Foundation
import LDS
import MRZ
import PassportCrypto
@testable import PassportKit
import Testing
import TestSupport

/// A scripted chip, the plain channel over it, and the reader's events: what each step test starts from.
final class ReaderBench {
    let chip = ScriptedChip()
    let channel: ISO7816Channel
    let log = EventLog()

    init() { channel = chip.channel() }

    func control(_ access: AccessCredentials = AccessCredentials(mrz: ReadTestData.accessKey),
                 pacePrivateKeys: [[UInt8]]? = nil) -> AccessControl {
        AccessControl(channel: channel, access: access, events: log.sink, random: ScriptedChip.terminalRandom,
                      pacePrivateKeys: pacePrivateKeys)
    }

    /// A session BAC has opened (its exchange scripted here); the log starts empty after it.
    func bacSession(recoveries: Int = PassportReader.maximumRecoveries) throws -> ReadSession {
        try chip.expectBAC(ReadTestData.accessKey)
        let control = control()
        let (gained, stack, _) = try control.establish(cardAccess: nil)
        log.events.removeAll()
        return ReadSession(control: control, gained: gained, stack: stack, recoveries: recoveries)
    }

    /// A session as PACE leaves it (AES keys of our choosing, shared with the chip), with the
    /// given chip-authentication-mapping data.
    func paceSession(info: PACEInfo, cam: (mappingKey: [UInt8], caData: [UInt8])?, key: MRZAccessKey = ReadTestData.accessKey,
                     pacePrivateKeys: [[UInt8]]? = nil) -> ReadSession {
        let zero = [UInt8](repeating: 0, count: 16)
        let (enc, mac) = ([UInt8](repeating: 0x11, count: 16), [UInt8](repeating: 0x22, count: 16))
        chip.session = ChipSecureMessaging(keys: SessionKeys(suite: .aes, encryptionKey: enc, macKey: mac), ssc: zero)
        let keys = SessionKeys(suite: .aes, encryptionKey: enc, macKey: mac)
        let result = PACE.Result(keys: keys, ssc: zero, info: info, password: "MRZ", chipAuthenticationMapping: cam,
                                 terminalEphemeralKey: [], chipEphemeralKey: [])
        return ReadSession(control: control(AccessCredentials(mrz: key), pacePrivateKeys: pacePrivateKeys),
                           gained: .pace(result, .mrz(key)), stack: SecureStack(over: channel, keys: keys, ssc: zero, learned: LearnedReadSize()))
    }

    func complete(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try self.chip.transport.assertComplete() }
    }
}

/// The ICAO 9303-11 worked examples (`../shared/reference/vectors`), when present.
enum ICAO {
    static let vectors = TestPaths.icaoVectors()
    static let paceSection = "pace_G1_gm_ecdh_brainpoolP256r1_aes128"
    static let paceAPDUs = TestPaths.icaoAPDUs(paceSection)
    static var available: Bool { vectors != nil && paceAPDUs != nil }

    static func value(_ section: String, _ name: String) throws -> String {
        try #require(vectors?[section]?[name], "\(section).\(name) missing")
    }

    /// The G.1 exchange as plain steps; the chip's side of the session it opens becomes current
    /// after the last one.
    static func expectPACE(on chip: ScriptedChip) throws {
        let exchange = try #require(paceAPDUs)
        for (index, apdu) in exchange.enumerated() {
            let command = hex(apdu.command), response = hex(apdu.response)
            guard index == exchange.count - 1 else { chip.expect(command, response); continue }
            let keys = SessionKeys(suite: .aes, encryptionKey: hex(try value(paceSection, "ks_enc")),
                                   macKey: hex(try value(paceSection, "ks_mac")))
            chip.transport.append([.matching(apdu.command, { $0 == command }) { [weak chip] _ in
                chip?.session = ChipSecureMessaging(keys: keys, ssc: [UInt8](repeating: 0, count: 16))
                return response
            }])
        }
    }

    static func paceKey() throws -> MRZAccessKey {
        MRZAccessKey(documentNumber: try value(paceSection, "document_number"), birthDate: try value(paceSection, "date_of_birth"),
                     expiryDate: try value(paceSection, "date_of_expiry"))
    }

    static func pacePrivateKeys() throws -> [[UInt8]] {
        [hex(try value(paceSection, "terminal_mapping_private_key")), hex(try value(paceSection, "terminal_ephemeral_private_key"))]
    }

    static func paceInfo() throws -> PACEInfo {
        try #require(try SecurityInfos(bytes: hex(try value(paceSection, "card_access_security_infos"))).paceInfos.first)
    }
}

// MARK: - select / card access

@Suite struct CardAccessStep {
    static let readCardAccess = hex("00B09C0000")

    @Test func readsEFCardAccessUpToItsEnd() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.readCardAccess, ReadTestData.cardAccessGM + [0, 0, 0] + hex("9000"))
        #expect(try bench.control().readCardAccess() == ReadTestData.cardAccessGM)
        bench.complete()
    }

    /// A CardAccess longer than one answer (an ID card's several SecurityInfos and a
    /// CardInfoLocator: 300 bytes here) is read on at offsets in short answers, to its encoded
    /// length, and PACE is still found in it.
    @Test func aCardAccessLongerThan256BytesIsReadToItsEncodedLength() throws {
        let locator = TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x06, value: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x06])
                                 + TLV.encode(tag: 0x16, value: Array(repeating: 0x61, count: 300 - 16 - ReadTestData.cardAccessGM.count)))
        try #require(ReadTestData.cardAccessGM[1] < 0x80, "the GM CardAccess has a one-byte length")
        let inner = Array(ReadTestData.cardAccessGM.dropFirst(2)) + locator
        let long = TLV.encode(tag: 0x31, value: inner)
        try #require(long.count > 256 && long.count < 400, "\(long.count)")
        let bench = ReaderBench()
        bench.chip.expect(Self.readCardAccess, Array(long.prefix(256)) + hex("9000"))
        bench.chip.expect(hex("00B00100") + [UInt8(long.count - 256)], Array(long.dropFirst(256)) + hex("9000"))
        let read = try bench.control().readCardAccess()
        #expect(read == long)
        #expect(AccessControl.usablePACEInfo(in: read) != nil, "PACE was not found in the long CardAccess")
        bench.complete()
    }

    @Test func anAbsentCardAccessIsNoneWithoutSelectingTheMasterFile() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.readCardAccess, hex("6A82"))
        #expect(try bench.control().readCardAccess() == nil)
        bench.complete()
    }

    @Test func aRefusedReadSelectsTheMasterFileAndReadsAgain() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.readCardAccess, hex("6982"))
        bench.chip.expect(hex("00A4000C023F00"), hex("9000"))
        bench.chip.expect(Self.readCardAccess, ReadTestData.cardAccessGM + hex("6282"))
        #expect(try bench.control().readCardAccess() == ReadTestData.cardAccessGM)
        bench.complete()
    }

    @Test func noMasterFileMeansNoCardAccess() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.readCardAccess, hex("6982"))
        bench.chip.expect(hex("00A4000C023F00"), hex("6A82"))
        #expect(try bench.control().readCardAccess() == nil)
        bench.complete()
    }

    @Test func aRefusedApplicationMeansNotAPassport() throws {
        let bench = ReaderBench()
        bench.chip.expect(ScriptedChip.selectApplication, ResponseAPDU(data: [], status: .fileNotFound))
        let error = #expect(throws: ScanError.notAPassport(status: .fileNotFound)) { try bench.control().establish(cardAccess: nil) }
        #expect(error?.description == "The card is not an ICAO passport (it refused the eMRTD application: 6A82 (file not found)).")
        bench.complete()
    }
}

// MARK: - access control

@Suite struct AccessControlStep {
    static let mseSetATWithMRZ = hex("0022C1A412 800A04007F00070202040202 830101 84010D")
    static let mseSetATWithCAN = hex("0022C1A412 800A04007F00070202040202 830102 84010D")

    @Test func bacOpensASessionTheChipShares() throws {
        let bench = ReaderBench()
        try bench.chip.expectBAC(ReadTestData.accessKey)
        let (gained, stack, _) = try bench.control().establish(cardAccess: nil)
        #expect(gained.protocolName == "BAC")
        #expect(bench.log.lines == ["authenticating BAC", "authenticated BAC"])
        #expect(!bench.channel.retriesWrongLength, "6Cxx retries must be off under secure messaging")
        // Keys and counter agree with the chip's: a protected SELECT goes through.
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1E]), ResponseAPDU(data: [], status: .success))
        #expect(try stack.channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1E])).status == .success)
        bench.complete()
    }

    @Test(.enabled(if: ICAO.vectors != nil, "reference vectors absent"))
    func bacReproducesTheICAOWorkedExample() throws {
        let d3 = "bac_D3_mutual_authentication"
        let key = MRZAccessKey(documentNumber: "L898902C", birthDate: try ICAO.value("bac_D2_key_derivation", "date_of_birth"),
                               expiryDate: try ICAO.value("bac_D2_key_derivation", "date_of_expiry"))
        let (rndIFD, kIFD) = (hex(try ICAO.value(d3, "rnd_ifd")), hex(try ICAO.value(d3, "k_ifd")))
        let bench = ReaderBench()
        bench.chip.expect(ScriptedChip.selectApplication, ResponseAPDU(data: [], status: .success))
        bench.chip.expect(hex("0084000008"), hex(try ICAO.value(d3, "rnd_icc")) + hex("9000"))
        bench.chip.expect(hex("0082000028") + hex(try ICAO.value(d3, "external_authenticate_data_eifd_mifd")) + [0x28],
                          hex(try ICAO.value(d3, "chip_response_eicc_micc")) + hex("9000"))
        let control = AccessControl(channel: bench.channel, access: AccessCredentials(mrz: key), events: bench.log.sink,
                                    random: { $0 == 16 ? kIFD : rndIFD })
        let (_, stack, _) = try control.establish(cardAccess: nil)
        let (ksEnc, ksMAC, ssc) = (try ICAO.value(d3, "ks_enc"), try ICAO.value(d3, "ks_mac"), try ICAO.value(d3, "ssc"))
        #expect(hex(stack.secure?.keys.encryptionKeyForTesting ?? []) == ksEnc.uppercased())
        #expect(hex(stack.secure?.keys.macKeyForTesting ?? []) == ksMAC.uppercased())
        #expect(hex(stack.secure?.ssc ?? []) == ssc.uppercased())
        bench.complete()
    }

    @Test func aRefusedAccessKeyIsAccessDenied() throws {
        let bench = ReaderBench()
        try bench.chip.expectBAC(ReadTestData.accessKey, refusal: .authenticationFailed)
        #expect(throws: ScanError.accessDenied(status: .authenticationFailed)) { try bench.control().establish(cardAccess: nil) }
        #expect(bench.log.lines == ["authenticating BAC"])
        bench.complete()
    }

    @Test func withoutAUsablePACEProfileBACIsUsed() throws {
        let bench = ReaderBench()
        try bench.chip.expectBAC(ReadTestData.accessKey)
        // A PACEInfo with an unknown mapping (arc 5) is not usable: no MSE:Set AT is sent.
        let unusable = hex("3114 3012 060A 04007F00070202040502 020102 02010D")
        let (gained, _, _) = try bench.control().establish(cardAccess: unusable)
        #expect(gained.protocolName == "BAC")
        bench.complete()
    }

    @Test func theCANWithoutPACEIsRefusedBeforeAnyCommand() throws {
        let bench = ReaderBench()
        #expect(throws: ScanError.canNeedsPACE) { try bench.control(AccessCredentials(can: "123456")).establish(cardAccess: nil) }
        #expect(bench.chip.transport.received.isEmpty)
    }

    @Test func aFailedPACEWithTheMRZFallsBackToBAC() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.mseSetATWithMRZ, hex("6A80"))
        try bench.chip.expectBAC(ReadTestData.accessKey)
        let (gained, _, fallback) = try bench.control().establish(cardAccess: ReadTestData.cardAccessGM)
        #expect(gained.protocolName == "BAC")
        // The downgrade is recorded: which profile was offered and how PACE failed.
        let failure = try #require(fallback).failure
        #expect(failure.contains("6A80"), "\(failure)")
        #expect(fallback?.offered.hasPrefix("PACE-ECDH-GM") == true, "\(fallback?.offered ?? "")")
        #expect(bench.log.lines == ["authenticating PACE", "PACE failed: \(failure)", "authenticating BAC", "authenticated BAC"])
        bench.complete()
    }

    @Test func aFailedPACEOnAChipThatRefusesBACIsReportedAsThePACEFailure() throws {
        // A PACE-only chip (BSI TR-03105-5.1's PACE unit): after the failed PACE, BAC is refused
        // by the chip as such; the scan names PACE's failure, not MUTUAL AUTHENTICATE's 6985.
        let bench = ReaderBench()
        bench.chip.expect(Self.mseSetATWithMRZ, hex("6A80"))
        try bench.chip.expectBAC(ReadTestData.accessKey, refusal: StatusWord(0x6985))
        let error = #expect(throws: ScanError.self) { try bench.control().establish(cardAccess: ReadTestData.cardAccessGM) }
        guard case .secureMessagingFailed(let file, let cause)? = error as? ScanError else {
            Issue.record("not a PACE failure: \(String(describing: error))")
            return
        }
        #expect(file == .cardAccess)
        #expect(cause.hasPrefix("PACE failed (") && cause.contains("6A80") && cause.contains("6985"), "\(cause)")
        bench.complete()
    }

    @Test func aFailedPACEThenAWrongBACKeyStaysAnAccessRefusal() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.mseSetATWithMRZ, hex("6A80"))
        try bench.chip.expectBAC(ReadTestData.accessKey, refusal: StatusWord(0x6300))
        #expect(throws: ScanError.accessDenied(status: StatusWord(0x6300))) {
            try bench.control().establish(cardAccess: ReadTestData.cardAccessGM)
        }
        bench.complete()
    }

    @Test func aRefusedCANIsFinal() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.mseSetATWithCAN, hex("63C2"))
        let error = #expect(throws: ScanError.passwordRefused(password: "CAN", status: StatusWord(0x63C2))) {
            try bench.control(AccessCredentials(mrz: ReadTestData.accessKey, can: "123456")).establish(cardAccess: ReadTestData.cardAccessGM)
        }
        #expect(error?.description == "The chip refused the CAN (63C2): check it and try again. 2 tries left before it is blocked.")
        bench.complete() // and no BAC after it
    }

    @Test func aPACEWithTheCANThatBreaksOffIsASecureMessagingFailure() throws {
        let bench = ReaderBench()
        bench.chip.expect(Self.mseSetATWithCAN, hex("6A80"))
        let cause = SecurityError.unexpectedStatus(command: "PACE MSE:Set AT", status: StatusWord(0x6A80)).description
        #expect(throws: ScanError.secureMessagingFailed(file: .cardAccess, cause: cause)) {
            try bench.control(AccessCredentials(can: "123456")).establish(cardAccess: ReadTestData.cardAccessGM)
        }
        bench.complete()
    }

    @Test(.enabled(if: ICAO.available, "reference vectors absent"))
    func paceReproducesTheICAOWorkedExampleThenSelectsTheApplication() throws {
        let bench = ReaderBench()
        try ICAO.expectPACE(on: bench.chip)
        bench.chip.expectSecure(ScriptedChip.selectApplication, ResponseAPDU(data: [], status: .success))
        let control = bench.control(AccessCredentials(mrz: try ICAO.paceKey()), pacePrivateKeys: try ICAO.pacePrivateKeys())
        let session = try ReadSession(opening: control, cardAccess: hex(try ICAO.value(ICAO.paceSection, "card_access_security_infos")))
        #expect(session.gained.protocolName == "PACE ECDH-GM brainpoolP256r1 AES-128 (MRZ)")
        #expect(session.files[.cardAccess] != nil, "EF.CardAccess goes into the dump")
        try session.authenticateChipByPACEMapping() // GM: nothing to check, nothing read
        try session.selectApplicationAfterPACE()
        #expect(bench.log.lines == ["authenticating PACE", "authenticated PACE"])
        #expect(!bench.channel.retriesWrongLength)
        bench.complete()
    }

    @Test func aRefusedApplicationAfterPACEMeansNotAPassport() throws {
        let bench = ReaderBench()
        let session = bench.paceSession(info: try #require(try SecurityInfos(bytes: ReadTestData.cardAccessGM).paceInfos.first), cam: nil)
        bench.chip.expectSecure(ScriptedChip.selectApplication, ResponseAPDU(data: [], status: .fileNotFound))
        #expect(throws: ScanError.notAPassport(status: .fileNotFound)) { try session.selectApplicationAfterPACE() }
        bench.complete()
    }
}

// MARK: - reading files

@Suite struct FileReadingStep {
    static let dg2 = ReadTestData.file(tag: 0x75, count: 496) // 500 bytes: three short reads

    @Test func readsAFileInChunksWithItsStatistics() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.dataGroup(2), Self.dg2)
        try session.readFile(.dataGroup(2))
        #expect(session.files[.dataGroup(2)] == Self.dg2)
        #expect(session.statistics[.dataGroup(2)]?.apdus == 3)
        #expect(bench.log.lines == ["reading DG2 231/500", "reading DG2 462/500", "reading DG2 500/500", "read DG2 500"])
        bench.complete()
    }

    @Test func aFileTheChipWithholdsIsRecordedAsUnavailable() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.dataGroup(3), .securityStatusNotSatisfied)
        bench.chip.expectWithheld(.dataGroup(4), .fileNotFound)
        try session.readFile(.dataGroup(3))
        try session.readFile(.dataGroup(4))
        let eac = "access denied (6982 (security status not satisfied)); this file needs Extended Access Control"
        #expect(session.unavailable == [.dataGroup(3): eac, .dataGroup(4): "not readable (6A82 (file not found))"])
        #expect(session.files.isEmpty && session.statistics.isEmpty)
        #expect(bench.log.lines == ["unavailable DG3: \(eac)", "unavailable DG4: not readable (6A82 (file not found))"])
        bench.complete()
    }

    @Test func aLostSessionIsReopenedAndTheReadResumes() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 2, ne: 231), ResponseAPDU(data: Array(Self.dg2[0..<231]), status: .success))
        bench.chip.expectSecure(ScriptedChip.readBinary(offset: 231, ne: 231), ResponseAPDU(data: Array(Self.dg2[231..<462]), status: .success),
                                corruptMAC: true)
        try bench.chip.expectBAC(ReadTestData.accessKey)
        // Resumed: the file selected by FID in the new session, the read continued where it stopped.
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x02]), ResponseAPDU(data: [], status: .success))
        bench.chip.expectFile(.dataGroup(2), Self.dg2, from: 231)
        try session.readFile(.dataGroup(2))
        #expect(session.files[.dataGroup(2)] == Self.dg2)
        #expect(session.recoveriesLeft == PassportReader.maximumRecoveries - 1)
        #expect(session.statistics[.dataGroup(2)]?.apdus == 8, "2 reads, BAC (3), SELECT, 2 reads")
        #expect(bench.log.lines.contains("recovering DG2: \(SecurityError.badMAC.description)"))
        #expect(Array(bench.log.lines.suffix(3)) == ["reading DG2 462/500", "reading DG2 500/500", "read DG2 500"])
        bench.complete()
    }

    @Test func aChipThatDropsSecureMessagingIsRecoveredToo() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 231), bare: .smDataObjectsMissing)
        try bench.chip.expectBAC(ReadTestData.accessKey)
        let dg1 = try ReadTestData.fixture("passport/DG1.bin")
        bench.chip.expectFile(.dataGroup(1), dg1) // nothing was read yet: a fresh read, no SELECT
        try session.readFile(.dataGroup(1))
        #expect(session.files[.dataGroup(1)] == dg1)
        #expect(bench.log.lines.first == "recovering DG1: \(SecurityError.secureMessagingEnded(status: .smDataObjectsMissing).description)")
        // Reset before BAC again: a chip may keep the failed session's state until then.
        #expect(bench.chip.transport.resets == 1)
        bench.complete()
    }

    /// EF.COM read, then DG2 interrupted after 231 bytes; the card comes back and BAC runs again.
    static func dg2InterruptedAt231() throws -> (ReaderBench, ReadSession, [UInt8]) {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.resumeWait = 5
        let com = try ReadTestData.fixture("passport/COM.bin")
        bench.chip.expectFile(.com, com)
        try session.readFile(.com)
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 2, ne: 231), ResponseAPDU(data: Array(Self.dg2[0..<231]), status: .success))
        bench.chip.transport.append([.matching("READ BINARY at 231", { _ in true }) { _ in throw CardIOError.cardRemoved }])
        bench.chip.transport.returnsAfterRemoval = { true }
        try bench.chip.expectBAC(ReadTestData.accessKey)
        return (bench, session, com)
    }

    /// The passport leaves the reader in DG2 and comes back: access again with the same key,
    /// EF.COM read again and unchanged (the same document), DG2 selected and read on from where
    /// it stopped; the interruption is recorded.
    @Test func aCardThatComesBackIsReadOnWhereItStopped() throws {
        let (bench, session, com) = try Self.dg2InterruptedAt231()
        bench.chip.expectFile(.com, com)
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x02]), ResponseAPDU(data: [], status: .success))
        bench.chip.expectFile(.dataGroup(2), Self.dg2, from: 231)
        try session.readFile(.dataGroup(2))
        #expect(session.files[.dataGroup(2)] == Self.dg2)
        #expect(session.interruptions.map(\.offset) == [231] && session.interruptions.first?.file == .dataGroup(2))
        #expect(bench.log.lines.contains("interrupted DG2 at 231") && bench.log.lines.contains("resumed DG2 at 231"))
        bench.complete()
    }

    /// Another document came back (its EF.COM differs): nothing of it is taken.
    @Test func anotherDocumentAfterTheInterruptionIsRefused() throws {
        let (bench, session, com) = try Self.dg2InterruptedAt231()
        var other = com
        other[other.count - 1] ^= 0x01
        bench.chip.expectFile(.com, other)
        #expect(throws: ScanError.differentDocument(file: .dataGroup(2), changed: .com)) { try session.readFile(.dataGroup(2)) }
        #expect(session.files[.dataGroup(2)] == nil)
        bench.complete()
    }

    @Test func withoutRecoveriesLeftALostSessionEndsTheScan() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession(recoveries: 0)
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 231), ResponseAPDU(data: [0x61, 0x00], status: .success), corruptMAC: true)
        #expect(throws: ScanError.secureMessagingFailed(file: .dataGroup(1), cause: SecurityError.badMAC.description)) {
            try session.readFile(.dataGroup(1))
        }
        bench.complete() // no BAC attempted
    }

    @Test func aCardTakenAwayMidFileIsAnInterruption() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 2, ne: 231), ResponseAPDU(data: Array(Self.dg2[0..<231]), status: .success))
        bench.chip.transport.append([.matching("READ BINARY at 231", { _ in true }) { _ in throw CardIOError.cardRemoved }])
        #expect(throws: ScanError.interrupted(file: .dataGroup(2), bytesRead: 231, cause: CardIOError.cardRemoved.description)) {
            try session.readFile(.dataGroup(2))
        }
        #expect(session.files.isEmpty)
        bench.complete()
    }

    @Test func wrongLengthUnderSecureMessagingIsLeftToTheFileReader() throws {
        // With the channel repeating 6Cxx itself, the repeat would carry a stale counter and
        // break the script; the file reader must get the status and ask for less.
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let dg1 = try ReadTestData.fixture("passport/DG1.bin")
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 231), ResponseAPDU(data: [], status: StatusWord(0x6C10)))
        bench.chip.expectFile(.dataGroup(1), dg1, chunk: 16)
        try session.readFile(.dataGroup(1))
        #expect(session.files[.dataGroup(1)] == dg1)
        bench.complete()
    }
}

// MARK: - EF.COM, or EF.SOD's list without it

@Suite struct DataGroupListStep {
    @Test func efCOMListsTheDataGroups() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.com, ReadTestData.com([0x61, 0x75, 0x6F]))
        #expect(try session.readDataGroupList() == [.dataGroup(1), .dataGroup(2), .dataGroup(15)])
        #expect(session.evidence().dataGroupList == nil)
        bench.complete()
    }

    /// The fixture passport's EF.SOD hashes DG1, DG2, DG11, DG12, DG14 and DG15.
    static let sodList: [LDSFile] = [1, 2, 11, 12, 14, 15].map(LDSFile.dataGroup)

    @Test func withoutEFCOMTheSignedListOfEFSODIsUsed() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.com, .fileNotFound)
        bench.chip.expectFile(.sod, try ReadTestData.fixture("passport/SOD.bin"))
        #expect(try session.readDataGroupList() == Self.sodList)
        #expect(session.evidence().dataGroupList == ChipEvidence.DataGroupList(source: "EF.SOD", comProblem: "not readable (6A82 (file not found))"))
        #expect(session.unavailable[.com] == "not readable (6A82 (file not found))")
        bench.complete()
    }

    /// A chip answered EF.COM's short identifier with EF.DIR (two 61 objects, 90 bytes): not an
    /// EF.COM, set aside with its tag and length; EF.SOD lists the data groups (issue 48, item 2).
    @Test func anotherFileForEFCOMIsSetAside() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let dir = TLV.encode(tag: 0x61, value: [UInt8](repeating: 0x4F, count: 50)) + TLV.encode(tag: 0x61, value: [UInt8](repeating: 0x50, count: 36))
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: LDSFile.com.shortFID, ne: 231), ResponseAPDU(data: dir, status: StatusWord(0x6282)))
        bench.chip.expectFile(.sod, try ReadTestData.fixture("passport/SOD.bin"))
        #expect(try session.readDataGroupList() == Self.sodList)
        #expect(session.unavailable[.com] == "not an EF.COM (COM read from the chip starts with tag 61, an object of 52 bytes, where COM starts with tag 60)")
        bench.complete()
    }

    /// An EF.COM followed by other data (a second object) is not one EF.COM; followed by 00 or
    /// FF padding (a file allocated larger than its contents) it is, without the padding.
    @Test(arguments: [(0x00, true), (0xFF, true), (0x61, false)] as [(UInt8, Bool)])
    func whatFollowsEFCOMDecidesWhetherItIsOne(trailing: UInt8, usable: Bool) throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let com = try ReadTestData.fixture("passport/COM.bin")
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: LDSFile.com.shortFID, ne: 231),
                                ResponseAPDU(data: com + [UInt8](repeating: trailing, count: 16), status: StatusWord(0x6282)))
        if !usable { bench.chip.expectFile(.sod, try ReadTestData.fixture("passport/SOD.bin")) }
        _ = try session.readDataGroupList()
        #expect(session.files[.com] == (usable ? com : nil))
        #expect((session.unavailable[.com]?.contains("not one object")) == (usable ? nil : true), "\(session.unavailable)")
        bench.complete()
    }

    @Test func anEFCOMThatIsNotOneIsSetAsideAndEFSODListsTheDataGroups() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.com, hex("6102 5C00"))
        bench.chip.expectFile(.sod, try ReadTestData.fixture("passport/SOD.bin"))
        #expect(try session.readDataGroupList() == Self.sodList)
        #expect(session.files[.com] == nil, "a file that is not an EF.COM is not saved as one")
        #expect(session.evidence().dataGroupList?.comProblem == "not an EF.COM (COM read from the chip starts with tag 61, an object of 4 bytes, where COM starts with tag 60)")
        bench.complete()
    }

    @Test func withoutEFCOMAndEFSODNothingListsTheDataGroups() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.com, .fileNotFound)
        bench.chip.expectWithheld(.sod, .fileNotFound)
        #expect(throws: ScanError.missingRequiredFile(.sod, reason: "nothing lists the data groups: EF.COM not readable (6A82 (file not found)), EF.SOD not readable (6A82 (file not found))")) {
            try session.readDataGroupList()
        }
        bench.complete()
    }

    @Test func aMalformedEFSODWithoutEFCOMEndsTheScan() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.com, .fileNotFound)
        bench.chip.expectFile(.sod, hex("7703 020100"))
        #expect { try session.readDataGroupList() } throws: { error in
            guard case .malformedFile(.sod, let cause)? = error as? ScanError else { return false }
            return cause.hasSuffix("(EF.COM is missing too, so nothing lists the data groups)")
        }
        bench.complete()
    }

    /// EF.SOD, read first for its list, is not read again at the end.
    @Test func efSODReadForTheListIsNotReadTwice() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let sod = try ReadTestData.fixture("passport/SOD.bin")
        bench.chip.expectWithheld(.com, .fileNotFound)
        bench.chip.expectFile(.sod, sod)
        let listed = try session.readDataGroupList()
        let dg1 = ReadTestData.file(tag: 0x61, count: 40)
        bench.chip.expectFile(.dataGroup(1), dg1)
        bench.chip.expectFile(.dataGroup(2), ReadTestData.file(tag: 0x75, count: 300))
        for number in [11, 12, 15] { bench.chip.expectWithheld(.dataGroup(number), .fileNotFound) }
        try session.readRemainingFiles(listed: listed.filter { $0 != .dataGroup(14) })
        #expect(session.files[.sod] == sod && session.files[.dataGroup(1)] == dg1)
        bench.complete()
    }
}

// MARK: - chip authentication

@Suite struct ChipAuthenticationStep {
    static func comWithDG14() throws -> EFCOM { try EFCOM(bytes: ReadTestData.com([0x61, 0x6E])) }

    /// MSE:Set AT and GENERAL AUTHENTICATE of CA (AES, DG14 of the fixture) as the chip sees
    /// them; the chip agrees the key with its private key and switches to the new session.
    /// `refusal` answers GENERAL AUTHENTICATE with that status instead.
    static func expectChipAuthentication(on chip: ScriptedChip, refusal: StatusWord? = nil) throws {
        let scalar = try ReadTestData.chipAuthenticationScalar()
        let protocolOID = TLV.encode(tag: 0x80, value: ObjectIdentifier.encode("0.4.0.127.0.7.2.2.3.2.2"))
        chip.expectSecure("MSE:Set AT (CA)", where: { $0.ins == 0x22 && $0.p1 == 0x41 && $0.p2 == 0xA4 && $0.data == protocolOID },
                          answer: { _ in ResponseAPDU(data: [], status: .success) })
        chip.expectSecure("GENERAL AUTHENTICATE (CA)", where: { $0.ins == 0x86 && $0.data.starts(with: [0x7C]) },
                          answer: { _ in ResponseAPDU(data: [], status: refusal ?? .success) },
                          then: { [weak chip] command in
            guard refusal == nil else { return }
            let point = Array(try TLV.parse(TLV.parse(command.data).value).value) // 7C { 80 point }
            let group = try PACEGroup(standardizedParameter: 13)
            let secret = group.sharedSecret(try group.multiply(point, by: scalar))
            let keys = SessionKeys(suite: .aes, encryptionKey: KeyDerivation.aesKey(secret, purpose: .encryption, length: 16),
                                   macKey: KeyDerivation.aesKey(secret, purpose: .mac, length: 16))
            chip?.session = ChipSecureMessaging(keys: keys, ssc: [UInt8](repeating: 0, count: 16))
        })
    }

    @Test func withoutDG14ChipAuthenticationIsNotSupported() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.dataGroup(14), .fileNotFound)
        try session.authenticateChip(listed: try EFCOM(bytes: ReadTestData.com([0x61])).dataGroups)
        #expect(session.chipAuthentication == .notSupported("the chip has no DG14"))
        #expect(session.unavailable.isEmpty, "an unlisted DG14 that is absent is no finding")
        bench.complete()
    }

    @Test func aListedDG14TheChipWithholdsFailsIt() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.dataGroup(14), .securityStatusNotSatisfied)
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .failed("EF.COM lists DG14 but the chip did not give it: "
            + "access denied (6982 (security status not satisfied)); this file needs Extended Access Control"))
        bench.complete()
    }

    @Test func theNextFileReadUnderTheNewKeysProvesTheChip() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let dg14 = try ReadTestData.fixture("passport/DG14.bin"), dg1 = try ReadTestData.fixture("passport/DG1.bin")
        bench.chip.expectFile(.dataGroup(14), dg14)
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectFile(.dataGroup(1), dg1, chunk: 223)
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .passed)
        #expect(session.files[.dataGroup(1)] == dg1)
        #expect(session.stack.secure?.suite == .aes, "the rest is read under the CA session")
        #expect(Array(bench.log.lines.suffix(4)) == ["authenticating Chip Authentication", "reading DG1 93/93", "read DG1 93",
                                                      "authenticated Chip Authentication"])
        bench.complete()
    }

    @Test func oneCorruptedAnswerIsRetriedOnce() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        let dg14 = try ReadTestData.fixture("passport/DG14.bin"), dg1 = try ReadTestData.fixture("passport/DG1.bin")
        bench.chip.expectFile(.dataGroup(14), dg14)
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 223), ResponseAPDU(data: dg1, status: .success), corruptMAC: true)
        try bench.chip.expectBAC(ReadTestData.accessKey)
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectFile(.dataGroup(1), dg1, chunk: 223)
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .passed)
        #expect(session.files[.dataGroup(1)] == dg1)
        // Named as what it is, not as a lost read of DG1 (which was not being read).
        #expect(bench.log.lines.contains { $0.hasPrefix("retrying chip authentication: ") }, "\(bench.log.lines)")
        #expect(!bench.log.lines.contains { $0.hasPrefix("recovering") })
        #expect(session.recoveriesLeft == PassportReader.maximumRecoveries, "CA's retry is not a file recovery")
        bench.complete()
    }

    @Test func failingTwiceFailsChipAuthenticationAndReopensTheSession() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.dataGroup(14), try ReadTestData.fixture("passport/DG14.bin"))
        for _ in 1...2 {
            try Self.expectChipAuthentication(on: bench.chip, refusal: StatusWord(0x6A80))
            try bench.chip.expectBAC(ReadTestData.accessKey)
        }
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .failed("Chip authentication: the chip answered 6A80 (incorrect data) to GENERAL AUTHENTICATE (twice); "
            + "a chip whose DG14 offers chip authentication must perform it"))
        #expect(session.files[.dataGroup(1)] == nil, "DG1 is read later, in the new session")
        #expect(bench.log.lines.filter { $0.hasPrefix("retrying chip authentication") }.count == 1)
        #expect(!bench.log.lines.contains { $0.hasPrefix("recovering") })
        #expect(session.stack.secure?.suite == .tripleDES, "a BAC session again")
        bench.complete()
    }

    /// A chip that derived other keys answers the first command under the new keys with a bare
    /// status word (6985, as an independent chip does): that proves nothing, and it ends the
    /// session (the chip may or may not have counted the command), so chip authentication is
    /// tried again in a new one, selecting the file first this time (a genuine chip that takes no
    /// short identifiers proves itself so). Answered in plain again (6985, or 6988 as a chip that
    /// has left secure messaging answers), chip authentication fails, the file is not taken as
    /// absent, and the session is opened again with the access key.
    @Test(arguments: [0x6985, 0x6988] as [UInt16])
    func aBareStatusWordUnderTheNewKeysFailsChipAuthentication(selectAnswer: UInt16) throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.dataGroup(14), try ReadTestData.fixture("passport/DG14.bin"))
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 223), bare: StatusWord(0x6985))
        try bench.chip.expectBAC(ReadTestData.accessKey)
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x01]), bare: StatusWord(selectAnswer))
        try bench.chip.expectBAC(ReadTestData.accessKey)
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .failed("chip authentication failed: the chip answered the first command under the new keys "
            + "without secure messaging (\(StatusWord(selectAnswer))) (twice)"))
        #expect(session.unavailable[.dataGroup(1)] == nil, "a bare status word is no evidence that DG1 is absent")
        #expect(session.files[.dataGroup(1)] == nil)
        #expect(session.stack.secure?.suite == .tripleDES, "a BAC session again")
        bench.complete()
    }

    /// A genuine chip that takes no short identifiers may refuse one with a bare 6985: nothing
    /// more is sent in that session; in the next, chip authentication again, then the protected
    /// answers to SELECT and READ BINARY prove its keys.
    @Test func aBareRefusalFollowedByProtectedAnswersPasses() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.dataGroup(14), try ReadTestData.fixture("passport/DG14.bin"))
        try Self.expectChipAuthentication(on: bench.chip)
        let dg1 = ReadTestData.file(tag: 0x61, count: 40)
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 1, ne: 223), bare: StatusWord(0x6985))
        try bench.chip.expectBAC(ReadTestData.accessKey)
        try Self.expectChipAuthentication(on: bench.chip)
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x01]), ResponseAPDU(data: [], status: .success))
        bench.chip.expectSecure(ScriptedChip.readBinary(offset: 0, ne: 223), ResponseAPDU(data: dg1, status: .success))
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .passed)
        #expect(session.files[.dataGroup(1)] == dg1)
        bench.complete()
    }

    /// No DG14, but EF.CardAccess announces chip authentication version 2 (its keys are in an
    /// EF.CardSecurity the chip withholds until terminal authentication): the outcome says that,
    /// not "the chip has no DG14" (issue 48, item 4).
    @Test func chipAuthenticationAnnouncedInEFCardAccessIsNamed() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        // SET { SEQUENCE { id-CA-ECDH-AES-CBC-CMAC-128, version 2 } }
        session.files[.cardAccess] = hex("3111300F060A04007F00070202030202020102")
        session.unavailableStatus[.cardSecurity] = .securityStatusNotSatisfied
        bench.chip.expectWithheld(.dataGroup(14), .fileNotFound)
        try session.authenticateChip(listed: [.dataGroup(1), .dataGroup(2)])
        guard case .notSupported(let why) = session.chipAuthentication else { Issue.record("\(session.chipAuthentication)"); return }
        #expect(why.contains("chip authentication version 2") && why.contains("only after terminal authentication") && !why.contains("no DG14"), "\(why)")
        bench.complete()
    }

    @Test func afterPACECAMNothingIsRead() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.chipAuthentication = .passed
        try session.authenticateChip(listed: try Self.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .passed)
        bench.complete()
    }
}

// MARK: - PACE chip authentication mapping

@Suite struct PACEMappingStep {
    static let caData = [UInt8](repeating: 0x01, count: 32)

    /// CA_IC · PK_IC with PK_IC the key of the fixture's EF.CardSecurity: what a genuine chip sends.
    static func mappingKey(caData: [UInt8] = caData) throws -> [UInt8] {
        let cardSecurity = try ReadTestData.fixture("passport-pace/CardSecurity.bin")
        let key = try PassportReader.chipAuthenticationKey(inCardSecurity: cardSecurity)
        return try PACEGroup(standardizedParameter: 13).multiply(key, by: caData)
    }

    static func camInfo() throws -> PACEInfo {
        try #require(try SecurityInfos(bytes: ReadTestData.cardAccessCAM).paceInfos.first)
    }

    @Test func aMappingThatMatchesEFCardSecurityPasses() throws {
        let bench = ReaderBench()
        let session = bench.paceSession(info: try Self.camInfo(), cam: (mappingKey: try Self.mappingKey(), caData: Self.caData))
        let cardSecurity = try ReadTestData.fixture("passport-pace/CardSecurity.bin")
        bench.chip.expectFile(.cardSecurity, cardSecurity, chunk: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        #expect(session.chipAuthentication == .passed)
        #expect(session.files[.cardSecurity] == cardSecurity)
        bench.complete()
    }

    @Test func aMappingThatDoesNotMatchFails() throws {
        let bench = ReaderBench()
        let other = try Self.mappingKey(caData: [UInt8](repeating: 0x02, count: 32))
        let session = bench.paceSession(info: try Self.camInfo(), cam: (mappingKey: other, caData: Self.caData))
        bench.chip.expectFile(.cardSecurity, try ReadTestData.fixture("passport-pace/CardSecurity.bin"), chunk: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        let why = SecurityError.chipAuthenticationFailed("the chip authentication data does not match EF.CardSecurity's key: the chip may be a copy")
        #expect(session.chipAuthentication == .failed("PACE-CAM: \(why)"))
        bench.complete()
    }

    @Test func aRefutedMappingIsNotOverturnedByChipAuthenticationWithDG14() throws {
        // BSI TR-03105-5.1 ISO7816_G_31: wrong chip authentication data stays a failure, even if
        // the chip then passes chip authentication with DG14's key.
        let bench = ReaderBench()
        let other = try Self.mappingKey(caData: [UInt8](repeating: 0x02, count: 32))
        let session = bench.paceSession(info: try Self.camInfo(), cam: (mappingKey: other, caData: Self.caData))
        bench.chip.expectFile(.cardSecurity, try ReadTestData.fixture("passport-pace/CardSecurity.bin"), chunk: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        try session.authenticateChip(listed: try ChipAuthenticationStep.comWithDG14().dataGroups)
        guard case .failed(let why) = session.chipAuthentication else {
            Issue.record("chip authentication \(session.chipAuthentication)")
            return
        }
        #expect(why.hasPrefix("PACE-CAM"))
        bench.complete()    // DG14 not even read
    }

    @Test func withoutEFCardSecurityTheMappingFails() throws {
        let bench = ReaderBench()
        let session = bench.paceSession(info: try Self.camInfo(), cam: (mappingKey: try Self.mappingKey(), caData: Self.caData))
        bench.chip.expectWithheld(.cardSecurity, .fileNotFound, chunk: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        #expect(session.chipAuthentication == .failed("PACE-CAM: \(SecurityError.chipAuthenticationFailed("EF.CardSecurity could not be read"))"))
        try session.authenticateChip(listed: try ChipAuthenticationStep.comWithDG14().dataGroups)
        #expect(session.chipAuthentication == .failed("PACE-CAM: \(SecurityError.chipAuthenticationFailed("EF.CardSecurity could not be read"))"),
                "DG14 does not stand in for a PACE-CAM without a key")
        bench.complete()    // DG14 not even read
    }

    /// After PACE-GM EF.CardSecurity is read too: passive authentication compares it with
    /// EF.CardAccess (TR-03105 5.1 LDS_J). It authenticates nothing by itself.
    @Test func afterPACEGMEFCardSecurityIsReadForPassiveAuthentication() throws {
        let bench = ReaderBench()
        let gm = try #require(try SecurityInfos(bytes: ReadTestData.cardAccessGM).paceInfos.first)
        let session = bench.paceSession(info: gm, cam: nil)
        let cardSecurity = try ReadTestData.fixture("passport-pace/CardSecurity.bin")
        bench.chip.expectFile(.cardSecurity, cardSecurity, chunk: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        #expect(session.files[.cardSecurity] == cardSecurity)
        #expect(session.chipAuthenticationMethod == nil, "EF.CardSecurity is no chip authentication after PACE-GM")
        bench.complete()
    }

    /// Without PACE-CAM EF.CardSecurity is optional: its absence is no finding. A refusal is.
    @Test(arguments: [(StatusWord.fileNotFound, false), (StatusWord.securityStatusNotSatisfied, true)])
    func anAbsentEFCardSecurityAfterPACEGMIsNoFinding(status: StatusWord, reported: Bool) throws {
        let bench = ReaderBench()
        let gm = try #require(try SecurityInfos(bytes: ReadTestData.cardAccessGM).paceInfos.first)
        let session = bench.paceSession(info: gm, cam: nil)
        bench.chip.expectWithheld(.cardSecurity, status, chunk: 223)
        try session.readCardSecurityAfterPACE()
        #expect(session.files[.cardSecurity] == nil)
        #expect((session.unavailable[.cardSecurity] != nil) == reported, "\(session.unavailable)")
        bench.complete()
    }

    @Test func withoutCAMNothingIsRead() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        try session.selectApplicationAfterPACE() // BAC selected the application already
        #expect(session.chipAuthentication == .notSupported("the chip has no DG14"))
        bench.complete()
    }

    /// A session lost while EF.CardSecurity is read is re-opened by PACE in the master file:
    /// no SELECT of the application, the file selected by FID and read on.
    @Test(.enabled(if: ICAO.available, "reference vectors absent"))
    func aLostSessionResumesEFCardSecurityInTheMasterFile() throws {
        let bench = ReaderBench()
        let session = bench.paceSession(info: try ICAO.paceInfo(), cam: (mappingKey: try Self.mappingKey(), caData: Self.caData),
                                        key: try ICAO.paceKey(), pacePrivateKeys: try ICAO.pacePrivateKeys())
        let cardSecurity = try ReadTestData.fixture("passport-pace/CardSecurity.bin")
        bench.chip.expectSecure(ScriptedChip.readBinary(shortFID: 0x1D, ne: 223), ResponseAPDU(data: Array(cardSecurity[0..<223]), status: .success))
        bench.chip.expectSecure(ScriptedChip.readBinary(offset: 223, ne: 223), ResponseAPDU(data: Array(cardSecurity[223..<446]), status: .success),
                                corruptMAC: true)
        try ICAO.expectPACE(on: bench.chip)
        bench.chip.expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1D]), ResponseAPDU(data: [], status: .success))
        bench.chip.expectFile(.cardSecurity, cardSecurity, chunk: 223, from: 223)
        try session.readCardSecurityAfterPACE()
        try session.authenticateChipByPACEMapping()
        #expect(session.chipAuthentication == .passed)
        #expect(session.files[.cardSecurity] == cardSecurity)
        #expect(bench.log.lines.contains("recovering CardSecurity: \(SecurityError.badMAC.description)"))
        #expect(session.recoveriesLeft == PassportReader.maximumRecoveries - 1)
        bench.complete()
    }
}

// MARK: - the other files

@Suite struct RemainingFilesStep {
    static let dg1 = ReadTestData.file(tag: 0x61, count: 40)
    static let dg2 = ReadTestData.file(tag: 0x75, count: 60)
    static let sod = ReadTestData.file(tag: 0x77, count: 80)

    @Test func listedFilesThenDG15ThenEFSOD() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.files[.dataGroup(1)] = Self.dg1 // read as chip authentication's proof: not again
        // DG3 (listed) is not asked here: it waits for terminal authentication, the last step.
        bench.chip.expectFile(.dataGroup(2), Self.dg2)
        bench.chip.expectWithheld(.dataGroup(15), .fileNotFound)
        bench.chip.expectFile(.sod, Self.sod)
        try session.readRemainingFiles(listed: try EFCOM(bytes: ReadTestData.com([0x63, 0x75, 0x61])).dataGroups)
        #expect(session.files.keys.sorted() == [.dataGroup(1), .dataGroup(2), .sod])
        #expect(session.unavailable.isEmpty, "an unlisted DG15 that is absent is no finding")
        bench.complete()
    }

    @Test func withoutDG1TheScanFails() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectWithheld(.dataGroup(1), .fileNotFound)
        bench.chip.expectWithheld(.dataGroup(15), .fileNotFound)
        bench.chip.expectFile(.sod, Self.sod)
        #expect(throws: ScanError.missingRequiredFile(.dataGroup(1), reason: "not readable (6A82 (file not found))")) {
            try session.readRemainingFiles(listed: try EFCOM(bytes: ReadTestData.com([0x61])).dataGroups)
        }
        bench.complete()
    }

    @Test func withoutEFSODTheScanFailsButAnUnlistedDG2IsNoLoss() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        bench.chip.expectFile(.dataGroup(1), Self.dg1)
        bench.chip.expectWithheld(.dataGroup(15), .fileNotFound)
        bench.chip.expectWithheld(.sod, .securityStatusNotSatisfied)
        let reason = "access denied (6982 (security status not satisfied)); this file needs Extended Access Control"
        #expect(throws: ScanError.missingRequiredFile(.sod, reason: reason)) {
            try session.readRemainingFiles(listed: try EFCOM(bytes: ReadTestData.com([0x61])).dataGroups)
        }
        bench.complete()
    }
}

// MARK: - active authentication

@Suite struct ActiveAuthenticationStep {
    static let internalAuthenticate = CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: ScriptedChip.rndIFD, ne: 128)

    func sessionWithDG15(_ bench: ReaderBench) throws -> ReadSession {
        let session = try bench.bacSession()
        session.files[.dataGroup(15)] = try ReadTestData.fixture("passport/DG15.bin")
        return session
    }

    @Test func theChipsSignatureOverOurChallengePasses() throws {
        let bench = ReaderBench()
        let session = try sessionWithDG15(bench)
        let signature = try ReadTestData.activeAuthenticationAnswer(challenge: ScriptedChip.rndIFD)
        bench.chip.expectSecure(Self.internalAuthenticate, ResponseAPDU(data: signature, status: .success))
        session.authenticateActively()
        #expect(session.activeAuthentication == .passed)
        #expect(bench.log.lines == ["authenticating Active Authentication", "authenticated Active Authentication"])
        bench.complete()
    }

    @Test func aSignatureOverAnotherChallengeFails() throws {
        let bench = ReaderBench()
        let session = try sessionWithDG15(bench)
        let replayed = try ReadTestData.activeAuthenticationAnswer(challenge: hex("0102030405060708"))
        bench.chip.expectSecure(Self.internalAuthenticate, ResponseAPDU(data: replayed, status: .success))
        session.authenticateActively()
        let why = SecurityError.chipAuthenticationFailed("the chip's Active Authentication signature does not cover our challenge: the chip may be a copy")
        #expect(session.activeAuthentication == .failed(why.description))
        bench.complete()
    }

    @Test func aRefusedChallengeFails() throws {
        let bench = ReaderBench()
        let session = try sessionWithDG15(bench)
        bench.chip.expectSecure(Self.internalAuthenticate, ResponseAPDU(data: [], status: .insNotSupported))
        session.authenticateActively()
        #expect(session.activeAuthentication == .failed(SecurityError.unexpectedStatus(command: "INTERNAL AUTHENTICATE", status: .insNotSupported).description))
        bench.complete()
    }

    @Test func aListedDG15TheChipWithholdsFailsIt() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.unavailable[.dataGroup(15)] = "not readable (6A82 (file not found))"
        session.authenticateActively()
        #expect(session.activeAuthentication == .failed("EF.COM lists DG15 but the chip did not give it: not readable (6A82 (file not found))"))
        bench.complete() // nothing sent
    }

    @Test func withoutDG15ActiveAuthenticationIsNotSupported() throws {
        let bench = ReaderBench()
        let session = try bench.bacSession()
        session.authenticateActively()
        #expect(session.activeAuthentication == .notSupported("the chip has no DG15"))
        #expect(bench.log.lines.isEmpty)
        bench.complete()
    }
}

// MARK: - EF.ATR/INFO

@Suite struct ATRInfoStep {
    static let sessionKeys = SessionKeys(suite: .aes, encryptionKey: [UInt8](repeating: 0x11, count: 16),
                                         macKey: [UInt8](repeating: 0x22, count: 16))

    func stack(_ bench: ReaderBench, _ control: AccessControl) -> SecureStack {
        SecureStack(over: bench.channel, keys: Self.sessionKeys, ssc: [UInt8](repeating: 0, count: 16), learned: control.learned)
    }

    /// The longest response of EF.ATR/INFO (1920 bytes, as in TR-03105 5.1 LDS_K_01) bounds the
    /// extended-length reads of every session: 1887 bytes of plaintext fit 1918 under AES SM.
    @Test func itsLongestResponseBoundsEveryRead() throws {
        let bench = ReaderBench()
        bench.channel.supportsExtendedLength = true
        bench.chip.expect(hex("00B0810000"), hex("7F660802020780020207809000"))
        let control = bench.control()
        #expect(try control.readATRInfo() == hex("7F66080202078002020780"))
        let reader = stack(bench, control).reader
        #expect(reader.usingExtendedLength && reader.chunk == 1887, "\(reader.chunk)")
        bench.complete()
    }

    /// A chip that answers at most 256 bytes is read with short APDUs, whatever its ATR says.
    @Test func aChipOfShortAnswersIsReadWithShortAPDUs() throws {
        let bench = ReaderBench()
        bench.channel.supportsExtendedLength = true
        bench.chip.expect(hex("00B0810000"), hex("7F660802020102020201029000"))
        let control = bench.control()
        _ = try control.readATRInfo()
        #expect(!stack(bench, control).reader.usingExtendedLength)
        bench.complete()
    }

    /// Malformed (LDS_K_03, LDS_K_04): kept for the report's problem, bounds nothing.
    @Test(arguments: ["7F660402020780", "7F65080202078002020780"])
    func aMalformedOneBoundsNothing(content: String) throws {
        let bench = ReaderBench()
        bench.channel.supportsExtendedLength = true
        bench.chip.expect(hex("00B0810000"), hex(content + "9000"))
        let control = bench.control()
        #expect(try control.readATRInfo() == hex(content))
        #expect(control.learned.chipResponseData == nil)
        #expect(stack(bench, control).reader.chunk == Self.sessionKeys.maxExtendedResponsePlaintext)
        bench.complete()
    }

    /// A chip that takes no short EF identifiers: EF.ATR/INFO selected by its file identifier.
    @Test(arguments: ["6985", "6986"])
    func aRefusedShortIdentifierSelectsIt(refusal: String) throws {
        let bench = ReaderBench()
        bench.chip.expect(hex("00B0810000"), hex(refusal))
        bench.chip.expect(hex("00A4020C022F01"), hex("9000"))
        bench.chip.expect(hex("00B0000000"), hex("7F660802020780020207809000"))
        let control = bench.control()
        #expect(try control.readATRInfo() == hex("7F66080202078002020780"))
        #expect(control.learned.chipResponseData == 1918)
        bench.complete()
    }

    @Test(arguments: ["6A82", "6982", "9000"])
    func absentIsNothing(answer: String) throws {
        let bench = ReaderBench()
        bench.chip.expect(hex("00B0810000"), hex(answer))
        #expect(try bench.control().readATRInfo() == nil)
        bench.complete()
    }
}

// MARK: - the steps together

@Suite struct WholeRead {
    @Test func aBACChipIsReadStepByStep() throws {
        let bench = ReaderBench()
        let dg1 = RemainingFilesStep.dg1, dg2 = RemainingFilesStep.dg2, sod = RemainingFilesStep.sod
        let com = ReadTestData.com([0x61, 0x75])
        bench.chip.expect(hex("00B09C0000"), hex("6A82"))
        bench.chip.expect(hex("00B0810000"), hex("6982"))      // EF.ATR/INFO: shown only after access control
        try bench.chip.expectBAC(ReadTestData.accessKey)
        bench.chip.expectFile(.com, com)
        bench.chip.expectWithheld(.dataGroup(14), .fileNotFound)
        bench.chip.expectFile(.dataGroup(1), dg1)
        bench.chip.expectFile(.dataGroup(2), dg2)
        bench.chip.expectWithheld(.dataGroup(15), .fileNotFound)
        bench.chip.expectFile(.sod, sod)
        let reader = PassportReader(channel: bench.channel, events: bench.log.sink, random: ScriptedChip.terminalRandom)
        let contents = try reader.read(access: AccessCredentials(mrz: ReadTestData.accessKey))
        #expect(contents.files == [.com: com, .dataGroup(1): dg1, .dataGroup(2): dg2, .sod: sod])
        #expect(contents.unavailable.isEmpty)
        #expect(contents.accessProtocol == "BAC")
        #expect(contents.chipAuthentication == .notSupported("the chip has no DG14"))
        #expect(contents.activeAuthentication == .notSupported("the chip has no DG15"))
        #expect(contents.apdus == bench.chip.transport.received.count)
        #expect(contents.readerName == "Scripted chip")
        #expect(!contents.extendedLength)
        // The events report the unlisted DG14 and DG15 as absent; the dump does not.
        let absent = "not readable (6A82 (file not found))"
        #expect(bench.log.lines.filter { !$0.hasPrefix("reading") } == [
            "authenticating BAC", "authenticated BAC", "read COM \(com.count)", "unavailable DG14: \(absent)",
            "read DG1 \(dg1.count)", "read DG2 \(dg2.count)", "unavailable DG15: \(absent)", "read SOD \(sod.count)"])
        bench.complete()
    }
}

/// The file of access keys for scripted desk runs.
@Suite struct DeskKeysFileTests {
    @Test func keysCommentsAndCANs() throws {
        let keys = try DeskKeysFile.parse("# desk\n\nC01X00T47 880412 340930\ncan 123456\ncan:654321\n")
        #expect(keys.count == 3)
        #expect(keys[0].mrz?.documentNumber == "C01X00T47" && keys[1].can == "123456" && keys[2].can == "654321")
    }

    @Test func badLinesAreNamed() {
        #expect(throws: DeskKeysFile.Problem(line: 2, why: "expected `DOCUMENT-NUMBER BIRTH EXPIRY` or `can NNNNNN`")) {
            try DeskKeysFile.parse("C01X00T47 880412 340930\nC01X00T47 880412\n")
        }
        #expect(throws: DeskKeysFile.Problem(line: 1, why: "a CAN has 6 digits")) { try DeskKeysFile.parse("can 12345\n") }
        #expect(throws: DeskKeysFile.Problem(line: 0, why: "no access key in it")) { try DeskKeysFile.parse("# nothing\n") }
        #expect(throws: (any Error).self) { try DeskKeysFile.parse("C01X00T47 881312 340930\n") }  // month 13
    }
}

/// EF.CardAccess's announcement of EAC version 2 (issue 48, item 3): terminal authentication
/// version 2, chip authentication version 2 and its standardized domain parameters.
@Suite struct EACVersion2Announcement {
    static let ta2 = hex("300D060804007F0007020202020102")
    static let ca2 = hex("3012060A04007F00070202030202020102020101")
    // ChipAuthenticationDomainParameterInfo { id-CA-ECDH, { id-standardizedDomainParameters, 13 } }
    static let domain = hex("3019060904007F000702020302300C060704007F0007010202010D")

    func announced(_ infos: [[UInt8]]) throws -> (info: ChipAuthenticationInfo, parameterID: Int)? {
        let session = try ReaderBench().bacSession()
        session.files[.cardAccess] = TLV.encode(tag: 0x31, value: infos.flatMap { $0 })
        return session.eacVersion2Announced()
    }

    @Test func allThreeAnnounceIt() throws {
        let found = try #require(try announced([Self.ta2, Self.ca2, Self.domain]))
        #expect(found.info.version == 2 && found.parameterID == 13 && found.info.keyID == 1)
    }

    @Test func withoutOneOfThemItIsNotAnnounced() throws {
        #expect(try announced([Self.ca2, Self.domain]) == nil, "no TerminalAuthenticationInfo version 2")
        #expect(try announced([Self.ta2, Self.domain]) == nil, "no ChipAuthenticationInfo")
        #expect(try announced([Self.ta2, Self.ca2]) == nil, "no domain parameters for the ephemeral key")
    }
}
