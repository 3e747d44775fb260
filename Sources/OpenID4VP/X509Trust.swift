import COpenSSL
import Credentials
import FoundationEssentials
import PassportCrypto

/// A verifier's request-object certificate chain (the JOSE `x5c` header) checked with OpenSSL
/// against trust anchors: the system's store and the `--verifier-ca` files.
public struct X509Chain: @unchecked Sendable {
    /// DER of each certificate, leaf first, as the x5c header carries them.
    public let der: [[UInt8]]

    public init(der: [[UInt8]]) { self.der = der }

    public init(x5c: Any?) throws {
        guard let list = x5c as? [String], !list.isEmpty else {
            throw OpenID4VPError.badSignature("the request object has no x5c certificate chain, which its client identifier prefix requires")
        }
        der = try list.enumerated().map { index, text in
            // x5c is standard base64 (RFC 7515 §4.1.6), not base64url.
            guard let bytes = Data(base64Encoded: text) else {
                throw OpenID4VPError.badSignature("x5c[\(index)] is not base64")
            }
            return [UInt8](bytes)
        }
    }

    /// base64url(SHA-256(DER of the leaf)): the value of an `x509_hash:` client identifier.
    public var leafHash: String { Base64URL.encode(OpenSSLCrypto.sha256(der[0])) }

