import CardIO
import LDS
import PassportCrypto

/// The cipher suite of a secure-messaging session (ICAO 9303-11 §9.8): 3DES with the retail MAC
/// and an 8-byte SSC, or AES with CMAC and a 16-byte SSC. Holds the session keys: never log it.
public struct SessionKeys: Sendable {
    public enum Suite: String, Sendable { case tripleDES = "3DES", aes = "AES" }
    public let suite: Suite
    /// Held apart from Swift's arrays and wiped when the session ends (SecretBytes).
    let encryptionKey: SecretBytes
    let macKey: SecretBytes

    /// Copies the keys; the arrays passed in are the caller's to wipe.
    public init(suite: Suite, encryptionKey: [UInt8], macKey: [UInt8]) {
        self.suite = suite
        self.encryptionKey = SecretBytes(encryptionKey)
        self.macKey = SecretBytes(macKey)
    }

    /// Takes the keys over: the arrays are wiped.
    init(suite: Suite, consumingEncryptionKey encryptionKey: inout [UInt8], macKey: inout [UInt8]) {
        self.suite = suite
        self.encryptionKey = SecretBytes(consuming: &encryptionKey)
        self.macKey = SecretBytes(consuming: &macKey)
    }

    public var blockSize: Int { suite == .tripleDES ? 8 : 16 }

    func encrypt(_ plain: [UInt8], ssc: [UInt8]) throws -> [UInt8] {
        switch suite {
        case .tripleDES: return try OpenSSLCrypto.crypt(.tripleDESCBC, encrypt: true, key: encryptionKey, iv: [UInt8](repeating: 0, count: 8), plain[...])
        case .aes: return try OpenSSLCrypto.crypt(.aesCBC, encrypt: true, key: encryptionKey, iv: try iv(ssc), plain[...])
        }
    }

    func decrypt(_ cipher: ArraySlice<UInt8>, ssc: [UInt8]) throws -> [UInt8] {
        switch suite {
        case .tripleDES: return try OpenSSLCrypto.crypt(.tripleDESCBC, encrypt: false, key: encryptionKey, iv: [UInt8](repeating: 0, count: 8), cipher)
        case .aes: return try OpenSSLCrypto.crypt(.aesCBC, encrypt: false, key: encryptionKey, iv: try iv(ssc), cipher)
        }
    }

    /// AES: IV = E(KSenc, SSC).
    private func iv(_ ssc: [UInt8]) throws -> [UInt8] {
        try OpenSSLCrypto.crypt(.aesECB, encrypt: true, key: encryptionKey, ssc[...])
    }

    /// The 8-byte MAC of already padded input.
    func mac(_ padded: [UInt8]) throws -> [UInt8] {
        switch suite {
        case .tripleDES: return try OpenSSLCrypto.retailMAC(key: macKey, padded[...])
        case .aes: return Array(try OpenSSLCrypto.aesCMAC(key: macKey, padded).prefix(8))
        }
    }

    /// The largest plaintext a short-length protected response can carry: 256 response bytes
    /// less DO'87' header (3) and padding indicator (1), DO'99' (4) and DO'8E' (10), rounded
    /// down to whole cipher blocks, less the one byte padding always takes. 231 for 3DES, 223 for AES.
    public var maxShortResponsePlaintext: Int { maxShortResponsePlaintext(responseData: 256) }

    /// The same when a reader brings at most `responseData` bytes in one answer.
    public func maxShortResponsePlaintext(responseData: Int) -> Int {
        let room = min(responseData, 256) - 4 - 4 - 10
        return room / blockSize * blockSize - 1
    }

    /// The same for an extended-length response that must fit a 65536-byte response buffer
    /// (DO'87' header 4 + padding indicator 1).
    public var maxExtendedResponsePlaintext: Int { maxExtendedResponsePlaintext(responseData: 65536) }

    /// The same for a chip that answers at most `responseData` bytes (its EF.ATR/INFO says so).
    public func maxExtendedResponsePlaintext(responseData: Int) -> Int {
        let room = min(responseData, 65536) - 5 - 4 - 10
        return room / blockSize * blockSize - 1
    }
}

