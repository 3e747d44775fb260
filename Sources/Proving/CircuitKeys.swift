import COpenSSL
import LDS
import PassiveAuth
import PassportCrypto

/// The hash functions as zkPassport's circuits name them (`sha256` in package names) and
/// number them (`dg2_hash_type`, utils/src/constants.nr).
extension DigestAlgorithm {
    /// The name in circuit package names: sha1, sha224, sha256, sha384, sha512.
    public var circuitName: String {
        switch self {
        case .sha1: return "sha1"
        case .sha224: return "sha224"
        case .sha256: return "sha256"
        case .sha384: return "sha384"
        case .sha512: return "sha512"
        }
    }

    /// The circuits' number for the algorithm (`dg2_hash_type`): SHA-1 is 1, …, SHA-512 is 5.
    public var dg2HashType: Int {
        switch self {
        case .sha1: return 1
        case .sha224: return 2
        case .sha256: return 3
        case .sha384: return 4
        case .sha512: return 5
        }
    }

    /// Bytes of a digest.
    public var digestLength: Int {
        switch self {
        case .sha1: return 20
        case .sha224: return 28
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// The algorithm a digest of `digestLength` bytes comes from (the lengths are distinct), as
    /// zkpassport-utils infers it when the hash algorithm is not given.
    public init?(digestLength: Int) {
        guard let algorithm = DigestAlgorithm.allCases.first(where: { $0.digestLength == digestLength }) else { return nil }
        self = algorithm
    }
}

/// How a signature the circuits check was made: the scheme picks the circuit variant
/// (`rsa_pkcs`, `rsa_pss`, `ecdsa`), the hash its suffix.
public enum CircuitSignatureScheme: Sendable, Equatable {
    case rsaPKCS1(DigestAlgorithm)
    case rsaPSS(DigestAlgorithm, saltLength: Int)
    case ecdsa(DigestAlgorithm)

    public var hash: DigestAlgorithm {
        switch self {
        case .rsaPKCS1(let hash), .rsaPSS(let hash, _), .ecdsa(let hash): return hash
        }
    }
}

/// A public key in the form zkPassport's circuits take it (zkpassport-utils 0.35
/// `getDSCDataInputs` / `getDSCCircuitInputs`).
public enum CircuitPublicKey: Sendable, Equatable {
    /// RSA: the modulus as big-endian bytes without a sign byte, and the public exponent.
    case rsa(modulus: [UInt8], exponent: UInt32)
    /// ECDSA: the affine coordinates, each left-padded to the curve size.
    case ecdsa(x: [UInt8], y: [UInt8], curve: ECDSACurve)

    /// The RSA moduli the circuits are compiled for (circuits 0.17.0: 1024 to 4096 bits).
    public static let rsaSizes = [1024, 2048, 3072, 4096]

    /// Reads a DER SubjectPublicKeyInfo: rsaEncryption or RSASSA-PSS with an RSAPublicKey, or
    /// id-ecPublicKey with a named curve or explicit parameters and a compressed or uncompressed
    /// point.
    public init(subjectPublicKeyInfo der: [UInt8]) throws {
        let (algorithm, key) = try CircuitPublicKey.algorithmAndKey(subjectPublicKeyInfo: der)
        let oid = try readingDER("the key's algorithm OID") { try ObjectIdentifier.dotted(algorithm[0].value) }
        switch oid {
        case "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.10": // rsaEncryption, RSASSA-PSS
            self = try CircuitPublicKey.rsa(rsaPublicKey: key)
        case "1.2.840.10045.2.1": // id-ecPublicKey
            guard algorithm.count == 2 else { throw ZKPassportInputError.unsupportedKey("the EC key names no curve") }
            let curve = try ECDSACurve(parameters: Array(algorithm[1].encoded))
            let (x, y) = try curve.affineCoordinates(of: key)
            self = .ecdsa(x: x, y: y, curve: curve)
        case let other:
            throw ZKPassportInputError.unsupportedKey("the key algorithm \(other) is neither RSA nor ECDSA")
        }
    }

    /// The subject's key of an X.509 certificate (a DSC or a CSCA).
    public init(certificate: Certificate) throws {
        try self.init(subjectPublicKeyInfo: certificate.subjectPublicKeyInfoDER)
    }

    /// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }:
    /// the AlgorithmIdentifier's fields (OID first) and the key bytes.
    private static func algorithmAndKey(subjectPublicKeyInfo der: [UInt8]) throws -> (algorithm: [TLV], key: [UInt8]) {
        let info = try readingDER("the SubjectPublicKeyInfo") { try TLV.parse(der).children() }
        guard info.count == 2, info[0].tag == 0x30, info[1].tag == 0x03 else {
            throw ZKPassportInputError.unsupportedKey("the SubjectPublicKeyInfo is not an AlgorithmIdentifier and a BIT STRING")
        }
        let algorithm = try readingDER("the key's AlgorithmIdentifier") { try info[0].children() }
        guard algorithm.first?.tag == 0x06 else { throw ZKPassportInputError.unsupportedKey("the key's AlgorithmIdentifier has no OID") }
        guard info[1].value.first == 0, info[1].value.count > 1 else {
            throw ZKPassportInputError.unsupportedKey("the key BIT STRING is malformed")
        }
        return (algorithm, Array(info[1].value.dropFirst()))
    }

    /// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } (RFC 8017).
    private static func rsa(rsaPublicKey der: [UInt8]) throws -> CircuitPublicKey {
        let parts = try readingDER("the RSAPublicKey") { try TLV.parse(der).children() }
        guard parts.count == 2, parts[0].tag == 0x02, parts[1].tag == 0x02 else {
            throw ZKPassportInputError.unsupportedKey("the RSAPublicKey is not two INTEGERs")
        }
        let modulus = Array(parts[0].value.drop(while: { $0 == 0 }))
        let exponentBytes = Array(parts[1].value.drop(while: { $0 == 0 }))
        guard !modulus.isEmpty, !exponentBytes.isEmpty, exponentBytes.count <= 4 else {
            throw ZKPassportInputError.unsupportedKey("the RSA public exponent does not fit in 32 bits")
        }
        return .rsa(modulus: modulus, exponent: exponentBytes.reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// What the certificate registry leaf hashes: the modulus, or x‖y.
    public var registryBytes: [UInt8] {
        switch self {
        case .rsa(let modulus, _): return modulus
        case .ecdsa(let x, let y, _): return x + y
        }
    }

    /// The key part of a circuit name, `rsa_pkcs_2048`, `rsa_pss_4096`, `ecdsa_nist_p256` or
    /// `ecdsa_brainpool_256r1`, for a signature made with `scheme`.
    public func circuitFragment(for scheme: CircuitSignatureScheme) throws -> String {
        switch (self, scheme) {
        case (.rsa(let modulus, _), .rsaPKCS1), (.rsa(let modulus, _), .rsaPSS):
            let bits = bitLength(modulus)
            guard CircuitPublicKey.rsaSizes.contains(bits) else {
                throw ZKPassportInputError.unsupportedKey("no circuit takes a \(bits)-bit RSA key")
            }
            if case .rsaPSS = scheme { return "rsa_pss_\(bits)" }
            return "rsa_pkcs_\(bits)"
        case (.ecdsa(_, _, let curve), .ecdsa):
            guard let name = curve.circuitName else {
                throw ZKPassportInputError.unsupportedCurve("no circuit takes this curve (\(curve.byteSize * 8)-bit)")
            }
            return "ecdsa_\(name)"
        default:
            throw ZKPassportInputError.unsupportedKey("the signature scheme does not match the key type")
        }
    }

    /// The signature as the circuits take it: RSA left-padded to the modulus size; ECDSA r‖s
    /// with a low s (`SODSignature.circuitBytes`).
    func circuitSignature(_ signature: [UInt8]) throws -> [UInt8] {
        switch self {
        case .rsa(let modulus, _): return try SODSignature.rsa(signature: signature, modulusBytes: modulus.count).circuitBytes()
        case .ecdsa(_, _, let curve): return try SODSignature.ecdsa(signature: signature, curve: curve).circuitBytes()
        }
    }

    /// The key's witness fields: for RSA the modulus and its Barrett parameter; for ECDSA x, y.
    func witnessFields() throws -> [String] {
        switch self {
        case .rsa(let modulus, _): return Witness.bytes(modulus) + Witness.bytes(try CircuitPublicKey.barrettParameter(modulus))
        case .ecdsa(let x, let y, _): return Witness.bytes(x) + Witness.bytes(y)
        }
    }

    /// The Barrett reduction parameter noir-bignum needs with an RSA modulus n of k bits:
    /// floor(2^(2k + 6) / n), big-endian, left-padded to the modulus size + 1 byte
    /// (zkpassport-utils `redcLimbs`; noir-bignum `compute_barrett_reduction_parameter`).
    public static func barrettParameter(_ modulus: [UInt8]) throws -> [UInt8] {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        guard !n.isEmpty else { throw ZKPassportInputError.unsupportedKey("the RSA modulus is 0") }
        return try BNScope.run { scope -> [UInt8] in
            let divisor = scope.load(n)
            let power = scope.new(), quotient = scope.new(), remainder = scope.new()
            let bits = Int32(2 * bitLength(n) + 6)
            guard BN_set_bit(power, bits) == 1, BN_div(quotient, remainder, power, divisor, scope.ctx) == 1 else {
                throw ZKPassportInputError.unsupportedKey("cannot compute the Barrett parameter")
            }
            return scope.bytes(quotient, size: n.count + 1)
        }
    }
}

extension ECDSACurve {
    /// The curve's name in circuit names (`nist_p256`, `brainpool_256r1`), nil for curves no
    /// circuit is compiled for.
    public var circuitName: String? {
        switch nid {
        case NID_X9_62_prime192v1: return "nist_p192"
        case NID_secp224r1: return "nist_p224"
        case NID_X9_62_prime256v1: return "nist_p256"
        case NID_secp384r1: return "nist_p384"
        case NID_secp521r1: return "nist_p521"
        case NID_brainpoolP192r1: return "brainpool_192r1"
        case NID_brainpoolP224r1: return "brainpool_224r1"
        case NID_brainpoolP256r1: return "brainpool_256r1"
        case NID_brainpoolP384r1: return "brainpool_384r1"
        case NID_brainpoolP512r1: return "brainpool_512r1"
        default: return nil
        }
    }
}

/// Bits of a big-endian unsigned integer (an RSA key's size).
func bitLength(_ bytes: [UInt8]) -> Int {
    guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
    return (bytes.count - first) * 8 - bytes[first].leadingZeroBitCount
}

/// Runs `read`, which walks DER with LDS's `TLV`, turning a malformed encoding into `failure`
/// (by default `unsupportedKey`) naming what was being read, so callers see one error type.
func readingDER<T>(_ what: String, failure: (String) -> ZKPassportInputError = ZKPassportInputError.unsupportedKey,
                   _ read: () throws -> T) throws -> T {
    do { return try read() } catch let error as TLVError {
        throw failure("\(what) is not valid DER (\(error))")
    }
}

/// Witness values as Noir's ABI takes them: bytes and small integers in decimal.
enum Witness {
    static func bytes(_ data: [UInt8]) -> [String] { data.map { String($0) } }
    static func ascii(_ text: [UInt8]) -> [String] { bytes(text) }
}
