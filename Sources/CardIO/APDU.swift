/// An ISO 7816-4 command APDU. `ne` is the number of response bytes expected (nil: no Le field;
/// 256 or 65536 for "as many as available" in short or extended form).
public struct CommandAPDU: Sendable, Equatable {
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    public var data: [UInt8]
    public var ne: Int?

    public init(cla: UInt8 = 0x00, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], ne: Int? = nil) {
        precondition(data.count <= 65535, "APDU data longer than 65535 bytes")
        precondition(ne.map { (1...65536).contains($0) } ?? true, "Ne must be 1...65536")
        self.cla = cla; self.ins = ins; self.p1 = p1; self.p2 = p2; self.data = data; self.ne = ne
    }

    /// SELECT of an elementary file by its file identifier, without an answer (P1 02, P2 0C).
    public static func selectFile(_ identifier: UInt16) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [UInt8(identifier >> 8), UInt8(identifier & 0xFF)])
    }

    /// True when the command cannot be encoded in short form (data over 255 bytes or Ne over 256).
    public var needsExtendedLength: Bool { data.count > 255 || (ne ?? 0) > 256 }

    /// The bytes on the wire: short form when possible, extended form when needed or `forceExtended`.
    public func encoded(forceExtended: Bool = false) -> [UInt8] {
        var out: [UInt8] = [cla, ins, p1, p2]
        out.reserveCapacity(4 + 3 + data.count + 3)
        let extended = forceExtended || needsExtendedLength
        if !data.isEmpty {
            if extended {
                out += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
            } else {
                out.append(UInt8(data.count))
            }
            out += data
        }
        if let ne {
            if extended {
                // In extended form Le is two bytes after Lc, or three (leading 00) without data.
                if data.isEmpty { out.append(0x00) }
                let le = ne == 65536 ? 0 : ne
                out += [UInt8(le >> 8), UInt8(le & 0xFF)]
            } else {
                out.append(ne == 256 ? 0x00 : UInt8(ne))
            }
        }
        return out
    }

    /// Parses an encoded APDU (cases 1-4, short and extended). Used by tests and trace replay.
    public init(encoded bytes: [UInt8]) throws {
        guard bytes.count >= 4 else { throw CardIOError.malformedAPDU("shorter than 4 bytes") }
        cla = bytes[0]; ins = bytes[1]; p1 = bytes[2]; p2 = bytes[3]
        data = []
        ne = nil
        let body = bytes[4...]
        if body.isEmpty { return }
        if body.count == 1 { ne = body.first! == 0 ? 256 : Int(body.first!); return }
        let b0 = Int(body[4])
        if b0 != 0 {
            guard body.count == 1 + b0 || body.count == 2 + b0 else { throw CardIOError.malformedAPDU("Lc does not match") }
            data = Array(body[5..<(5 + b0)])
            if body.count == 2 + b0 { let le = Int(body.last!); ne = le == 0 ? 256 : le }
            return
        }
        // Extended form.
        guard body.count >= 3 else { throw CardIOError.malformedAPDU("truncated extended length") }
        let l = Int(body[5]) << 8 | Int(body[6])
        if body.count == 3 { ne = l == 0 ? 65536 : l; return }
        guard l > 0, body.count == 3 + l || body.count == 5 + l else { throw CardIOError.malformedAPDU("Lc does not match") }
        data = Array(body[7..<(7 + l)])
        if body.count == 5 + l {
            let le = Int(body[7 + l]) << 8 | Int(body[8 + l])
            ne = le == 0 ? 65536 : le
        }
    }
}

/// A response APDU: data and the two status bytes.
public struct ResponseAPDU: Sendable, Equatable {
    public var data: [UInt8]
    public var status: StatusWord

    public init(data: [UInt8], status: StatusWord) {
        self.data = data
        self.status = status
    }

    /// Splits raw response bytes (at least the two status bytes).
    public init(encoded bytes: [UInt8]) throws {
        guard bytes.count >= 2 else { throw CardIOError.malformedResponse(length: bytes.count) }
        data = Array(bytes.dropLast(2))
        status = StatusWord(bytes[bytes.count - 2], bytes[bytes.count - 1])
    }

    public var encoded: [UInt8] { data + [status.sw1, status.sw2] }
}

/// ISO 7816-4 status word.
public struct StatusWord: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt16
    public init(_ value: UInt16) { self.value = value }
    public init(_ sw1: UInt8, _ sw2: UInt8) { value = UInt16(sw1) << 8 | UInt16(sw2) }
    public var sw1: UInt8 { UInt8(value >> 8) }
    public var sw2: UInt8 { UInt8(value & 0xFF) }

    public static let success = StatusWord(0x9000)
    public static let endOfFileWarning = StatusWord(0x6282)
    public static let authenticationFailed = StatusWord(0x6300)
    public static let wrongLength = StatusWord(0x6700)
    public static let securityStatusNotSatisfied = StatusWord(0x6982)
    public static let smDataObjectsMissing = StatusWord(0x6987)
    public static let smDataObjectsIncorrect = StatusWord(0x6988)
    public static let conditionsNotSatisfied = StatusWord(0x6985)
    public static let fileNotFound = StatusWord(0x6A82)
    public static let wrongParameters = StatusWord(0x6B00)
    public static let insNotSupported = StatusWord(0x6D00)

    public var isSuccess: Bool { value == 0x9000 }

    public var description: String {
        let hex = String(value, radix: 16, uppercase: true)
        let code = String(repeating: "0", count: 4 - hex.count) + hex
        return meaning.map { "\(code) (\($0))" } ?? code
    }

    /// A short ISO 7816-4 meaning, for messages.
    public var meaning: String? {
        switch value {
        case 0x9000: return "success"
        case 0x6282: return "end of file reached before Le bytes"
        case 0x6300: return "authentication failed"
        case 0x6581: return "memory failure"
        case 0x6700: return "wrong length"
        case 0x6882: return "secure messaging not supported"
        case 0x6982: return "security status not satisfied"
        case 0x6983: return "authentication method blocked"
        case 0x6984: return "reference data not usable"
        case 0x6985: return "conditions of use not satisfied"
        case 0x6986: return "command not allowed"
        case 0x6987: return "expected secure messaging data objects missing"
        case 0x6988: return "incorrect secure messaging data objects"
        case 0x6A80: return "incorrect data"
        case 0x6A82: return "file not found"
        case 0x6A86: return "incorrect P1-P2"
        case 0x6A88: return "referenced data not found"
        case 0x6B00: return "wrong parameters (offset beyond the file)"
        case 0x6D00: return "instruction not supported"
        case 0x6E00: return "class not supported"
        default:
            switch sw1 {
            case 0x61: return "\(sw2) more bytes available"
            case 0x63 where sw2 & 0xF0 == 0xC0: return "verification failed, \(sw2 & 0x0F) tries left"
            case 0x6C: return "wrong Le, \(sw2 == 0 ? 256 : Int(sw2)) bytes available"
            default: return nil
            }
        }
    }
}
