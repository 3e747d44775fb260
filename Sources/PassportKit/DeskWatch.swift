import CardIO
import ChipProtocols
import FoundationEssentials
import TextSupport
import Dispatch
import MRZ
import Synchronization

/// Where each document's access key comes from at a desk (`scan --watch`).
public enum DeskAccessKeys: Sendable {
    /// The same key for every document (one test document read again and again).
    case same(AccessCredentials)
    /// A list of known documents' keys (a file, for scripted runs): each document is tried with
    /// them in turn, starting after the one that opened the previous document, so documents
    /// presented in a repeating order open at the first try.
    case list([AccessCredentials])
    /// Asked afresh for each document before it is read (the camera, a prompt); runs on the
    /// reader's own thread. nil: no more documents (the prompt's input ended), stop.
    case perDocument(@Sendable () throws -> AccessCredentials?)
}

/// One document at a desk: its place in the sequence of its reader and how the read ended.
public struct DeskDocument: Sendable {
    public enum Outcome: Sendable {
        case read(ChipContents)
        case failed(any Error)
    }
    public let reader: String
    /// 1 for the first document on this reader.
    public let sequence: Int
    public let outcome: Outcome
}

/// Reads document after document on one or more PC/SC readers until stopped: waits for a
/// document, reads it, hands it over, waits for its removal, and again. A document that fails
/// (wrong key, taken away too early, refused) is handed over as failed and the loop goes on.
/// Each reader has its own thread and its own PC/SC context.
public final class DeskWatch: Sendable {
    public struct Settings: Sendable {
        public var allowExtendedLength = true
        public var resumeWait: Double = 30
        public var terminalCredentials: TerminalCredentials?
        public init() {}
    }

    let readers: [String]
    let keys: DeskAccessKeys
    let settings: Settings
    let stopRequested: @Sendable () -> Bool
    /// Set when a reader cannot go on (pcscd gone, the reader unplugged): the others stop too.
    private let aborted = Atomic<Bool>(false)
    /// Where the list of keys starts for the next document, per reader.
    private let nextKey = Mutex<[String: Int]>([:])

    public init(readers: [String], keys: DeskAccessKeys, settings: Settings = Settings(), shouldStop: @escaping @Sendable () -> Bool) {
        self.readers = readers
        self.keys = keys
        self.settings = settings
        self.stopRequested = shouldStop
    }

    var shouldStop: @Sendable () -> Bool {
        { [self] in stopRequested() || aborted.load(ordering: .relaxed) }
    }

