import PassportCrypto
import LDS

/// Checks one SignerInfo of a CMS SignedData: the content-type and message-digest attributes
/// against the content, then the signature over the signed attributes, with the algorithms the
/// SignerInfo names (which may differ from the signer certificate's own signature algorithm).
enum CMSVerifier {
    /// The check that held (its scheme and the scheme's name), or why none did.
    static func verifySignerInfo(_ signer: SignerInfo, content: [UInt8], contentType: String,
                                 certificate: Certificate) -> Result<PreparedVerifier, PassiveAuthenticationError.Reason> {
        let digest = DigestAlgorithm(oid: signer.digestAlgorithmOID)
        let scheme: SignatureScheme
        do { scheme = try SignatureScheme(signer.signatureAlgorithm, digest: digest) } catch {
            return .failure(.init("unsupported signature algorithm \(signer.signatureAlgorithm.oid)"))
        }
        let message: [UInt8]
        if let attributes = signer.signedAttributesForSignature {
            guard let digest else { return .failure(.init("unsupported digest algorithm \(signer.digestAlgorithmOID)")) }
            guard let messageDigest = signer.messageDigest else {
                return .failure(.init("the signed attributes have no messageDigest"))
            }
            guard OpenSSLCrypto.digest(digest, of: content, is: messageDigest) else {
                return .failure(.init("the messageDigest attribute does not match the signed content"))
            }
            if let type = signer.contentTypeAttribute, type != contentType {
                return .failure(.init("the contentType attribute (\(type)) differs from the content (\(contentType))"))
            }
            message = attributes
        } else {
            message = content
        }
        guard let verifier = certificate.verifier(for: scheme), verifier.verify(signature: signer.signature, message: message) else {
            return .failure(.init("the signature (\(scheme)) does not verify with \(certificate.subject)"))
        }
        return .success(verifier)
    }
}
