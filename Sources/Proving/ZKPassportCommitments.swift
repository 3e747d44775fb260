import COpenSSL
import FoundationEssentials
import LDS
import MRZ
import PassportCrypto

/// Why a zkPassport circuit value could not be computed.
public enum ZKPassportInputError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLong(what: String, count: Int, maximum: Int)
    case zeroSalt(String)
    case zeroValue(String)
    case unsupportedDigestLength(Int)
    case digestLengthMismatch(algorithm: String, length: Int)
    case malformedSignature(String)
    case unsupportedCurve(String)
    case unsupportedKey(String)
    case outOfRange(String)

    public var description: String {
        switch self {
        case .tooLong(let what, let count, let maximum):
            return "\(what) is \(count) bytes, more than the \(maximum) the circuits take"
        case .zeroSalt(let what): return "the salt of \(what) is 0, which the circuits reject"
        case .zeroValue(let what): return "\(what) is 0, which the circuits reject as a clear SaltedValue"
        case .unsupportedDigestLength(let length): return "a \(length)-byte data-group hash is not SHA-1/224/256/384/512"
        case .digestLengthMismatch(let algorithm, let length): return "the DG2 hash is \(length) bytes, not a \(algorithm) digest"
        case .malformedSignature(let why): return "the EF.SOD signature cannot be put in circuit form: \(why)"
        case .unsupportedCurve(let why): return "unsupported ECDSA curve: \(why)"
        case .unsupportedKey(let why): return "unsupported key or certificate: \(why)"
        case .outOfRange(let what): return "\(what) is out of range"
        }
    }
}

/// An ECDSA curve as the signature processing needs it: coordinate size and group order, and
/// which named curve it is (circuit names depend on it).
public struct ECDSACurve: Sendable, Equatable {
    /// Bytes of r and of s: ceil(field bits / 8).
    public let byteSize: Int
    /// The group order n, big-endian.
    public let order: [UInt8]
    /// OpenSSL's NID of the named curve these parameters are (explicit parameters are matched
    /// against the named curves), `NID_undef` when none.
    public let nid: Int32
    /// The DER ECPKParameters the curve was read from (nil when built from size and order).
    let parameters: [UInt8]?

    public init(byteSize: Int, order: [UInt8]) {
        self.byteSize = byteSize
        self.order = order
        self.nid = NID_undef
        self.parameters = nil
    }

    /// From DER ECPKParameters, i.e. the parameters of an id-ecPublicKey AlgorithmIdentifier in
    /// the DSC's SubjectPublicKeyInfo: a named-curve OID (06 …) or explicit ECParameters (30 …).
    /// OpenSSL knows the named curves (NIST, brainpool, …).
    public init(parameters der: [UInt8]) throws {
        let group = try ECDSACurve.group(der)
        defer { EC_GROUP_free(group) }
        let degree = Int(EC_GROUP_get_degree(group))
        guard degree > 0, let order = EC_GROUP_get0_order(group) else {
            throw ZKPassportInputError.unsupportedCurve("no field size or group order")
        }
        let orderSize = (Int(BN_num_bits(order)) + 7) / 8
        var orderBytes = [UInt8](repeating: 0, count: orderSize)
        let written = BN_bn2binpad(order, &orderBytes, Int32(orderSize))
        guard orderSize > 0, written == Int32(orderSize) else {
            throw ZKPassportInputError.unsupportedCurve("cannot read the group order")
        }
        self.byteSize = (degree + 7) / 8
        self.order = orderBytes
        var nid = EC_GROUP_get_curve_name(group)
        if nid == NID_undef {
            // Explicit parameters (as in many German DSCs): the named curve they are equal to.
            nid = max(NID_undef, EC_GROUP_check_named_curve(group, 0, nil))
            ERR_clear_error()
        }
        self.nid = nid
        self.parameters = der
    }

