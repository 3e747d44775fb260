import COpenSSL
import LDS
import PassportCrypto

/// The terminal's signature of terminal authentication, made with OpenSSL in the scheme its
/// certificate's TA protocol names (BSI TR-03110-3 §A.6.4: ECDSA as plain r‖s per TR-03111,
/// RSA PKCS#1 v1.5, or RSA-PSS with the hash's length as salt). The chip checks it with its
/// own library (the virtual passport: OpenPACE), so our signer is tested against another.
///
/// Not libeac's TA_STEP5_sign: libeac carries its own EVP_PKEY_dup, and when libcrypto is loaded
/// first (as in ours: linked, while libeac is opened later) OpenSSL 3's takes its place, and
/// libeac then cannot take a terminal key apart.
struct TerminalSigner {
    enum Scheme: Equatable {
        case ecdsa(DigestAlgorithm)
        case rsaPKCS1(DigestAlgorithm)
        case rsaPSS(DigestAlgorithm)
    }

    let scheme: Scheme
    let key: OpaquePointer

    /// `protocolName` is the terminal certificate's, e.g. id-TA-ECDSA-SHA-256.
    init(privateKey der: [UInt8], protocolName: String) throws {
        guard let scheme = Self.scheme(protocolName) else {
            throw TerminalAuthenticationError.badCredentials("the terminal certificate's protocol \(protocolName) is not a TA signature scheme")
        }
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else {
            throw TerminalAuthenticationError.badCredentials("the terminal private key is not a DER or PEM private key: \(EACLibrary.openSSLErrors())")
        }
        let isEC = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC
        if case .ecdsa = scheme, !isEC {
            EVP_PKEY_free(key)
            throw TerminalAuthenticationError.badCredentials("the terminal certificate is for \(protocolName) but the private key is not an EC key")
        }
        if case .ecdsa = scheme {} else if isEC {
            EVP_PKEY_free(key)
            throw TerminalAuthenticationError.badCredentials("the terminal certificate is for \(protocolName) but the private key is an EC key")
        }
        self.scheme = scheme
        self.key = key
    }

    func free() { EVP_PKEY_free(key) }

    static func scheme(_ name: String) -> Scheme? {
        let digests: [(String, DigestAlgorithm)] = [("SHA-1", .sha1), ("SHA-224", .sha224), ("SHA-256", .sha256),
                                                     ("SHA-384", .sha384), ("SHA-512", .sha512)]
        guard let digest = digests.first(where: { name.hasSuffix("-" + $0.0) })?.1 else { return nil }
        if name.hasPrefix("id-TA-ECDSA-") { return .ecdsa(digest) }
        if name.hasPrefix("id-TA-RSA-v1-5-") { return .rsaPKCS1(digest) }
        if name.hasPrefix("id-TA-RSA-PSS-") { return .rsaPSS(digest) }
        return nil
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        let digest: DigestAlgorithm
        switch scheme { case .ecdsa(let d), .rsaPKCS1(let d), .rsaPSS(let d): digest = d }
        guard let context = EVP_MD_CTX_new() else { throw TerminalAuthenticationError.library("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        var parameters: OpaquePointer?
        guard EVP_DigestSignInit(context, &parameters, digest.evp, nil, key) == 1 else {
            throw TerminalAuthenticationError.library("cannot sign with the terminal key: \(EACLibrary.openSSLErrors())")
        }
        if case .rsaPSS = scheme {
            guard EVP_PKEY_CTX_set_rsa_padding(parameters, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(parameters, RSA_PSS_SALTLEN_DIGEST) == 1 else {
                throw TerminalAuthenticationError.library("RSA-PSS parameters: \(EACLibrary.openSSLErrors())")
            }
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw TerminalAuthenticationError.library("signature size: \(EACLibrary.openSSLErrors())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw TerminalAuthenticationError.library("signing failed: \(EACLibrary.openSSLErrors())")
        }
        signature = Array(signature.prefix(length))
        if case .ecdsa = scheme { return try plain(signature) }
        return signature
    }

    /// TR-03111's plain format: r and s, each as long as the group order.
    private func plain(_ der: [UInt8]) throws -> [UInt8] {
        do { return try SignatureScheme.plainFromDER(der, size: (Int(EVP_PKEY_get_bits(key)) + 7) / 8) } catch {
            throw TerminalAuthenticationError.library("OpenSSL made an unusable ECDSA signature: \(error)")
        }
    }

    /// The public key the private key belongs to, as a CV certificate holds it: the EC point
    /// (uncompressed) or the RSA modulus.
    func publicValue() -> [UInt8]? {
        if EVP_PKEY_get_base_id(key) == EVP_PKEY_EC { return try? PublicKey.encodedPublic(key) }
        var modulus: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &modulus) == 1, let modulus else { return nil }
        defer { BN_free(modulus) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(modulus) + 7) / 8))
        BN_bn2bin(modulus, &bytes)
        return bytes
    }
}

extension CVCertificate {
    /// The certificate's public value (TR-03110-3 §D.3): the EC point (86) or RSA modulus (81)
    /// inside the public key template 7F49.
    var publicValue: [UInt8]? {
        guard let body = try? TLV.parse(encoded).child(0x7F4E), let key = try? body.child(0x7F49) else { return nil }
        if let point = try? key.child(0x86) { return Array(point.value) }
        if let modulus = try? key.child(0x81) { return Array(modulus.value.drop { $0 == 0 }) }
        return nil
    }
}
