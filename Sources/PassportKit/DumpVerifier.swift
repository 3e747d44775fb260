import DocumentSecurity
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

public enum DumpVerifier {
    /// Passive authentication of a dump folder.
    public static func verify(dump: DumpFolder, trust: TrustStore, at: Date? = nil,
                              documentSigners: [URL] = []) throws -> PassiveAuthenticationReport {
        let dscs = try documentSigners.flatMap { try Certificate.load(file: $0) }
        return PassiveAuthentication.verify(files: dump.files, trust: trust, at: at, documentSigners: dscs)
    }
}