    private static func group(_ der: [UInt8]) throws -> OpaquePointer {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_ECPKParameters(nil, &pointer, buffer.count)
        }
        guard let parsed else {
            ERR_clear_error()
            throw ZKPassportInputError.unsupportedCurve("OpenSSL cannot read the EC domain parameters (\(der.count) bytes)")
        }
        return parsed
    }

    /// The affine x and y of an encoded point (compressed or uncompressed), each left-padded
    /// to `byteSize`; throws when the point is not on the curve.
    public func affineCoordinates(of encoded: [UInt8]) throws -> (x: [UInt8], y: [UInt8]) {
        guard let parameters else { throw ZKPassportInputError.unsupportedCurve("no domain parameters to decode a point") }
        let group = try ECDSACurve.group(parameters)
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw ZKPassportInputError.unsupportedCurve("EC_POINT_new failed") }
        defer { EC_POINT_free(point) }
        return try BNScope.run { scope in
            let x = scope.new(), y = scope.new()
            guard EC_POINT_oct2point(group, point, encoded, encoded.count, scope.ctx) == 1,
                  EC_POINT_get_affine_coordinates(group, point, x, y, scope.ctx) == 1 else {
                ERR_clear_error()
                throw ZKPassportInputError.unsupportedKey("the EC public key is not a point of its curve")
            }
            return (scope.bytes(x, size: byteSize), scope.bytes(y, size: byteSize))
        }
    }
}

/// The EF.SOD SignerInfo signature and what the ID-data circuit needs to know of the DSC key.
public enum SODSignature: Sendable, Equatable {
    /// RSA (PKCS#1 v1.5 or PSS): the raw signature and the modulus length in bytes (nil: take the
    /// signature as it is).
    case rsa(signature: [UInt8], modulusBytes: Int?)
    /// ECDSA: a DER ECDSA-Sig-Value or a raw r‖s, and the DSC key's curve.
    case ecdsa(signature: [UInt8], curve: ECDSACurve)
    /// Bytes already in the form the ID-data circuit takes.
    case raw([UInt8])

    /// The signature bytes as the ID-data circuit takes them, which is what the private nullifier
    /// hashes. RSA: left-padded with zeros to the modulus length. ECDSA: r‖s, each left-padded to
    /// the curve size, with s replaced by n − s when s > n/2 (zkpassport-utils
    /// `processECDSASignature`).
    public func circuitBytes() throws -> [UInt8] {
        switch self {
        case .rsa(let signature, let modulusBytes):
            guard let modulusBytes else { return signature }
            guard signature.count <= modulusBytes else {
                throw ZKPassportInputError.malformedSignature("\(signature.count) bytes for a \(modulusBytes)-byte RSA modulus")
            }
            return [UInt8](repeating: 0, count: modulusBytes - signature.count) + signature
        case .ecdsa(let signature, let curve):
            return try ZKPassportCommitments.ecdsaSignatureToRS(signature, curve: curve)
        case .raw(let bytes):
            return bytes
        }
    }
}

/// The salts the integrity circuit commits with and the disclosure circuits open with
/// (zkpassport-utils `IntegrityToDisclosureSalts`). The DG2 salt serves both DG2 values.
public struct IntegrityToDisclosureSalts: Sendable, Equatable {
    public var dg1: FieldElement
    public var expiryDate: FieldElement
    public var dg2Hash: FieldElement
    public var privateNullifier: FieldElement

    public init(dg1: FieldElement, expiryDate: FieldElement, dg2Hash: FieldElement, privateNullifier: FieldElement) {
        self.dg1 = dg1
        self.expiryDate = expiryDate
        self.dg2Hash = dg2Hash
        self.privateNullifier = privateNullifier
    }

    /// All four salts the same (zkPassport's tests use 1).
    public init(all salt: FieldElement) {
        self.init(dg1: salt, expiryDate: salt, dg2Hash: salt, privateNullifier: salt)
    }

    /// Four independent random non-zero 248-bit salts.
    public static func random() -> IntegrityToDisclosureSalts {
        IntegrityToDisclosureSalts(dg1: ZKPassportCommitments.randomSalt(), expiryDate: ZKPassportCommitments.randomSalt(),
                                   dg2Hash: ZKPassportCommitments.randomSalt(), privateNullifier: ZKPassportCommitments.randomSalt())
    }
}

