import COpenSSL
import FoundationEssentials
import LDS
import PassportCrypto
import Synchronization

/// An X.509 certificate held by OpenSSL. Names, serial and key identifiers are read once; the
/// signature checks go to OpenSSL, which also handles explicit EC domain parameters.
public final class Certificate: @unchecked Sendable, CustomStringConvertible {
    let x509: OpaquePointer
    public let der: [UInt8]
    public let subject: DistinguishedName
    public let issuer: DistinguishedName
    /// Serial number content octets, leading zeros removed.
    public let serialNumber: [UInt8]
    public let notBefore: Date
    public let notAfter: Date
    public let subjectKeyIdentifier: [UInt8]?
    public let authorityKeyIdentifier: [UInt8]?
    /// Where it came from ("DE_masterlist.ml", "SOD", a file path), for reports.
    public let source: String
    /// End of the private key usage period extension (2.5.29.16), which DSCs carry: the
    /// signer's key is not used after it.
    public let privateKeyUsageEnd: Date?
    /// The algorithm the issuer signed with (the outer signatureAlgorithm field).
    public let signatureAlgorithm: AlgorithmIdentifier
    /// keyUsage: nil when absent, else whether it is critical and asserts digitalSignature.
    public let keyUsage: (critical: Bool, digitalSignature: Bool)?
    /// RFC 5280 §4.1.2.5: validity dates through 2049 are UTCTime; nil when they are, else why
    /// not. Both read once: a batch judges the same Document Signer's profile for every dump.
    public let validityEncodingProblem: String?
    // Slices of `der` (no copies), for the accessors below.
    private let tbsCertificate: TLV
    private let signatureBits: TLV
    private let subjectPublicKeyInfo: TLV

    /// The TBSCertificate as signed (DER, header included): the message of `signatureValue`.
    public var tbsCertificateDER: [UInt8] { Array(tbsCertificate.encoded) }
    /// The issuer's signature: the signatureValue BIT STRING without its unused-bits octet.
    public var signatureValue: [UInt8] { Array(signatureBits.value.dropFirst()) }
    /// The subject's SubjectPublicKeyInfo (DER, header included).
    public var subjectPublicKeyInfoDER: [UInt8] { Array(subjectPublicKeyInfo.encoded) }

    /// What reports say of it, spelled once: a Document Signer signs thousands of the dumps of
    /// a batch, and its names and key were spelled again for each.
    public var info: CertificateInfo {
        infoSpelled.withLock { spelled in
            if let spelled { return spelled }
            let info = CertificateInfo(self)
            spelled = info
            return info
        }
    }
    private let infoSpelled = Mutex<CertificateInfo?>(nil)

