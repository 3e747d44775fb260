import COpenSSL
import Credentials
import FoundationEssentials
import PassportCrypto

/// The relying party's issuer anchors (`verify-vp --trust-issuer CA.pem`) and an institution's
/// signing key and chain (`issue --issuer-key --issuer-chain`): both through the same OpenSSL
/// chain check as request objects (`X509Chain`), with role `.issuer`.
public enum IssuerTrust {
    /// The check `PresentationVerifier.issuerTrust` calls: the x5c chain verified to one of
    /// `anchors` (never the system's store), the leaf allowed to sign.
    public static func check(anchors: [String]) throws -> IssuerChainCheck {
        for file in anchors { try X509Chain.readPEMCertificates(file).forEach { X509_free($0) } } // readable now, not at the first token
        return { x5c, date in
            let chain: X509Chain
            do { chain = try X509Chain(x5c: x5c) } catch { throw CredentialError.malformed("the issuer JWT's x5c is not base64 DER certificates") }
            let leaf = try chain.verifiedLeaf(anchors: anchors, systemStore: false, at: date, role: .issuer)
            return (leaf.key, leaf.subject, leaf.dnsNames, leaf.uris)
        }
    }

    /// A P-256 private key from an unencrypted PEM file.
    public static func privateKey(pemFile: String) throws -> P256PrivateKey {
        guard let keyData = FileManager.default.contents(atPath: pemFile) else { throw OpenID4VPError.usage("cannot read the key \(pemFile)") }
        let pkey: OpaquePointer? = [UInt8](keyData).withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let pkey else { throw OpenID4VPError.usage("\(pemFile) holds no unencrypted PEM private key") }
        defer { EVP_PKEY_free(pkey) }
        guard let scalar = try? P256.privateScalar(of: pkey), let key = try? P256PrivateKey(scalar: scalar) else {
            throw OpenID4VPError.usage("\(pemFile) is not a P-256 private key (ES256 only)")
        }
        return key
    }

    /// The certificates of a PEM file as x5c values (standard base64 of the DER), in file order.
    public static func x5c(pemFile: String) throws -> [String] {
        let certificates = try X509Chain.readPEMCertificates(pemFile)
        defer { certificates.forEach { X509_free($0) } }
        return certificates.map { cert in
            let length = i2d_X509(cert, nil)
            var bytes = [UInt8](repeating: 0, count: Int(max(length, 0)))
            bytes.withUnsafeMutableBufferPointer { buffer in
                var pointer = buffer.baseAddress
                _ = i2d_X509(cert, &pointer)
            }
            return Data(bytes).base64EncodedString()
        }
    }

    /// An institution from a PEM private key (P-256) and a PEM chain (leaf first). `issuer`
    /// defaults to the leaf's first URI subjectAltName. The leaf must hold the key, be for
    /// signatures (key usage) and for signing credentials (extended key usage), and name `issuer`
    /// as verifiers require; the chain is not checked against any anchor here (the relying party does).
    /// A self-signed certificate after the leaf (the root) is left out of x5c: HAIP 1.0 §6.1.1
    /// keeps the trust anchor out, the relying party has it.
    public static func institution(keyFile: String, chainFile: String, issuer: String?) throws -> InstitutionIssuer {
        let signer = try privateKey(pemFile: keyFile)
        let certificates = try X509Chain.readPEMCertificates(chainFile)
        defer { certificates.forEach { X509_free($0) } }
        let x5c = zip(try x5c(pemFile: chainFile), certificates).enumerated()
            .filter { index, pair in index == 0 || X509_check_issued(pair.1, pair.1) != X509_V_OK }
            .map { $0.1.0 }
        guard let leafKey = X509_get0_pubkey(certificates[0]), let point = try? P256.publicPoint(of: leafKey),
              (try? P256PublicKey(sec1: point)) == signer.publicKey else {
            throw OpenID4VPError.usage("the first certificate of \(chainFile) is not for the key in \(keyFile)")
        }
        let usage = X509_get_key_usage(certificates[0])
        guard usage != UInt32.max, usage & UInt32(KU_DIGITAL_SIGNATURE) != 0 else {
            throw OpenID4VPError.usage("the issuer certificate's key usage lacks digitalSignature")
        }
        if let refusal = X509Chain.credentialSigningRefusal(certificates[0]) {
            throw OpenID4VPError.usage("the issuer certificate is not for signing credentials: \(refusal)")
        }
        let uris = X509Chain.uris(certificates[0])
        guard let iss = issuer ?? uris.first else {
            throw OpenID4VPError.usage("the issuer certificate has no URI subjectAltName; give the issuer's identifier with --issuer-id")
        }
        // Verifiers refuse an iss the certificate does not name: refuse to issue such credentials.
        if let refusal = IssuerIdentifier.refusal(iss, dnsNames: X509Chain.dnsNames(certificates[0]), uris: uris,
                                                  subject: X509Chain.subject(certificates[0])) {
            throw OpenID4VPError.usage("verifiers would refuse this issuer: \(refusal); give an --issuer-id the certificate names")
        }
        return InstitutionIssuer(signer: signer, x5c: x5c, issuer: iss)
    }
}
