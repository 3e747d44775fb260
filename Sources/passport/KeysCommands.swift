import ArgumentParser
import PassportCLI
import Credentials
import Foundation

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "The holder's keys.", subcommands: [KeysShowCommand.self])
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
            let store = KeyStore()
            let key = try aud.map { aud in
                aud.hasPrefix("https://") || aud.hasPrefix("http://") ? try store.pairwiseKey(for: aud) : try store.pairwiseKey(forClientID: aud)
            } ?? store.holderKey()
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