/// The Poseidon2 values that chain zkPassport's circuits (zkpassport/circuits v0.17.0); port of
/// scripts/zk/commitments.py, whose README gives the recipe and the sources. H below is
/// `Poseidon2.hash` over all listed fields, be31/le31 are the byte packings, x|N is x
/// right-padded with zeros to N bytes.
public enum ZKPassportCommitments {
    public static let dg1Length = 95
    public static let eContentLength = 700
    public static let signedAttributesLength = 256
    public static let tbsMaxSizes = [700, 1000, 1200, 1600]
    public static let proofTypeAge: UInt64 = 1

    /// Nullifier types (utils/src/constants.nr).
    public static let nonSaltedNullifier = 0, saltedNullifier = 1, nonSaltedMockNullifier = 2, saltedMockNullifier = 3

    // MARK: Byte packing (utils/src/lib.nr)

    /// be31, `pack_be_bytes_into_fields::<N, ceil(N/31), 31>`: the bytes read as one big-endian
    /// integer cut into 31-byte limbs, least significant first. Field 0 holds the last 31 bytes;
    /// the first ((N−1) mod 31)+1 bytes form the last field.
    public static func packBE(_ data: [UInt8]) -> [FieldElement] {
        let count = (data.count + 30) / 31
        var fields: [FieldElement] = []
        fields.reserveCapacity(count)
        for i in 0..<count {
            let end = data.count - 31 * i
            let start = max(0, end - 31)
            fields.append(FieldElement(bytesBigEndian: data[start..<end]))
        }
        return fields
    }

    /// le31, `pack_le_bytes_into_fields::<31, N>`: field i holds bytes [31i, 31i+31) read
    /// little-endian.
    public static func packLE(_ data: [UInt8]) -> [FieldElement] {
        var fields: [FieldElement] = []
        var start = 0
        while start < data.count {
            let end = min(start + 31, data.count)
            fields.append(FieldElement(bytesBigEndian: Array(data[start..<end].reversed())))
            start = end
        }
        return fields
    }

    /// `data` right-padded with zeros to `size` bytes; throws when it is longer.
    public static func pad(_ data: [UInt8], to size: Int, what: String) throws -> [UInt8] {
        guard data.count <= size else { throw ZKPassportInputError.tooLong(what: what, count: data.count, maximum: size) }
        return data + [UInt8](repeating: 0, count: size - data.count)
    }

    /// utils `poseidon2_hash_packed`: H over le31(data), message_size = ceil(len/31).
    public static func poseidon2HashPacked(_ data: [UInt8]) -> FieldElement {
        Poseidon2.hash(packLE(data), messageSize: (data.count + 30) / 31)
    }

    // MARK: DG1 (utils/src/lib.nr)

    /// DG1's MRZ follows a 5-byte header: tag 61, length, tag 5F1F, length.
    static let dg1MRZOffset = 5

    /// Where an MRZ field of `format` stands in DG1 (the lines joined without separators).
    static func dg1Range(of field: KeyPath<MRZLayout, MRZField>, in format: MRZFormat) -> Range<Int> {
        let layout = format.layout
        let range = layout.joinedRange(of: layout[keyPath: field])
        return (dg1MRZOffset + range.lowerBound)..<(dg1MRZOffset + range.upperBound)
    }

    /// A TD1 card: DG1 bytes 93 and 94 are both non-zero (a TD3 passport's DG1 is 93 bytes).
    public static func isIDCard(dg1: [UInt8]) throws -> Bool {
        let padded = try pad(dg1, to: dg1Length, what: "DG1")
        return padded[93] != 0 && padded[94] != 0
    }

    /// The expiry date YYMMDD (ASCII) from the MRZ, where the TD3 or TD1 layout puts it.
    public static func expiryDate(fromDG1 dg1: [UInt8]) throws -> [UInt8] {
        let padded = try pad(dg1, to: dg1Length, what: "DG1")
        let format: MRZFormat = try isIDCard(dg1: dg1) ? .td1 : .td3
        return Array(padded[dg1Range(of: \.expiryDate, in: format)])
    }

    /// The issuing state (the same place in every layout); Germany's "D<<" becomes "DEU".
    public static func issuingCountry(fromDG1 dg1: [UInt8]) throws -> [UInt8] {
        let padded = try pad(dg1, to: dg1Length, what: "DG1")
        let country = Array(padded[dg1Range(of: \.issuingState, in: .td3)])
        return country == Array("D<<".utf8) ? Array("DEU".utf8) : country
    }

