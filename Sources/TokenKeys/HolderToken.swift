import CPKCS11
import Credentials
import PassportCrypto
import FoundationEssentials

/// The holder (master) key on a PKCS#11 token: a YubiKey (PIV), a Nitrokey, a smart card on the
/// reader, SoftHSM. The private key is made on the token, never leaves it, and signs there after
/// the token's PIN; the key store keeps only `holder-token.json` (module, token label and serial,
/// key label and id, public key), so showing the DID or opening a credential needs no PIN.
public final class HolderToken: ES256Signer {
    public static let fileName = "holder-token.json"
    public static let defaultKeyLabel = "passport-holder"

    public let module: String
    public let tokenLabel: String
    public let tokenSerial: String
    public let keyLabel: String
    public let keyID: [UInt8]
    public let publicKey: P256PublicKey
    /// Where the PIN comes from when a signature is needed.
    public var pin: () throws -> String = HolderToken.askPIN

    init(module: String, tokenLabel: String, tokenSerial: String, keyLabel: String, keyID: [UInt8], publicKey: P256PublicKey) {
        self.module = module
        self.tokenLabel = tokenLabel
        self.tokenSerial = tokenSerial
        self.keyLabel = keyLabel
        self.keyID = keyID
        self.publicKey = publicKey
    }

    // MARK: The key store's record

    /// The token holder key recorded in `folder`, or nil when the holder key is a software key.
    public static func recorded(in folder: URL) throws -> HolderToken? {
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        guard let object = try? CanonicalJSON.object([UInt8](data)), let module = object["module"] as? String,
              let token = object["token"] as? [String: Any], let label = token["label"] as? String, let serial = token["serial"] as? String,
              let keyLabel = object["key_label"] as? String, let keyID = (object["key_id"] as? String).flatMap(Base64URL.decode),
              let jwk = object["public_jwk"] as? [String: Any], let publicKey = try? P256PublicKey(jwk: jwk) else {
            throw CredentialError.keyStore("\(url.path) is damaged: run `passport keys init --pkcs11 MODULE` again.")
        }
        return HolderToken(module: module, tokenLabel: label, tokenSerial: serial, keyLabel: keyLabel, keyID: keyID, publicKey: publicKey)
    }

