import TextSupport
import CEAC
import CardIO
import COpenSSL
import LDS
import PassportCrypto

/// Why terminal authentication could not be run or did not succeed.
public enum TerminalAuthenticationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file given as a CV certificate is not one.
    case badCertificate(String)
    /// The terminal's files do not make a usable chain and key (found before the chip is asked).
    case badCredentials(String)
    /// The chip refused a step: which, its status word, and what that means here.
    case refused(step: String, status: StatusWord, explanation: String)
    case library(String)
    /// None of the chip's trust points (EF.CVCA) is a CVCA the terminal's chain starts from or holds.
    case noChainToChipTrustPoint(chipTrustPoints: [String], chain: [String])
    /// DG14's TerminalAuthenticationInfo names EF.CVCA by another file identifier or short
    /// identifier than EF.CVCA's own (011C, 1C): the chip's signed DG14 contradicts its files.
    case efCVCAElsewhere(fileID: [UInt8], shortFileID: [UInt8]?)

    public var description: String {
        switch self {
        case .badCertificate(let why): return "Not a usable CV certificate: \(why)"
        case .badCredentials(let why): return "Terminal certificates: \(why)"
        case .refused(let step, let status, let explanation): return "The chip answered \(step) with \(status): \(explanation)"
        case .library(let why): return "libeac: \(why)"
        case .noChainToChipTrustPoint(let trustPoints, let chain):
            let shown = trustPoints.isEmpty ? "EF.CVCA names no trust point" : "the chip trusts \(trustPoints.joined(separator: " and ")) (EF.CVCA)"
            return "\(shown); the terminal's chain (\(chain.joined(separator: " → "))) does not start from it, so no certificate was sent. Use a chain that starts at the chip's CVCA"
        case .efCVCAElsewhere(let fileID, let shortFileID):
            let named = fileID.map { $0.hex(2) }.joined() + (shortFileID.map { ", short identifier " + $0.map { $0.hex(2) }.joined() } ?? "")
            return "DG14's TerminalAuthenticationInfo names EF.CVCA as file \(named), but an eMRTD's EF.CVCA is file 011C, short identifier 1C (ICAO 9303-10): the chip's DG14 contradicts its files, so terminal authentication was not run"
        }
    }
}

/// What binds terminal authentication to the session it runs in (TR-03110-2 §3.5, ICAO
/// 9303-11 §7.1): ID_PICC, the chip's identifier, and Comp(~PK_PCD), the terminal's compressed
/// ephemeral public key from chip authentication (or from PACE, after PACE-CAM).
public struct TerminalAuthenticationBinding: Sendable, Equatable {
    public let idPICC: [UInt8]
    public let compressedTerminalKey: [UInt8]

    public init(idPICC: [UInt8], compressedTerminalKey: [UInt8]) {
        self.idPICC = idPICC
        self.compressedTerminalKey = compressedTerminalKey
    }

    /// After BAC, ID_PICC is the document number with its check digit as printed in the MRZ.
    public static func idPICC(documentNumberWithCheckDigit text: String) -> [UInt8] { Array(text.utf8) }

    /// Comp(): the x-coordinate of an elliptic-curve point (04 ‖ x ‖ y), SHA-1 of a
    /// Diffie-Hellman public value.
    public static func compress(_ publicKey: [UInt8], isDH: Bool) -> [UInt8] {
        if !isDH, publicKey.first == 0x04, publicKey.count % 2 == 1 {
            return Array(publicKey[1...(publicKey.count / 2)])
        }
        return OpenSSLCrypto.digest(.sha1, publicKey)
    }
}

/// What a successful terminal authentication gave.
public struct TerminalAuthenticationResult: Sendable, Equatable {
    /// The chip's trust point the chain was sent from.
    public let trustPoint: String
    /// The certificates sent, in order.
    public let sent: [String]
    /// The data groups the terminal certificate's CHAT names (the chip may grant fewer: the
    /// effective authorization is also limited by the DV's and CVCA's).
    public let readableDataGroups: [Int]
}

/// Terminal authentication version 1 as eMRTDs run it (BSI TR-03110, ICAO 9303-11 §7.1), after
/// chip authentication or PACE-CAM, under secure messaging: for each certificate from the chip's
/// trust point down, MSE:Set DST with its CAR and PSO:Verify Certificate; then MSE:Set AT with
/// the terminal's CHR, GET CHALLENGE, and EXTERNAL AUTHENTICATE with the terminal's signature.
public struct TerminalAuthentication {
    public let credentials: TerminalCredentials