/// A bare status word that answered a protected command and so ended the session.
public struct PlainAnswer: Sendable, Equatable {
    public let status: StatusWord
    /// CLA INS P1 P2 of the command it answered, before protection.
    public let header: [UInt8]

    /// "READ BINARY 00 B0 9C 00": the command as a person can look it up.
    public var command: String {
        guard header.count == 4 else { return "a protected command" }
        return ISO7816Channel.instructionName(header[1], secure: true) + " " + header.map { hexString([$0]) }.joined(separator: " ")
    }
}

/// Secure messaging over another channel: every command is wrapped (encrypted and MACed) and
/// every response's MAC is checked before its data is decrypted and returned.
public final class SecureMessagingChannel: CardChannel {
    private let inner: CardChannel
    public let keys: SessionKeys
    /// Send sequence counter, incremented before every command and every response.
    public private(set) var ssc: [UInt8]
    /// True when the last answer was a bare status word, without secure messaging objects.
    public private(set) var lastAnswerWasPlain = false
    /// Answers whose MAC verified under these keys: after chip authentication, only such an
    /// answer proves that the chip derived the same keys.
    public private(set) var authenticatedAnswers = 0
    /// The first answer's status word, when it came without secure messaging.
    public private(set) var firstAnswerPlainStatus: StatusWord?
    /// The status word of an answer that came without secure messaging. A chip may or may not
    /// have counted the command it answered in plain, and neither side can know: the counters
    /// may be out of step, so nothing more is sent in this session (a new one must be opened).
    public private(set) var endedByPlainAnswer: PlainAnswer?
    /// CLA INS P1 P2 of the last command sent, before protection (for `PlainAnswer`).
    private var lastHeader: [UInt8] = []
    private var answers = 0

    public init(over inner: CardChannel, keys: SessionKeys, ssc: [UInt8]) {
        precondition(ssc.count == keys.blockSize)
        self.inner = inner
        self.keys = keys
        self.ssc = ssc
    }

    public var supportsExtendedLength: Bool { inner.supportsExtendedLength }
    public var suite: SessionKeys.Suite { keys.suite }

    public func transmit(_ command: CommandAPDU) throws -> ResponseAPDU {
        if let ended = endedByPlainAnswer { throw SecurityError.secureMessagingEnded(status: ended.status) }
        let protected = try wrap(command)
        let response = try inner.transmit(protected)
        return try unwrap(response)
    }

    /// Builds the protected command (ICAO 9303-11 §9.8.4).
    public func wrap(_ command: CommandAPDU) throws -> CommandAPDU {
        let cla = command.cla | 0x0C
        lastHeader = [command.cla, command.ins, command.p1, command.p2]
        let extended = command.needsExtendedLength
        var objects: [UInt8] = []
        if !command.data.isEmpty {
            let encrypted = try keys.encrypt(padISO9797(command.data, blockSize: keys.blockSize), ssc: incremented(ssc))
            // Odd INS (e.g. READ BINARY B1) carries BER-TLV data: DO'85' without the padding indicator.
            if command.ins & 1 == 1 {
                objects += tlv(0x85, encrypted)
            } else {
                objects += tlv(0x87, [0x01] + encrypted)
            }
        }
        if let ne = command.ne {
            let le: [UInt8] = extended
                ? [UInt8(ne == 65536 ? 0 : ne >> 8), UInt8(ne & 0xFF)]
                : [UInt8(ne == 256 ? 0 : ne)]
            objects += tlv(0x97, le)
        }
        increment(&ssc)
        let header = padISO9797([cla, command.ins, command.p1, command.p2], blockSize: keys.blockSize)
        let mac = try keys.mac(padISO9797(ssc + header + objects, blockSize: keys.blockSize))
        objects += tlv(0x8E, mac)
        return CommandAPDU(cla: cla, ins: command.ins, p1: command.p1, p2: command.p2,
                           data: objects, ne: extended || objects.count > 255 ? 65536 : 256)
    }

