import Foundation

/// Guards against a chip or reader that never answers: PC/SC's SCardTransmit cannot be given
/// a timeout, so a background thread watches how long the current exchange has been running
/// and calls `onExpire` when it exceeds the limit.
public final class ExchangeWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var startedAt: Date?
    private var thread: Thread?
    public let limit: Double

    public init(limit: Double, onExpire: @escaping @Sendable () -> Void) {
        self.limit = limit
        let thread = Thread { [weak self] in
            while let self, !Thread.current.isCancelled {
                self.lock.lock()
                let started = self.startedAt
                self.lock.unlock()
                if let started, Date().timeIntervalSince(started) > self.limit {
                    onExpire()
                    return
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        self.thread = thread
        thread.start()
    }

    deinit { thread?.cancel() }

    func begin() { lock.lock(); startedAt = Date(); lock.unlock() }
    func end() { lock.lock(); startedAt = nil; lock.unlock() }
}
