import ChipProtocols
import Diagnostics
import FoundationEssentials
import MRZ
import PassportKit
import Synchronization

/// The access key the next document is read with, and where it came from.
public struct DeskKey: Sendable {
    public let credentials: AccessCredentials
    /// The data page's MRZ when it was read (camera, photo) or typed in full: compared with DG1.
    public let printedMRZ: MRZ?
    /// "typed", "camera" or "photo".
    public let source: String
}

/// What the page is told on each change (server-sent event `state`): the readers, the key, the
/// read in progress and the list of results (their content is fetched by id). Personal data:
/// sent only to the desk's own page (DeskGuard).
public struct DeskSnapshot: Encodable, Sendable {
    public struct Reader: Encodable, Sendable {
        public let name: String
        public let backend: String
        /// no_card, card_present, reading, read (the document can be removed), failed (its read
        /// failed: another key, or remove it), removed.
        public let state: String
        public let selected: Bool
    }
    public struct Key: Codable, Sendable, Equatable {
        public let kind: String
        public let source: String
        /// The document number of an MRZ key (the CAN is never repeated back).
        @NullEncoded public var documentNumber: String?
        enum CodingKeys: String, CodingKey { case kind, source, documentNumber = "document_number" }
    }
    public struct Step: Codable, Sendable, Equatable {
        public let text: String
        /// step, warning or error.
        public let kind: String
    }
    public struct Reading: Codable, Sendable, Equatable {
        public let reader: String
        public let active: Bool
        public var steps: [Step]
        /// The file being read and how far (bytes).
        @NullEncoded public var file: String?
        public var bytesRead = 0
        public var totalBytes = 0
        @NullEncoded public var error: ErrorReport.Detail?
        /// When the read began (the card seen and a key there), Unix time in milliseconds.
        public var startedAt: Int64 = 0
        enum CodingKeys: String, CodingKey {
            case reader, active, steps, file, error, bytesRead = "bytes_read", totalBytes = "total_bytes", startedAt = "started_at_ms"
        }
    }
    public struct ResultEntry: Encodable, Sendable {
        public let id: Int
        public let source: String
        public let label: String
        public let at: String
        public let ok: Bool
        public let name: String
    }

    public let readers: [Reader]
    public let readerProblems: [DoctorCheck]
    @NullEncoded public var key: Key?
    @NullEncoded public var reading: Reading?
    public let results: [ResultEntry]
    public let keepReading: Bool
    public let idleClearSeconds: Int
    /// The desk was started with --holder: a verified document's claims can be presented.
    public let holder: Bool

    enum CodingKeys: String, CodingKey {
        case readers, key, reading, results, holder
        case readerProblems = "reader_problems", keepReading = "keep_reading", idleClearSeconds = "idle_clear_seconds"
    }
}

/// Everything the desk holds, in memory only, behind one lock; each change is published to the
/// page's event streams. Results are cleared by "Clear", after `idleSeconds` without a person's
/// action or a read, and (one at a time) when a new document is read outside keep-reading mode.
public final class DeskState: Sendable {
    struct Inner {
        var readers: [(name: String, present: Bool)] = []
        var readerProblems: [DoctorCheck] = []
        var selectedReader: String?
        /// Readers whose present card has been read (or refused): not read again until removed.
        var handled: Set<String> = []
        /// Readers whose card was read and then taken away.
        var removed: Set<String> = []
        var key: DeskKey?
        var reading: DeskSnapshot.Reading?
        var records: [DeskRecord] = []
        var nextID = 1
        var keepReading = false
        var lastActivity = Date()
        var subscribers: [Int: @Sendable (String) -> Void] = [:]
        var nextSubscriber = 1
        var cancelRead = false
        /// What the holder made from a result (`DeskHolder`), dropped with the result.
        var holderItems: [Int: DeskHolderItem] = [:]
        /// Started with --holder: the page offers to present what it read.
        var holderMode = false
    }

    let inner = Mutex(Inner())
    /// How many results keep-reading mode lists (older ones are dropped).
    public let keep: Int
    public let idleSeconds: Double

    public init(keep: Int = 10, idleSeconds: Double = 300) {
        self.keep = keep
        self.idleSeconds = idleSeconds
    }

    // MARK: the page's actions

    public func setKey(_ key: DeskKey) {
        change { $0.key = key; $0.handled.removeAll(); $0.lastActivity = Date() }
    }

    public func select(reader: String?) { change { $0.selectedReader = reader; $0.handled.removeAll(); $0.lastActivity = Date() } }

    /// Set once by `DeskApp`: whether it has a holder's side.
    func setHolderMode(_ on: Bool) { change { $0.holderMode = on } }

