import CardIO
import ChipProtocols
import Diagnostics
import FoundationEssentials
import Glibc
import Dispatch
import PassiveAuth
import PassportKit
import Synchronization

/// The desk's side of the card readers, on a thread of its own: watches every PC/SC reader
/// (plugged, unplugged, card placed, removed) and reads the card on a reader as soon as a key is
/// there, reporting each step to `DeskState`. While pcscd or the readers are missing it shows
/// what `passport doctor` says, and comes back by itself once they are there.
public final class DeskReaders: Sendable {
    public struct Settings: Sendable {
        public var allowExtendedLength = true
        public var resumeWait: Double = 30
        public var terminalCredentials: TerminalCredentials?
        public var trust: TrustStore?
        public init() {}
    }

    let state: DeskState
    let settings: Settings
    private let stopped = Atomic<Bool>(false)

    public init(state: DeskState, settings: Settings) {
        self.state = state
        self.settings = settings
    }

    public func start() {
        DispatchQueue(label: "passport.desk-readers").async { [self] in run() }  // a thread of its own for the readers' loop
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    func run() {
        while !isStopped {
            do {
                let context = try PCSCContext()
                try watch(context)
            } catch {
                // pcscd gone or not there: say why, as doctor would, and look again shortly.
                state.updateReaders([], problems: Doctor.readerProblems(.current(wantsNFC: false)))
                sleep(1)
            }
        }
    }

    /// Follows the readers until PC/SC fails (pcsc-lite wakes it on each change; it looks at
    /// `stop` at least every quarter second); reads a card whenever the state has a key for it.
    func watch(_ context: PCSCContext) throws {
        var states: ReaderStates?
        var lastProblemsCheck = Date.distantPast
        var problems: [DoctorCheck] = []
        while !isStopped {
            let now = try context.readerStates(after: states, timeoutMs: 250)
            states = now
            if now.names.isEmpty, Date().timeIntervalSince(lastProblemsCheck) > 2 {
                problems = Doctor.readerProblems(.current(wantsNFC: false))
                lastProblemsCheck = Date()
            } else if !now.names.isEmpty {
                problems = []
            }
            state.updateReaders(now.names.map { ($0, now.cardPresent($0)) }, problems: problems)
            if let (reader, key) = state.nextRead() {
                read(reader, key: key, context: context)
                states = nil  // the read took the card through resets: look afresh
            }
        }
    }

    /// Reads the card on `reader`; the result (or the error, in the command line's words) goes to
    /// the state. A refused key or a finished read uses the key up; a card taken away keeps it.
    func read(_ reader: String, key: DeskKey, context: PCSCContext) {
        state.beginReading(reader)
        let shouldStop: @Sendable () -> Bool = { [self] in isStopped || state.readCancelled }
        do {
            let card = try context.connect(reader: reader)
            card.shouldStop = shouldStop
            defer { card.disconnect() }
            let channel = ISO7816Channel(transport: card, allowExtendedLength: settings.allowExtendedLength)
            channel.shouldStop = shouldStop
            state.step(.connected(reader: reader, extendedLength: channel.supportsExtendedLength))
            let passportReader = PassportReader(channel: channel, events: { [state] in state.step($0) })
            passportReader.resumeWait = settings.resumeWait
            passportReader.terminalCredentials = settings.terminalCredentials
            let contents = try passportReader.read(access: key.credentials)
            let trust = settings.trust
            _ = state.add { id in DeskRecords.chip(contents, id: id, trust: trust, givenMRZ: key.printedMRZ) }
            state.finishReading(error: nil, keyUsed: true)
        } catch {
            state.finishReading(error: error, keyUsed: Self.refusesKey(error))
        }
    }

    static func refusesKey(_ error: Error) -> Bool {
        guard let error = error as? ScanError else { return false }
        return DeskWatch.isRefusedKey(error)
    }
}
