import PassportCrypto
import Foundation
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
            try store.addFolder(TrustStore.defaultFolder)
        }
        let roots = try masterListSigners.flatMap { try Certificate.load(file: $0) }
        for url in masterLists { try store.addMasterList(at: url, signerRoots: roots) }
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
        return report
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
            let digest = OpenSSLCrypto.digest(.sha256, bytes).map { String(format: "%02x", $0) }.joined()
            if digest != entry.sha256.lowercased() || bytes.count != entry.size {
                report.fail("\(file.fileName) differs from the recording (its SHA-256 or size does not match manifest.json): the dump was altered after the scan.")
            }
        }
    }
}