    // MARK: SaltedValue<T>::get_hash (utils/src/types.nr)

    /// H(salt, value) for a Field or u32 value. The circuit asserts salt ≠ 0 and value ≠ 0.
    public static func saltedHash(salt: FieldElement, value: FieldElement, what: String = "the value") throws -> FieldElement {
        guard !salt.isZero else { throw ZKPassportInputError.zeroSalt(what) }
        guard !value.isZero else { throw ZKPassportInputError.zeroValue(what) }
        return Poseidon2.hash([salt, value])
    }

    /// H(salt, be31(bytes)…) for a byte array. The circuit asserts salt ≠ 0 and a non-zero array.
    public static func saltedHash(salt: FieldElement, bytes: [UInt8], what: String = "the value") throws -> FieldElement {
        guard !salt.isZero else { throw ZKPassportInputError.zeroSalt(what) }
        guard bytes.contains(where: { $0 != 0 }) else { throw ZKPassportInputError.zeroValue(what) }
        return Poseidon2.hash([salt] + packBE(bytes))
    }

    // MARK: commitment/common/src/lib.nr

    /// `normalize_dg2_hash`: H(le31(dg2_hash)), message_size = ceil(len/31).
    public static func normalizeDG2Hash(_ hash: [UInt8]) -> FieldElement {
        poseidon2HashPacked(hash)
    }

    /// `calculate_private_nullifier`: H(be31(dg1|95) ++ be31(eContent|700) ++ be31(signature)),
    /// with the signature as the ID-data circuit takes it (`SODSignature.circuitBytes()`).
    public static func privateNullifier(dg1: [UInt8], eContent: [UInt8], signature: [UInt8]) throws -> FieldElement {
        let paddedDG1 = try pad(dg1, to: dg1Length, what: "DG1")
        let paddedEContent = try pad(eContent, to: eContentLength, what: "the EF.SOD eContent")
        let fields = packBE(paddedDG1) + packBE(paddedEContent) + packBE(signature)
        return Poseidon2.hash(fields)
    }

    /// DSC circuit comm_out = ID-data circuit comm_in: H(salt, be31(country), be31(tbs|max)),
    /// max = the smallest TBS size that fits unless given.
    public static func hashSaltCountryTBS(salt: FieldElement, country: [UInt8], tbs: [UInt8],
                                          tbsMaxSize: Int? = nil) throws -> FieldElement {
        guard let size = tbsMaxSize ?? tbsMaxSizes.first(where: { tbs.count <= $0 }) else {
            throw ZKPassportInputError.tooLong(what: "the DSC TBS certificate", count: tbs.count, maximum: tbsMaxSizes.last!)
        }
        let paddedTBS = try pad(tbs, to: size, what: "the DSC TBS certificate")
        return Poseidon2.hash([salt] + packBE(country) + packBE(paddedTBS))
    }

    /// ID-data circuit comm_out = integrity circuit comm_in (40 fields): H(salt, be31(country),
    /// be31(signedAttrs|256), len(signedAttrs), be31(dg1|95), be31(eContent|700), private_nullifier).
    /// `signedAttributes` is the DER as signed (SET tag 0x31).
    public static func hashSaltCountrySignedAttrDG1EContentPrivateNullifier(
        salt: FieldElement, country: [UInt8], signedAttributes: [UInt8], dg1: [UInt8], eContent: [UInt8],
        privateNullifier: FieldElement, signedAttributesSize: Int? = nil
    ) throws -> FieldElement {
        let size = signedAttributesSize ?? signedAttributes.count
        let paddedAttributes = try pad(signedAttributes, to: signedAttributesLength, what: "the signed attributes")
        let paddedDG1 = try pad(dg1, to: dg1Length, what: "DG1")
        let paddedEContent = try pad(eContent, to: eContentLength, what: "the EF.SOD eContent")
        var fields = [salt] + packBE(country)
        fields += packBE(paddedAttributes)
        fields.append(FieldElement(UInt64(size)))
        fields += packBE(paddedDG1)
        fields += packBE(paddedEContent)
        fields.append(privateNullifier)
        return Poseidon2.hash(fields)
    }

