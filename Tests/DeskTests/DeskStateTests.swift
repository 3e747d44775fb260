@testable import Desk
import Foundation
import LDS
import MRZ
import PassiveAuth
import PassportKit
import Synchronization
import Testing
import TestSupport

/// What the desk holds and when it lets go of it; the key rules; the verdicts of a recorded dump.
@Suite struct DeskStateTests {
    static let fixture = TestPaths.fixtures.appendingPathComponent("passport")
    static let key = DeskKey(credentials: AccessCredentials(mrz: MRZAccessKey(documentNumber: "C01X00T47", birthDate: "880412", expiryDate: "340930")),
                             printedMRZ: nil, source: "typed")

    static func trust() throws -> TrustStore {
        let trust = TrustStore()
        try trust.addCSCA(at: TestPaths.fixtures.appendingPathComponent("pki/TEST-ONLY-csca-UTO.pem"))
        return trust
    }

    static func record(_ state: DeskState, _ dump: DumpFolder) throws -> DeskRecord {
        let trust = try trust()
        return try state.add { id in try DeskRecords.dump(dump, label: "fixture", id: id, trust: trust) }
    }

    @Test func aGenuineDumpIsGreenAndATamperedOneRedWithTheVerifiersReason() throws {
        let state = DeskState()
        let genuine = try Self.record(state, try DumpFolder(reading: Self.fixture))
        #expect(genuine.result.ok)
        #expect(genuine.result.verdicts.allSatisfy { $0.status != .failed }, "\(genuine.result.verdicts)")
        #expect(genuine.result.verdicts.first { $0.check == "chain" }?.status == .passed)
        #expect(genuine.result.verdicts.first { $0.check == "chain" }?.certificates.map(\.country) == ["UTO", "UTO"])
        #expect(genuine.images["face.png"]?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        #expect(genuine.result.face?.url == "/api/results/\(genuine.result.id)/face.png")

        let folder = try DumpFolder(reading: Self.fixture)
        var files = folder.files
        files[.dataGroup(1)]![12] ^= 1
        let tampered = try Self.record(state, DumpFolder(url: folder.url, files: files, manifest: nil))
        #expect(!tampered.result.ok)
        let hashes = try #require(tampered.result.verdicts.first { $0.check == "hashes" })
        #expect(hashes.status == .failed && hashes.summary.contains("DG1 MISMATCH"), "\(hashes)")
        let overall = try #require(tampered.result.verdicts.first { $0.check == "passive_authentication" })
        #expect(overall.status == .failed)
        #expect(overall.details == tampered.result.verify?.passiveAuthentication.failures)
        #expect(tampered.result.verdicts.first { $0.check == "sod_signature" }?.status == .passed, "green stays green for what passed")
    }

    @Test func untrustedDumpsFailTheChainNotTheSignature() throws {
        let state = DeskState()
        let record = try state.add { id in try DeskRecords.dump(try DumpFolder(reading: Self.fixture), label: "x", id: id, trust: TrustStore()) }
        #expect(record.result.verdicts.first { $0.check == "chain" }?.status == .failed)
        #expect(record.result.verdicts.first { $0.check == "sod_signature" }?.status == .passed)
    }

    @Test func oneResultAtATimeUnlessKeepReadingThenTheLastN() throws {
        let state = DeskState(keep: 2)
        let dump = try DumpFolder(reading: Self.fixture)
        for _ in 0..<3 { _ = try Self.record(state, dump) }
        #expect(state.snapshot().results.map(\.id) == [3])
        state.setKeepReading(true)
        for _ in 0..<3 { _ = try Self.record(state, dump) }
        #expect(state.snapshot().results.map(\.id) == [6, 5])
        #expect(state.record(id: 4) == nil)
        state.clear()
        #expect(state.snapshot().results.isEmpty && state.record(id: 6) == nil)
    }

    @Test func everythingIsClearedAfterTheIdleTimeOnly() throws {
        let state = DeskState(idleSeconds: 300)
        _ = try Self.record(state, try DumpFolder(reading: Self.fixture))
        state.setKey(Self.key)
        state.clearIfIdle(now: Date().addingTimeInterval(200))
        #expect(state.snapshot().results.count == 1 && state.snapshot().key != nil)
        state.clearIfIdle(now: Date().addingTimeInterval(301))
        #expect(state.snapshot().results.isEmpty && state.snapshot().key == nil)
    }

    @Test func aCardIsReadOnceWithAKeyAndAgainOnlyAfterItLeaves() {
        let state = DeskState()
        state.updateReaders([("A", true), ("B", false)], problems: [])
        #expect(state.nextRead() == nil, "no key, no read")
        state.setKey(Self.key)
        #expect(state.nextRead()?.reader == "A")
        #expect(state.nextRead() == nil, "the same card is not read twice")
        #expect(state.snapshot().readers.map(\.state) == ["read", "no_card"])
        state.updateReaders([("A", false), ("B", false)], problems: [])
        #expect(state.snapshot().readers.first?.state == "removed")
        state.updateReaders([("A", true), ("B", true)], problems: [])
        state.select(reader: "B")
        #expect(state.nextRead()?.reader == "B", "the reader chosen on the page")
    }

    @Test func changesReachTheEventStreams() {
        let state = DeskState()
        let seen = Mutex<[String]>([])
        let id = state.subscribe { json in seen.withLock { $0.append(json) } }
        state.setKeepReading(true)
        state.unsubscribe(id)
        state.setKeepReading(false)
        let events = seen.withLock { $0 }
        #expect(events.count == 2)
        #expect(events.last?.contains("\"keep_reading\":true") == true)
        #expect(state.subscriberCount == 0)
    }

    @Test func keysAreCheckedAsTheyWouldBeOnThePage() throws {
        typealias Body = DeskApp.KeyBody
        let good = Body(documentNumber: "C01X00T47", documentNumberCheck: "8", birth: "880412", birthCheck: "3", expiry: "340930", expiryCheck: "5")
        #expect(try DeskApp.key(from: good).credentials.mrz?.documentNumber == "C01X00T47")
        var typo = good
        typo.birthCheck = "4"
        #expect(throws: MRZError.self) { try DeskApp.key(from: typo) }
        #expect(try DeskApp.key(from: Body(can: "123456")).credentials.can == "123456")
        #expect(throws: MRZError.self) { try DeskApp.key(from: Body(can: "12345")) }
        #expect(throws: MRZError.self) { try DeskApp.key(from: Body(can: "１２３４５６")) }
        let lines = "P<UTOSPECIMEN<<ALEX<MARIE<<<<<<<<<<<<<<<<<<<\nC01X00T478UTO8804123F3409305<<<<<<<<<<<<<<<8"
        let fromMRZ = try DeskApp.key(from: Body(mrz: lines, source: "camera"))
        #expect(fromMRZ.printedMRZ?.lines.count == 2 && fromMRZ.source == "camera")
        #expect(throws: MRZError.self) { try DeskApp.key(from: Body(mrz: lines.replacingOccurrences(of: "8804123", with: "8804133"))) }
    }
}
