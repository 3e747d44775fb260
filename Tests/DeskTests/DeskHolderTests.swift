@testable import Desk
import Credentials
import Foundation
import LDS
import OpenID4VPClient
import PassportKit
import Testing
import TestSupport

/// The holder's side of the desk: what it refuses to present from, and that what it made from a
/// result goes when the result goes (issue 49, item 3).
@Suite struct DeskHolderTests {
    static func holder() throws -> DeskHolder {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("desk-holder-\(UUID().uuidString)")
        return try DeskHolder(settings: .init(store: KeyStore(folder: folder, passphrase: nil)))
    }

    static func item(_ holder: DeskHolder) -> DeskHolderItem {
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: "UTO", verificationMethod: "NFC Verified", evidence: [:],
                                   expiry: Date().addingTimeInterval(86_400))
        return DeskHolderItem(holder: Holder(credential: HeldCredential(selfIssued: claims), store: holder.settings.store))
    }

    @Test func aDroppedDumpGivesNoClaimsToPresent() throws {
        let state = DeskState()
        let record = try DeskStateTests.record(state, try DumpFolder(reading: DeskStateTests.fixture))
        #expect(throws: DeskHolderError.notReadHere) { try Self.holder().claims(record, state: state) }
    }

    @Test func whatWasMadeFromAResultGoesWithIt() throws {
        let holder = try Self.holder()
        let state = DeskState()
        let first = try DeskStateTests.record(state, try DumpFolder(reading: DeskStateTests.fixture))
        #expect(state.holderItem(first.result.id, orMake: { Self.item(holder) }) != nil)
        #expect(state.holderItem(first.result.id) != nil)
        // The next document replaces the first (not keep-reading): its item goes too.
        let second = try DeskStateTests.record(state, try DumpFolder(reading: DeskStateTests.fixture))
        #expect(state.holderItem(first.result.id) == nil)
        #expect(state.holderItem(first.result.id, orMake: { Self.item(holder) }) == nil, "an item was kept for a result that is gone")
        #expect(!state.updateHolderItem(first.result.id) { $0.pending = nil })
        #expect(state.holderItem(second.result.id, orMake: { Self.item(holder) }) != nil)
        state.clear()
        #expect(state.holderItem(second.result.id) == nil)
    }

    @Test func theIdleClearTakesThemToo() throws {
        let holder = try Self.holder()
        let state = DeskState(keep: 10, idleSeconds: 10)
        let record = try DeskStateTests.record(state, try DumpFolder(reading: DeskStateTests.fixture))
        _ = state.holderItem(record.result.id, orMake: { Self.item(holder) })
        state.clearIfIdle(now: Date().addingTimeInterval(11))
        #expect(state.holderItem(record.result.id) == nil)
    }

    @Test func noRequestNoAnswer() throws {
        let holder = try Self.holder()
        let state = DeskState()
        let record = try DeskStateTests.record(state, try DumpFolder(reading: DeskStateTests.fixture))
        _ = state.holderItem(record.result.id, orMake: { Self.item(holder) })
        #expect(throws: DeskHolderError.noPendingRequest) { try holder.send(record.result.id, state: state) }
    }
}