    /// The five SaltedValue hashes the integrity circuit commits to, in order: DG1, expiry date,
    /// normalised DG2 hash, DG2 hash type (same salt as the DG2 hash), private nullifier.
    public static func saltedDisclosureHashes(salts: IntegrityToDisclosureSalts, dg1: [UInt8], expiryDate: [UInt8],
                                              dg2HashNormalized: FieldElement, dg2HashType: Int,
                                              privateNullifier: FieldElement) throws -> [FieldElement] {
        let paddedDG1 = try pad(dg1, to: dg1Length, what: "DG1")
        let dg1Hash = try saltedHash(salt: salts.dg1, bytes: paddedDG1, what: "DG1")
        let expiryHash = try saltedHash(salt: salts.expiryDate, bytes: expiryDate, what: "the expiry date")
        let dg2Hash = try saltedHash(salt: salts.dg2Hash, value: dg2HashNormalized, what: "the DG2 hash")
        let dg2TypeHash = try saltedHash(salt: salts.dg2Hash, value: FieldElement(UInt64(dg2HashType)), what: "the DG2 hash type")
        let nullifierHash = try saltedHash(salt: salts.privateNullifier, value: privateNullifier, what: "the private nullifier")
        return [dg1Hash, expiryHash, dg2Hash, dg2TypeHash, nullifierHash]
    }

    /// `hash_salt_dg1_dg2_hash_private_nullifier`: the integrity circuit's comm_out, which is the
    /// comm_in of compare_age and of every disclosure circuit. H of the five salted hashes.
    public static func hashSaltDG1DG2HashPrivateNullifier(salts: IntegrityToDisclosureSalts, dg1: [UInt8], expiryDate: [UInt8],
                                                          dg2HashNormalized: FieldElement, dg2HashType: Int,
                                                          privateNullifier: FieldElement) throws -> FieldElement {
        let hashes = try saltedDisclosureHashes(salts: salts, dg1: dg1, expiryDate: expiryDate, dg2HashNormalized: dg2HashNormalized,
                                                dg2HashType: dg2HashType, privateNullifier: privateNullifier)
        return Poseidon2.hash(hashes)
    }

    /// `calculate_scoped_nullifier`: 0 when the private nullifier is hidden (0), else
    /// H(pn, scope, subscope), or H(pn, scope, subscope, secret) with a non-zero secret.
    public static func scopedNullifier(privateNullifier: FieldElement, serviceScope: FieldElement, serviceSubscope: FieldElement,
                                       nullifierSecret: FieldElement = .zero) -> FieldElement {
        if privateNullifier.isZero { return .zero }
        if !nullifierSecret.isZero {
            return Poseidon2.hash([privateNullifier, serviceScope, serviceSubscope, nullifierSecret])
        }
        return Poseidon2.hash([privateNullifier, serviceScope, serviceSubscope])
    }

    /// 0 non-salted, 1 salted (secret ≠ 0), 2 and 3 the same for a mock document (issuer ZKR).
    public static func nullifierType(dg1: [UInt8], nullifierSecret: FieldElement = .zero) throws -> Int {
        let mock = try issuingCountry(fromDG1: dg1) == Array("ZKR".utf8)
        if !nullifierSecret.isZero { return mock ? saltedMockNullifier : saltedNullifier }
        return mock ? nonSaltedMockNullifier : nonSaltedNullifier
    }

    /// zkpassport-utils `getScopeHash`: the first 31 bytes of SHA-256(UTF-8), big-endian; 0 for
    /// no string. service_scope = scopeHash(domain), service_subscope = scopeHash(purpose).
    public static func scopeHash(_ value: String?) -> FieldElement {
        guard let value, !value.isEmpty else { return .zero }
        return FieldElement(bytesBigEndian: OpenSSLCrypto.sha256(Array(value.utf8)).prefix(31))
    }

    /// compare_age's `calculate_param_commitment`: H(PROOF_TYPE_AGE = 1, 2, min, max).
    public static func ageParamCommitment(minimumAge: Int, maximumAge: Int) -> FieldElement {
        Poseidon2.hash([FieldElement(proofTypeAge), FieldElement(2),
                        FieldElement(UInt64(clamping: minimumAge)), FieldElement(UInt64(clamping: maximumAge))])
    }

