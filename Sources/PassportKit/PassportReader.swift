import CardIO
import DocumentSecurity
import Foundation
import LDS
import MRZ

/// What happens during a scan, for progress display. Carries no personal data.
public enum ScanEvent: Sendable {
    case waitingForCard(reader: String)
    case connected(reader: String, extendedLength: Bool)
    case authenticating(protocol: String)
    case authenticated(protocol: String)
    case reading(file: LDSFile, bytesRead: Int, totalBytes: Int)
    case fileRead(file: LDSFile, bytes: Int)
    case fileUnavailable(file: LDSFile, reason: String)
}

/// How one file was read.
public struct FileReadStatistics: Sendable, Equatable {
    public let apdus: Int
    public let seconds: Double
}

/// Everything read from a chip, in memory; `DumpWriter` saves it.
public struct ChipContents: Sendable {
    public let files: [LDSFile: [UInt8]]
    public let statistics: [LDSFile: FileReadStatistics]
    /// Files EF.COM lists that the chip did not give, with the reason.
    public let unavailable: [LDSFile: String]
    public let accessProtocol: String
    public let extendedLength: Bool
    public let readerName: String
    public let apdus: Int
    public let seconds: Double
    public let chipAuthentication: AuthenticationOutcome
    public let activeAuthentication: AuthenticationOutcome
}

/// The result of chip or active authentication.
public enum AuthenticationOutcome: Sendable, Equatable {
    case passed
    case failed(String)
    /// The chip does not offer it (no DG14 / DG15), with the reason.
    case notSupported(String)

    public var status: String {
        switch self { case .passed: return "passed"; case .failed: return "failed"; case .notSupported: return "not_supported" }
    }
    public var detail: String? {
        switch self { case .passed: return nil; case .failed(let why), .notSupported(let why): return why }
    }
}

/// Reads a passport chip: selects the eMRTD application, runs BAC, then reads EF.COM, every
/// data group it lists, and EF.SOD under secure messaging.
public final class PassportReader {
    private let channel: ISO7816Channel
    private let events: (ScanEvent) -> Void

    public init(channel: ISO7816Channel, events: @escaping (ScanEvent) -> Void = { _ in }) {
        self.channel = channel
        self.events = events
    }

