import COpenSSL

/// BIGNUMs and one BN_CTX for one computation, all freed when `run` returns; optionally a
/// modulus for modular arithmetic.
public final class BNScope {
    public let ctx: OpaquePointer
    public let modulus: OpaquePointer?
    private var owned: [OpaquePointer] = []

    private init(modulus modulusBytes: [UInt8]?) {
        guard let ctx = BN_CTX_new() else { fatalError("BN_CTX_new failed") }
        self.ctx = ctx
        guard let modulusBytes else {
            modulus = nil
            return
        }
        guard let modulus = BN_bin2bn(modulusBytes, Int32(modulusBytes.count), nil) else {
            BN_CTX_free(ctx)
            fatalError("BN_bin2bn failed")
        }
        self.modulus = modulus
    }

    /// Runs `body` with a new scope whose BIGNUMs are freed when it returns.
    public static func run<T>(modulus: [UInt8]? = nil, _ body: (BNScope) throws -> T) rethrows -> T {
        let scope = BNScope(modulus: modulus)
        defer { scope.free() }
        return try body(scope)
    }

    /// A new BIGNUM (value 0), freed with the scope.
    public func new() -> OpaquePointer {
        guard let bn = BN_new() else { fatalError("BN_new failed") }
        owned.append(bn)
        return bn
    }

    /// A big-endian unsigned integer as a BIGNUM, freed with the scope.
    public func load(_ data: [UInt8]) -> OpaquePointer {
        guard let bn = BN_bin2bn(data, Int32(data.count), nil) else { fatalError("BN_bin2bn failed") }
        owned.append(bn)
        return bn
    }

    /// A BIGNUM as `size` big-endian bytes (it must fit).
    public func bytes(_ bn: OpaquePointer, size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        let written = BN_bn2binpad(bn, &out, Int32(size))
        precondition(written == Int32(size), "BN_bn2binpad: the number does not fit in \(size) bytes")
        return out
    }

    private func free() {
        for bn in owned { BN_free(bn) }
        owned.removeAll()
        if let modulus { BN_free(modulus) }
        BN_CTX_free(ctx)
    }
}
