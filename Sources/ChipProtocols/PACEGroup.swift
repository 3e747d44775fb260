import COpenSSL

/// The arithmetic PACE needs on one set of standardized domain parameters (ICAO 9303-11
/// §9.5.1): an elliptic curve (ids 8-18) or an RFC 5114 MODP group (ids 0-2), on OpenSSL's
/// EC_POINT and BIGNUM. Elements are exchanged as octet strings: uncompressed points, or
/// integers padded to the size of p.
final class PACEGroup {
    enum Kind { case ec, dh }
    let kind: Kind
    private var ecGroup: OpaquePointer?
    private var dhHolder: OpaquePointer?
    private var p: OpaquePointer?
    private var q: OpaquePointer?
    private var g: OpaquePointer?
    let ctx: OpaquePointer
    /// Bytes of a field element / DH value.
    let elementSize: Int
    /// The generator in use (the static one, or the mapped one after `useGenerator`).
    private(set) var generator: [UInt8]

    static func nid(forParameter id: Int) -> Int32? {
        switch id {
        case 8: return NID_X9_62_prime192v1
        case 9: return NID_brainpoolP192r1
        case 10: return NID_secp224r1
        case 11: return NID_brainpoolP224r1
        case 12: return NID_X9_62_prime256v1
        case 13: return NID_brainpoolP256r1
        case 14: return NID_brainpoolP320r1
        case 15: return NID_secp384r1
        case 16: return NID_brainpoolP384r1
        case 17: return NID_brainpoolP512r1
        case 18: return NID_secp521r1
        default: return nil
        }
    }

    init(standardizedParameter id: Int) throws {
        guard let context = BN_CTX_new() else { throw SecurityError.crypto("BN_CTX_new") }
        ctx = context
        if let nid = PACEGroup.nid(forParameter: id) {
            guard let group = EC_GROUP_new_by_curve_name(nid) else { throw SecurityError.crypto("curve \(id)") }
            kind = .ec
            ecGroup = group
            elementSize = Int((EC_GROUP_get_degree(group) + 7) / 8)
            generator = []
            generator = try encode(point: EC_GROUP_get0_generator(group))
        } else {
            var pp: OpaquePointer? = nil, qq: OpaquePointer? = nil, gg: OpaquePointer? = nil, holder: OpaquePointer? = nil
            guard (0...2).contains(id), passport_rfc5114_group(Int32(id), &pp, &qq, &gg, &holder) == 1 else {
                BN_CTX_free(context)
                throw SecurityError.crypto("PACE standardized domain parameters \(id) are not supported")
            }
            kind = .dh
            dhHolder = holder
            p = pp; q = qq; g = gg
            elementSize = Int((BN_num_bits(pp) + 7) / 8)
            generator = []
            generator = try encode(bn: gg!)
        }
    }

    deinit {
        if let ecGroup { EC_GROUP_free(ecGroup) }
        if let dhHolder { passport_dh_free(dhHolder) }
        BN_CTX_free(ctx)
    }

    /// The group order (EC) or subgroup order q (DH).
    private var order: OpaquePointer { kind == .ec ? EC_GROUP_get0_order(ecGroup)! : q! }

    /// A random private key in [1, order − 1], or the given one (tests reproducing vectors).
    func privateKey(_ fixed: [UInt8]?) throws -> [UInt8] {
        if let fixed { return fixed }
        guard let bn = BN_new() else { throw SecurityError.crypto("BN_new") }
        defer { BN_clear_free(bn) }
        repeat {
            guard BN_priv_rand_range(bn, order) == 1 else { throw SecurityError.crypto("BN_priv_rand_range") }
        } while BN_is_zero(bn) == 1
        return try bytes(bn, size: (Int(BN_num_bits(order)) + 7) / 8)
    }

    /// private · generator (EC) or generator^private mod p (DH).
    func publicKey(_ privateKey: [UInt8]) throws -> [UInt8] {
        try multiply(generator, by: privateKey)
    }

    /// scalar · element (EC) or element^scalar mod p (DH), checking that `element` is valid.
    func multiply(_ element: [UInt8], by scalar: [UInt8]) throws -> [UInt8] {
        let k = try bn(scalar)
        defer { BN_clear_free(k) }
        switch kind {
        case .ec:
            let point = try decodePoint(element)
            defer { EC_POINT_free(point) }
            guard let result = EC_POINT_new(ecGroup) else { throw SecurityError.crypto("EC_POINT_new") }
            defer { EC_POINT_free(result) }
            guard EC_POINT_mul(ecGroup, result, nil, point, k, ctx) == 1 else { throw SecurityError.crypto("EC_POINT_mul") }
            return try encode(point: result)
        case .dh:
            let base = try validDHElement(element)
            defer { BN_free(base) }
            guard let result = BN_new() else { throw SecurityError.crypto("BN_new") }
            defer { BN_free(result) }
            guard BN_mod_exp(result, base, k, p, ctx) == 1 else { throw SecurityError.crypto("BN_mod_exp") }
            return try encode(bn: result)
        }
    }

