import LocalFiles
import FoundationEssentials
import LDS
import PassportCrypto

/// Master lists given as flags (`--masterlist`), checked once and kept as indexed trust
/// directories under `$XDG_CACHE_HOME/passport/masterlists/KEY` (`~/.cache/passport`), where
/// KEY is the SHA-256 of the list's bytes and of the signer roots it was checked against: a
/// later run with the same bytes reads only the index and the certificates it needs.
public enum MasterListCache {
    public static var folder: URL {
        XDGDirectories.cacheHome().appendingPathComponent("passport/masterlists")
    }

    /// Adds the master list at `url` to `store`, from the cache when its bytes were checked before.
    static func load(_ url: URL, signerRoots: [Certificate], into store: TrustStore) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PassiveAuthenticationError.fileNotFound(url.path) }
        let bytes = [UInt8](data)
        let key = hexString(OpenSSLCrypto.sha256(bytes + signerRoots.flatMap { OpenSSLCrypto.sha256($0.der) })).lowercased()
        let entry = folder.appendingPathComponent(key)
        if let cached = try? TrustDirectory.open(entry, sourcePrefix: ""), let list = cached.catalog.masterLists.first {
            store.add(directory: cached, note: list.anchor + " [cached]")
            return
        }
        let list = try VerifiedMasterList(bytes: bytes, name: url.lastPathComponent)
        let note = try TrustStore.masterListNote(list, signerRoots: signerRoots)
        if let written = try? write(list, bytes: bytes, note: note, to: entry) {
            store.add(directory: written, note: note)
        } else {
            store.add(verified: list, note: note) // a read-only cache only costs speed
        }
    }

    static func write(_ list: VerifiedMasterList, bytes: [UInt8], note: String, to entry: URL) throws -> TrustDirectory? {
        let editor = try TrustStoreEditor(store: entry)
        var change = TrustChange(file: list.name, kind: "master_list")
        editor.record(list, bytes: bytes, source: list.name, dn: nil, anchor: note, &change)
        try editor.commit()
        return try TrustDirectory.open(entry, sourcePrefix: "")
    }
}