    func record(in folder: URL) throws {
        let object: [String: Any] = [
            "version": 1, "module": module, "token": ["label": tokenLabel, "serial": tokenSerial],
            "key_label": keyLabel, "key_id": Base64URL.encode(keyID), "public_jwk": publicKey.jwk,
            "did": DIDKey.did(for: publicKey),
        ]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = folder.appendingPathComponent(HolderToken.fileName)
        try Data(try CanonicalJSON.data(object)).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    // MARK: Setting up

    /// Finds the P-256 key labelled `keyLabel` on the token (the only one present, or the one in
    /// `slot`), or makes one there, and records it as the holder key of the store in `folder`.
    /// A software holder key already there is kept unless `replace` (it is then renamed, not deleted).
    public static func initialise(module path: String, slot: UInt?, keyLabel: String = defaultKeyLabel, folder: URL,
                                  replace: Bool, pin: () throws -> String = askPIN) throws -> (HolderToken, created: Bool) {
        let software = folder.appendingPathComponent("holder.json")
        if FileManager.default.fileExists(atPath: software.path), !replace {
            let did = (try? CanonicalJSON.object([UInt8](Data(contentsOf: software))))?["did"] as? String ?? software.path
            throw TokenError.holderExists(did)
        }
        let module = try PKCS11(path: path)
        // Uninitialised tokens (SoftHSM always offers a free one) cannot hold a key yet.
        let tokens = try module.tokens().filter { $0.flags & CK_FLAGS(CKF_TOKEN_INITIALIZED) != 0 }
        let token: PKCS11.Token
        if let slot {
            guard let chosen = tokens.first(where: { $0.slot == CK_SLOT_ID(slot) }) else {
                throw TokenError.noToken("slot \(slot) holds no token (slots with a token: \(describe(tokens)))")
            }
            token = chosen
        } else {
            guard !tokens.isEmpty else { throw TokenError.noToken("the module \(path) sees no token: insert one, or initialise it (softhsm2-util --init-token)") }
            guard tokens.count == 1 else { throw TokenError.noToken("several tokens are present (\(describe(tokens))); choose one with --slot") }
            token = tokens[0]
        }
        let session = try PKCS11Session(module: module, token: token, pin: try pin())
        let (handle, created) = try findOrMake(session, label: keyLabel)
        let id = try session.attribute(CK_ATTRIBUTE_TYPE(CKA_ID), of: handle)
        let holder = HolderToken(module: path, tokenLabel: token.label, tokenSerial: token.serial, keyLabel: keyLabel, keyID: id,
                                 publicKey: try publicKey(session, id: id, label: keyLabel))
        if FileManager.default.fileExists(atPath: software.path) {
            try FileManager.default.moveItem(at: software, to: folder.appendingPathComponent("holder.json.replaced-\(Int(Date().timeIntervalSince1970))"))
        }
        try holder.record(in: folder)
        return (holder, created)
    }

    private static func describe(_ tokens: [PKCS11.Token]) -> String {
        tokens.isEmpty ? "none" : tokens.map { "slot \($0.slot): \"\($0.label)\" serial \($0.serial)" }.joined(separator: "; ")
    }

    private static func findOrMake(_ session: PKCS11Session, label: String) throws -> (CK_OBJECT_HANDLE, created: Bool) {
        let existing = try session.find([(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong(CKO_PRIVATE_KEY)), (CK_ATTRIBUTE_TYPE(CKA_LABEL), Array(label.utf8))])
        if let key = existing.first {
            guard try session.attribute(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), of: key) == ulong(CKK_EC),
                  try session.attribute(CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), of: key) == PKCS11Session.prime256v1 else {
                throw TokenError.notP256(token: session.token.label, label: label)
            }
            return (key, false)
        }
        return (try session.generateP256(label: label, id: OpenSSLCrypto.randomBytes(16)).privateKey, true)
    }

    /// The public half, from the public-key object with the same CKA_ID (CKA_EC_POINT: the
    /// uncompressed point, DER OCTET STRING wrapped as PKCS#11 says, or bare as some tokens give it).
    private static func publicKey(_ session: PKCS11Session, id: [UInt8], label: String) throws -> P256PublicKey {
        guard let object = try session.find([(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong(CKO_PUBLIC_KEY)), (CK_ATTRIBUTE_TYPE(CKA_ID), id)]).first else {
            throw TokenError.keyMissing(token: session.token.label, label: "\(label) (its public key object)")
        }
        var point = try session.attribute(CK_ATTRIBUTE_TYPE(CKA_EC_POINT), of: object)
        if point.count == 67, point[0] == 0x04, point[1] == 0x41 { point = Array(point[2...]) }
        guard point.count == 65, let key = try? P256PublicKey(sec1: point) else { throw TokenError.notP256(token: session.token.label, label: label) }
        return key
    }

    /// A CK_ULONG attribute value as the token stores it (native byte order).
    private static func ulong(_ value: UInt) -> [UInt8] {
        withUnsafeBytes(of: CK_ULONG(value)) { Array($0) }
    }

    // MARK: Signing

    /// ES256 on the token: finds it by serial number (slots move when tokens are replugged),
    /// logs in with the PIN, checks the key is still the recorded one, signs SHA-256(message).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let module = try PKCS11(path: module)
        guard let token = try module.tokens().first(where: { $0.serial == tokenSerial && $0.label == tokenLabel }) else {
            throw TokenError.tokenAbsent(label: tokenLabel, serial: tokenSerial)
        }
        let session = try PKCS11Session(module: module, token: token, pin: try pin())
        guard let key = try session.find([(CK_ATTRIBUTE_TYPE(CKA_CLASS), HolderToken.ulong(CKO_PRIVATE_KEY)), (CK_ATTRIBUTE_TYPE(CKA_ID), keyID)]).first else {
            throw TokenError.keyMissing(token: tokenLabel, label: keyLabel)
        }
        guard try HolderToken.publicKey(session, id: keyID, label: keyLabel) == publicKey else { throw TokenError.keyChanged(token: tokenLabel) }
        let signature = try session.signECDSA(digest: OpenSSLCrypto.sha256(message), with: key)
        // A token that answered in another form (DER) or with a wrong signature is caught here,
        // before anything signed with it leaves the process.
        guard signature.count == 64, publicKey.verify(signature: signature, message: message) else {
            throw TokenError.failed(step: "C_Sign (the token's signature does not verify under its public key)", rv: CK_RV(CKR_FUNCTION_FAILED))
        }
        return signature
    }

    /// Whether the recorded token is plugged in now (its module loads and lists it); no PIN.
    public func isPresent() throws -> Bool {
        try PKCS11(path: module).tokens().contains { $0.serial == tokenSerial && $0.label == tokenLabel }
    }

    /// PASSPORT_PKCS11_PIN (scripts, tests), else asked on the terminal without echo.
    public static func askPIN() throws -> String {
        if let pin = ProcessInfo.processInfo.environment["PASSPORT_PKCS11_PIN"] { return pin }
        guard let pin = TerminalSecret.read(prompt: "Token PIN: ") else { throw TokenError.noPIN("no terminal to ask it on; set PASSPORT_PKCS11_PIN") }
        guard !pin.isEmpty else { throw TokenError.noPIN("none was typed") }
        return pin
    }
}

/// The holder key of a key store: on a token when `keys init --pkcs11` put it there, else the
/// store's own (software) key.
public enum HolderKey {
    public static func resolve(_ store: KeyStore) throws -> any ES256Signer {
        if let token = try HolderToken.recorded(in: store.folder) { return token }
        return try store.holderKey()
    }
}