    /// Generic mapping: new generator = s·G + H (EC) or g^s · H mod p (DH).
    func mapGeneric(nonce s: [UInt8], sharedPoint h: [UInt8]) throws -> [UInt8] {
        let sBN = try bn(s)
        defer { BN_clear_free(sBN) }
        switch kind {
        case .ec:
            let hPoint = try decodePoint(h)
            defer { EC_POINT_free(hPoint) }
            guard let one = BN_new(), BN_set_word(one, 1) == 1, let result = EC_POINT_new(ecGroup) else { throw SecurityError.crypto("EC setup") }
            defer { BN_free(one); EC_POINT_free(result) }
            guard EC_POINT_mul(ecGroup, result, sBN, hPoint, one, ctx) == 1 else { throw SecurityError.crypto("EC_POINT_mul") }
            guard EC_POINT_is_at_infinity(ecGroup, result) == 0 else { throw SecurityError.chipAuthenticationFailed("PACE mapping gave the point at infinity") }
            return try encode(point: result)
        case .dh:
            let hBN = try validDHElement(h)
            guard let gs = BN_new(), let result = BN_new() else { throw SecurityError.crypto("BN_new") }
            defer { BN_free(hBN); BN_free(gs); BN_free(result) }
            guard BN_mod_exp(gs, g, sBN, p, ctx) == 1, BN_mod_mul(result, gs, hBN, p, ctx) == 1 else { throw SecurityError.crypto("DH mapping") }
            return try encode(bn: result)
        }
    }

    func useGenerator(_ element: [UInt8]) { generator = element }

    /// Bits of the field prime p (ICAO's pseudo-random function produces log2(p) + 64 bits).
    var primeBits: Int {
        if kind == .dh { return Int(BN_num_bits(p)) }
        return Int(EC_GROUP_get_degree(ecGroup))
    }