    static let applicationID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    /// Selects the application and runs BAC again (after a session was lost).
    private func reopen(accessKey: MRZAccessKey) throws -> (SecureMessagingChannel, ChipFileReader) {
        channel.retriesWrongLength = true
        let select = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationID))
        guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }
        let session = try BAC(accessKey: accessKey).authenticate(over: channel)
        channel.retriesWrongLength = false
        let secure = SecureMessagingChannel(over: channel, keys: session.keys, ssc: session.ssc)
        return (secure, ChipFileReader(channel: secure, maxShortPlaintext: session.keys.maxShortResponsePlaintext,
                                       maxExtendedPlaintext: session.keys.maxExtendedResponsePlaintext))
    }

    public func read(accessKey: MRZAccessKey) throws -> ChipContents {
        let started = Date()
        let startCount = channel.apduCount

        let select = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationID))
        guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }

        events(.authenticating(protocol: "BAC"))
        let session: BAC.Session
        do {
            session = try BAC(accessKey: accessKey).authenticate(over: channel)
        } catch SecurityError.accessDenied(let status) {
            throw ScanError.accessDenied(status: status)
        }
        events(.authenticated(protocol: "BAC"))

        // SM commands must not be repeated by the transport layer: the chip's counter has moved on.
        var secure = SecureMessagingChannel(over: channel, keys: session.keys, ssc: session.ssc)
        channel.retriesWrongLength = false
        var reader = ChipFileReader(channel: secure,
                                    maxShortPlaintext: session.keys.maxShortResponsePlaintext,
                                    maxExtendedPlaintext: session.keys.maxExtendedResponsePlaintext)

        var files: [LDSFile: [UInt8]] = [:]
        var statistics: [LDSFile: FileReadStatistics] = [:]
        var unavailable: [LDSFile: String] = [:]

        func readFile(_ file: LDSFile) throws {
            let fileStart = Date()
            let before = channel.apduCount
            let outcome: ChipFileReader.Outcome
            var lastRead = 0
            do {
                outcome = try reader.read(file) { read, total in
                    lastRead = read
                    self.events(.reading(file: file, bytesRead: read, totalBytes: total))
                }
            } catch let error as CardIOError where error == .cardRemoved {
                throw ScanError.interrupted(file: file, bytesRead: lastRead, cause: error.description)
            } catch let error as SecurityError {
                throw ScanError.secureMessagingFailed(file: file, cause: error.description)
            }
            switch outcome {
            case .read(let bytes):
                files[file] = bytes
                statistics[file] = FileReadStatistics(apdus: channel.apduCount - before,
                                                      seconds: Date().timeIntervalSince(fileStart))
                events(.fileRead(file: file, bytes: bytes.count))
            case .unavailable(let status):
                let reason = status == .securityStatusNotSatisfied
                    ? "access denied (\(status)); this file needs Extended Access Control"
                    : "not readable (\(status))"
                unavailable[file] = reason
                events(.fileUnavailable(file: file, reason: reason))
            }
        }

        try readFile(.com)
        guard let comBytes = files[.com] else { throw ScanError.missingRequiredFile(.com) }
        let com: EFCOM
        do { com = try EFCOM(bytes: comBytes) } catch {
            throw ScanError.malformedFile(file: .com, cause: String(describing: error))
        }
        // DG14 first: Chip Authentication replaces the BAC session keys before the rest is read.
        var chipAuthentication = AuthenticationOutcome.notSupported("the chip has no DG14")
        if com.dataGroups.contains(.dataGroup(14)) {
            try readFile(.dataGroup(14))
            if let dg14 = files[.dataGroup(14)] {
                // The next file is read under the new keys: a chip without the private key (a copy)
                // cannot answer it with a valid MAC, which is the proof CA gives.
                let next = com.dataGroups.sorted().first { $0 != .dataGroup(14) } ?? .sod
                do {
                    events(.authenticating(protocol: "Chip Authentication"))
                    let ca = try ChipAuthentication(dg14: try SecurityInfos(bytes: dg14))
                    secure = try ca.perform(over: secure, raw: channel)
                    reader = ChipFileReader(channel: secure, maxShortPlaintext: secure.keys.maxShortResponsePlaintext,
                                            maxExtendedPlaintext: secure.keys.maxExtendedResponsePlaintext)
                    try readFile(next)
                    chipAuthentication = .passed
                    events(.authenticated(protocol: "Chip Authentication"))
                } catch let error where error is SecurityError || (error as? ScanError).map(ScanError.isSecureMessagingFailure) == true {
                    chipAuthentication = .failed(String(describing: error))
                    files[next] = nil
                    // The session is gone either way: open a new one with the access key and go on reading.
                    (secure, reader) = try reopen(accessKey: accessKey)
                }
            }
        }
        for file in com.dataGroups.sorted() where files[file] == nil && unavailable[file] == nil { try readFile(file) }
        try readFile(.sod)
        guard files[.sod] != nil else { throw ScanError.missingRequiredFile(.sod) }
        guard files[.dataGroup(1)] != nil else { throw ScanError.missingRequiredFile(.dataGroup(1)) }

        var activeAuthentication = AuthenticationOutcome.notSupported("the chip has no DG15")
        if let dg15 = files[.dataGroup(15)] {
            do {
                events(.authenticating(protocol: "Active Authentication"))
                let aa = try ActiveAuthentication(dg15: try DataGroup15(bytes: dg15),
                                                  dg14: files[.dataGroup(14)].flatMap { try? SecurityInfos(bytes: $0) })
                try aa.perform(over: secure)
                activeAuthentication = .passed
                events(.authenticated(protocol: "Active Authentication"))
            } catch {
                activeAuthentication = .failed(String(describing: error))
            }
        }

        return ChipContents(files: files, statistics: statistics, unavailable: unavailable,
                            accessProtocol: "BAC", extendedLength: reader.usingExtendedLength,
                            readerName: channel.transport.readerName,
                            apdus: channel.apduCount - startCount, seconds: Date().timeIntervalSince(started),
                            chipAuthentication: chipAuthentication, activeAuthentication: activeAuthentication)
    }
}

/// Why a scan did not produce a dump.
public enum ScanError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAPassport(status: StatusWord)
    case accessDenied(status: StatusWord)
    case interrupted(file: LDSFile, bytesRead: Int, cause: String)
    case secureMessagingFailed(file: LDSFile, cause: String)
    case missingRequiredFile(LDSFile)
    case malformedFile(file: LDSFile, cause: String)

    static func isSecureMessagingFailure(_ error: ScanError) -> Bool {
        if case .secureMessagingFailed = error { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notAPassport(let status):
            return "The card is not an ICAO passport (it refused the eMRTD application: \(status))."
        case .accessDenied(let status):
            return "The chip refused the access key (\(status)): the document number, birth date or expiry date does not match this passport. Check them against the MRZ and try again."
        case .interrupted(let file, let bytesRead, _):
            return "The passport left the reader while \(file) was being read (after \(bytesRead) bytes). Nothing was saved. Hold the passport still on the reader and scan again."
        case .secureMessagingFailed(let file, let cause):
            return "Secure messaging failed while reading \(file): \(cause) Nothing was saved."
        case .missingRequiredFile(let file):
            return "The chip did not provide \(file), which every passport has. Nothing was saved."
        case .malformedFile(let file, let cause):
            return "\(file) on the chip is malformed: \(cause)"
        }
    }
}
