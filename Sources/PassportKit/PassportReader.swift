import CardIO
import ChipProtocols
import PassiveAuth
import PassportCrypto
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
    /// The secure session was lost while reading `file`; it is re-established and the read resumed.
    case recovering(file: LDSFile, reason: String)
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

/// The passwords a scan may use: the MRZ access key (BAC or PACE) and the CAN (PACE only).
public struct AccessCredentials: Sendable {
    public var mrz: MRZAccessKey?
    public var can: String?
    public init(mrz: MRZAccessKey? = nil, can: String? = nil) {
        self.mrz = mrz
        self.can = can
    }
}

/// Reads a passport chip: EF.CardAccess, access control (PACE or BAC), chip authentication,
/// then EF.COM, every data group it lists, and EF.SOD under secure messaging.
public final class PassportReader {
    private let channel: ISO7816Channel
    private let events: (ScanEvent) -> Void

    public init(channel: ISO7816Channel, events: @escaping (ScanEvent) -> Void = { _ in }) {
        self.channel = channel
        self.events = events
    }

    static let applicationID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
    /// Sessions re-established per scan before giving up.
    static let maximumRecoveries = 3

    /// The chip authentication public key (an uncompressed point) of EF.CardSecurity, which is
    /// a CMS SignedData over SecurityInfos.
    static func chipAuthenticationKey(inCardSecurity bytes: [UInt8]?) throws -> [UInt8] {
        guard let bytes else { throw SecurityError.chipAuthenticationFailed("EF.CardSecurity could not be read") }
        let cms = try CMSSignedData(contentInfo: bytes[...])
        guard let content = cms.content, let info = try SecurityInfos(bytes: content).chipAuthenticationPublicKeys.first else {
            throw SecurityError.chipAuthenticationFailed("EF.CardSecurity has no chip authentication public key")
        }
        // SubjectPublicKeyInfo { algorithm, BIT STRING (00 ‖ point) }
        let parts = try TLV.parse(info.subjectPublicKeyInfo).children()
        guard parts.count == 2, parts[1].tag == 0x03, parts[1].value.first == 0 else {
            throw SecurityError.chipAuthenticationFailed("EF.CardSecurity's public key is malformed")
        }
        return Array(parts[1].value.dropFirst())
    }

