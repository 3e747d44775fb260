import COpenSSL
import PassportCrypto

/// An element of the BN254 scalar field (the field Noir's `Field` is over),
/// r = 21888242871839275222246405745257275088548364400416034343698204186575808495617.
///
/// Stored as 32 big-endian bytes, always reduced below r, so `==` compares values. The
/// arithmetic goes through OpenSSL's BIGNUM: each operation converts its operands, computes
/// with one BN_CTX and converts back. That is slow next to a dedicated implementation, but the
/// commitments of one credential take only a few thousand operations.
public struct FieldElement: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The value, 32 bytes big-endian, below the modulus.
    public let bytes: [UInt8]

    public static let modulusHex = "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"
    static let modulusBytes: [UInt8] = hexBytes("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001")!

    public static let zero = FieldElement(0)
    public static let one = FieldElement(1)

    /// Bytes already known to be 32 long and reduced.
    init(canonical: [UInt8]) {
        precondition(canonical.count == 32)
        bytes = canonical
    }

    public init(_ value: UInt64) {
        var out = [UInt8](repeating: 0, count: 32)
        for i in 0..<8 {
            out[31 - i] = UInt8(truncatingIfNeeded: value >> (8 * i))
        }
        bytes = out
    }

    /// A big-endian unsigned integer of any length, reduced modulo r.
    public init<C: Collection>(bytesBigEndian data: C) where C.Element == UInt8 {
        let trimmed = Array(data.drop(while: { $0 == 0 }))
        if trimmed.count < 32 {
            // At most 31 bytes: below 2^248 < r.
            bytes = [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
        } else {
            bytes = FieldElement.reduce(trimmed)
        }
    }

    /// Hex digits with or without "0x" (any length, odd allowed), reduced modulo r. Nil when
    /// the string is empty or holds anything but hex digits.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard let data = FieldElement.hexBytes(String(digits)) else { return nil }
        self.init(bytesBigEndian: data)
    }

    /// "0x" followed by 64 lowercase hex digits.
    public var hex: String {
        let digits: [Character] = Array("0123456789abcdef")
        var out = "0x"
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    public var description: String { hex }

    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    // MARK: Arithmetic

    public static func add(_ a: FieldElement, _ b: FieldElement) -> FieldElement {
        BNScope.run(modulus: FieldElement.modulusBytes) { scope in
            let result = scope.new()
            let ok = BN_mod_add(result, scope.load(a), scope.load(b), scope.fieldModulus, scope.ctx)
            precondition(ok == 1, "BN_mod_add failed")
            return scope.store(result)
        }
    }

    public static func mul(_ a: FieldElement, _ b: FieldElement) -> FieldElement {
        BNScope.run(modulus: FieldElement.modulusBytes) { scope in
            let result = scope.new()
            let ok = BN_mod_mul(result, scope.load(a), scope.load(b), scope.fieldModulus, scope.ctx)
            precondition(ok == 1, "BN_mod_mul failed")
            return scope.store(result)
        }
    }

    public static func + (a: FieldElement, b: FieldElement) -> FieldElement { add(a, b) }
    public static func * (a: FieldElement, b: FieldElement) -> FieldElement { mul(a, b) }

    /// x^5 (the Poseidon2 S-box).
    public func pow5() -> FieldElement {
        BNScope.run(modulus: FieldElement.modulusBytes) { scope in
            let x = scope.load(self)
            let x2 = scope.new(), x4 = scope.new(), x5 = scope.new()
            let ok = BN_mod_mul(x2, x, x, scope.fieldModulus, scope.ctx) == 1
                && BN_mod_mul(x4, x2, x2, scope.fieldModulus, scope.ctx) == 1
                && BN_mod_mul(x5, x4, x, scope.fieldModulus, scope.ctx) == 1
            precondition(ok, "BN_mod_mul failed")
            return scope.store(x5)
        }
    }

    /// Σ values[i] (mod r).
    public static func sum(_ values: [FieldElement]) -> FieldElement {
        linearCombination([UInt64](repeating: 1, count: values.count), values)
    }

    /// Σ coefficients[i]·values[i] (mod r) for small coefficients, in one pass.
    public static func linearCombination(_ coefficients: [UInt64], _ values: [FieldElement]) -> FieldElement {
        precondition(coefficients.count == values.count, "one coefficient per value")
        return BNScope.run(modulus: FieldElement.modulusBytes) { scope in
            let accumulator = scope.new()   // BN_new starts at 0
            for (coefficient, value) in zip(coefficients, values) {
                let x = scope.load(value)
                var ok: Int32 = 1
                if coefficient != 1 { ok = BN_mul_word(x, UInt(coefficient)) }
                if ok == 1 { ok = BN_add(accumulator, accumulator, x) }
                precondition(ok == 1, "BN_mul_word/BN_add failed")
            }
            let result = scope.new()
            let ok = BN_nnmod(result, accumulator, scope.fieldModulus, scope.ctx)
            precondition(ok == 1, "BN_nnmod failed")
            return scope.store(result)
        }
    }

    // MARK: Helpers

    static func reduce(_ big: [UInt8]) -> [UInt8] {
        BNScope.run(modulus: FieldElement.modulusBytes) { scope in
            let result = scope.new()
            let ok = BN_nnmod(result, scope.load(big), scope.fieldModulus, scope.ctx)
            precondition(ok == 1, "BN_nnmod failed")
            return scope.store(result).bytes
        }
    }

    /// Hex digits (no prefix; an odd count gets a leading 0) to bytes; nil if empty or invalid.
    static func hexBytes(_ text: String) -> [UInt8]? {
        var nibbles: [UInt8] = []
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39: nibbles.append(UInt8(scalar.value - 0x30))
            case 0x61...0x66: nibbles.append(UInt8(scalar.value - 0x61 + 10))
            case 0x41...0x46: nibbles.append(UInt8(scalar.value - 0x41 + 10))
            default: return nil
            }
        }
        guard !nibbles.isEmpty else { return nil }
        if nibbles.count % 2 == 1 { nibbles.insert(0, at: 0) }
        var out: [UInt8] = []
        out.reserveCapacity(nibbles.count / 2)
        var i = 0
        while i < nibbles.count {
            out.append(nibbles[i] << 4 | nibbles[i + 1])
            i += 2
        }
        return out
    }
}

extension BNScope {
    func load(_ element: FieldElement) -> OpaquePointer { load(element.bytes) }

    /// A BIGNUM below the modulus as a field element.
    func store(_ bn: OpaquePointer) -> FieldElement {
        FieldElement(canonical: bytes(bn, size: 32))
    }

    /// The scope's modulus (every field computation opens its scope with one).
    var fieldModulus: OpaquePointer { modulus! }
}
