import CardIO
@testable import ChipProtocols
import COpenSSL
import Foundation
import LDS
import MRZ
import PassportCrypto
@testable import PassportKit
import Testing
import TestSupport

/// A passport chip as a test double: a `ScriptedTransport` whose steps are written the way the
/// chip sees them. Plain steps are bytes; secure steps are plain commands and answers that the
/// chip's half of secure messaging (`ChipSecureMessaging`) opens and seals with the session
/// current when the step is played, so a script can run through BAC, a lost session, chip
/// authentication's new keys and BAC again.
final class ScriptedChip {
    let transport: ScriptedTransport
    /// The chip's side of the current secure session (nil before access control).
    var session: ChipSecureMessaging?

    init(atr: [UInt8] = []) {
        transport = ScriptedTransport(atr: atr, readerName: "Scripted chip")
    }

    func channel() -> ISO7816Channel { ISO7816Channel(transport: transport) }

    // MARK: plain steps

    func expect(_ command: [UInt8], _ response: [UInt8]) {
        transport.append([.init(command, response)])
    }

    func expect(_ command: CommandAPDU, _ response: ResponseAPDU) {
        expect(command.encoded(), response.encoded)
    }

    // MARK: secure steps

    /// `plain` under secure messaging, answered with `answer` sealed; `corruptMAC` flips a bit of
    /// the answer's MAC (a corrupted or replayed answer).
    func expectSecure(_ plain: CommandAPDU, _ answer: ResponseAPDU, corruptMAC: Bool = false) {
        secureStep(hex(plain.encoded()), { $0 == plain }) { session, _ in
            try session.seal(answer, corruptingMAC: corruptMAC)
        }
    }

    /// `plain` under secure messaging, answered with a bare status word (no MAC), as a chip that
    /// drops the session does.
    func expectSecure(_ plain: CommandAPDU, bare status: StatusWord) {
        secureStep(hex(plain.encoded()), { $0 == plain }) { session, _ in
            session.skipAnswer()
            return [status.sw1, status.sw2]
        }
    }

    /// A secure command recognised by `accepts`; `answer` may look at it, and `then` change the
    /// session once the answer is sealed (as chip authentication does).
    func expectSecure(_ description: String, where accepts: @escaping (CommandAPDU) -> Bool,
                      answer: @escaping (CommandAPDU) throws -> ResponseAPDU,
                      then: ((CommandAPDU) throws -> Void)? = nil) {
        secureStep(description, accepts, then: then) { session, plain in try session.seal(try answer(plain)) }
    }

    private func secureStep(_ description: String, _ accepts: @escaping (CommandAPDU) -> Bool,
                            then: ((CommandAPDU) throws -> Void)? = nil,
                            _ respond: @escaping (inout ChipSecureMessaging, CommandAPDU) throws -> [UInt8]) {
        transport.append([.matching("protected " + description, { [weak self] raw in
            guard let session = self?.session, let plain = try? session.open(raw) else { return false }
            return accepts(plain)
        }, answer: { [weak self] raw in
            guard let self, var session = self.session else { throw ChipDoubleError("no secure session") }
            let plain = try session.open(raw)
            let answer = try respond(&session, plain)
            self.session = session
            try then?(plain)
            return answer
        })])
    }

    /// The steps of reading `bytes` as `file` the way ChipFileReader does with short APDUs: the
    /// first READ BINARY by short FID, then at offsets, `chunk` bytes at a time (231 under 3DES
    /// secure messaging, 223 under AES).
    func expectFile(_ file: LDSFile, _ bytes: [UInt8], chunk: Int = 231, from offset: Int = 0) {
        var offset = offset
        if offset == 0 {
            let first = min(chunk, bytes.count)
            expectSecure(ScriptedChip.readBinary(shortFID: file.shortFID, ne: chunk), ResponseAPDU(data: Array(bytes[0..<first]), status: .success))
            offset = first
        }
        while offset < bytes.count {
            let count = min(chunk, bytes.count - offset)
            expectSecure(ScriptedChip.readBinary(offset: offset, ne: count),
                         ResponseAPDU(data: Array(bytes[offset..<(offset + count)]), status: .success))
            offset += count
        }
    }

