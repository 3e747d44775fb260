import TextSupport
import CEAC
import COpenSSL
import Glibc
import LDS
import LibraryLoading

/// A date of a card-verifiable certificate (BSI TR-03110-3 §C.1.5: YYMMDD as six unpacked BCD
/// digits, years 2000–2099).
public struct CVDate: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init?(digits: [UInt8]) {
        guard digits.count == 6, digits.allSatisfy({ $0 <= 9 }) else { return nil }
        let value = { (i: Int) in Int(digits[i]) * 10 + Int(digits[i + 1]) }
        guard (1...12).contains(value(2)), (1...31).contains(value(4)) else { return nil }
        self.init(year: 2000 + value(0), month: value(2), day: value(4))
    }

    /// Today by the UTC calendar (the terminal's date).
    public static func today() -> CVDate {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return CVDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    public static func < (a: CVDate, b: CVDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public var description: String {
        "\(year.zeroPadded(4))-\(month.zeroPadded(2))-\(day.zeroPadded(2))"
    }
}

/// A card-verifiable certificate of the EAC PKI (BSI TR-03110-3 Appendix C): CVCA, document
/// verifier or terminal. Decoded by OpenPACE's libeac, the field's own library; the encoded
/// body and signature are kept byte for byte, as PSO:Verify Certificate sends them.
public struct CVCertificate: Sendable, Equatable {
    /// The certificate holder's role, from the top two bits of the CHAT's relative authorization.
    public enum Role: String, Sendable, Codable {
        case cvca
        case documentVerifierDomestic = "dv_domestic"
        case documentVerifierForeign = "dv_foreign"
        case terminal

        public var name: String {
            switch self {
            case .cvca: return "CVCA"
            case .documentVerifierDomestic: return "document verifier (domestic)"
            case .documentVerifierForeign: return "document verifier (foreign)"
            case .terminal: return "terminal"
            }
        }
    }

    /// The CHAT's terminal type (TR-03110-3 §C.4).
    public enum TerminalType: Sendable, Equatable, CustomStringConvertible {
        case inspectionSystem
        case authenticationTerminal
        case signatureTerminal
        case other(String)

        public var description: String {
            switch self {
            case .inspectionSystem: return "inspection system"
            case .authenticationTerminal: return "authentication terminal"
            case .signatureTerminal: return "signature terminal"
            case .other(let oid): return "terminal type \(oid)"
            }
        }
    }

    /// The whole certificate (tag 7F21).
    public let encoded: [UInt8]
    /// Certificate Authority Reference: who signed it.
    public let authorityReference: String
    /// Certificate Holder Reference: whose key it holds.
    public let holderReference: String
    public let role: Role
    public let terminalType: TerminalType
    /// The CHAT's relative authorization (for an inspection system one byte: role, then rights).
    public let relativeAuthorization: [UInt8]
    public let effective: CVDate
    public let expires: CVDate
    /// The public key's TA protocol, e.g. id-TA-ECDSA-SHA-256 (also how the holder signs).
    public let publicKeyProtocol: String
    /// The body (7F4E) then the signature (5F37) as encoded: the data of PSO:Verify Certificate.
    public let verifyCertificateData: [UInt8]

    /// Opens libeac on first use: throws `MissingLibrary` naming its package when it is absent.
    public init(der: [UInt8]) throws {
        let eac = try EACLibrary.functions()
        let outer = try? TLV.parse(der)
        guard let outer, outer.tag == 0x7F21, let body = try? outer.child(0x7F4E), let signature = try? outer.child(0x5F37) else {
            throw TerminalAuthenticationError.badCertificate("not a CV certificate (it must be a 7F21 template holding a body 7F4E and a signature 5F37)")
        }
        let certificate = try EACLibrary.decode(der, eac)
        defer { eac.CVC_CERT_free(certificate) }
        guard let chr = EACLibrary.takeString(eac.CVC_get_chr(certificate)), let car = EACLibrary.takeString(eac.CVC_get_car(certificate)) else {
            throw TerminalAuthenticationError.badCertificate("its holder or authority reference is not a valid CHR/CAR")
        }
        guard let effective = CVDate(digits: EACLibrary.bytes(passport_cvc_effective_date(certificate))),
              let expires = CVDate(digits: EACLibrary.bytes(passport_cvc_expiration_date(certificate))) else {
            throw TerminalAuthenticationError.badCertificate("\(chr): its effective or expiration date is not a YYMMDD date")
        }
        let chat = eac.cvc_get_chat(certificate)
        let authorization = EACLibrary.bytes(passport_chat_relative_authorization(chat))
        guard let first = authorization.first else {
            throw TerminalAuthenticationError.badCertificate("\(chr): its CHAT has no relative authorization")
        }
        self.encoded = der
        self.holderReference = chr
        self.authorityReference = car
        self.effective = effective
        self.expires = expires
        self.relativeAuthorization = authorization
        self.role = [Role.terminal, .documentVerifierForeign, .documentVerifierDomestic, .cvca][Int(first >> 6)]
        self.terminalType = Self.terminalType(EACLibrary.oid(passport_chat_terminal_type(chat)))
        self.publicKeyProtocol = EACLibrary.shortName(passport_cvc_public_key_oid(certificate))
        self.verifyCertificateData = TLV.encode(tag: 0x7F4E, value: Array(body.value)) + TLV.encode(tag: 0x5F37, value: Array(signature.value))
    }

    private static func terminalType(_ oid: String) -> TerminalType {
        switch oid {
        case "0.4.0.127.0.7.3.1.2.1": return .inspectionSystem
        case "0.4.0.127.0.7.3.1.2.2": return .authenticationTerminal
        case "0.4.0.127.0.7.3.1.2.3": return .signatureTerminal
        default: return .other(oid)
        }
    }

    /// The data groups an inspection system's CHAT lets it read (TR-03110-3 §C.4.1: bit 0 DG3,
    /// bit 1 DG4 of the one-byte relative authorization).
    public var readableDataGroups: [Int] {
        guard terminalType == .inspectionSystem, let bits = relativeAuthorization.last else { return [] }
        return [(0x01, 3), (0x02, 4)].filter { bits & UInt8($0.0) != 0 }.map(\.1)
    }

    /// "UTISTEST00001 (terminal, inspection system, reads DG3 DG4, 2025-07-01 to 2040-12-31)".
    public var summary: String {
        var parts = [role.name]
        if role == .terminal {
            parts.append(terminalType.description)
            let groups = readableDataGroups
            parts.append(groups.isEmpty ? "reads no biometric data group" : "reads " + groups.map { "DG\($0)" }.joined(separator: " "))
        }
        parts.append("\(effective) to \(expires)")
        return "\(holderReference) (\(parts.joined(separator: ", ")))"
    }
}

/// The calls into libeac, with its allocation rules in one place.
enum EACLibrary {
    static let library = SystemLibrary(name: "OpenPACE's libeac", purpose: "Terminal authentication (--eac, --terminal-cert)",
                                       builtWith: passport_eac_soname(), override: "PASSPORT_EAC_LIBRARY",
                                       package: passport_eac_package())
    /// Opened when terminal credentials are first read (not linked: other commands start without it).
    private static let opened = library.open(passport_eac_load).map(registeringObjects)

    /// Its functions; throws `MissingLibrary` naming the package when it is not installed.
    static func functions() throws -> PassportEAC { try opened.get() }

    /// EAC_init registers the EAC object identifiers with OpenSSL; once per process, on opening.
    private static func registeringObjects(_ eac: PassportEAC) -> PassportEAC {
        eac.EAC_init()
        return eac
    }

    static func decode(_ der: [UInt8], _ eac: PassportEAC) throws -> UnsafeMutablePointer<CVC_CERT> {
        let decoded: UnsafeMutablePointer<CVC_CERT>? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return eac.CVC_d2i_CVC_CERT(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            throw TerminalAuthenticationError.badCertificate("libeac cannot decode it: \(openSSLErrors())")
        }
        return decoded
    }

    /// A string libeac allocated, freed after copying.
    static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func bytes(_ string: UnsafePointer<ASN1_OCTET_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    static func oid(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var text = [CChar](repeating: 0, count: 128)
        OBJ_obj2txt(&text, Int32(text.count), object, 1)
        return cText(text)
    }

    static func shortName(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let name = OBJ_nid2sn(nid) { return String(cString: name) }
        return oid(object)
    }

    /// A NUL-terminated C string in a buffer.
    static func cText(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// OpenSSL's (and libeac's) queued errors as one line, emptying the queue.
    static func openSSLErrors() -> String {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            lines.append(cText(text))
        }
        return lines.isEmpty ? "no reason given" : lines.joined(separator: "; ")
    }
}