    /// compare_age_evm: the first 31 bytes of SHA-256([1, 0x00, 0x02, min, max]), big-endian.
    public static func ageParamCommitmentEVM(minimumAge: Int, maximumAge: Int) -> FieldElement {
        let message: [UInt8] = [UInt8(proofTypeAge), 0, 2, UInt8(truncatingIfNeeded: minimumAge), UInt8(truncatingIfNeeded: maximumAge)]
        return FieldElement(bytesBigEndian: OpenSSLCrypto.sha256(message).prefix(31))
    }

    // MARK: ECDSA signature processing (zkpassport-utils processECDSASignature)

    /// A DER ECDSA-Sig-Value or a raw r‖s (exactly 2 × byteSize bytes) → r‖s, each left-padded
    /// to the curve size, s replaced by n − s when s > n/2.
    public static func ecdsaSignatureToRS(_ signature: [UInt8], curve: ECDSACurve) throws -> [UInt8] {
        let size = curve.byteSize
        var r: [UInt8]
        var s: [UInt8]
        if signature.count == 2 * size {
            r = Array(signature[0..<size])
            s = Array(signature[size...])
        } else {
            (r, s) = try integersOfECDSASigValue(signature, size: size)
        }
        r = Array(r.drop(while: { $0 == 0 }))
        s = Array(s.drop(while: { $0 == 0 }))
        guard r.count <= size, s.count <= size else {
            throw ZKPassportInputError.malformedSignature("r or s is longer than the curve's \(size) bytes")
        }
        s = try lowS(s, order: curve.order)
        guard s.count <= size else { throw ZKPassportInputError.malformedSignature("s is longer than the curve's \(size) bytes") }
        return [UInt8](repeating: 0, count: size - r.count) + r + [UInt8](repeating: 0, count: size - s.count) + s
    }

    /// s, or n − s when s > n/2 (integer division, as zkpassport-utils `ensureLowSValue`).
    static func lowS(_ s: [UInt8], order: [UInt8]) throws -> [UInt8] {
        try BNScope.run { scope -> [UInt8] in
            let sBN = scope.load(s)
            let n = scope.load(order)
            guard BN_cmp(sBN, n) < 0 else { throw ZKPassportInputError.malformedSignature("s is not below the group order") }
            let half = scope.new()
            var ok = BN_rshift1(half, n)
            precondition(ok == 1, "BN_rshift1 failed")
            guard BN_cmp(sBN, half) > 0 else { return s }
            let low = scope.new()
            ok = BN_sub(low, n, sBN)
            precondition(ok == 1, "BN_sub failed")
            return scope.bytes(low, size: (Int(BN_num_bits(low)) + 7) / 8)
        }
    }

    /// ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 3279), filling `signature`
    /// exactly; `size` only names the raw alternative in the error.
    static func integersOfECDSASigValue(_ signature: [UInt8], size: Int) throws -> (r: [UInt8], s: [UInt8]) {
        let sequence = try readingDER("the ECDSA signature", failure: ZKPassportInputError.malformedSignature) { try TLV.parse(signature) }
        guard sequence.tag == 0x30, sequence.encoded.count == signature.count else {
            throw ZKPassportInputError.malformedSignature("neither r‖s of \(2 * size) bytes nor a DER ECDSA-Sig-Value")
        }
        let fields = try readingDER("the ECDSA-Sig-Value", failure: ZKPassportInputError.malformedSignature) { try sequence.children() }
        guard fields.count == 2, fields[0].tag == 0x02, fields[1].tag == 0x02 else {
            throw ZKPassportInputError.malformedSignature("the DER ECDSA-Sig-Value is not two INTEGERs")
        }
        return (Array(fields[0].value), Array(fields[1].value))
    }

    // MARK: Helpers

    /// A random non-zero 248-bit field element (below the modulus).
    public static func randomSalt() -> FieldElement {
        var salt = FieldElement.zero
        repeat {
            var bytes = [UInt8](repeating: 0, count: 31)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
            salt = FieldElement(bytesBigEndian: bytes)
        } while salt.isZero
        return salt
    }
}