    /// The chip refuses `file` on the first READ BINARY (6982: EAC-protected, 6A82: absent).
    /// The chip refuses `file`: at once with 6982 (access denied), otherwise again when the reader
    /// selects it by file identifier, as an absent file is (only SELECT concludes absence).
    func expectWithheld(_ file: LDSFile, _ status: StatusWord, chunk: Int = 231) {
        expectSecure(ScriptedChip.readBinary(shortFID: file.shortFID, ne: chunk), ResponseAPDU(data: [], status: status))
        if status != .securityStatusNotSatisfied {
            let fid = [UInt8(file.fid >> 8), UInt8(file.fid & 0xFF)]
            expectSecure(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: fid), ResponseAPDU(data: [], status: status))
        }
    }

    static func readBinary(shortFID: UInt8, ne: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xB0, p1: 0x80 | shortFID, p2: 0, ne: ne)
    }

    static func readBinary(offset: Int, ne: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), ne: ne)
    }

    static let selectApplication = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: hex("A0000002471001"))

    // MARK: BAC

    /// The terminal's randomness the reader is given: RND.IFD (8 bytes; also the active
    /// authentication challenge) and K.IFD (16 bytes).
    static let rndIFD = hex("1122334455667788")
    static let kIFD = hex("0F1E2D3C4B5A69788796A5B4C3D2E1F0")
    static func terminalRandom(_ count: Int) -> [UInt8] { count == 16 ? kIFD : Array(rndIFD.prefix(count)) }
    static let rndICC = hex("A1B2C3D4E5F60718")
    static let kICC = hex("F0E1D2C3B4A5968778695A4B3C2D1E0F")

    /// SELECT (plain), GET CHALLENGE and MUTUAL AUTHENTICATE as the chip sees them; the chip's
    /// answer is computed here (E.ICC ‖ M.ICC under the document keys) and the session it opens
    /// becomes current. `refusal` answers MUTUAL AUTHENTICATE with that status instead.
    func expectBAC(_ key: MRZAccessKey, refusal: StatusWord? = nil) throws {
        expect(ScriptedChip.selectApplication, ResponseAPDU(data: [], status: .success))
        expect(hex("0084000008"), ScriptedChip.rndICC + hex("9000"))
        // The reader's cryptogram with our RND.IFD and K.IFD, computed by the project's BAC.
        let cryptogram = try BAC(accessKey: key).externalAuthenticationData(
            rndICC: ScriptedChip.rndICC, rndIFD: ScriptedChip.rndIFD, kIFD: ScriptedChip.kIFD)
        let command = CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: cryptogram, ne: 40).encoded()
        if let refusal { return expect(command, ResponseAPDU(data: [], status: refusal).encoded) }
        let documentKeys = BAC.DocumentKeys(accessKey: key)
        let plain = ScriptedChip.rndICC + ScriptedChip.rndIFD + ScriptedChip.kICC
        let eICC = try OpenSSLCrypto.crypt(.tripleDESCBC, encrypt: true, key: documentKeys.encryption, iv: [UInt8](repeating: 0, count: 8), plain[...])
        let mICC = try OpenSSLCrypto.retailMAC(key: documentKeys.mac, padISO9797(eICC, blockSize: 8)[...])
        transport.append([.matching(hex(command), { $0 == command }) { [weak self] _ in
            self?.session = ScriptedChip.bacSession()
            return eICC + mICC + hex("9000")
        }])
    }

    /// The chip's side of the session BAC with these randoms opens (ICAO 9303-11 §9.7.2).
    static func bacSession() -> ChipSecureMessaging {
        let seed = zip(kIFD, kICC).map { $0 ^ $1 }
        let keys = SessionKeys(suite: .tripleDES, encryptionKey: KeyDerivation.tripleDESKey(seed, purpose: .encryption),
                               macKey: KeyDerivation.tripleDESKey(seed, purpose: .mac))
        return ChipSecureMessaging(keys: keys, ssc: Array(rndICC[4..<8]) + Array(rndIFD[4..<8]))
    }
}