    public init(der: [UInt8], source: String = "") throws {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_X509(nil, &pointer, buffer.count)
        }
        guard let parsed else { throw PassiveAuthenticationError.malformedCertificate(source: source, why: openSSLError()) }
        x509 = parsed
        self.der = der
        self.source = source
        do {
            // Names, serial and the signed parts come from our own DER walk (RFC 5280 §4.1).
            let parts = try TLV.parse(der).children()
            guard parts.count == 3, parts[2].tag == 0x03 else { throw TLVError.missing("TBSCertificate, signatureAlgorithm, signatureValue") }
            tbsCertificate = parts[0]
            signatureAlgorithm = try AlgorithmIdentifier(parts[1])
            signatureBits = parts[2]
            var fields = try tbsCertificate.children()
            if fields.first?.tag == 0xA0 { fields.removeFirst() } // version
            guard fields.count >= 6 else { throw TLVError.missing("certificate fields") }
            serialNumber = Array(fields[0].value.drop { $0 == 0 })
            issuer = try DistinguishedName(der: fields[2].encoded)
            subject = try DistinguishedName(der: fields[4].encoded)
            subjectPublicKeyInfo = fields[5]
            privateKeyUsageEnd = try Certificate.privateKeyUsageEnd(extensions: fields.first { $0.tag == 0xA3 })
            validityEncodingProblem = Certificate.validityEncodingProblem(tbsFields: fields)
        } catch {
            X509_free(parsed)
            throw PassiveAuthenticationError.malformedCertificate(source: source, why: String(describing: error))
        }
        keyUsage = Certificate.keyUsage(parsed)
        notBefore = Certificate.date(X509_get0_notBefore(parsed)) ?? .distantPast
        notAfter = Certificate.date(X509_get0_notAfter(parsed)) ?? .distantPast
        var data: UnsafePointer<UInt8>? = nil
        var length: Int32 = 0
        subjectKeyIdentifier = passport_x509_subject_key_id(parsed, &data, &length) == 1 && data != nil
            ? Array(UnsafeBufferPointer(start: data, count: Int(length))) : nil
        authorityKeyIdentifier = passport_x509_authority_key_id(parsed, &data, &length) == 1 && data != nil
            ? Array(UnsafeBufferPointer(start: data, count: Int(length))) : nil
    }

    deinit { X509_free(x509) }

    /// PrivateKeyUsagePeriod ::= SEQUENCE { notBefore [0] GeneralizedTime OPTIONAL, notAfter [1] … }
    static func privateKeyUsageEnd(extensions: TLV?) throws -> Date? {
        guard let list = try extensions?.children().first else { return nil }
        for ext in try list.children() {
            let parts = try ext.children()
            guard parts.count >= 2, parts[0].tag == 0x06, try ObjectIdentifier.dotted(parts[0].value) == "2.5.29.16",
                  let value = parts.last, value.tag == 0x04 else { continue }
            let period = try TLV.parse(value.value)
            if let end = try period.children().first(where: { $0.tag == 0x81 }) {
                return ASN1Time.parse(tag: 0x18, end.value)
            }
        }
        return nil
    }

    /// Every certificate in a DER or PEM file (PEM files may hold several).
    public static func load(file url: URL) throws -> [Certificate] {
        let bytes = [UInt8](try Data(contentsOf: url))
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if text.contains("-----BEGIN") {
            return try PEM.blocks(in: bytes, label: "CERTIFICATE").map { try Certificate(der: $0, source: url.lastPathComponent) }
        }
        return [try Certificate(der: bytes, source: url.lastPathComponent)]
    }

    /// The public key (OpenSSL keeps ownership; valid while the certificate lives).
    var publicKey: OpaquePointer? { X509_get0_pubkey(x509) }

    /// Checks of signatures made with this certificate's key, one per scheme, made ready once:
    /// a Document Signer's key checks every EF.SOD it signed in a batch.
    func verifier(for scheme: SignatureScheme) -> PreparedVerifier? {
        if let ready = verifiers.withLock({ $0.first { $0.scheme == scheme } }) { return ready }
        guard let key = publicKey, let made = PreparedVerifier(scheme: scheme, key: key) else { return nil }
        // A few schemes a key: more would be a hostile object naming many, each checked afresh.
        verifiers.withLock { list in if list.count < 4 { list.append(made) } }
        return made
    }
    private let verifiers = Mutex<[PreparedVerifier]>([])

    /// True when `issuer`'s public key verifies this certificate's signature.
    public func isSigned(by issuer: Certificate) -> Bool {
        guard let key = issuer.publicKey else { return false }
        defer { ERR_clear_error() }
        if X509_verify(x509, key) == 1 { return true }
        return isSignedPlainECDSA(by: key)
    }

    /// X.509 version (1, 2 or 3).
    public var version: Int { X509_get_version(x509) + 1 }

    static func keyUsage(_ x509: OpaquePointer) -> (critical: Bool, digitalSignature: Bool)? {
        let usage = X509_get_key_usage(x509)
        guard usage != UInt32.max else { return nil }
        let index = X509_get_ext_by_NID(x509, NID_key_usage, -1)
        let critical = index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(x509, index)) == 1
        return (critical, usage & UInt32(KU_DIGITAL_SIGNATURE) != 0)
    }

    /// RFC 5280 §4.1.2.5: validity dates through 2049 are UTCTime; nil when they are.
    static func validityEncodingProblem(tbsFields fields: [TLV]) -> String? {
        guard let validity = fields.first(where: { $0.tag == 0x30 && (try? $0.children().allSatisfy { [0x17, 0x18].contains($0.tag) }) == true }),
              let times = try? validity.children() else { return nil }
        for time in times where time.tag == 0x18 {
            let year = Int(String(decoding: time.value.prefix(4), as: UTF8.self)) ?? 0
            if year < 2050 { return "a date in \(year) is a GeneralizedTime, not a UTCTime" }
        }
        return nil
    }

    /// OpenSSL does not know the BSI ecdsa-plain-* signature OIDs (TR-03111, r‖s), which EF.SOD
    /// signatures may use and so may the certificates of their chain: those are checked with the
    /// SOD's own signature code, over the tbsCertificate, when it names the same algorithm.
    private func isSignedPlainECDSA(by key: OpaquePointer) -> Bool {
        guard signatureAlgorithm.oid.hasPrefix("0.4.0.127.0.7.1.1.4.1."),
              let inner = try? tbsCertificate.children().first(where: { $0.tag == 0x30 }),
              (try? AlgorithmIdentifier(inner)) == signatureAlgorithm,
              let scheme = try? SignatureScheme(signatureAlgorithm, digest: nil) else { return false }
        return scheme.verify(signature: signatureValue, message: tbsCertificateDER, key: key)
    }

    public var isSelfIssued: Bool { subject.matches(issuer) }

    /// basicConstraints cA (X509_check_ca: 1 for a CA certificate).
    public var isCA: Bool { X509_check_ca(x509) >= 1 }

    public func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    public var description: String { subject.description }

    /// Public-key algorithm and size, for reports ("RSA 2048", "EC brainpoolP384r1").
    public var keyDescription: String {
        guard let key = publicKey else { return "unknown key" }
        let bits = EVP_PKEY_get_bits(key)
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: return "RSA \(bits)"
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 80)
            var length = 0
            if EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 {
                return "EC \(cString(name))"
            }
            return "EC \(bits) (explicit parameters)"
        default: return "\(bits)-bit key"
        }
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var tm = tm()
        guard ASN1_TIME_to_tm(time, &tm) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }
}

