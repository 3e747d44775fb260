import CEAC
import COpenSSL
import FoundationEssentials
import LDS
import LocalFiles

/// An inspection system's credentials for terminal authentication: its CV certificate chain
/// (CVCA link certificates, the document verifier, the terminal) and the terminal's private key.
/// The chain is put in order by its references (each certificate's CAR is the CHR of the one
/// before), not by how the files are named.
public struct TerminalCredentials: Sendable {
    /// From the top of the chain down to the terminal certificate, which is last.
    public let chain: [CVCertificate]
    /// The terminal's private key, DER (PKCS#8, or OpenSSL's traditional form).
    let privateKey: [UInt8]

    public var terminal: CVCertificate { chain[chain.count - 1] }

    /// Orders `certificates` into one chain ending at the only terminal certificate among them.
    public init(certificates: [CVCertificate], privateKey: [UInt8]) throws {
        let terminals = certificates.filter { $0.role == .terminal }
        guard terminals.count == 1, let terminal = terminals.first else {
            throw TerminalAuthenticationError.badCredentials(terminals.isEmpty
                ? "no terminal certificate among them (the CHAT role of each is CVCA or document verifier)"
                : "\(terminals.count) terminal certificates (\(terminals.map(\.holderReference).joined(separator: ", "))); give one")
        }
        var chain = [terminal]
        while let top = chain.first, top.authorityReference != top.holderReference,
              let issuer = certificates.first(where: { $0.holderReference == top.authorityReference }),
              !chain.contains(issuer) {
            chain.insert(issuer, at: 0)
        }
        let unused = certificates.filter { !chain.contains($0) }
        guard unused.isEmpty else {
            throw TerminalAuthenticationError.badCredentials("\(unused.map(\.holderReference).joined(separator: ", ")) is not part of the chain of \(terminal.holderReference) (\(Self.describe(chain)))")
        }
        guard chain.contains(where: { $0.role == .documentVerifierDomestic || $0.role == .documentVerifierForeign }) else {
            throw TerminalAuthenticationError.badCredentials("no document verifier certificate for \(terminal.holderReference) (its CAR is \(terminal.authorityReference))")
        }
        self.chain = chain
        self.privateKey = privateKey
        try Self.checkSignatures(chain)
        // The key must be one the terminal certificate's scheme can sign with.
        try TerminalSigner(privateKey: privateKey, protocolName: terminal.publicKeyProtocol).free()
    }