    /// Integrated mapping (ICAO 9303-11 §4.4.3.3.2) of the pseudo-random value R: for DH the
    /// generator R^((p−1)/q) mod p; for ECDH the point f_G(R mod p) of Appendix B (p ≡ 3 mod 4).
    func mapIntegrated(pseudoRandom r: [UInt8]) throws -> [UInt8] {
        let raw = try bn(r)
        defer { BN_clear_free(raw) }
        var bns: [OpaquePointer] = []
        func new() throws -> OpaquePointer {
            guard let x = BN_new() else { throw SecurityError.crypto("BN_new") }
            bns.append(x)
            return x
        }
        defer { bns.forEach { BN_clear_free($0) } }
        switch kind {
        case .dh:
            let t = try new(), exponent = try new(), result = try new(), remainder = try new()
            guard BN_nnmod(t, raw, p, ctx) == 1, BN_sub(exponent, p, BN_value_one()) == 1,
                  BN_div(exponent, remainder, exponent, q, ctx) == 1, BN_mod_exp(result, t, exponent, p, ctx) == 1 else {
                throw SecurityError.crypto("DH integrated mapping")
            }
            guard BN_is_one(result) == 0 else { throw SecurityError.chipAuthenticationFailed("integrated mapping gave the trivial generator") }
            return try encode(bn: result)
        case .ec:
            let prime = try new(), a = try new(), b = try new()
            guard EC_GROUP_get_curve(ecGroup, prime, a, b, ctx) == 1 else { throw SecurityError.crypto("curve parameters") }
            guard BN_is_bit_set(prime, 0) == 1, BN_is_bit_set(prime, 1) == 1 else {
                throw SecurityError.unsupported("integrated mapping on a curve with p ≠ 3 mod 4")
            }
            let t = try new(), alpha = try new(), tmp = try new(), x2 = try new(), x3 = try new()
            let h2 = try new(), u = try new(), bigA = try new(), exponent = try new(), check = try new(), y = try new()
            let ok = BN_nnmod(t, raw, prime, ctx) == 1
                // alpha = −t² mod p
                && BN_mod_sqr(alpha, t, prime, ctx) == 1 && BN_mod_sub(alpha, prime, alpha, prime, ctx) == 1
                // X2 = −b · a⁻¹ · (1 + (alpha + alpha²)⁻¹) mod p
                && BN_mod_sqr(tmp, alpha, prime, ctx) == 1 && BN_mod_add(tmp, tmp, alpha, prime, ctx) == 1
                && BN_mod_inverse(tmp, tmp, prime, ctx) != nil && BN_mod_add(tmp, tmp, BN_value_one(), prime, ctx) == 1
                && BN_mod_inverse(x2, a, prime, ctx) != nil && BN_mod_mul(x2, x2, b, prime, ctx) == 1
                && BN_mod_sub(x2, prime, x2, prime, ctx) == 1 && BN_mod_mul(x2, x2, tmp, prime, ctx) == 1
                // X3 = alpha · X2; h2 = X2³ + a·X2 + b; U = t³ · h2
                && BN_mod_mul(x3, alpha, x2, prime, ctx) == 1
                && BN_mod_sqr(h2, x2, prime, ctx) == 1 && BN_mod_mul(h2, h2, x2, prime, ctx) == 1
                && BN_mod_mul(tmp, a, x2, prime, ctx) == 1 && BN_mod_add(h2, h2, tmp, prime, ctx) == 1
                && BN_mod_add(h2, h2, b, prime, ctx) == 1
                && BN_mod_sqr(u, t, prime, ctx) == 1 && BN_mod_mul(u, u, t, prime, ctx) == 1 && BN_mod_mul(u, u, h2, prime, ctx) == 1
                // A = h2^(p − 1 − (p + 1)/4)
                && BN_add(exponent, prime, BN_value_one()) == 1 && BN_rshift(exponent, exponent, 2) == 1
                && BN_sub(tmp, prime, BN_value_one()) == 1 && BN_sub(exponent, tmp, exponent) == 1
                && BN_mod_exp(bigA, h2, exponent, prime, ctx) == 1
                && BN_mod_sqr(check, bigA, prime, ctx) == 1 && BN_mod_mul(check, check, h2, prime, ctx) == 1
            guard ok else { throw SecurityError.crypto("ECDH integrated mapping") }
            let x: OpaquePointer
            if BN_is_one(check) == 1 {
                x = x2
                guard BN_mod_mul(y, bigA, h2, prime, ctx) == 1 else { throw SecurityError.crypto("mapping y") }
            } else {
                x = x3
                guard BN_mod_mul(y, bigA, u, prime, ctx) == 1 else { throw SecurityError.crypto("mapping y") }
            }
            guard let point = EC_POINT_new(ecGroup) else { throw SecurityError.crypto("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            guard EC_POINT_set_affine_coordinates(ecGroup, point, x, y, ctx) == 1,
                  EC_POINT_is_on_curve(ecGroup, point, ctx) == 1 else {
                ERR_clear_error()
                throw SecurityError.chipAuthenticationFailed("integrated mapping gave a point off the curve")
            }
            let cofactor = EC_GROUP_get0_cofactor(ecGroup)
            if let cofactor, BN_is_one(cofactor) == 0 {
                guard EC_POINT_mul(ecGroup, point, nil, point, cofactor, ctx) == 1 else { throw SecurityError.crypto("cofactor") }
            }
            return try encode(point: point)
        }
    }

    /// The shared secret of key agreement: the x-coordinate (EC) or the value (DH).
    func sharedSecret(_ element: [UInt8]) -> [UInt8] {
        kind == .ec ? Array(element[1...elementSize]) : element
    }

    // MARK: encodings

    func encode(point: OpaquePointer?) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1 + 2 * elementSize)
        guard EC_POINT_point2oct(ecGroup, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, ctx) == out.count else {
            throw SecurityError.crypto("EC_POINT_point2oct")
        }
        return out
    }

    func decodePoint(_ bytes: [UInt8]) throws -> OpaquePointer {
        guard let point = EC_POINT_new(ecGroup) else { throw SecurityError.crypto("EC_POINT_new") }
        guard bytes.count == 1 + 2 * elementSize, bytes.first == 0x04,
              EC_POINT_oct2point(ecGroup, point, bytes, bytes.count, ctx) == 1,
              EC_POINT_is_on_curve(ecGroup, point, ctx) == 1, EC_POINT_is_at_infinity(ecGroup, point) == 0 else {
            EC_POINT_free(point)
            ERR_clear_error()
            throw SecurityError.chipAuthenticationFailed("the chip sent a point that is not on the curve")
        }
        return point
    }

    /// 1 < y < p − 1 and y^q = 1: a member of the prime-order subgroup.
    private func validDHElement(_ bytes: [UInt8]) throws -> OpaquePointer {
        let y = try bn(bytes)
        guard let check = BN_new() else { BN_free(y); throw SecurityError.crypto("BN_new") }
        defer { BN_free(check) }
        guard BN_cmp(y, BN_value_one()) > 0, BN_sub(check, p, BN_value_one()) == 1, BN_cmp(y, check) < 0,
              BN_mod_exp(check, y, q, p, ctx) == 1, BN_is_one(check) == 1 else {
            BN_free(y)
            throw SecurityError.chipAuthenticationFailed("the chip sent a DH value outside the group")
        }
        return y
    }

    func encode(bn: OpaquePointer) throws -> [UInt8] { try bytes(bn, size: elementSize) }

    private func bytes(_ bn: OpaquePointer, size: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(bn, &out, Int32(size)) == Int32(size) else { throw SecurityError.crypto("BN_bn2binpad") }
        return out
    }

    private func bn(_ bytes: [UInt8]) throws -> OpaquePointer {
        guard let bn = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw SecurityError.crypto("BN_bin2bn") }
        return bn
    }
}