/// Everything zkPassport's `compare_age` circuit (v0.17.0, bin/compare/age/standard) takes, and
/// the values derived from it.
///
/// The circuit checks `comm_in` against the five salted hashes only; it is tied to the passport
/// signature when a verifier matches it with the integrity proof's `comm_out`, so the values
/// below must be exactly what the ID-data and integrity circuits would compute from the same
/// EF.SOD and the same salts.
public struct CompareAgeWitness: Sendable {
    /// DG1 as read from the chip (tag 61 …), at most 95 bytes.
    public var dg1: [UInt8]
    /// The EF.SOD eContent: the LDSSecurityObject DER, at most 700 bytes.
    public var eContent: [UInt8]
    /// The EF.SOD SignerInfo signature, with the DSC key information.
    public var signature: SODSignature
    /// DG2's hash as listed in the LDSSecurityObject.
    public var dg2Hash: [UInt8]
    /// The LDSSecurityObject's hash algorithm; nil: from the hash length.
    public var dg2HashAlgorithm: DigestAlgorithm?
    public var currentDate: Date
    public var minimumAge: Int
    /// 0: no maximum.
    public var maximumAge: Int
    public var salts: IntegrityToDisclosureSalts
    /// 0: a non-salted nullifier.
    public var nullifierSecret: FieldElement
    /// `ZKPassportCommitments.scopeHash` of the service's domain and purpose, 0 for none.
    public var serviceScope: FieldElement
    public var serviceSubscope: FieldElement
    /// False: the private nullifier is given in hidden form (salt 0, value 0, its salted hash),
    /// so the circuit outputs nullifier 0 instead of a value derived from the passport.
    public var revealNullifier: Bool

    public init(dg1: [UInt8], eContent: [UInt8], signature: SODSignature, dg2Hash: [UInt8],
                dg2HashAlgorithm: DigestAlgorithm? = nil, currentDate: Date, minimumAge: Int = 18, maximumAge: Int = 0,
                salts: IntegrityToDisclosureSalts = .random(), nullifierSecret: FieldElement = .zero,
                serviceScope: FieldElement = .zero, serviceSubscope: FieldElement = .zero, revealNullifier: Bool = true) {
        self.revealNullifier = revealNullifier
        self.dg1 = dg1
        self.eContent = eContent
        self.signature = signature
        self.dg2Hash = dg2Hash
        self.dg2HashAlgorithm = dg2HashAlgorithm
        self.currentDate = currentDate
        self.minimumAge = minimumAge
        self.maximumAge = maximumAge
        self.salts = salts
        self.nullifierSecret = nullifierSecret
        self.serviceScope = serviceScope
        self.serviceSubscope = serviceSubscope
    }

    /// The derived values, computed together.
    public struct Values: Sendable, Equatable {
        /// DG1 padded to 95 bytes.
        public let dg1: [UInt8]
        /// YYMMDD ASCII from the MRZ.
        public let expiryDate: [UInt8]
        public let privateNullifier: FieldElement
        public let dg2HashNormalized: FieldElement
        public let dg2HashType: Int
        /// The integrity circuit's comm_out = compare_age's comm_in.
        public let commitmentIn: FieldElement
        /// current_date in unix seconds.
        public let currentDate: UInt64
    }

