import COpenSSL

/// Key material in memory of its own, overwritten (OPENSSL_cleanse) when the last reference
/// goes. Swift arrays may be copied by the runtime and cannot be wiped with certainty; keys that
/// live for a whole session (secure-messaging keys, BAC's document keys) are kept here instead
/// and read in place, so that no copy outlives the session.
public final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`.
    public init(_ bytes: [UInt8]) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.storage = storage
        count = bytes.count
    }

    /// A copy of `bytes`, which is then wiped.
    public convenience init(consuming bytes: inout [UInt8]) {
        self.init(bytes)
        bytes.wipe()
    }

    public let count: Int

    /// The bytes, valid only inside `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A copy as an array, for tests comparing with published vectors. Never print it.
    public var bytesForTesting: [UInt8] { withUnsafeBytes { Array($0) } }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }
}

extension Array where Element == UInt8 {
    /// Overwrites the array's own storage with zeros (OPENSSL_cleanse, which the optimiser keeps).
    /// Copies made earlier are not reached: for temporaries that held key material.
    public mutating func wipe() {
        withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
