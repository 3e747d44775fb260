import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Work spread over threads made for it (see `map`).
public enum WorkerThreads {
    /// `transform` of each element, on as many threads as the process may run on at once, in the
    /// order of `elements`.
    ///
    /// The threads are made for the call, and each has a file-descriptor table of its own
    /// (`unshare(CLONE_FILES)`): a batch opens and closes nine files a dump, and with the one table
    /// of the process the kernel's lock on it went back and forth between the cores, a tenth of the
    /// kernel's time. So nothing a transform opens may outlive it: a descriptor is valid only on the
    /// thread that opened it (`DumpDiscovery` closes each folder before its step returns). Where the
    /// system refuses `unshare` (a seccomp filter), the threads share the table as before.
    /// Inlinable: specialised where it is used, not generic code run for each element.
    @inlinable
    public static func map<Element: Sendable, Mapped>(_ elements: [Element], _ transform: @Sendable (Element) -> Mapped) -> [Mapped] {
        let slots = UnsafeMutableBufferPointer<Mapped?>.allocate(capacity: elements.count)
        slots.initialize(repeating: nil)
        defer {
            slots.deinitialize()
            slots.deallocate()
        }
        // Each index is taken by one thread only, which writes only its own slot.
        nonisolated(unsafe) let output = slots
        let next = Counter()
        withoutActuallyEscaping(transform) { transform in
            run(count: min(elements.count, available)) {
                while true {
                    let index = next.take()
                    guard index < elements.count else { return }
                    output[index] = transform(elements[index])
                }
            }
        }
        return slots.map { $0! }
    }

    /// The CPUs this process may run on (its affinity mask, as `taskset` or a cpuset sets it).
    @usableFromInline static let available: Int = {
        let allowed = Int(passport_cpus_allowed())
        return max(1, allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }()

    /// Runs `body` on `count` new threads, each with its own descriptor table, and waits for them.
    @usableFromInline static func run(count: Int, _ body: @escaping @Sendable () -> Void) {
        let job = Job(body)
        var threads: [pthread_t] = []
        for _ in 0..<max(count, 1) {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(job).toOpaque()   // released by the worker
            if pthread_create(&thread, nil, { startWorker($0) }, context) != 0 {
                Unmanaged<Job>.fromOpaque(context).release()
                break
            }
            threads.append(thread)
        }
        // No thread could be made (a limit on threads): the work is done here instead.
        if threads.isEmpty { job.body() }
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Whether the last workers had descriptor tables of their own (false where the system
    /// refused `unshare`: they shared the process's, as any thread does).
    public static var hadOwnDescriptorTables: Bool { ownTables.load(ordering: .relaxed) }
    fileprivate static let ownTables = Atomic<Bool>(false)

    /// 0, 1, 2, … to whichever thread asks next.
    @usableFromInline final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        @usableFromInline init() {}
        @usableFromInline func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
    }

    fileprivate final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// A worker's life: a descriptor table of its own, then the job (`context`: a retained Job).
/// A function of the file, not of WorkerThreads: Swift 6.3 crashed compiling the thread's
/// C entry point as a static method.
private func startWorker(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let job = Unmanaged<WorkerThreads.Job>.fromOpaque(context!).takeRetainedValue()
    WorkerThreads.ownTables.store(passport_unshare_descriptors() == 0, ordering: .relaxed)
    job.body()
    return nil
}