    /// Runs until `shouldStop`; `events` get each reader's progress, `handle` each document (both
    /// are called on the readers' threads). Throws the first error that ends a reader (pcscd, the
    /// reader gone), after stopping the others; errors of one document never end the loop.
    public func run(events: @escaping @Sendable (String, ScanEvent) -> Void,
                    waitingForRemoval: @escaping @Sendable (String) -> Void,
                    handle: @escaping @Sendable (DeskDocument) -> Void) throws {
        let failure = Mutex<(any Error)?>(nil)
        let group = DispatchGroup()
        for reader in readers {
            group.enter()
            DispatchQueue(label: "passport.reader.\(reader)").async { [self] in  // one thread per reader: each blocks on its card
                defer { group.leave() }
                do { try serve(reader, events: events, waitingForRemoval: waitingForRemoval, handle: handle) } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                    aborted.store(true, ordering: .relaxed)
                }
            }
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func serve(_ reader: String, events: @escaping @Sendable (String, ScanEvent) -> Void,
               waitingForRemoval: @Sendable (String) -> Void, handle: (DeskDocument) -> Void) throws {
        let context = try PCSCContext()
        var sequence = 0
        while !shouldStop() {
            let candidates: [AccessCredentials]
            do {
                guard let keys = try keysForNextDocument() else { return }
                candidates = keys
            } catch {
                sequence += 1
                handle(DeskDocument(reader: reader, sequence: sequence, outcome: .failed(error)))
                if shouldStop() { return }
                continue
            }
            events(reader, .waitingForCard(reader: reader))
            guard try context.waitUntil(cardPresent: true, reader: reader, shouldStop: shouldStop) else { return }
            sequence += 1
            let outcome: DeskDocument.Outcome
            do {
                outcome = .read(try read(reader, context: context, candidates: candidates) { events(reader, $0) })
            } catch CardIOError.stopped {
                return  // Ctrl-C during the read: this document is dropped, nothing is handed over
            } catch {
                outcome = .failed(error)
            }
            if shouldStop() { return }
            handle(DeskDocument(reader: reader, sequence: sequence, outcome: outcome))
            waitingForRemoval(reader)
            guard try context.waitUntil(cardPresent: false, reader: reader, shouldStop: shouldStop) else { return }
        }
    }

    func keysForNextDocument() throws -> [AccessCredentials]? {
        switch keys {
        case .same(let key): return [key]
        case .perDocument(let ask): return try ask().map { [$0] }
        case .list(let all): return all
        }
    }

    /// Reads the card now in `reader`, trying `candidates` from where the last document's key
    /// was; between two tries the card is reset (a refused key leaves no session).
    func read(_ reader: String, context: PCSCContext, candidates: [AccessCredentials],
              events: @escaping (ScanEvent) -> Void) throws -> ChipContents {
        let card = try context.connect(reader: reader)
        card.shouldStop = shouldStop
        defer { card.disconnect() }
        let channel = ISO7816Channel(transport: card, allowExtendedLength: settings.allowExtendedLength)
        channel.shouldStop = shouldStop
        events(.connected(reader: reader, extendedLength: channel.supportsExtendedLength))
        let start = nextKey.withLock { $0[reader] ?? 0 } % max(candidates.count, 1)
        var lastError: (any Error)?
        for step in 0..<candidates.count {
            let index = (start + step) % candidates.count
            if step > 0 { try card.reset() }
            let passportReader = PassportReader(channel: channel, events: events)
            passportReader.resumeWait = settings.resumeWait
            passportReader.terminalCredentials = settings.terminalCredentials
            do {
                let contents = try passportReader.read(access: candidates[index])
                nextKey.withLock { $0[reader] = index + 1 }
                return contents
            } catch let error as ScanError where Self.isRefusedKey(error) && step + 1 < candidates.count {
                lastError = error
            }
        }
        throw lastError ?? CardIOError.stopped
    }

    public static func isRefusedKey(_ error: ScanError) -> Bool {
        switch error {
        case .accessDenied, .passwordRefused: return true
        default: return false
        }
    }
}

/// A file of access keys for scripted desk runs (`scan --watch --access-keys FILE`): one
/// document per line, `DOCUMENT-NUMBER BIRTH EXPIRY` (dates YYMMDD, as in the MRZ) or
/// `can NNNNNN`; blank lines and lines starting with # are skipped.
public enum DeskKeysFile {
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let line: Int
        public let why: String
        public var description: String { "Access keys file, line \(line): \(why)" }
    }

    public static func parse(_ text: String) throws -> [AccessCredentials] {
        var keys: [AccessCredentials] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = line.replacing(":", with: " ").split(separator: " ").map(String.init)
            if words.count == 2, words[0].lowercased() == "can" {
                guard words[1].count == 6, words[1].allSatisfy(\.isNumber) else { throw Problem(line: index + 1, why: "a CAN has 6 digits") }
                keys.append(AccessCredentials(can: words[1]))
            } else if words.count == 3 {
                let key = MRZAccessKey(documentNumber: words[0], birthDate: words[1], expiryDate: words[2])
                do { try key.validate() } catch { throw Problem(line: index + 1, why: "\(error)") }
                keys.append(AccessCredentials(mrz: key))
            } else {
                throw Problem(line: index + 1, why: "expected `DOCUMENT-NUMBER BIRTH EXPIRY` or `can NNNNNN`")
            }
        }
        guard !keys.isEmpty else { throw Problem(line: 0, why: "no access key in it") }
        return keys
    }
}