    /// Opens a new session after one was lost (a failed chip authentication ends it): PACE again
    /// with the same password when PACE was used, else BAC; then the application is selected,
    /// unless the file being read lies in the master file (EF.CardSecurity after PACE).
    private func reopen(access: AccessCredentials, pace: PACEInfo?, selectApplication: Bool = true) throws
        -> (SecureMessagingChannel, ChipFileReader)
    {
        let secure: SecureMessagingChannel
        if let pace {
            let password: PACE.Password = access.can.map { .can($0) } ?? .mrz(access.mrz!)
            channel.retriesWrongLength = true
            let result = try PACE(info: pace, password: password).perform(over: channel)
            channel.retriesWrongLength = false
            secure = SecureMessagingChannel(over: channel, keys: result.keys, ssc: result.ssc)
            if selectApplication {
                let select = try secure.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationID))
                guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }
            }
        } else {
            guard let key = access.mrz else { throw ScanError.canNeedsPACE }
            let session = try runBAC(key)
            secure = SecureMessagingChannel(over: channel, keys: session.keys, ssc: session.ssc)
        }
        return (secure, ChipFileReader(channel: secure, maxShortPlaintext: secure.keys.maxShortResponsePlaintext,
                                       maxExtendedPlaintext: secure.keys.maxExtendedResponsePlaintext))
    }

    /// SELECT the eMRTD application (plain), then BAC.
    private func runBAC(_ accessKey: MRZAccessKey) throws -> BAC.Session {
        channel.retriesWrongLength = true
        let select = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationID))
        guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }
        events(.authenticating(protocol: "BAC"))
        do {
            let session = try BAC(accessKey: accessKey).authenticate(over: channel)
            channel.retriesWrongLength = false
            events(.authenticated(protocol: "BAC"))
            return session
        } catch SecurityError.accessDenied(let status) {
            throw ScanError.accessDenied(status: status)
        }
    }

    /// EF.CardAccess from the master file, read plainly before any access control (absent on
    /// BAC-only chips).
    private func readCardAccess() throws -> [UInt8]? {
        var response = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | LDSFile.cardAccess.shortFID, p2: 0, ne: 256))
        if !response.status.isSuccess && response.status != .endOfFileWarning && response.status != .fileNotFound {
            // Maybe an application is still selected from an earlier session: select the master file.
            let mf = try channel.transmit(CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00]))
            guard mf.status.isSuccess else { return nil }
            response = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0x80 | LDSFile.cardAccess.shortFID, p2: 0, ne: 256))
        }
        guard response.status.isSuccess || response.status == .endOfFileWarning, !response.data.isEmpty,
              let total = try? TLV.totalLength(ofObjectStartingWith: response.data[...]), total <= response.data.count
        else { return nil }
        return Array(response.data.prefix(total))
    }

    public func read(accessKey: MRZAccessKey) throws -> ChipContents {
        try read(access: AccessCredentials(mrz: accessKey))
    }

    public func read(access: AccessCredentials) throws -> ChipContents {
        let started = Date()
        let startCount = channel.apduCount
        let accessKey = access.mrz

        // Access control: PACE when EF.CardAccess offers a profile we support, else BAC. With the
        // MRZ password, a failed PACE falls back to BAC (chips that offer both accept either).
        let cardAccess = try readCardAccess()
        let offered = cardAccess.flatMap { try? SecurityInfos(bytes: $0) }?.paceInfos ?? []
        let usable = offered.first { (try? PACE(info: $0, password: .can(""))) != nil }
        var secure: SecureMessagingChannel
        var accessProtocol = "BAC"
        var paceResult: PACE.Result?
        if let usable, access.can != nil || accessKey != nil {
            let password: PACE.Password = access.can.map { .can($0) } ?? .mrz(accessKey!)
            do {
                events(.authenticating(protocol: "PACE"))
                let result = try PACE(info: usable, password: password).perform(over: channel)
                channel.retriesWrongLength = false
                secure = SecureMessagingChannel(over: channel, keys: result.keys, ssc: result.ssc)
                accessProtocol = result.description
                paceResult = result
                events(.authenticated(protocol: "PACE"))
            } catch let error as SecurityError {
                guard let accessKey, access.can == nil else {
                    if case .accessDenied(let status) = error { throw ScanError.passwordRefused(password: password.name, status: status) }
                    throw ScanError.secureMessagingFailed(file: .cardAccess, cause: error.description)
                }
                let session = try runBAC(accessKey)
                secure = SecureMessagingChannel(over: channel, keys: session.keys, ssc: session.ssc)
            }
        } else {
            guard let accessKey else { throw ScanError.canNeedsPACE }
            let session = try runBAC(accessKey)
            secure = SecureMessagingChannel(over: channel, keys: session.keys, ssc: session.ssc)
        }
        var reader = ChipFileReader(channel: secure,
                                    maxShortPlaintext: secure.keys.maxShortResponsePlaintext,
                                    maxExtendedPlaintext: secure.keys.maxExtendedResponsePlaintext)

        var files: [LDSFile: [UInt8]] = [:]
        var statistics: [LDSFile: FileReadStatistics] = [:]
        var unavailable: [LDSFile: String] = [:]

        // A lost session (bad MAC, replayed answer, the chip ending secure messaging) is
        // re-established and the file read resumes where it stopped, a few times per scan.
        var recoveries = 0
        func readFile(_ file: LDSFile, recover: Bool = true) throws {
            let fileStart = Date()
            let before = channel.apduCount
            var outcome: ChipFileReader.Outcome
            var lastRead = 0
            var resume: [UInt8] = []
            while true {
                do {
                    outcome = try reader.read(file, resumingAfter: resume) { read, total in
                        lastRead = read
                        self.events(.reading(file: file, bytesRead: read, totalBytes: total))
                    }
                    break
                } catch let error as CardIOError where error == .cardRemoved {
                    throw ScanError.interrupted(file: file, bytesRead: lastRead, cause: error.description)
                } catch let error as SecurityError {
                    guard recover, recoveries < PassportReader.maximumRecoveries else {
                        throw ScanError.secureMessagingFailed(file: file, cause: error.description)
                    }
                    recoveries += 1
                    resume = reader.partial
                    events(.recovering(file: file, reason: error.description))
                    (secure, reader) = try reopen(access: access, pace: paceResult?.info,
                                                  selectApplication: !file.isInMasterFile)
                }
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

        if let cardAccess { files[.cardAccess] = cardAccess }
        var chipAuthentication = AuthenticationOutcome.notSupported("the chip has no DG14")
        if let paceResult {
            // PACE-CAM proves the chip genuine with EF.CardSecurity's key; read it from the master
            // file before selecting the application.
            if paceResult.chipAuthenticationMapping != nil {
                try readFile(.cardSecurity)
                do {
                    let key = try PassportReader.chipAuthenticationKey(inCardSecurity: files[.cardSecurity])
                    try PACE.verifyChipAuthenticationMapping(paceResult, chipPublicKey: key)
                    chipAuthentication = .passed
                } catch {
                    chipAuthentication = .failed("PACE-CAM: \(error)")
                }
            }
            let select = try secure.transmit(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationID))
            guard select.status.isSuccess else { throw ScanError.notAPassport(status: select.status) }
        }

        try readFile(.com)
        guard let comBytes = files[.com] else { throw ScanError.missingRequiredFile(.com) }
        let com: EFCOM
        do { com = try EFCOM(bytes: comBytes) } catch {
            throw ScanError.malformedFile(file: .com, cause: String(describing: error))
        }
        // DG14 first: Chip Authentication replaces the session keys before the rest is read
        // (not after PACE-CAM, which has authenticated the chip already).
        // DG14 and DG15 are looked for even when EF.COM omits them (some chips list them
        // only in EF.SOD, or nowhere): they decide chip and active authentication.
        if chipAuthentication != .passed {
            try readFile(.dataGroup(14))
            if !com.dataGroups.contains(.dataGroup(14)) { unavailable[.dataGroup(14)] = nil }
            if let dg14 = files[.dataGroup(14)] {
                // The next file is read under the new keys: a chip without the private key (a copy)
                // cannot answer it with a valid MAC, which is the proof CA gives. One corrupted
                // answer must not brand a genuine chip a copy: a failure is retried once.
                let next = com.dataGroups.sorted().first { $0 != .dataGroup(14) } ?? .sod
                for attempt in 1...2 {
                    do {
                        events(.authenticating(protocol: "Chip Authentication"))
                        let ca = try ChipAuthentication(dg14: try SecurityInfos(bytes: dg14))
                        secure = try ca.perform(over: secure, raw: channel)
                        reader = ChipFileReader(channel: secure, maxShortPlaintext: secure.keys.maxShortResponsePlaintext,
                                                maxExtendedPlaintext: secure.keys.maxExtendedResponsePlaintext)
                        try readFile(next, recover: false)
                        chipAuthentication = .passed
                        events(.authenticated(protocol: "Chip Authentication"))
                        break
                    } catch let error where error is SecurityError || (error as? ScanError).map(ScanError.isSecureMessagingFailure) == true {
                        files[next] = nil
                        let cause: String
                        if case .secureMessagingFailed(_, let why)? = error as? ScanError { cause = why } else { cause = String(describing: error) }
                        chipAuthentication = .failed("under the chip-authentication keys the chip's answer failed "
                            + "(\(attempt == 1 ? "once" : "twice")): \(cause)")
                        // The session is gone either way: open a new one with the access key and go on.
                        (secure, reader) = try reopen(access: access, pace: paceResult?.info)
                        if attempt == 1 { events(.recovering(file: next, reason: "chip authentication failed once; trying it again")) }
                    }
                }
            } else if let reason = unavailable[.dataGroup(14)] {
                // A chip that lists DG14 and withholds it must not escape chip authentication.
                chipAuthentication = .failed("EF.COM lists DG14 but the chip did not give it: \(reason)")
            }
        }
        for file in com.dataGroups.sorted() where files[file] == nil && unavailable[file] == nil { try readFile(file) }
        if !com.dataGroups.contains(.dataGroup(15)) {
            try readFile(.dataGroup(15))
            unavailable[.dataGroup(15)] = nil // an unlisted file that is absent is no finding
        }
        try readFile(.sod)
        // ICAO 9303-10: every eMRTD holds DG1 (the MRZ) and DG2 (the face); a dump without them is
        // not a passport's contents, whatever the chip says.
        for required in [LDSFile.sod, .dataGroup(1), .dataGroup(2)] where files[required] == nil {
            if required == .dataGroup(2) && !com.dataGroups.contains(.dataGroup(2)) { continue }
            throw ScanError.missingRequiredFile(required, reason: unavailable[required])
        }

        var activeAuthentication = AuthenticationOutcome.notSupported("the chip has no DG15")
        if let reason = unavailable[.dataGroup(15)] {
            activeAuthentication = .failed("EF.COM lists DG15 but the chip did not give it: \(reason)")
        }
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
                            accessProtocol: accessProtocol, extendedLength: reader.usingExtendedLength,
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
    case missingRequiredFile(LDSFile, reason: String? = nil)
    case passwordRefused(password: String, status: StatusWord)
    case canNeedsPACE
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
        case .passwordRefused(let password, let status):
            if status.value == 0x6983 {
                return "The chip has blocked the \(password) password after too many wrong attempts (6983)."
            }
            let code = String(format: "%04X", status.value)
            let tries = status.sw1 == 0x63 && status.sw2 & 0xF0 == 0xC0 ? " \(status.sw2 & 0x0F) tries left before it is blocked." : ""
            return "The chip refused the \(password) (\(code)): check it and try again.\(tries)"
        case .canNeedsPACE:
            return "This chip does not offer PACE, so the CAN cannot be used. Give the MRZ (--mrz, or --document-number/--birth/--expiry) instead."
        case .missingRequiredFile(let file, let reason):
            return "The chip did not provide \(file), which every passport has\(reason.map { " (\($0))" } ?? ""). Nothing was saved."
        case .malformedFile(let file, let cause):
            return "\(file) on the chip is malformed: \(cause)"
        }
    }
}