    /// Every CV certificate (`*.cvcert`, `*.cvc`) and the one private key (`*.pkcs8`, `*.key`,
    /// `*.pem`, `*.der`) in `directory`.
    public static func load(directory: String) throws -> TerminalCredentials {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted() } catch {
            throw TerminalAuthenticationError.badCredentials("cannot list \(directory): \(PrivateFiles.reasonText(error))")
        }
        let certificates = names.filter { $0.hasSuffix(".cvcert") || $0.hasSuffix(".cvc") }
        let keys = names.filter { [".pkcs8", ".key", ".pem", ".der"].contains(where: $0.hasSuffix) }
        guard keys.count == 1 else {
            throw TerminalAuthenticationError.badCredentials(keys.isEmpty
                ? "\(directory) holds no terminal private key (a .pkcs8, .key, .pem or .der file)"
                : "\(directory) holds \(keys.count) key files (\(keys.joined(separator: ", "))); keep only the terminal's")
        }
        guard !certificates.isEmpty else {
            throw TerminalAuthenticationError.badCredentials("\(directory) holds no CV certificate (.cvcert or .cvc)")
        }
        let path = { (name: String) in Paths.join(directory, name) }
        return try load(certificates: certificates.map(path), key: path(keys[0]))
    }

    public static func load(certificates: [String], key: String) throws -> TerminalCredentials {
        let parsed = try certificates.map { path in
            do { return try CVCertificate(der: try readFile(path)) } catch TerminalAuthenticationError.badCertificate(let why) {
                throw TerminalAuthenticationError.badCredentials("\(path): \(why)")
            }
        }
        return try TerminalCredentials(certificates: parsed, privateKey: try privateKeyDER(try readFile(key), path: key))
    }

    /// The certificates the chip needs to reach the terminal from one of its trust points (the
    /// CVCA references of EF.CVCA): those after the trust point. Without a match, everything but
    /// a self-signed root, with no trust point: `TerminalAuthentication.perform` then sends nothing.
    public func certificatesToSend(chipTrustPoints: [String]) -> (trustPoint: String?, certificates: [CVCertificate]) {
        // Never one of the chip's own trust points (the self-signed CVCA root, or a link
        // certificate whose new CVCA the chip already holds): a chip may refuse to verify it again.
        if let last = chain.lastIndex(where: { chipTrustPoints.contains($0.holderReference) }) {
            return (chain[last].holderReference, Array(chain[(last + 1)...]))
        }
        if let start = chain.firstIndex(where: { chipTrustPoints.contains($0.authorityReference) && $0.authorityReference != $0.holderReference }) {
            return (chain[start].authorityReference, Array(chain[start...]))
        }
        return (nil, chain.filter { $0.authorityReference != $0.holderReference })
    }

    /// Checks each signature in the chain that can be checked here: those under a CVCA
    /// certificate in it (a link or root certificate carries the domain parameters the ones
    /// below inherit). libeac's terminal-authentication context verifies them as a chip would,
    /// dates aside: dates are the chip's to judge, by its own clock.
    static func checkSignatures(_ chain: [CVCertificate]) throws {
        guard let anchor = chain.firstIndex(where: { $0.role == .cvca }) else { return }
        let context = try EACContext()
        try context.setTrustAnchor(chain[anchor])
        for certificate in chain[(anchor + 1)...] {
            guard context.importCertificate(certificate) else {
                throw TerminalAuthenticationError.badCredentials("\(certificate.holderReference) is not validly signed by \(certificate.authorityReference): \(EACLibrary.openSSLErrors())")
            }
        }
    }

    private static func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else {
            throw TerminalAuthenticationError.badCredentials("cannot read \(path)" + (FileManager.default.fileExists(atPath: path) ? " (or it is larger than 64 KiB)" : ": no such file"))
        }
        return Array(data)
    }

    /// A PEM key becomes its DER; an encrypted PEM key is refused with what to do.
    static func privateKeyDER(_ bytes: [UInt8], path: String) throws -> [UInt8] {
        guard let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") else { return bytes }
        if text.contains("ENCRYPTED") {
            throw TerminalAuthenticationError.badCredentials("\(path) is an encrypted key; decrypt it first (openssl pkcs8 -in KEY -out plain.pem)")
        }
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.contains(":") }.joined()
        guard let der = Data(base64Encoded: body) else {
            throw TerminalAuthenticationError.badCredentials("\(path) is not a PEM private key")
        }
        return Array(der)
    }

    static func describe(_ chain: [CVCertificate]) -> String {
        chain.map(\.holderReference).joined(separator: " → ")
    }
}

/// A libeac terminal-authentication context for checking a chain as a chip would: a trust
/// anchor, then each certificate imported under the key of the one before.
final class EACContext {
    let eac: PassportEAC
    let pointer: UnsafeMutablePointer<EAC_CTX>

    init() throws {
        eac = try EACLibrary.functions()
        guard let context = eac.EAC_CTX_new() else { throw TerminalAuthenticationError.library("EAC_CTX_new failed") }
        pointer = context
    }

    deinit { eac.EAC_CTX_clear_free(pointer) }

    /// Sets the certificate whose key verifies the next one; dates are not checked against
    /// this machine's clock.
    func setTrustAnchor(_ certificate: CVCertificate) throws {
        let ok = certificate.encoded.withUnsafeBufferPointer { eac.EAC_CTX_init_ta(pointer, nil, 0, $0.baseAddress, $0.count) }
        guard ok == 1 else {
            throw TerminalAuthenticationError.badCredentials("libeac cannot use \(certificate.holderReference) as trust anchor: \(EACLibrary.openSSLErrors())")
        }
        _ = eac.TA_disable_checks(pointer)
    }

    func importCertificate(_ certificate: CVCertificate) -> Bool {
        certificate.encoded.withUnsafeBufferPointer { eac.TA_STEP2_import_certificate(pointer, $0.baseAddress, $0.count) } == 1
    }
}