    public func values() throws -> Values {
        let paddedDG1 = try ZKPassportCommitments.pad(dg1, to: ZKPassportCommitments.dg1Length, what: "DG1")
        let expiry = try ZKPassportCommitments.expiryDate(fromDG1: paddedDG1)
        guard let algorithm = dg2HashAlgorithm ?? DigestAlgorithm(digestLength: dg2Hash.count) else {
            throw ZKPassportInputError.unsupportedDigestLength(dg2Hash.count)
        }
        guard algorithm.digestLength == dg2Hash.count else {
            throw ZKPassportInputError.digestLengthMismatch(algorithm: algorithm.circuitName, length: dg2Hash.count)
        }
        guard (0...255).contains(minimumAge), (0...255).contains(maximumAge) else {
            throw ZKPassportInputError.outOfRange("the age bound")
        }
        let seconds = currentDate.timeIntervalSince1970
        guard seconds >= 0, seconds < 1.0e15 else { throw ZKPassportInputError.outOfRange("the current date") }
        let signatureBytes = try signature.circuitBytes()
        let nullifier = try ZKPassportCommitments.privateNullifier(dg1: paddedDG1, eContent: eContent, signature: signatureBytes)
        let normalized = ZKPassportCommitments.normalizeDG2Hash(dg2Hash)
        let commitment = try ZKPassportCommitments.hashSaltDG1DG2HashPrivateNullifier(
            salts: salts, dg1: paddedDG1, expiryDate: expiry, dg2HashNormalized: normalized,
            dg2HashType: algorithm.dg2HashType, privateNullifier: nullifier)
        return Values(dg1: paddedDG1, expiryDate: expiry, privateNullifier: nullifier, dg2HashNormalized: normalized,
                      dg2HashType: algorithm.dg2HashType, commitmentIn: commitment, currentDate: UInt64(seconds.rounded(.down)))
    }

    public func privateNullifier() throws -> FieldElement {
        let padded = try ZKPassportCommitments.pad(dg1, to: ZKPassportCommitments.dg1Length, what: "DG1")
        let signatureBytes = try signature.circuitBytes()
        return try ZKPassportCommitments.privateNullifier(dg1: padded, eContent: eContent, signature: signatureBytes)
    }

    public func commitmentIn() throws -> FieldElement {
        try values().commitmentIn
    }

    /// The 121 witness fields of compare_age in ABI order: comm_in, current_date,
    /// salted_private_nullifier, salted_expiry_date, salted_dg1, salted_dg2_hash,
    /// salted_dg2_hash_type (each SaltedValue as salt, value…, hash = 0; the private nullifier
    /// as 0, 0, hash when it is not revealed), min_age_required,
    /// max_age_required, nullifier_secret, service_scope, service_subscope. Field values are
    /// "0x" + 64 hex digits, integer values (u8, u32, u64) decimal.
    public func inputs() throws -> [String] {
        let v = try values()
        let noHash = FieldElement.zero.hex
        var fields: [String] = []
        fields.append(v.commitmentIn.hex)
        fields.append(String(v.currentDate))
        if revealNullifier {
            fields += [salts.privateNullifier.hex, v.privateNullifier.hex, noHash]
        } else {
            let hidden = try ZKPassportCommitments.saltedHash(salt: salts.privateNullifier, value: v.privateNullifier,
                                                              what: "the private nullifier")
            fields += [noHash, noHash, hidden.hex]
        }
        fields.append(salts.expiryDate.hex)
        fields += v.expiryDate.map { String($0) }
        fields.append(noHash)
        fields.append(salts.dg1.hex)
        fields += v.dg1.map { String($0) }
        fields.append(noHash)
        fields += [salts.dg2Hash.hex, v.dg2HashNormalized.hex, noHash]
        fields += [salts.dg2Hash.hex, String(v.dg2HashType), noHash]
        fields += [String(minimumAge), String(maximumAge), nullifierSecret.hex, serviceScope.hex, serviceSubscope.hex]
        precondition(fields.count == 121, "compare_age takes 121 fields")
        return fields
    }

    /// The 7 public inputs a compare_age proof carries, in order: comm_in, current_date,
    /// service_scope, service_subscope, then the returned param_commitment, nullifier_type and
    /// nullifier.
    public func publicInputs() throws -> [FieldElement] {
        let v = try values()
        let nullifierKind = try ZKPassportCommitments.nullifierType(dg1: dg1, nullifierSecret: nullifierSecret)
        return [
            v.commitmentIn, FieldElement(v.currentDate), serviceScope, serviceSubscope,
            ZKPassportCommitments.ageParamCommitment(minimumAge: minimumAge, maximumAge: maximumAge),
            FieldElement(UInt64(nullifierKind)),
            ZKPassportCommitments.scopedNullifier(privateNullifier: revealNullifier ? v.privateNullifier : .zero, serviceScope: serviceScope,
                                                  serviceSubscope: serviceSubscope, nullifierSecret: nullifierSecret),
        ]
    }
}
