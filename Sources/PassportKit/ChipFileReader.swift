import CardIO
import ChipProtocols
import PassiveAuth
import PassportCrypto
import LDS

/// The largest READ BINARY a chip took, learned once per scan and kept by every file reader of
/// it (a new secure session after chip authentication or a recovery starts from it).
final class LearnedReadSize {
    /// The chunk the chip last accepted after refusing a larger one; nil until it refused one.
    var chunk: Int?
    /// The chip refused extended-length reads: short ones only (each session's own largest).
    var shortOnly = false
    /// The chip refused READ BINARY by short EF identifier: later files are selected first.
    var selectsByIdentifier = false
    /// The most response data one answer brings through the reader (256 unless it says less).
    var readerResponseData = 256
    /// The most response data the chip sends in one answer, when its EF.ATR/INFO says.
    var chipResponseData: Int?
}

/// A plain 6700 to an extended-length command under secure messaging: the card's runtime
/// refused it before the application (and its send sequence counter) saw it. The session can
/// no longer be trusted to be in step; the caller opens a new one and reads with short APDUs.
struct ExtendedLengthRefused: Error {}

/// An answer without secure messaging ended the session in the middle of a read that can go
/// on: the caller opens a new session and reads again, from `partial`, selecting the file first
/// when the plain answer came to a read by short identifier (`selectFirst`).
struct SessionEndedMidRead: Error {
    let answer: PlainAnswer
    let selectFirst: Bool
}

/// Reads elementary files over a (secure) channel with as few APDUs as the chip allows:
/// the first read selects the file by short FID, later ones continue at an offset (INS B1
/// above 32767), the chunk is the largest the chip takes, stepping down when it refuses.
final class ChipFileReader {
    private let channel: CardChannel
    /// Largest plaintext per READ BINARY in short form (231 with 3DES SM, 223 with AES SM).
    private let maxShort: Int
    /// Current chunk size; starts large with extended length and shrinks on 6700/6Cxx/6B00.
    private(set) var chunk: Int
    private(set) var usingExtendedLength: Bool
    /// The bytes of the file being read so far, kept when a read fails so it can be resumed.
    private(set) var partial: [UInt8] = []
    private let learned: LearnedReadSize

    init(channel: CardChannel, maxShortPlaintext: Int, maxExtendedPlaintext: Int?, learned: LearnedReadSize = LearnedReadSize()) {
        self.channel = channel
        self.maxShort = maxShortPlaintext
        self.learned = learned
        let cap = learned.chunk ?? Int.max
        if let maxExtendedPlaintext, channel.supportsExtendedLength, !learned.shortOnly, cap > maxShortPlaintext {
            chunk = min(maxExtendedPlaintext, cap)
            usingExtendedLength = true
        } else {
            chunk = min(maxShortPlaintext, cap)
            usingExtendedLength = false
        }
    }

    enum Outcome {
        case read([UInt8])
        /// The chip refused the file (e.g. 6982 for EAC-protected DG3, 6A82 absent).
        case unavailable(StatusWord)
    }

    /// What is wrong with the file just read, when its contents are not what its identifier
    /// holds (another outer tag, more than one object): for the report; the bytes are kept as read.
    private(set) var problem: String?