    public init(credentials: TerminalCredentials) {
        self.credentials = credentials
    }

    /// EF.CVCA (FID 011C, SFI 1C of the eMRTD application): up to two CVCA references (tag 42),
    /// the chip's trust points, then zero padding.
    public static func trustPoints(efCVCA bytes: [UInt8]) -> [String] {
        var references: [String] = []
        var rest = bytes[...]
        while let tag = rest.first, tag == 0x42, rest.count >= 2 {
            let length = Int(rest[rest.startIndex + 1])
            guard length <= 16, rest.count >= 2 + length else { break }
            let value = rest[(rest.startIndex + 2)..<(rest.startIndex + 2 + length)]
            guard let text = String(bytes: value, encoding: .isoLatin1) else { break }
            if !text.isEmpty { references.append(text) }   // an empty CAR names no trust point
            rest = rest[(rest.startIndex + 2 + length)...]
        }
        return references
    }

    /// The efCVCA FileID of DG14's TerminalAuthenticationInfo (TR-03110-3 A.1.1.3: fid OCTET
    /// STRING (2), sfid OCTET STRING (1) OPTIONAL), when it names another file than EF.CVCA's
    /// 011C / 1C; nil when absent, the same, or unreadable.
    public static func efCVCAElsewhere(dg14: [UInt8]?) -> TerminalAuthenticationError? {
        guard let dg14, let infos = try? SecurityInfos(bytes: dg14) else { return nil }
        for case .terminalAuthentication(_, let fid?, let sfid) in infos.infos where fid != [0x01, 0x1C] || (sfid != nil && sfid != [0x1C]) {
            return .efCVCAElsewhere(fileID: fid, shortFileID: sfid)
        }
        return nil
    }