    static func parse(_ der: [UInt8], what: String) throws -> OpaquePointer {
        let cert: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &pointer, buffer.count)
        }
        guard let cert else { throw OpenID4VPError.badSignature("\(what) is not a DER X.509 certificate") }
        return cert
    }

    /// Whose chain it is: a verifier's request object, or a credential issuer's (`verify-vp --trust-issuer`).
    public enum Role: Sendable { case requestObject, issuer }

    /// Verifies the chain to one of `anchors` (PEM files) or, with `systemStore`, the system's
    /// trust store, checks that the leaf may sign (key usage digitalSignature; a request object's
    /// certificate with an extended key usage must allow serverAuth or any use), and returns the
    /// leaf's P-256 key and its DNS names.
    /// `dnsName`: when set, the leaf must carry it as a subjectAltName dNSName.
    public func verify(anchors: [String], systemStore: Bool = true, dnsName: String? = nil, at date: Date = Date(),
                       role: Role = .requestObject) throws -> (key: P256PublicKey, subject: String, dnsNames: [String]) {
        let leaf = try verifiedLeaf(anchors: anchors, systemStore: systemStore, dnsName: dnsName, at: date, role: role)
        return (leaf.key, leaf.subject, leaf.dnsNames)
    }

    public func verifiedLeaf(anchors: [String], systemStore: Bool = true, dnsName: String? = nil, at date: Date = Date(),
                             role: Role = .requestObject) throws -> (key: P256PublicKey, subject: String, dnsNames: [String], uris: [String]) {
        let what = role == .issuer ? "the issuer's certificate" : "the request object's certificate"
        let leaf = try Self.parse(der[0], what: "x5c[0]")
        defer { X509_free(leaf) }
        var intermediates: [OpaquePointer] = []
        defer { intermediates.forEach { X509_free($0) } }
        for (index, bytes) in der.enumerated().dropFirst() {
            intermediates.append(try Self.parse(bytes, what: "x5c[\(index)]"))
        }
        guard let store = X509_STORE_new() else { throw OpenID4VPError.transport(step: "X.509", "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        if systemStore { X509_STORE_set_default_paths(store) }
        for file in anchors {
            for anchor in try Self.readPEMCertificates(file) {
                X509_STORE_add_cert(store, anchor)
                X509_free(anchor)
            }
        }
        guard let stack = OPENSSL_sk_new_null() else { throw OpenID4VPError.transport(step: "X.509", "OPENSSL_sk_new_null failed") }
        defer { OPENSSL_sk_free(stack) }
        for cert in intermediates { OPENSSL_sk_push(stack, UnsafeRawPointer(cert)) }
        guard let context = X509_STORE_CTX_new() else { throw OpenID4VPError.transport(step: "X.509", "X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, stack) == 1 else {
            throw OpenID4VPError.transport(step: "X.509", "X509_STORE_CTX_init failed")
        }
        X509_STORE_CTX_set_time(context, 0, time_t(date.timeIntervalSince1970))
        if X509_verify_cert(context) != 1 {
            let error = X509_STORE_CTX_get_error(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(error)))
            if role == .issuer {
                throw CredentialError.rejected("\(what) \(Self.subject(leaf)) does not chain to an issuer this verifier trusts (\(reason))")
            }
            throw OpenID4VPError.untrustedVerifier("\(what) \(Self.subject(leaf)) does not chain to a trusted anchor (\(reason))"
                                                   + (anchors.isEmpty ? "; give the verifier's CA with --verifier-ca" : ""))
        }
        // Key usage: the leaf must be allowed to sign (RFC 5280 §4.2.1.3); an issuer's must say so.
        let usage = X509_get_key_usage(leaf)
        let hasUsage = usage != UInt32.max
        if (hasUsage && usage & UInt32(KU_DIGITAL_SIGNATURE) == 0) || (role == .issuer && !hasUsage) {
            let message = "\(what) \(Self.subject(leaf)) is not for signatures (its key usage lacks digitalSignature)"
            if role == .issuer { throw CredentialError.rejected(message) }
            throw OpenID4VPError.badSignature(message)
        }
        try Self.checkExtendedKeyUsage(leaf, role: role, what: what)
        let names = Self.dnsNames(leaf)
        if let dnsName {
            guard names.contains(where: { $0.lowercased() == dnsName.lowercased() }) else {
                throw OpenID4VPError.badSignature("the certificate's DNS names \(names) do not include \(dnsName), which the x509_san_dns client identifier names")
            }
        }
        guard let pkey = X509_get0_pubkey(leaf) else { throw OpenID4VPError.badSignature("the leaf certificate has no public key") }
        guard let point = try? P256.publicPoint(of: pkey), let key = try? P256PublicKey(sec1: point) else {
            if role == .issuer { throw CredentialError.rejected("\(what) key is not a P-256 key (only ES256 credentials are accepted)") }
            throw OpenID4VPError.badSignature("the leaf certificate's key is not a P-256 key (only ES256 request objects are accepted)")
        }
        return (key, Self.subject(leaf), names, Self.uris(leaf))
    }

    /// What the leaf's extended key usage, when it has one, must allow: a request object's
    /// signer serverAuth or any use; a credential issuer's document signing or any use.
    static func checkExtendedKeyUsage(_ leaf: OpaquePointer, role: Role, what: String) throws {
        switch role {
        case .requestObject:
            let extended = X509_get_extended_key_usage(leaf)
            if extended != UInt32.max && extended & UInt32(XKU_SSL_SERVER | XKU_ANYEKU) == 0 {
                throw OpenID4VPError.badSignature("\(what) \(Self.subject(leaf)) is for other purposes (its extended key usage allows neither serverAuth nor any use)")
            }
        case .issuer:
            if let refusal = credentialSigningRefusal(leaf) {
                throw CredentialError.rejected("\(what) \(Self.subject(leaf)) is not for signing credentials: \(refusal)")
            }
        }
    }

    /// anyExtendedKeyUsage (RFC 5280 §4.2.1.12) and id-kp-documentSigning (RFC 9336): the
    /// extended key usages that let a certificate sign credentials.
    static let anyExtendedKeyUsage = "2.5.29.37.0"
    static let documentSigning = "1.3.6.1.5.5.7.3.36"

    /// Why `cert` may not sign credentials by its extended key usage, or nil when it may: it has
    /// none, or it names any use or document signing. TLS (serverAuth) or e-mail protection
    /// alone is another purpose.
    static func credentialSigningRefusal(_ cert: OpaquePointer) -> String? {
        guard X509_get_extended_key_usage(cert) != UInt32.max else { return nil }
        guard let purposes = extendedKeyUsages(cert), !purposes.isEmpty else { return "its extended key usage cannot be read" }
        if purposes.contains(where: { $0.oid == anyExtendedKeyUsage || $0.oid == documentSigning }) { return nil }
        let named = purposes.prefix(5).map(\.name).joined(separator: ", ") + (purposes.count > 5 ? ", …" : "")
        return "its extended key usage allows \(named) only, neither document signing (\(documentSigning), RFC 9336) nor any use (\(anyExtendedKeyUsage))"
    }

    /// The purposes an extended key usage names (dotted OID, and OpenSSL's short name when it
    /// knows one); nil when the extension is absent or does not decode.
    static func extendedKeyUsages(_ cert: OpaquePointer) -> [(oid: String, name: String)]? {
        guard let raw = X509_get_ext_d2i(cert, NID_ext_key_usage, nil, nil) else { return nil }
        let usages = OpaquePointer(raw)
        defer { EXTENDED_KEY_USAGE_free(usages) }
        var out: [(oid: String, name: String)] = []
        for index in 0..<OPENSSL_sk_num(usages) {
            guard let entry = OPENSSL_sk_value(usages, index) else { continue }
            let object = OpaquePointer(entry)
            var buffer = [CChar](repeating: 0, count: 128)
            guard OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1) > 0 else { continue }
            let oid = String(cString: buffer)
            let nid = OBJ_obj2nid(object)
            out.append((oid, nid == NID_undef ? oid : String(cString: OBJ_nid2sn(nid))))
        }
        return out
    }

    static func uris(_ cert: OpaquePointer) -> [String] { alternativeNames(cert, type: GEN_URI) }

    static func subject(_ cert: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(cert), let text = X509_NAME_oneline(name, nil, 0) else { return "(no subject)" }
        defer { CRYPTO_free(text, #file, #line) }
        return String(cString: text)
    }

    static func dnsNames(_ cert: OpaquePointer) -> [String] { alternativeNames(cert, type: GEN_DNS) }

    /// The subject alternative names of one type (GEN_DNS, GEN_URI: both IA5 strings).
    private static func alternativeNames(_ cert: OpaquePointer, type: Int32) -> [String] {
        guard let raw = X509_get_ext_d2i(cert, NID_subject_alt_name, nil, nil) else { return [] }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var out: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self), entry.pointee.type == type,
                  let ia5 = entry.pointee.d.ia5, let data = ASN1_STRING_get0_data(ia5) else { continue }
            out.append(String(decoding: UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(ia5))), as: UTF8.self))
        }
        return out
    }

    /// Every certificate in a PEM file (the caller frees them).
    public static func readPEMCertificates(_ path: String) throws -> [OpaquePointer] {
        guard let data = FileManager.default.contents(atPath: path) else { throw OpenID4VPError.usage("cannot read the CA file \(path)") }
        // The BIO reads the buffer in place: everything happens while the buffer is pinned.
        let out: [OpaquePointer] = [UInt8](data).withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var certificates: [OpaquePointer] = []
            while let cert = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(cert) }
            ERR_clear_error()
            return certificates
        }
        guard !out.isEmpty else { throw OpenID4VPError.usage("\(path) holds no PEM certificate") }
        return out
    }
}