    public func setKeepReading(_ on: Bool) { change { $0.keepReading = on; $0.lastActivity = Date() } }

    /// "Clear": every result, the key and the read's steps; a read in progress is stopped.
    public func clear() {
        change {
            $0.records.removeAll()
            $0.key = nil
            if $0.reading?.active == true { $0.cancelRead = true } else { $0.reading = nil }
            $0.lastActivity = Date()
        }
    }

    /// Clears everything once nobody has acted for `idleSeconds` (called every second).
    public func clearIfIdle(now: Date = Date()) {
        let idle = inner.withLock { now.timeIntervalSince($0.lastActivity) >= idleSeconds && ($0.reading?.active != true)
            && (!$0.records.isEmpty || $0.key != nil || $0.reading != nil) }
        if idle { change { $0.records.removeAll(); $0.key = nil; $0.reading = nil; $0.lastActivity = now } }
    }

    func record(id: Int) -> DeskRecord? { inner.withLock { $0.records.first { $0.result.id == id } } }

    /// The holder's item of result `id` (nil when there is none, or the result is gone).
    func holderItem(_ id: Int) -> DeskHolderItem? { inner.withLock { $0.holderItems[id] } }

    /// The holder's item of result `id`, made by `make` if there is none yet; nil when the result
    /// is gone. Counts as the person's activity.
    func holderItem(_ id: Int, orMake make: () throws -> DeskHolderItem) rethrows -> DeskHolderItem? {
        if let item = holderItem(id) { return item }
        let made = try make()
        return inner.withLock { state in
            guard state.records.contains(where: { $0.result.id == id }) else { return nil }
            state.lastActivity = Date()
            if let existing = state.holderItems[id] { return existing }  // made meanwhile by another request
            state.holderItems[id] = made
            return made
        }
    }

    /// Changes the holder's item of result `id` in place; false when there is none (or the result
    /// is gone). Counts as the person's activity.
    @discardableResult
    func updateHolderItem(_ id: Int, _ change: (inout DeskHolderItem) -> Void) -> Bool {
        inner.withLock { state in
            guard state.records.contains(where: { $0.result.id == id }), var item = state.holderItems[id] else { return false }
            change(&item)
            state.holderItems[id] = item
            state.lastActivity = Date()
            return true
        }
    }

    /// Adds a finished result (a read, or a dropped dump); outside keep-reading mode it replaces
    /// the others.
    func add(_ make: (Int) throws -> DeskRecord) rethrows -> DeskRecord {
        let id = inner.withLock { state -> Int in defer { state.nextID += 1 }; return state.nextID }
        let record = try make(id)
        change {
            if !$0.keepReading { $0.records.removeAll() }
            $0.records.insert(record, at: 0)
            if $0.records.count > keep { $0.records.removeLast($0.records.count - keep) }
            $0.lastActivity = Date()
        }
        return record
    }

    // MARK: the reader loop's side

    /// The readers and whether a card is on each; a reader whose card left is no longer handled.
    func updateReaders(_ readers: [(name: String, present: Bool)], problems: [DoctorCheck]) {
        let before = inner.withLock { ($0.readers.map(\.name), $0.readers.map(\.present), $0.readerProblems.map(\.seen)) }
        guard before.0 != readers.map(\.name) || before.1 != readers.map(\.present) || before.2 != problems.map(\.seen) else { return }
        change { state in
            for (name, present) in readers {
                let was = state.readers.first { $0.name == name }?.present ?? false
                if was && !present {
                    if state.handled.contains(name) { state.removed.insert(name) }
                    state.handled.remove(name)
                }
                if present { state.removed.remove(name) }
            }
            state.readers = readers
            state.readerProblems = problems
            if let selected = state.selectedReader, !readers.contains(where: { $0.name == selected }) { state.selectedReader = nil }
        }
    }

    /// The reader to read now and the key, when a card waits on it and a key is there.
    func nextRead() -> (reader: String, key: DeskKey)? {
        inner.withLock { state in
            guard let key = state.key else { return nil }
            let candidates = state.readers.filter { $0.present && !state.handled.contains($0.name) }
                .filter { state.selectedReader == nil || $0.name == state.selectedReader }
            guard let reader = candidates.first?.name else { return nil }
            state.handled.insert(reader)
            return (reader, key)
        }
    }

    func beginReading(_ reader: String) {
        change {
            $0.cancelRead = false
            $0.reading = DeskSnapshot.Reading(reader: reader, active: true, steps: [], startedAt: Int64(Date().timeIntervalSince1970 * 1000))
        }
    }

    var readCancelled: Bool { inner.withLock { $0.cancelRead } }