extension Certificate {
    /// A Document Signer certificate as found in an EF.SOD, parsed once per process. One DSC signs
    /// months of a country's passports, so a verifier sees the same bytes again and again, and
    /// OpenSSL 3.0's key decoding in d2i_X509 is the largest single cost of a verification.
    /// Keyed by the whole DER: only identical bytes share a parse; certificates are immutable.
    /// The last few are found by comparing bytes, the others by hashing them.
    static func fromSecurityObject(_ der: ArraySlice<UInt8>) throws -> Certificate {
        if let recent = recentSecurityObjectCertificates.value(for: der) { return recent }
        let key = DERKey(der: Array(der))
        let certificate: Certificate
        if let known = securityObjectCertificates.withLock({ $0[key] }) {
            certificate = known
        } else {
            certificate = try Certificate(der: key.der, source: "EF.SOD")
            securityObjectCertificates.withLock { cache in
                if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
                cache[key] = certificate
            }
        }
        recentSecurityObjectCertificates.remember(certificate, for: der)
        return certificate
    }
}

/// DER bytes as a dictionary key, hashed at once: an array of bytes hashes itself byte by byte,
/// which for a 1 KB certificate costs more than the lookup it serves. The whole DER is hashed
/// (seeded per process): a hash of part of it could be made to collide by hostile dumps, and
/// every lookup would then compare them all.
struct DERKey: Hashable {
    let der: [UInt8]

    func hash(into hasher: inout Hasher) {
        der.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

private let securityObjectCertificates = Mutex<[DERKey: Certificate]>([:])
private let recentSecurityObjectCertificates = RecentlyParsed<Certificate>(capacity: 8)

/// A certificate revocation list held by OpenSSL.
public final class RevocationList: @unchecked Sendable {
    let crl: OpaquePointer
    public let issuer: DistinguishedName
    public let source: String

    public init(der: [UInt8], source: String) throws {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_X509_CRL(nil, &pointer, buffer.count)
        }
        guard let parsed else { throw PassiveAuthenticationError.malformedCRL(source: source, why: openSSLError()) }
        crl = parsed
        self.source = source
        do {
            // CertificateList { tbsCertList { [version], signature, issuer, … } … }
            var fields = try TLV.parse(try TLV.parse(der).children()[0].encoded).children()
            if fields.first?.tag == 0x02 { fields.removeFirst() }
            guard fields.count >= 2 else { throw TLVError.missing("CRL issuer") }
            issuer = try DistinguishedName(der: fields[1].encoded)
        } catch {
            X509_CRL_free(parsed)
            throw PassiveAuthenticationError.malformedCRL(source: source, why: String(describing: error))
        }
    }

    deinit { X509_CRL_free(crl) }

    public static func load(file url: URL) throws -> [RevocationList] {
        let bytes = [UInt8](try Data(contentsOf: url))
        if String(decoding: bytes.prefix(4096), as: UTF8.self).contains("-----BEGIN") {
            return try PEM.blocks(in: bytes, label: "X509 CRL").map { try RevocationList(der: $0, source: url.lastPathComponent) }
        }
        return [try RevocationList(der: bytes, source: url.lastPathComponent)]
    }

    /// True when `issuer`'s key verifies this CRL's signature.
    public func isSigned(by issuer: Certificate) -> Bool {
        guard let key = issuer.publicKey else { return false }
        defer { ERR_clear_error() }
        return X509_CRL_verify(crl, key) == 1
    }

    /// True when the CRL lists `certificate`'s serial number.
    public func revokes(_ certificate: Certificate) -> Bool {
        var entry: OpaquePointer? = nil
        return X509_CRL_get0_by_serial(crl, &entry, X509_get_serialNumber(certificate.x509)) == 1
    }

    public var nextUpdate: Date? { Certificate.date(X509_CRL_get0_nextUpdate(crl)) }
}

/// Minimal PEM decoding (RFC 7468): the base64 bodies of blocks with a given label.
enum PEM {
    static func blocks(in bytes: [UInt8], label: String) throws -> [[UInt8]] {
        let text = String(decoding: bytes, as: UTF8.self)
        var result: [[UInt8]] = []
        var remainder = Substring(text)
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        while let b = remainder.firstRange(of: begin), let e = remainder[b.upperBound...].firstRange(of: end) {
            let body = remainder[b.upperBound..<e.lowerBound].filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: String(body)) else { throw PassiveAuthenticationError.malformedPEM(label) }
            result.append([UInt8](data))
            remainder = remainder[e.upperBound...]
        }
        return result
    }
}

/// The newest OpenSSL error as text (and clears the queue).
func openSSLError() -> String {
    let code = ERR_get_error()
    defer { ERR_clear_error() }
    guard code != 0 else { return "unknown OpenSSL error" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return cString(buffer)
}

/// A NUL-terminated C buffer as a Swift string.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