    /// Reads the whole of `file`; `progress` gets (bytes read, total bytes). With `resumingAfter`,
    /// continues a read that an earlier session lost: selects the file and goes on from there.
    func read(_ file: LDSFile, resumingAfter earlier: [UInt8] = [], selectFirst: Bool = false,
              progress: (Int, Int) -> Void) throws -> Outcome {
        partial = earlier
        problem = nil
        if !earlier.isEmpty {
            let select = try channel.transmit(CommandAPDU.selectFile(file.fid))
            guard select.status.isSuccess else { throw ReadError.chipError(file: file, status: select.status) }
            return .read(try continueReading(file, start: earlier, progress: progress))
        }
        if learned.selectsByIdentifier || selectFirst { return try readAfterSelect(file, progress: progress) }
        // First read by short FID: selects the file and gives the TLV header, hence the length.
        var first: ResponseAPDU
        while true {
            first = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | file.shortFID, p2: 0, ne: requestSize(chunk)))
            // 6B00 on the first read: some chips refuse an Le beyond the file's end.
            if try stepDownIfRefused(first.status, requested: chunk, includingWrongParameters: true) { continue }
            break
        }
        switch first.status.value {
        case 0x9000, 0x6282: break
        case 0x6982: return .unavailable(first.status)
        default:
            // The chip does not take short FIDs (older applets answer 6985 "no current EF" or
            // 6986, others 6A86, 6D00 or 6F00): select explicitly and read from offset 0. Only
            // SELECT says a file is absent. After a plain answer, in a new session.
            if let answer = plainAnswer { throw SessionEndedMidRead(answer: answer, selectFirst: true) }
            let outcome = try readAfterSelect(file, progress: progress)
            if case .read = outcome, first.status.value != 0x6A82 { learned.selectsByIdentifier = true }
            return outcome
        }
        return .read(try continueReading(file, start: first.data, progress: progress))
    }

    private func readAfterSelect(_ file: LDSFile, progress: (Int, Int) -> Void) throws -> Outcome {
        let select = try channel.transmit(CommandAPDU.selectFile(file.fid))
        switch select.status.value {
        case 0x9000: break
        case 0x6982, 0x6A82, 0x6985, 0x6986: return .unavailable(select.status)
        default: throw ReadError.chipError(file: file, status: select.status)
        }
        do { return .read(try continueReading(file, start: [], progress: progress)) } catch let refusal as Withheld {
            return .unavailable(refusal.status)
        }
    }

    /// A refusal of the first READ BINARY after SELECT: the file is withheld, as by SELECT.
    private struct Withheld: Error { let status: StatusWord }
    private static let withholding: Set<UInt16> = [0x6982, 0x6A82, 0x6985, 0x6986]

    private func continueReading(_ file: LDSFile, start: [UInt8], progress: (Int, Int) -> Void) throws -> [UInt8] {
        var data = start
        partial = data
        var total = try Self.objectLength(data) ?? Int.max
        if problem == nil { problem = Self.otherTag(file, data) }
        if data.count > total {
            // More than the object in the first answer: padding is dropped; other data is kept as
            // the chip sent it, and named.
            problem = problem ?? Self.moreThanOneObject(file, data, objectLength: total)
            if problem == nil { data.removeLast(data.count - total) } else { total = data.count }
        }
        try Self.requireWithinLimit(file, total == Int.max ? data.count : total)
        progress(data.count, total == Int.max ? 0 : total)
        while data.count < total {
            // Beyond offset 32767 the answer wraps the data in DO'53', which counts against Le.
            let room = data.count > 0x7FFF ? chunk - 4 : chunk
            let wanted = total == Int.max ? room : min(room, total - data.count)
            let response = try readBinary(offset: data.count, length: wanted)
            if try stepDownIfRefused(response.status, requested: wanted) { continue }
            if data.isEmpty && Self.withholding.contains(response.status.value) { throw Withheld(status: response.status) }
            guard response.status.isSuccess || response.status == .endOfFileWarning else {
                throw ReadError.chipError(file: file, status: response.status)
            }
            guard !response.data.isEmpty else {
                throw ReadError.shortFile(file: file, expected: total, got: data.count)
            }
            guard response.data.count <= wanted else {
                throw ReadError.tooMuchData(file: file, requested: wanted, got: response.data.count)
            }
            data += response.data
            if total == Int.max, let length = try Self.objectLength(data) {
                total = length
                try Self.requireWithinLimit(file, total)
                // An indefinite length ends inside the last chunk; what follows is the file's padding.
                if data.count > total { data.removeLast(data.count - total) }
            }
            partial = data
            if total == Int.max { try Self.requireWithinLimit(file, data.count) }
            progress(data.count, total == Int.max ? 0 : total)
        }
        guard data.count == total else { throw ReadError.tooMuchData(file: file, requested: total, got: data.count) }
        return data
    }

    /// A chip announcing (or sending, for an indefinite length) more than the file may hold is
    /// refused before the rest is read: the same bound as for a dump (`FileSizeLimits`).
    static func requireWithinLimit(_ file: LDSFile, _ length: Int) throws {
        let limit = FileSizeLimits.limit(for: file)
        guard length <= limit else { throw ReadError.tooLarge(file: file, announced: length, limit: limit) }
    }

    /// The file's length once known: from its header, or at the end-of-contents of an indefinite one.
    static func objectLength(_ data: [UInt8]) throws -> Int? {
        try TLV.knownLength(ofObjectStartingWith: data[...])
    }

    /// The object is not the one the file's identifier requires (EF.COM 60, DG1 61, DG2 75,
    /// EF.SOD 77, …): the chip answered with another file, or a malformed one.
    private static func otherTag(_ file: LDSFile, _ data: [UInt8]) -> String? {
        guard let tag = file.tag, let first = data.first, UInt32(first) != tag else { return nil }
        let length = (try? objectLength(data)).flatMap { $0 }.map { ", an object of \($0) bytes" } ?? ""
        return "\(file) read from the chip starts with tag \(hexString([first]))\(length), where \(file) starts with tag \(hexString([UInt8(tag)]))"
    }

    /// A first answer longer than the file's one object: 00 or FF after it is padding (a file
    /// allocated larger than its contents, nil); anything else means more than one object.
    private static func moreThanOneObject(_ file: LDSFile, _ data: [UInt8], objectLength: Int) -> String? {
        let after = data[objectLength...]
        if after.allSatisfy({ $0 == 0x00 }) || after.allSatisfy({ $0 == 0xFF }) { return nil }
        return "\(file) read from the chip is not one object: its first object (tag \(hexString([data[0]]))) is \(objectLength) bytes, and \(after.count) bytes of other data follow it"
    }

    /// READ BINARY at `offset`: INS B0 with a 15-bit offset, INS B1 with DO'54' beyond that.
    private func readBinary(offset: Int, length: Int) throws -> ResponseAPDU {
        if offset <= 0x7FFF {
            return try channel.transmit(CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF),
                                                    ne: requestSize(length)))
        }
        var offsetBytes: [UInt8] = []
        var o = offset
        while o > 0 { offsetBytes.insert(UInt8(o & 0xFF), at: 0); o >>= 8 }
        // The answer is DO'53' around the data: allow for its 2-4 header bytes.
        let response = try channel.transmit(CommandAPDU(ins: 0xB1, p1: 0, p2: 0, data: [0x54, UInt8(offsetBytes.count)] + offsetBytes,
                                                        ne: requestSize(length + (length < 0x80 ? 2 : length < 0x100 ? 3 : 4))))
        guard !response.data.isEmpty else { return response }
        let object = try TLV.parse(response.data)
        guard object.tag == 0x53 else { throw TLVError.unexpectedTag(expected: 0x53, found: object.tag) }
        return ResponseAPDU(data: Array(object.value), status: response.status)
    }

    private func requestSize(_ length: Int) -> Int {
        usingExtendedLength ? length : min(length, 256)
    }

    /// The bare status word that ended the secure session, if the last answer was one.
    private var plainAnswer: PlainAnswer? { (channel as? SecureMessagingChannel)?.endedByPlainAnswer }

    /// Handles the statuses by which a chip says "ask for less": returns true when the caller
    /// should repeat with the (now smaller) chunk, which every later reader of the scan keeps.
    private func stepDownIfRefused(_ status: StatusWord, requested: Int, includingWrongParameters: Bool = false) throws -> Bool {
        let smaller: Int
        switch status.sw1 {
        case 0x6B where includingWrongParameters && status.sw2 == 0 && requested > 1:
            smaller = nextSmallerChunk(below: requested)
        case 0x6C:
            smaller = status.sw2 == 0 ? 256 : Int(status.sw2)
            guard smaller < requested else { return false }
        case 0x67 where status.sw2 == 0:
            if usingExtendedLength && (channel as? SecureMessagingChannel)?.lastAnswerWasPlain == true {
                throw ExtendedLengthRefused()
            }
            smaller = nextSmallerChunk(below: requested)
        default:
            return false
        }
        if usingExtendedLength && smaller <= maxShort {
            usingExtendedLength = false
            chunk = maxShort
            learned.shortOnly = true
        } else {
            chunk = smaller
            learned.chunk = chunk
        }
        // Asked for less in plain: the smaller read goes out in a new session.
        if requested > 1, let answer = plainAnswer { throw SessionEndedMidRead(answer: answer, selectFirst: false) }
        return requested > 1
    }

    /// The sizes chips are known to cap READ BINARY at (JMRTD's 0xDF, NFCPassportReader's 0xA0),
    /// then powers of two: a refused size costs one APDU, and the first that works is kept.
    private static let knownCaps = [0xDF, 0xC0, 0xA0, 0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1]

    private func nextSmallerChunk(below requested: Int) -> Int {
        if usingExtendedLength { return maxShort }
        return Self.knownCaps.first { $0 < requested } ?? 1
    }
}

/// Errors while reading files from the chip.
public enum ReadError: Error, Equatable, Sendable, CustomStringConvertible {
    case chipError(file: LDSFile, status: StatusWord)
    case shortFile(file: LDSFile, expected: Int, got: Int)
    case tooMuchData(file: LDSFile, requested: Int, got: Int)
    case tooLarge(file: LDSFile, announced: Int, limit: Int)

    public var description: String {
        switch self {
        case .chipError(let file, let status):
            return "The chip answered \(status) while reading \(file)."
        case .shortFile(let file, let expected, let got) where expected == Int.max:
            // The length was not known yet (the answer that would have carried it was empty).
            return "The chip sent no data for \(file) at offset \(got), before its length was known."
        case .shortFile(let file, let expected, let got):
            return "The chip stopped sending \(file) after \(got) of \(expected) bytes."
        case .tooMuchData(let file, let requested, let got):
            return "The chip sent \(got) bytes of \(file) where \(requested) were expected."
        case .tooLarge(let file, let announced, let limit):
            return "The chip announced \(file) of \(announced) bytes, more than the \(FileSizeLimits.describe(limit)) such a file may hold: not read, nothing saved."
        }
    }
}