struct ChipDoubleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The chip's half of secure messaging (ICAO 9303-11 §9.8): opens a protected command,
/// checking its MAC, and seals an answer. The send-sequence counter advances once for the
/// command and once for the answer, as on the reader's side.
struct ChipSecureMessaging {
    let keys: SessionKeys
    var ssc: [UInt8]

    /// The plain command, if `raw` is one protected under this session's next counter.
    func open(_ raw: [UInt8]) throws -> CommandAPDU {
        let counter = Self.incremented(ssc)
        let command = try CommandAPDU(encoded: raw)
        guard command.cla & 0x0C == 0x0C else { throw ChipDoubleError("the command is not protected") }
        var macInput = counter + padISO9797([command.cla, command.ins, command.p1, command.p2], blockSize: keys.blockSize)
        var data: [UInt8] = []
        var ne: Int?
        var mac: [UInt8]?
        for object in try TLV.parseAll(command.data[...]) {
            switch object.tag {
            case 0x87: data = try unpadISO9797(keys.decrypt(object.value.dropFirst(), ssc: counter))
            case 0x85: data = try unpadISO9797(keys.decrypt(object.value, ssc: counter))
            case 0x97: ne = object.value.reduce(0) { $0 << 8 | Int($1) }
                if ne == 0 { ne = object.value.count == 1 ? 256 : 65536 }
            case 0x8E: mac = Array(object.value)
            default: throw ChipDoubleError("unexpected data object \(object.tag)")
            }
            if object.tag != 0x8E { macInput += object.encoded }
        }
        let expected = try keys.mac(padISO9797(macInput, blockSize: keys.blockSize))
        guard mac == expected else { throw ChipDoubleError("bad command MAC") }
        return CommandAPDU(cla: command.cla & ~0x0C, ins: command.ins, p1: command.p1, p2: command.p2, data: data, ne: ne)
    }

    /// Advances the counter past the command and the answer and protects `answer` (DO'87',
    /// DO'99', DO'8E').
    mutating func seal(_ answer: ResponseAPDU, corruptingMAC: Bool = false) throws -> [UInt8] {
        ssc = Self.incremented(Self.incremented(ssc))
        var objects: [UInt8] = []
        if !answer.data.isEmpty {
            let encrypted = try keys.encrypt(padISO9797(answer.data, blockSize: keys.blockSize), ssc: ssc)
            objects += TLV.encode(tag: 0x87, value: [0x01] + encrypted)
        }
        objects += TLV.encode(tag: 0x99, value: [answer.status.sw1, answer.status.sw2])
        var mac = try keys.mac(padISO9797(ssc + objects, blockSize: keys.blockSize))
        if corruptingMAC { mac[0] ^= 0x01 }
        return objects + TLV.encode(tag: 0x8E, value: mac) + [answer.status.sw1, answer.status.sw2]
    }

    /// Advances the counter past a command and an unprotected answer.
    mutating func skipAnswer() {
        ssc = Self.incremented(Self.incremented(ssc))
    }

    static func incremented(_ counter: [UInt8]) -> [UInt8] {
        var copy = counter
        for i in copy.indices.reversed() {
            copy[i] &+= 1
            if copy[i] != 0 { break }
        }
        return copy
    }
}

// MARK: test data

