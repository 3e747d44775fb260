import ArgumentParser
import PassportCLI
import Credentials
import FoundationEssentials
import PassportKit
import TokenKeys

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "The holder's keys.", subcommands: [KeysShowCommand.self, KeysInitCommand.self, KeysStatusCommand.self, KeysMigrateCommand.self,
                                                                                  KeysExportCommand.self, KeysImportCommand.self])
}

struct KeysShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the holder key's DID, or the pairwise key for one verifier (--aud: an origin or an OpenID4VP client_id).",
        discussion: "With --jwk, prints a JWK Set of the public key (the form a verifier's issuer trust list takes, e.g. polaris-oid4vp --issuer-jwks).")

    @Option(help: "The verifier: an origin (https://shop.example) or an OpenID4VP client_id (x509_hash:…).") var aud: String?
    @Flag(help: "Print a JWK Set instead of the DID.") var jwk = false

    func run() throws {
        do {
            let store = try userKeyStore()
            let key = try aud.map { aud in
                aud.hasPrefix("https://") || aud.hasPrefix("http://") ? try store.pairwiseKey(for: aud) : try store.pairwiseKey(forClientID: aud)
            } ?? HolderKey.resolve(store)
            let did = DIDKey.did(for: key.publicKey)
            if jwk {
                var entry: [String: Any] = key.publicKey.jwk
                entry["kid"] = DIDKey.verificationMethod(for: did)
                entry["alg"] = "ES256"
                entry["use"] = "sig"
                print(try CanonicalJSON.string(["keys": [entry]]))
            } else {
                print(did)
            }
        } catch {
            throw fail(error, json: false)
        }
    }
}

struct KeysInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the holder key, or (--pkcs11) put it on a hardware token: YubiKey PIV, Nitrokey, a smart card, SoftHSM.",
        discussion: """
        With --pkcs11 MODULE, finds the P-256 key labelled --key-label on the token (the only token \
        present, or the one in --slot) or makes one there; the private key never leaves the token and \
        every credential is signed there after the token's PIN (asked on the terminal, or \
        PASSPORT_PKCS11_PIN for scripts). The key store keeps only the token's name and the public key \
        (holder-token.json). Pairwise keys (one per verifier) stay in the key store.
        """)

    @Option(help: "The token's PKCS#11 module, e.g. /usr/lib/x86_64-linux-gnu/libykcs11.so or /usr/lib/softhsm/libsofthsm2.so.") var pkcs11: String?
    @Option(help: "The token's slot ID (when several tokens are present).") var slot: UInt?
    @Option(help: "The label of the key on the token.") var keyLabel = HolderToken.defaultKeyLabel
    @Flag(help: "Put the holder key on the token even though a software holder key exists (it is renamed, not deleted).") var replace = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let store = try userKeyStore()
            guard let pkcs11 else {
                let key = try HolderKey.resolve(store)
                let did = DIDKey.did(for: key.publicKey)
                if json { printJSON(KeysInitReport(did: did, location: key is HolderToken ? "token" : "key_store", token: nil, created: nil)) } else { print(did) }
                return
            }
            let (token, created) = try HolderToken.initialise(module: pkcs11, slot: slot, keyLabel: keyLabel, folder: store.folder, replace: replace)
            let did = DIDKey.did(for: token.publicKey)
            if json {
                printJSON(KeysInitReport(did: did, location: "token", token: .init(label: token.tokenLabel, serial: token.tokenSerial,
                                                                                  keyLabel: token.keyLabel, module: token.module), created: created))
            } else {
                print(did)
                printError("Holder key \(created ? "made" : "found") on token \"\(token.tokenLabel)\" (serial \(token.tokenSerial)), label \"\(token.keyLabel)\".")
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// `docs/schemas/keys-init.schema.json`; `token` and `created` only with --pkcs11.
struct KeysInitReport: Encodable {
    struct Token: Encodable {
        let label: String
        let serial: String
        let keyLabel: String
        let module: String
        enum CodingKeys: String, CodingKey { case label, serial, keyLabel = "key_label", module }
    }
    let ok = true
    let did: String
    /// "token" or "key_store".
    let location: String
    let token: Token?
    /// With --pkcs11: whether the key was made now (false: an existing key was found).
    let created: Bool?
}

extension TokenError: ReportableError {
    public var code: String {
        switch self {
        case .moduleUnloadable: return "pkcs11_module_unloadable"
        case .noToken: return "no_token"
        case .tokenAbsent: return "token_absent"
        case .wrongPIN: return "wrong_pin"
        case .pinLocked: return "pin_locked"
        case .noPIN: return "no_pin"
        case .keyMissing, .notP256, .keyChanged: return "token_key_unusable"
        case .holderExists: return "holder_key_exists"
        case .failed: return "pkcs11_error"
        }
    }
    /// The token, its PIN and its module are the person's environment, not an invalid document.
    public var exitStatus: Int32 { ExitStatus.environment }
}
