import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The last few values made from a key, found again by comparing keys: the dumps of a batch
/// mostly name the same Document Signer and the same issuer, and comparing a kilobyte with
/// memcmp costs a fraction of hashing it, or of parsing or spelling it again. At most `capacity`
/// entries, newest first, so that a lookup compares at most that many, whatever a hostile batch
/// holds.
final class RecentlyMade<Key: Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])
    let capacity: Int

    private struct Entry: Sendable {
        let key: Key
        let value: Value
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value of the newest entry whose key `matches`.
    func value(where matches: (Key) -> Bool) -> Value? {
        entries.withLock { entries in entries.first { matches($0.key) }?.value }
    }

    /// Holds `value` for `key`, dropping the oldest entry when full.
    func remember(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeLast() }
            entries.insert(Entry(key: key, value: value), at: 0)
        }
    }
}

/// Values parsed from DER, keyed by its bytes.
typealias RecentlyParsed<Value: Sendable> = RecentlyMade<[UInt8], Value>

extension RecentlyMade where Key == [UInt8] {
    /// The value last parsed from exactly these bytes, if it is still held.
    func value(for der: ArraySlice<UInt8>) -> Value? {
        value { sameBytes($0, der) }
    }

    /// The value held for `der`, or `parse(der)` remembered.
    func value(for der: ArraySlice<UInt8>, parse: (ArraySlice<UInt8>) throws -> Value) rethrows -> Value {
        if let known = value(for: der) { return known }
        let parsed = try parse(der)
        remember(parsed, for: Array(der))
        return parsed
    }

    func remember(_ value: Value, for der: ArraySlice<UInt8>) { remember(value, for: Array(der)) }
}

/// Whether two byte strings are equal, compared with memcmp.
func sameBytes(_ held: [UInt8], _ other: ArraySlice<UInt8>) -> Bool {
    held.count == other.count && (held.isEmpty || held.withUnsafeBytes { held in
        other.withUnsafeBytes { memcmp(held.baseAddress!, $0.baseAddress!, held.count) == 0 }
    })
}