    /// Reads EF.CVCA: one READ BINARY by its short identifier, or, on a chip that does not take
    /// short identifiers, SELECT 011C and READ BINARY, as data groups are read.
    /// `selectFirst`: SELECT instead of a READ BINARY by short identifier (which the chip
    /// answered in plain in an earlier session).
    public static func readEFCVCA(over channel: CardChannel, selectFirst: Bool = false) throws -> [UInt8] {
        // 6282: the file ended before Le bytes, which is how a short file answers "all of it".
        func read(_ response: ResponseAPDU) -> Bool { response.status.isSuccess || response.status.value == 0x6282 }
        var byShortIdentifier: StatusWord?
        if !selectFirst {
            let answer = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | 0x1C, p2: 0, ne: 256))
            if read(answer) { return answer.data }
            byShortIdentifier = answer.status
        }
        let select = try channel.transmit(CommandAPDU.selectFile(0x011C))
        guard select.status.isSuccess else {
            throw TerminalAuthenticationError.refused(step: "SELECT of EF.CVCA", status: select.status,
                                                      explanation: "the chip does not show which CVCA it trusts" + (byShortIdentifier.map { " (READ BINARY by short identifier: \($0))" } ?? ""))
        }
        let response = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
        guard read(response) else {
            throw TerminalAuthenticationError.refused(step: "READ BINARY of EF.CVCA", status: response.status,
                                                      explanation: "the chip does not show which CVCA it trusts")
        }
        return response.data
    }

    /// `version2`: terminal authentication version 2 (EAC 2, before chip authentication): MSE:Set AT
    /// also carries DO'91', the compressed ephemeral key chip authentication will use (the binding's).
    public func perform(over channel: CardChannel, chipTrustPoints: [String], binding: TerminalAuthenticationBinding,
                        extendedLength: Bool, version2: Bool = false) throws -> TerminalAuthenticationResult {
        let (trustPoint, certificates) = credentials.certificatesToSend(chipTrustPoints: chipTrustPoints)
        // TR-03110-3 (EF.CVCA): the terminal sends a chain that starts from a trust point the chip
        // names. Without one, nothing is sent: a chip that accepts a chain from a CVCA its EF.CVCA
        // does not show is not consistent, and one that shows none cannot be authenticated to.
        guard trustPoint != nil else {
            throw TerminalAuthenticationError.noChainToChipTrustPoint(chipTrustPoints: chipTrustPoints,
                                                                       chain: credentials.chain.map(\.holderReference))
        }
        for certificate in certificates {
            try send(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xB6, data: TLV.encode(tag: 0x83, value: Array(certificate.authorityReference.utf8))),
                     over: channel, extendedLength: extendedLength, step: "MSE:Set DST naming \(certificate.authorityReference)") { _ in
                "it does not know the public key of \(certificate.authorityReference)"
            }
            try send(CommandAPDU(ins: 0x2A, p1: 0x00, p2: 0xBE, data: certificate.verifyCertificateData),
                     over: channel, extendedLength: extendedLength, step: "PSO:Verify Certificate of \(certificate.holderReference)") { _ in
                Self.whyRefused(certificate)
            }
        }
        let terminal = credentials.terminal
        let ephemeral = version2 ? TLV.encode(tag: 0x91, value: binding.compressedTerminalKey) : []
        try send(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xA4, data: TLV.encode(tag: 0x83, value: Array(terminal.holderReference.utf8)) + ephemeral),
                 over: channel, extendedLength: extendedLength, step: "MSE:Set AT naming \(terminal.holderReference)") { _ in
            "it did not accept \(terminal.holderReference) as the terminal to authenticate"
        }
        let challenge = try channel.transmit(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8))
        guard challenge.status.isSuccess, challenge.data.count == 8 else {
            throw TerminalAuthenticationError.refused(step: "GET CHALLENGE", status: challenge.status,
                                                      explanation: "it gave no 8-byte challenge (\(challenge.data.count) bytes)")
        }
        // TR-03110-2 §3.5: the terminal signs ID_PICC ‖ r_PICC ‖ Comp(~PK_PCD).
        let signer = try TerminalSigner(privateKey: credentials.privateKey, protocolName: terminal.publicKeyProtocol)
        defer { signer.free() }
        let signature = try signer.sign(binding.idPICC + challenge.data + binding.compressedTerminalKey)
        try send(CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: signature), over: channel, extendedLength: extendedLength,
                 step: "EXTERNAL AUTHENTICATE") { _ in
            credentials.keyMatchesTerminalCertificate() == false
                ? "the terminal private key does not belong to \(terminal.holderReference) (its public key differs)"
                : "it did not accept the terminal's signature"
        }
        return TerminalAuthenticationResult(trustPoint: trustPoint ?? certificates.first?.authorityReference ?? "",
                                            sent: certificates.map(\.holderReference),
                                            readableDataGroups: terminal.readableDataGroups)
    }

    /// Sends `command`; data too long for one short APDU goes in a command chain (ISO 7816-4
    /// §5.1.1, CLA bit 10) when the reader takes no extended length.
    private func send(_ command: CommandAPDU, over channel: CardChannel, extendedLength: Bool, step: String,
                      explain: (StatusWord) -> String) throws {
        let limit = 200 // plain bytes per link, so that the SM-wrapped command stays a short APDU
        var chunks: [[UInt8]] = [command.data]
        if !extendedLength && command.data.count > limit {
            chunks = stride(from: 0, to: command.data.count, by: limit).map { Array(command.data[$0..<min($0 + limit, command.data.count)]) }
        }
        for (index, chunk) in chunks.enumerated() {
            let last = index == chunks.count - 1
            let response = try channel.transmit(CommandAPDU(cla: last ? 0x00 : 0x10, ins: command.ins, p1: command.p1, p2: command.p2, data: chunk))
            guard response.status.isSuccess else {
                throw TerminalAuthenticationError.refused(step: step, status: response.status, explanation: explain(response.status))
            }
        }
    }

    /// A certificate the chip would not verify: what can be seen from here. Both causes are
    /// named: a certificate that expired before today may as well carry a signature the chip's
    /// key does not verify (TR-03105 5.1 ISO7816_E_17/18 use test certificates long expired).
    static func whyRefused(_ certificate: CVCertificate) -> String {
        let today = CVDate.today()
        let general = "it did not verify \(certificate.holderReference) (\(certificate.summary)): its signature does not verify under the chip's key for \(certificate.authorityReference), or its dates are outside the chip's current date"
        if certificate.expires < today {
            return general + "; \(certificate.holderReference) expired on \(certificate.expires) (today is \(today)), and a chip judges dates by its own clock, the latest effective date among the CVCA, DV and domestic terminal certificates it has accepted, so it refuses certificates that expired before that date"
        }
        return general
    }

    static func list(_ references: [String]) -> String {
        references.isEmpty ? "no CVCA it shows" : references.joined(separator: " and ")
    }
}

extension TerminalCredentials {
    /// Whether the private key is the one the terminal certificate certifies (nil: cannot tell).
    public func keyMatchesTerminalCertificate() -> Bool? {
        guard let signer = try? TerminalSigner(privateKey: privateKey, protocolName: terminal.publicKeyProtocol) else { return nil }
        defer { signer.free() }
        guard let ours = signer.publicValue(), let certified = terminal.publicValue else { return nil }
        return ours == certified
    }
}