enum ReadTestData {
    /// The fixture passport's access key (Fixtures/passport/mrz.txt).
    static let accessKey = MRZAccessKey(documentNumber: "C01X00T47", birthDate: "880412", expiryDate: "340930")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: TestPaths.fixtures.appendingPathComponent(name)))
    }

    /// EF.COM listing the data groups with these tags (61 = DG1, 75 = DG2, 6E = DG14, 6F = DG15 …).
    static func com(_ tags: [UInt8]) -> [UInt8] {
        TLV.encode(tag: 0x60, value: TLV.encode(tag: 0x5F01, value: Array("0107".utf8))
            + TLV.encode(tag: 0x5F36, value: Array("040000".utf8)) + TLV.encode(tag: 0x5C, value: tags))
    }

    /// A stand-in for a file's content: the right outer tag around `count` bytes (nothing parses it).
    static func file(tag: UInt32, count: Int) -> [UInt8] {
        TLV.encode(tag: tag, value: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    }

    /// EF.CardAccess with one PACEInfo: id-PACE-ECDH-GM-AES-CBC-CMAC-128, version 2, brainpoolP256r1.
    static let cardAccessGM = hex("3114 3012 060A 04007F00070202040202 020102 02010D")
    /// The same profile with chip authentication mapping.
    static let cardAccessCAM = hex("3114 3012 060A 04007F00070202040602 020102 02010D")

    /// A PEM private key's DER (PKCS#8).
    static func pkcs8(_ name: String) throws -> [UInt8] {
        let pem = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("pki/" + name), encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return [UInt8](try #require(Data(base64Encoded: body)))
    }

    /// The chip's Chip Authentication private key: the scalar of its PKCS#8 ECPrivateKey.
    static func chipAuthenticationScalar() throws -> [UInt8] {
        let outer = try TLV.parse(try pkcs8("TEST-ONLY-chip-ca-brainpoolP256r1.key.pem")).children()
        let ecPrivateKey = try TLV.parse(outer[2].value).children()
        return Array(ecPrivateKey[1].value)
    }

    /// RSA signature primitive with the chip's Active Authentication key (its public key is DG15).
    static func activeAuthenticationSign(_ message: [UInt8]) throws -> [UInt8] {
        let outer = try TLV.parse(try pkcs8("TEST-ONLY-chip-aa-rsa1024.key.pem")).children()
        let rsa = try TLV.parse(outer[2].value).children() // RSAPrivateKey { version, n, e, d, … }
        let n = Array(rsa[1].value.drop { $0 == 0 }), d = Array(rsa[3].value)
        return try BNScope.run(modulus: n) { scope in
            let result = scope.new()
            guard BN_mod_exp(result, scope.load(message), scope.load(d), scope.modulus, scope.ctx) == 1 else {
                throw ChipDoubleError("BN_mod_exp")
            }
            return scope.bytes(result, size: n.count)
        }
    }

    /// ISO/IEC 9796-2 scheme 1 with SHA-1, as a chip answers INTERNAL AUTHENTICATE: 6A ‖ M1 ‖
    /// SHA-1(M1 ‖ challenge) ‖ BC, signed.
    static func activeAuthenticationAnswer(challenge: [UInt8]) throws -> [UInt8] {
        let m1 = (0..<106).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        return try activeAuthenticationSign([0x6A] + m1 + OpenSSLCrypto.digest(.sha1, m1 + challenge) + [0xBC])
    }
}

/// Collects a reader's events.
final class EventLog {
    var events: [ScanEvent] = []
    lazy var sink: (ScanEvent) -> Void = { [unowned self] in self.events.append($0) }

    /// One short line per event, for comparing sequences.
    var lines: [String] {
        events.map { event in
            switch event {
            case .waitingForCard: return "waiting"
            case .connected: return "connected"
            case .authenticating(let name): return "authenticating \(name)"
            case .authenticated(let name): return "authenticated \(name)"
            case .reading(let file, let read, let total): return "reading \(file) \(read)/\(total)"
            case .fileRead(let file, let bytes): return "read \(file) \(bytes)"
            case .fileUnavailable(let file, let reason): return "unavailable \(file): \(reason)"
            case .recovering(let file, let reason): return "recovering \(file): \(reason)"
            case .paceFailed(let reason): return "PACE failed: \(reason)"
            case .retryingChipAuthentication(let reason): return "retrying chip authentication: \(reason)"
            case .extendedLengthRefused(let file): return "extended length refused at \(file)"
            case .sessionReopened(let command, let status): return "reopened after \(command) \(status)"
            case .noAccessControl: return "no access control"
            case .interrupted(let file, let read, _): return "interrupted \(file) at \(read)"
            case .resumed(let file, let offset, _): return "resumed \(file) at \(offset)"
            case .terminalAuthenticationFailed(let reason): return "terminal authentication failed: \(reason)"
            }
        }
    }
}
