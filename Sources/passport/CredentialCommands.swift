import ArgumentParser
import PassportCLI
import Credentials
import PassiveAuth
import Foundation
import LDS
import PassportKit

extension CredentialFormat: ExpressibleByArgument {}
extension CredentialIssuer.ProverChoice: ExpressibleByArgument {}

struct IssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a self-signed credential with derived claims (age_over_18, is_human) from a verified dump.",
        discussion: """
        The dump must pass passive authentication (same trust flags as `passport verify`). The credential
        carries no MRZ data: only age_over_18, is_human, nationality (with --nationality), the trust level
        and how the passport was checked. It is signed by your holder key (did:key, P-256) from the key
        store in \(KeyStore.defaultFolder.path).
        """)

    @Argument(help: "The dump folder.") var dump: String
    @OptionGroup var trustOptions: TrustOptions
    @Option(help: "sd-jwt (SD-JWT VC, default) or jwt (VC-JWT).") var format: CredentialFormat = .sdJWT
    @Option(help: "auto, mopro or none: make a zero-knowledge proof when a prover is available.") var prover: CredentialIssuer.ProverChoice = .auto
    @Option(help: "The mopro Noir prover library (.so); also PASSPORT_MOPRO_LIBRARY or prover.json in the config folder.") var proverLibrary: String?
    @Option(help: "The folder of zkPassport's compiled circuits (nargo JSON, named <package>.json).") var proverCircuits: String?
    @Flag(help: "Also include the holder's nationality.") var nationality = false
    @Option(help: "Write the credential to this file (mode 0600) instead of stdout.") var out: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let trust = try trustOptions.sources.load()
            let outcome = try CredentialIssuer.issue(dump: folder, trust: trust, keyStore: KeyStore(), format: format,
                                                     includeNationality: nationality, prover: prover,
                                                     proverConfiguration: ProverSettings.resolve(library: proverLibrary, circuits: proverCircuits))
            if let out { try writePrivateFile(Data(outcome.credential.utf8), to: out) }
            if let reason = outcome.proverFallbackReason { printError("note: \(reason)") }
            if json {
                printJSON(try IssueReport(outcome, out: out))
            } else if out == nil {
                print(outcome.credential)
            } else {
                print("Credential (\(outcome.format.rawValue), \(outcome.claims.verificationMethod), \(outcome.claims.trustLevel) \(outcome.claims.trustLevelName)) written to \(out ?? "")")
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// Reads a token or credential given inline, as a file path, or "-" for stdin.
func readTokenArgument(_ value: String) throws -> String {
    if value == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
    if FileManager.default.fileExists(atPath: value) { return try String(contentsOfFile: value, encoding: .utf8) }
    return value
}

struct PresentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Present a credential to one verifier, under that verifier's own (pairwise) DID.")

    @Argument(help: "The credential (a file written by `passport issue --out`, the token itself, or - for stdin).") var credential: String
    @Option(help: "The verifier's origin, e.g. https://shop.example.") var aud: String
    @Option(help: "The verifier's nonce.") var nonce: String
    @Option(help: "Claims to disclose, comma-separated.") var disclose = "age_over_18,is_human,trust_level,verification_method"
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let store = KeyStore()
            let holder = try store.holderKey()
            let (claims, format) = try PassportCredential.open(try readTokenArgument(credential), holder: holder.publicKey)
            let pairwise = try store.pairwiseKey(for: aud)
            let chosen = Set(disclose.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            let token = try PassportCredential.present(claims, format: format, disclose: chosen, audience: aud, nonce: nonce, key: pairwise)
            if json {
                printJSON(PresentReport(token: token, format: format, did: DIDKey.did(for: pairwise.publicKey), disclosed: chosen))
            } else {
                print(token)
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}

struct VerifyPresentationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-vp",
        abstract: "Verify a presentation: signatures, audience, nonce, freshness, sd_hash and disclosures.")

    @Argument(help: "The presentation token (or a file holding it, or - for stdin).") var token: String
    @Option(help: "The audience (your origin) the presentation must be for.") var aud: String
    @Option(help: "The nonce you issued.") var nonce: String
    @Option(help: "Maximum age of the presentation in seconds.") var maxAge: Double = 300
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            var verifier = PresentationVerifier(audience: aud, nonce: nonce)
            verifier.maxAge = maxAge
            let result = try verifier.verify(try readTokenArgument(token))
            if json {
                printJSON(try PresentationReport(result))
            } else {
                print("Presentation valid (\(result.format.rawValue)) from \(result.issuer)")
                for (name, value) in result.claims.sorted(by: { $0.key < $1.key }) {
                    let text = (try? CanonicalJSON.string(value)) ?? "\(value)"
                    print("  \(name): \(text)")
                }
            }
        } catch let error as CredentialError {
            printError("error: \(error)")
            if json { printJSON(ErrorReport(code: "invalid_presentation", message: error.description)) }
            throw Exit.invalidDocument
        } catch {
            throw fail(error, json: json)
        }
    }
}
