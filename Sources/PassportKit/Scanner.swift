import CardIO
import ChipProtocols
import PassiveAuth
import PassportCrypto
import FoundationEssentials
import LDS
import MRZ

/// One scan through PC/SC: find the reader, wait for the passport, read it.
public struct ScanRequest: Sendable {
    public var reader: String?
    /// The MRZ access key (BAC, PACE-MRZ); optional when a CAN is given.
    public var accessKey: MRZAccessKey?
    /// The card access number printed on the document (PACE-CAN).
    public var can: String?
    /// Seconds to wait for a passport on the reader.
    public var timeout: Double
    public var allowExtendedLength: Bool
    /// Read through libnfc instead of PC/SC; `nfcDevice` is a connstring (nil: the first device).
    public var useNFC = false
    /// Seconds one exchange with the chip may take before the scan is abandoned.
    public var exchangeTimeout: Double = 20
    public var nfcDevice: String?
    /// Seconds to wait for the passport to come back when it leaves the reader mid-read (0: fail).
    public var resumeWait: Double = 30
    /// The inspection system's chain and key for DG3/DG4 (terminal authentication); nil: none.
    public var terminalCredentials: TerminalCredentials?

    public init(reader: String? = nil, accessKey: MRZAccessKey?, can: String? = nil, timeout: Double = 15, allowExtendedLength: Bool = true) {
        self.reader = reader
        self.accessKey = accessKey
        self.can = can
        self.timeout = timeout
        self.allowExtendedLength = allowExtendedLength
    }
}

public enum PassportScanner {
    /// Reads the passport on a PC/SC reader. `trace`, when given, receives every raw APDU
    /// exchange: they include key material, so it is only for an explicit user request.
    public static func scan(_ request: ScanRequest,
                            trace: (([UInt8], [UInt8]) -> Void)? = nil,
                            summary: ((String) -> Void)? = nil,
                            onExchangeTimeout: (@Sendable () -> Void)? = nil,
                            events: @escaping (ScanEvent) -> Void = { _ in }) throws -> ChipContents {
        try request.accessKey?.validate()
        if let can = request.can, can.isEmpty || !can.allSatisfy(\.isNumber) {
            throw MRZError.invalidField("The CAN is the 6-digit card access number printed on the data page.")
        }
        let transport: CardTransport
        var keepAlive: [AnyObject] = []
        if request.useNFC {
            let context = try NFCContext()
            let device = try context.open(request.nfcDevice)
            events(.waitingForCard(reader: device.name))
            transport = try device.waitForCard(timeout: request.timeout)
            keepAlive = [context, device]
        } else {
            let context = try PCSCContext()
            let reader = try context.resolveReader(request.reader)
            if try !context.isCardPresent(reader: reader) {
                events(.waitingForCard(reader: reader))
                try context.waitForCard(reader: reader, timeout: request.timeout)
            }
            let card = try context.connect(reader: reader)
            transport = card
            keepAlive = [context]
        }
        defer { (transport as? PCSCCard)?.disconnect(); keepAlive.removeAll() }
        let channel = ISO7816Channel(transport: transport, allowExtendedLength: request.allowExtendedLength)
        channel.trace = trace
        channel.summary = summary
        if let onExchangeTimeout { channel.watchdog = ExchangeWatchdog(limit: request.exchangeTimeout, onExpire: onExchangeTimeout) }
        events(.connected(reader: transport.readerName, extendedLength: channel.supportsExtendedLength))
        let reader = PassportReader(channel: channel, events: events)
        reader.resumeWait = request.resumeWait
        reader.terminalCredentials = request.terminalCredentials
        return try reader.read(access: AccessCredentials(mrz: request.accessKey, can: request.can))
    }
}

public enum DumpWriter {
    /// Saves `contents` as a dump folder (atomically, with manifest.json).
    public static func write(_ contents: ChipContents, to destination: URL) throws {
        var entries: [String: DumpManifest.FileEntry] = [:]
        for (file, bytes) in contents.files {
            let stats = contents.statistics[file]
            entries[file.fileName] = DumpManifest.FileEntry(size: bytes.count, sha256: DumpManifest.FileEntry.sha256(of: bytes),
                                                            apdus: stats?.apdus ?? 0, seconds: rounded(stats?.seconds ?? 0))
        }
        let evidence = contents.evidence.json
        entries[ChipEvidence.fileName] = DumpManifest.FileEntry(size: evidence.count, sha256: DumpManifest.FileEntry.sha256(of: evidence),
                                                                apdus: 0, seconds: 0)
        var manifest = DumpManifest(toolVersion: PassportKitVersion.version,
                                    createdAt: iso8601(Date()),
                                    reader: contents.readerName, accessProtocol: contents.accessProtocol,
                                    extendedLength: contents.extendedLength, apdus: contents.apdus,
                                    seconds: rounded(contents.seconds), files: entries,
                                    chipAuthentication: contents.chipAuthentication.status,
                                    activeAuthentication: contents.activeAuthentication.status,
                                    unavailable: contents.unavailable.isEmpty ? nil
                                        : Dictionary(uniqueKeysWithValues: contents.unavailable.map { ($0.key.fileName, $0.value) }))
        manifest.terminalAuthentication = contents.evidence.terminalAuthentication?.status
        manifest.paceFallback = contents.paceFallback.map { ["offered": $0.offered, "failure": $0.failure] }
        if !contents.interruptions.isEmpty {
            manifest.interruptions = contents.interruptions.map {
                DumpManifest.Interruption(file: $0.file.fileName, offset: $0.offset, secondsToNotice: rounded($0.secondsToNotice),
                                          secondsAway: rounded($0.secondsAway), secondsToResume: rounded($0.secondsToResume))
            }
        }
        try DumpFolder.write(files: contents.files, manifest: manifest, evidence: evidence, to: destination)
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// The document fields a scan report shows, from DG1.
public struct DocumentSummary: Sendable, Codable, Equatable {
    public let documentCode: String
    public let issuingState: String
    public let primaryIdentifier: String
    public let secondaryIdentifier: String
    public let documentNumber: String
    public let nationality: String
    /// ISO 8601 dates where the century can be inferred, else YYMMDD.
    public let birthDate: String
    public let sex: String
    public let expiryDate: String
    public let mrzFormat: String

    public init(dg1: DataGroup1, now: Date = Date()) {
        let mrz = dg1.mrz
        documentCode = mrz.documentCode
        issuingState = mrz.issuingState
        primaryIdentifier = mrz.primaryIdentifier
        secondaryIdentifier = mrz.secondaryIdentifier
        documentNumber = mrz.documentNumber
        nationality = mrz.nationality
        birthDate = MRZDate.isoDate(mrz.birthDate, kind: .birth, now: now)
        sex = mrz.sex
        expiryDate = MRZDate.isoDate(mrz.expiryDate, kind: .expiry, now: now)
        mrzFormat = mrz.format.rawValue.uppercased()
    }

    enum CodingKeys: String, CodingKey {
        case documentCode = "document_code"
        case issuingState = "issuing_state"
        case primaryIdentifier = "primary_identifier"
        case secondaryIdentifier = "secondary_identifier"
        case documentNumber = "document_number"
        case nationality
        case birthDate = "birth_date"
        case sex
        case expiryDate = "expiry_date"
        case mrzFormat = "mrz_format"
    }
}
