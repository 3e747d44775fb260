import PassportCrypto
import FoundationEssentials
import LDS

/// Where trust anchors come from for `passport verify` and `passport scan`.
public struct TrustSources: Sendable {
    public var masterLists: [URL] = []
    public var masterListSigners: [URL] = []
    public var cscas: [URL] = []
    public var crls: [URL] = []
    /// Also load `TrustStore.defaultFolder` when it exists.
    public var useDefaultFolder = true

    public init(masterLists: [URL] = [], masterListSigners: [URL] = [], cscas: [URL] = [], crls: [URL] = [],
                useDefaultFolder: Bool = true) {
        self.masterLists = masterLists
        self.masterListSigners = masterListSigners
        self.cscas = cscas
        self.crls = crls
        self.useDefaultFolder = useDefaultFolder
    }

    /// Whether any anchor is configured (flags or a non-empty default folder).
    public var isConfigured: Bool {
        !masterLists.isEmpty || !cscas.isEmpty || (useDefaultFolder && TrustSources.defaultFolderHasFiles)
    }

    static var defaultFolderHasFiles: Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TrustStore.defaultFolder.path)) ?? []
        return names.contains { !$0.hasPrefix(".") }
    }

    public func load() throws -> TrustStore {
        let store = TrustStore()
        if useDefaultFolder && TrustSources.defaultFolderHasFiles {
            // The indexed store `passport trust import` keeps, then loose files put there by hand.
            if let directory = try TrustDirectory.open(TrustStore.defaultFolder) { store.add(directory: directory) }
            try store.addFolder(TrustStore.defaultFolder)
        }
        let roots = try masterListSigners.flatMap { try Certificate.load(file: $0) }
        for url in masterLists { try MasterListCache.load(url, signerRoots: roots, into: store) }
        for url in cscas { try store.addCSCA(at: url) }
        for url in crls { try store.addCRL(at: url) }
        return store
    }
}

/// Passive authentication of a recorded dump folder, plus the check that its files are the ones
/// the scan recorded (`manifest.json`).
public enum DumpVerifier {
    /// Passive authentication of the dump folder at `folder` (any of the naming styles
    /// `DumpFolder` reads).
    public static func verify(folder: URL, trust: TrustStore, now: Date = Date()) throws -> PassiveAuthenticationReport {
        try verify(dump: DumpFolder(reading: folder), trust: trust, now: now)
    }

    /// Passive authentication of a dump folder already read. `at` fixes the time validity is
    /// judged at (default: EF.SOD's signing time); `documentSigners` are DSC files for an EF.SOD
    /// that carries none.
    public static func verify(dump: DumpFolder, trust: TrustStore, at: Date? = nil,
                              documentSigners: [URL] = [], now: Date = Date()) throws -> PassiveAuthenticationReport {
        let dscs = try documentSigners.flatMap { try Certificate.load(file: $0) }
        var report = PassiveAuthentication.verify(files: dump.files, trust: trust, at: at, documentSigners: dscs, now: now)
        checkManifest(dump, &report)
        recheckActiveAuthentication(dump, &report)
        return report
    }

    /// A recorded Active Authentication answer checked again against DG15's key (and DG14's
    /// algorithm): a dump verified later says whether the chip proved its key when it was read.
    static func recheckActiveAuthentication(_ dump: DumpFolder, _ report: inout PassiveAuthenticationReport) {
        guard let json = dump.evidence else { return }
        let recorded: ChipEvidence.ActiveAuthentication?
        do { recorded = try ChipEvidence(json: json).activeAuthentication } catch {
            report.fail("\(error)")
            return
        }
        guard let recorded, let challengeHex = recorded.challenge, let signatureHex = recorded.signature else { return }
        report.activeAuthentication = activeAuthentication(challengeHex: challengeHex, signatureHex: signatureHex, dump: dump)
        if case .failed(let why) = report.activeAuthentication {
            report.fail("The recorded Active Authentication answer does not verify with DG15's key: \(why)")
        }
    }

    static func activeAuthentication(challengeHex: String, signatureHex: String, dump: DumpFolder) -> RecordedCheck {
        guard let challenge = bytes(fromHex: challengeHex), let signature = bytes(fromHex: signatureHex) else {
            return .failed("evidence.json holds a challenge or signature that is not hex")
        }
        guard let dg15 = dump.files[.dataGroup(15)] else { return .failed("the dump has no DG15 to check it with") }
        do {
            let key = try PublicKey(subjectPublicKeyInfo: try DataGroup15(bytes: dg15).subjectPublicKeyInfo)
            let algorithm = dump.files[.dataGroup(14)].flatMap { try? SecurityInfos(bytes: $0) }?.activeAuthenticationInfo?.signatureAlgorithmOID
            try ActiveAuthenticationSignature(key: key, ecdsaAlgorithmOID: algorithm).verify(signature: signature, challenge: challenge)
            return .passed
        } catch {
            return .failed(String(describing: error))
        }
    }

    /// A recorded dump's manifest holds each file's SHA-256 as read from the chip. EF.COM (and
    /// EF.CardAccess) are not covered by the SOD, so this is what catches a change to them.
    static func checkManifest(_ dump: DumpFolder, _ report: inout PassiveAuthenticationReport) {
        guard let manifest = dump.manifest else { return }
        for (file, bytes) in dump.files.sorted(by: { $0.key < $1.key }) {
            guard let entry = manifest.files[file.fileName] else {
                report.warn("\(file.fileName) is not listed in manifest.json.")
                continue
            }
            checkRecorded(file.fileName, bytes, entry, &report)
        }
        // The evidence is covered too: an edited Active Authentication answer must not pass.
        switch (dump.evidence, manifest.files[ChipEvidence.fileName]) {
        case (let bytes?, let entry?): checkRecorded(ChipEvidence.fileName, bytes, entry, &report)
        case (nil, _?): report.fail("\(ChipEvidence.fileName) is listed in manifest.json but missing from the dump.")
        case (_?, nil): report.warn("\(ChipEvidence.fileName) is not listed in manifest.json.")
        case (nil, nil): break
        }
    }

    static func checkRecorded(_ name: String, _ bytes: [UInt8], _ entry: DumpManifest.FileEntry,
                              _ report: inout PassiveAuthenticationReport) {
        if DumpManifest.FileEntry.sha256(of: bytes) != entry.sha256.lowercased() || bytes.count != entry.size {
            report.fail("\(name) differs from the recording (its SHA-256 or size does not match manifest.json): the dump was altered after the scan.")
        }
    }
}