    /// Checks and opens a protected response (ICAO 9303-11 §9.8.5).
    public func unwrap(_ response: ResponseAPDU) throws -> ResponseAPDU {
        increment(&ssc)
        lastAnswerWasPlain = response.data.isEmpty
        answers += 1
        if answers == 1 && response.data.isEmpty { firstAnswerPlainStatus = response.status }
        guard !response.data.isEmpty else {
            endedByPlainAnswer = PlainAnswer(status: response.status, header: lastHeader)
            // A bare status word. An SM error (6987/6988) means the chip dropped the session; other
            // errors some chips send unprotected are passed on (they carry no data to trust); a bare
            // success is never accepted, because only a MAC can vouch for it.
            if response.status == .smDataObjectsMissing || response.status == .smDataObjectsIncorrect
                || response.status.isSuccess || response.status.sw1 == 0x61 {
                throw SecurityError.secureMessagingEnded(status: response.status)
            }
            return response
        }
        var encrypted: TLV?
        var status: TLV?
        var mac: TLV?
        var macInput: [UInt8] = ssc
        for object in try responseDataObjects(response.data) {
            switch object.tag {
            case 0x85, 0x87:
                encrypted = object
                macInput += object.encoded
            case 0x99:
                status = object
                macInput += object.encoded
            case 0x8E:
                mac = object
            default:
                throw SecurityError.malformedSecureMessaging("unexpected data object \(String(object.tag, radix: 16))")
            }
        }
        guard let mac else { throw SecurityError.malformedSecureMessaging("no MAC (DO'8E')") }
        let expected = try keys.mac(padISO9797(macInput, blockSize: keys.blockSize))
        guard constantTimeEqual(expected, mac.value) else { throw SecurityError.badMAC }
        // The processing status is mandatory in a protected response (ICAO 9303-11 §9.8.6): the
        // outer status word is not covered by the MAC, so without DO'99' nothing vouches for it.
        guard let status else { throw SecurityError.malformedSecureMessaging("no processing status (DO'99')") }
        authenticatedAnswers += 1

        guard status.value.count == 2 else { throw SecurityError.malformedSecureMessaging("DO'99' is not 2 bytes") }
        let statusWord = StatusWord(status.value[status.value.startIndex], status.value[status.value.startIndex + 1])
        var plain: [UInt8] = []
        if let encrypted {
            var cipher = encrypted.value
            if encrypted.tag == 0x87 {
                guard cipher.first == 0x01 else { throw SecurityError.malformedSecureMessaging("DO'87' without padding indicator 01") }
                cipher = cipher.dropFirst()
            }
            guard !cipher.isEmpty, cipher.count % keys.blockSize == 0 else {
                throw SecurityError.malformedSecureMessaging("encrypted data is not whole cipher blocks")
            }
            plain = try unpadISO9797(keys.decrypt(cipher, ssc: ssc))
        }
        return ResponseAPDU(data: plain, status: statusWord)
    }

    private func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        if value.count < 0x80 { out.append(UInt8(value.count)) }
        else if value.count <= 0xFF { out += [0x81, UInt8(value.count)] }
        else { out += [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] }
        return out + value
    }

    private func incremented(_ counter: [UInt8]) -> [UInt8] {
        var copy = counter
        increment(&copy)
        return copy
    }

    private func increment(_ counter: inout [UInt8]) {
        for i in counter.indices.reversed() {
            counter[i] &+= 1
            if counter[i] != 0 { break }
        }
    }
}

/// Compares a MAC without leaking where the first difference is.
func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for (x, y) in zip(a, b) { diff |= x ^ y }
    return diff == 0
}

/// The data objects of a protected response, back to back: unlike other BER-TLV, no filler
/// bytes may sit between them, because the MAC covers the objects and nothing else.
func responseDataObjects(_ data: [UInt8]) throws -> [TLV] {
    var objects: [TLV] = []
    var rest = data[...]
    while !rest.isEmpty {
        do { objects.append(try TLV.parse(rest)) } catch {
            throw SecurityError.malformedSecureMessaging("a data object is malformed (\(error))")
        }
        rest = rest[objects[objects.count - 1].encoded.endIndex...]
    }
    return objects
}

extension SessionKeys {
    /// Exposed only so tests can compare with published vectors; never print these.
    public var encryptionKeyForTesting: [UInt8] { encryptionKey.bytesForTesting }
    public var macKeyForTesting: [UInt8] { macKey.bytesForTesting }
}
