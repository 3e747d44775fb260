/// did:key for P-256 (W3C CCG did:key): multicodec p256-pub (0x1200, varint 80 24) in front of
/// the SEC1 compressed point, base58btc with the multibase prefix 'z' — "did:key:zDn…".
public enum DIDKey {
    static let multicodecP256: [UInt8] = [0x80, 0x24]

    public static func did(for key: P256PublicKey) -> String {
        "did:key:z" + Base58.encode(multicodecP256 + key.compressed)
    }

    /// "did:key:z" and the 48 base58 characters of 35 bytes (the multicodec and a compressed
    /// point): every P-256 did:key has this length.
    static let p256Length = 9 + 48

    /// The key a did:key names (a DID URL fragment, "#…", is ignored). Its length is checked
    /// before it is decoded: base58 decoding costs the square of the length, and a token's `iss`
    /// is the sender's to choose (a 219 KB one cost 15 s of CPU before this check).
    public static func publicKey(from did: String) throws -> P256PublicKey {
        let bare = did.split(separator: "#", maxSplits: 1).first.map(String.init) ?? did
        let shown = did.utf8.count > 100 ? "\(did.prefix(60))… (\(did.utf8.count) characters)" : did
        guard bare.utf8.count == p256Length else {
            throw CredentialError.malformed("\(shown) is not a P-256 did:key: one has \(p256Length) characters before any '#'")
        }
        guard bare.hasPrefix("did:key:z"), let bytes = Base58.decode(String(bare.dropFirst(9))) else {
            throw CredentialError.malformed("\(shown) is not a base58btc did:key")
        }
        guard bytes.count == 35, Array(bytes.prefix(2)) == multicodecP256 else {
            throw CredentialError.malformed("\(shown) is not a P-256 did:key")
        }
        return try P256PublicKey(sec1: Array(bytes.dropFirst(2)))
    }

    /// The verification method id of a did:key (the DID, '#', its multibase value).
    public static func verificationMethod(for did: String) -> String {
        "\(did)#\(did.dropFirst("did:key:".count))"
    }
}