    func step(_ event: ScanEvent) {
        change { state in
            guard var reading = state.reading else { return }
            if case .reading(let file, let read, let total) = event {
                reading.file = file.name
                reading.bytesRead = read
                reading.totalBytes = total
            } else if let text = event.progressText {
                reading.steps.append(DeskSnapshot.Step(text: text, kind: Self.isWarning(event) ? "warning" : "step"))
            }
            state.reading = reading
        }
    }

    static func isWarning(_ event: ScanEvent) -> Bool {
        switch event {
        case .interrupted, .recovering, .paceFailed, .extendedLengthRefused, .retryingChipAuthentication, .sessionReopened, .noAccessControl, .terminalAuthenticationFailed,
             .fileUnavailable: return true
        default: return false
        }
    }

    /// The read ended (its result, if any, was added); `keyUsed`: the key is forgotten.
    func finishReading(error: Error?, keyUsed: Bool) {
        change { state in
            if var reading = state.reading {
                reading = DeskSnapshot.Reading(reader: reading.reader, active: false, steps: reading.steps, startedAt: reading.startedAt)
                if let error {
                    let detail = ErrorReport(error).error
                    reading.error = detail
                    reading.steps.append(DeskSnapshot.Step(text: detail.message, kind: "error"))
                } else {
                    reading.steps.append(DeskSnapshot.Step(text: "Done: remove the document.", kind: "step"))
                }
                state.reading = state.cancelRead ? nil : reading
            }
            if keyUsed { state.key = nil }
            state.cancelRead = false
            state.lastActivity = Date()
        }
    }

    // MARK: events

    /// `send` receives each snapshot (JSON) from now on, the current one first; the returned id
    /// ends it (`unsubscribe`).
    func subscribe(_ send: @escaping @Sendable (String) -> Void) -> Int {
        inner.withLock { state -> Int in
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = send
            send(Self.json(Self.snapshot(of: state, idleSeconds: idleSeconds)))
            return state.nextSubscriber
        }
    }

    func unsubscribe(_ id: Int) { _ = inner.withLock { $0.subscribers.removeValue(forKey: id) } }

    var subscriberCount: Int { inner.withLock { $0.subscribers.count } }

    public func snapshot() -> DeskSnapshot { inner.withLock { Self.snapshot(of: $0, idleSeconds: idleSeconds) } }

    static func json(_ snapshot: DeskSnapshot) -> String {
        (try? String(decoding: ReportEncoding.line(snapshot), as: UTF8.self)) ?? "{}"
    }

    private static func snapshot(of state: Inner, idleSeconds idle: Double) -> DeskSnapshot {
        let readers = state.readers.map { reader -> DeskSnapshot.Reader in
            let phase: String
            if state.reading?.active == true && state.reading?.reader == reader.name { phase = "reading" }
            else if reader.present && state.handled.contains(reader.name) {
                phase = state.reading?.reader == reader.name && state.reading?.error != nil ? "failed" : "read"
            } else if reader.present { phase = "card_present" }
            else { phase = state.removed.contains(reader.name) ? "removed" : "no_card" }
            return DeskSnapshot.Reader(name: reader.name, backend: "pcsc", state: phase, selected: state.selectedReader == reader.name)
        }
        let key = state.key.map { key in
            DeskSnapshot.Key(kind: key.credentials.mrz != nil ? "mrz" : "can", source: key.source, documentNumber: key.credentials.mrz?.documentNumber)
        }
        let results = state.records.map { record in
            let summary = record.result.document.document
            return DeskSnapshot.ResultEntry(id: record.result.id, source: record.result.source, label: record.result.label,
                                            at: record.result.at, ok: record.result.ok,
                                            name: summary.map { "\($0.primaryIdentifier), \($0.secondaryIdentifier)" } ?? "")
        }
        return DeskSnapshot(readers: readers, readerProblems: state.readerProblems, key: key, reading: state.reading,
                            results: results, keepReading: state.keepReading, idleClearSeconds: Int(idle), holder: state.holderMode)
    }

    /// Applies `update`, then hands the new snapshot to every event stream. Handing over happens
    /// under the lock, so that streams get snapshots in the order the changes were made (a
    /// stream's `send` only queues the bytes on its connection's event loop).
    private func change(_ update: (inout Inner) -> Void) {
        inner.withLock { state in
            update(&state)
            // Whatever removed a result removed what was made from it.
            if !state.holderItems.isEmpty {
                let kept = Set(state.records.map(\.result.id))
                state.holderItems = state.holderItems.filter { kept.contains($0.key) }
            }
            let json = Self.json(Self.snapshot(of: state, idleSeconds: idleSeconds))
            for send in state.subscribers.values { send(json) }
        }
    }
}
