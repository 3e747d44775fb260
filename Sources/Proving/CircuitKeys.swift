import COpenSSL
import PassportCrypto

/// A hash function as zkPassport's circuit names spell it (`sha256`) and number it (`dg2_hash_type`).
public typealias CircuitHash = DG2HashAlgorithm

extension DG2HashAlgorithm {
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
}

/// How a signature the circuits check was made: the scheme picks the circuit variant
/// (`rsa_pkcs`, `rsa_pss`, `ecdsa`), the hash its suffix.
public enum CircuitSignatureScheme: Sendable, Equatable {
    case rsaPKCS1(CircuitHash)
    case rsaPSS(CircuitHash, saltLength: Int)
    case ecdsa(CircuitHash)

    public var hash: CircuitHash {
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
        let info = try DER.children(of: der, at: 0)
        guard info.count == 2, info[0].tag == 0x30, info[1].tag == 0x03 else {
            throw ZKPassportInputError.unsupportedKey("the SubjectPublicKeyInfo is malformed")
        }
        let algorithm = try DER.children(of: der, at: info[0].start)
        guard let oidElement = algorithm.first, oidElement.tag == 0x06 else {
            throw ZKPassportInputError.unsupportedKey("the key's AlgorithmIdentifier has no OID")
        }
        let bits = Array(der[info[1].content])
        guard bits.first == 0, bits.count > 1 else { throw ZKPassportInputError.unsupportedKey("the key BIT STRING is malformed") }
        let key = Array(bits.dropFirst())
        switch DER.dottedOID(Array(der[oidElement.content])) {
        case "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.10": // rsaEncryption, RSASSA-PSS
            let parts = try DER.children(of: key, at: 0)
            guard parts.count == 2, parts[0].tag == 0x02, parts[1].tag == 0x02 else {
                throw ZKPassportInputError.unsupportedKey("the RSAPublicKey is not two INTEGERs")
            }
            let modulus = Array(key[parts[0].content].drop(while: { $0 == 0 }))
            let exponentBytes = Array(key[parts[1].content].drop(while: { $0 == 0 }))
            guard !modulus.isEmpty, !exponentBytes.isEmpty, exponentBytes.count <= 4 else {
                throw ZKPassportInputError.unsupportedKey("the RSA public exponent does not fit in 32 bits")
            }
            self = .rsa(modulus: modulus, exponent: exponentBytes.reduce(0) { $0 << 8 | UInt32($1) })
        case "1.2.840.10045.2.1": // id-ecPublicKey
            guard algorithm.count == 2 else { throw ZKPassportInputError.unsupportedKey("the EC key names no curve") }
            let parameters = Array(der[algorithm[1].start..<algorithm[1].content.upperBound])
            let curve = try ECDSACurve(parameters: parameters)
            let (x, y) = try curve.affineCoordinates(of: key)
            self = .ecdsa(x: x, y: y, curve: curve)
        case let other:
            throw ZKPassportInputError.unsupportedKey("the key algorithm \(other) is neither RSA nor ECDSA")
        }
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
            let bits = DER.bitLength(modulus)
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
            let bits = Int32(2 * DER.bitLength(n) + 6)
            guard BN_set_bit(power, bits) == 1, BN_div(quotient, remainder, power, divisor, scope.ctx) == 1 else {
                throw ZKPassportInputError.unsupportedKey("cannot compute the Barrett parameter")
            }
            return scope.bytes(quotient, size: n.count + 1)
        }
    }
}

/// A certificate split the way the circuits need it (RFC 5280): the TBSCertificate as signed,
/// the signature algorithm and value, and the subject's key.
public struct CertificateParts: Sendable {
    /// The TBSCertificate DER (`30 82 …`).
    public let tbs: [UInt8]
    /// The signatureAlgorithm OID, dotted, and its parameters' DER (nil when absent).
    public let signatureAlgorithmOID: String
    public let signatureAlgorithmParameters: [UInt8]?
    /// The signatureValue BIT STRING's bytes.
    public let signature: [UInt8]
    /// The subject's SubjectPublicKeyInfo DER.
    public let subjectPublicKeyInfo: [UInt8]

    public init(der: [UInt8]) throws {
        let certificate = try DER.children(of: der, at: 0)
        guard certificate.count == 3, certificate[0].tag == 0x30, certificate[1].tag == 0x30, certificate[2].tag == 0x03 else {
            throw ZKPassportInputError.unsupportedKey("the certificate is not TBSCertificate, algorithm, signature")
        }
        tbs = Array(der[certificate[0].start..<certificate[0].content.upperBound])
        let algorithm = try DER.children(of: der, at: certificate[1].start)
        guard let oid = algorithm.first, oid.tag == 0x06 else {
            throw ZKPassportInputError.unsupportedKey("the certificate's signature algorithm has no OID")
        }
        signatureAlgorithmOID = DER.dottedOID(Array(der[oid.content]))
        signatureAlgorithmParameters = algorithm.count > 1 && algorithm[1].tag != 0x05
            ? Array(der[algorithm[1].start..<algorithm[1].content.upperBound]) : nil
        let bits = Array(der[certificate[2].content])
        guard bits.first == 0 else { throw ZKPassportInputError.unsupportedKey("the certificate's signature is malformed") }
        signature = Array(bits.dropFirst())
        var fields = try DER.children(of: tbs, at: 0)
        if fields.first?.tag == 0xA0 { fields.removeFirst() } // version
        guard fields.count >= 6, fields[5].tag == 0x30 else {
            throw ZKPassportInputError.unsupportedKey("the certificate has no SubjectPublicKeyInfo")
        }
        subjectPublicKeyInfo = Array(tbs[fields[5].start..<fields[5].content.upperBound])
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

/// Just enough DER for certificates and keys: definite lengths, tags of one byte.
enum DER {
    struct Element {
        let tag: UInt8
        /// Where the element starts (its tag).
        let start: Int
        let content: Range<Int>
    }

    static func element(_ bytes: [UInt8], at offset: Int) throws -> Element {
        let (tag, content) = try ZKPassportCommitments.derElement(bytes, at: offset)
        return Element(tag: tag, start: offset, content: content)
    }

    /// The elements inside the constructed element at `offset`.
    static func children(of bytes: [UInt8], at offset: Int) throws -> [Element] {
        let parent = try element(bytes, at: offset)
        var children: [Element] = []
        var position = parent.content.lowerBound
        while position < parent.content.upperBound {
            let child = try element(bytes, at: position)
            guard child.content.upperBound <= parent.content.upperBound else {
                throw ZKPassportInputError.malformedSignature("a DER element overruns its parent")
            }
            children.append(child)
            position = child.content.upperBound
        }
        return children
    }

    static func dottedOID(_ bytes: [UInt8]) -> String {
        var parts: [UInt64] = []
        var value: UInt64 = 0
        for byte in bytes {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                if parts.isEmpty {
                    parts += value < 80 ? [value / 40, value % 40] : [2, value - 80]
                } else {
                    parts.append(value)
                }
                value = 0
            }
        }
        return parts.map(String.init).joined(separator: ".")
    }

    /// Bits of a big-endian unsigned integer.
    static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - first) * 8 - bytes[first].leadingZeroBitCount
    }
}

/// Witness values as Noir's ABI takes them: bytes and small integers in decimal.
enum Witness {
    static func bytes(_ data: [UInt8]) -> [String] { data.map { String($0) } }
    static func ascii(_ text: [UInt8]) -> [String] { bytes(text) }
}
