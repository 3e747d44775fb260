import FoundationEssentials
import Glibc
import Dispatch
import Synchronization

/// Guards against a chip or reader that never answers: PC/SC's SCardTransmit cannot be given
/// a timeout, so a background queue watches how long the current exchange has been running
/// and calls `onExpire` when it exceeds the limit.
public final class ExchangeWatchdog: Sendable {
    private let state = Mutex<(startedAt: Date?, cancelled: Bool)>((nil, false))
    public let limit: Double

    public init(limit: Double, onExpire: @escaping @Sendable () -> Void) {
        self.limit = limit
        // A queue of its own: a thread that sleeps between looks, not one of the shared pool's.
        DispatchQueue(label: "passport.exchange-watchdog").async { [weak self] in
            while let self {
                let (started, cancelled) = self.state.withLock { ($0.startedAt, $0.cancelled) }
                if cancelled { return }
                if let started, Date().timeIntervalSince(started) > self.limit {
                    onExpire()
                    return
                }
                usleep(100_000)
            }
        }
    }

    deinit { state.withLock { $0.cancelled = true } }

    func begin() { state.withLock { $0.startedAt = Date() } }
    func end() { state.withLock { $0.startedAt = nil } }
}
