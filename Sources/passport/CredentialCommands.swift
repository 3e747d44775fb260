import ArgumentParser
import PassportCLI
import Credentials
import PassiveAuth
import Foundation
import LDS
import PassportKit
import OpenID4VP
import OpenID4VPClient
import TokenKeys

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
        store in \(KeyStore.defaultFolder.path), or on your token after `passport keys init --pkcs11`.
        What will be signed is shown and you are asked first (--yes in scripts; a closed stdin signs nothing).
        """)

    @Argument(help: "The dump folder.") var dump: String
    @OptionGroup var trustOptions: TrustOptions
    @Option(help: "sd-jwt (SD-JWT VC, default) or jwt (VC-JWT).") var format: CredentialFormat = .sdJWT
    @Option(help: "auto, mopro or none: make a zero-knowledge proof when a prover is available.") var prover: CredentialIssuer.ProverChoice = .auto
    @Option(help: "The mopro Noir prover library (.so); also PASSPORT_MOPRO_LIBRARY or prover.json in the config folder.") var proverLibrary: String?
    @Option(help: "The folder of zkPassport's compiled circuits (nargo JSON, named <package>.json).") var proverCircuits: String?
    @Flag(help: "Also include the holder's nationality.") var nationality = false
    @Option(help: "Write the credential to this file (mode 0600) instead of stdout.") var out: String?
    @Flag(help: "Sign without asking (scripts). Without it, the answer is asked on stdin; closed stdin signs nothing.") var yes = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let trust = try trustOptions.sources.load()
            let store = userKeyStore()
            let outcome = try CredentialIssuer.issue(dump: folder, trust: trust, holder: { try HolderKey.resolve(store) }, format: format,
                                                     includeNationality: nationality, prover: prover,
                                                     proverConfiguration: ProverSettings.resolve(library: proverLibrary, circuits: proverCircuits),
                                                     confirm: { claims, did in
                let location = (try? HolderToken.recorded(in: store.folder)).map { "on token \"\($0.tokenLabel)\"" } ?? "in \(store.folder.path)"
                try confirm(["The passport passed verification. A \(format.rawValue) credential will be signed by your holder key \(did) (\(location)):",
                             "  " + claims.summary,
                             "  valid until \(ISO8601DateFormatter().string(from: claims.expiry))"],
                            question: "Sign", action: "signed", yes: yes)
            })
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
        abstract: "Present a credential to one verifier, under that verifier's own (pairwise) DID.",
        discussion: """
        With --request, answers an OpenID4VP 1.0 request: the openid4vp:// link (or haip-vp://, or
        client_id=…&request_uri=…) a verifier shows, a file holding it, or a saved request object. The
        request object is fetched (HTTPS, the system's trust store plus --verifier-ca), its signature
        checked (client_id x509_hash: or x509_san_dns:, certificates chained to a trusted anchor;
        redirect_uri: unsigned), its DCQL query answered with the claims it asks for and you allow
        (--allow), after you confirm (--yes in scripts). The vp_token goes to the response_uri
        (direct_post, or direct_post.jwt encrypted with ECDH-ES to the verifier's key).
        Without --request, --aud and --nonce bind a presentation printed on stdout.
        """)

    @Argument(help: "The credential (a file written by `passport issue --out`, the token itself, or - for stdin).") var credential: String
    @Option(help: "The verifier's origin, e.g. https://shop.example (without --request).") var aud: String?
    @Option(help: "The verifier's nonce (without --request).") var nonce: String?
    @Option(help: "Claims to disclose, comma-separated (without --request).") var disclose = "age_over_18,is_human,trust_level,verification_method"
    @Option(help: "An OpenID4VP request: openid4vp:// URL, client_id=…&request_uri=…, a request object, or a file holding one.") var request: String?
    @Option(name: .customLong("verifier-ca"), help: "A PEM file of CA certificates trusted for the verifier's TLS and request-object certificates (repeatable).") var verifierCA: [String] = []
    @Option(help: "Claims you agree to disclose to a --request verifier, comma-separated; a request asking for more is refused.") var allow = "age_over_18,is_human"
    @Flag(help: "Allow an http:// request_uri and response_uri on loopback (tests only).") var insecureLoopback = false
    @Option(help: "Seconds each exchange with a --request verifier may take in all, connection and TLS included.") var httpTimeout: Double = 30
    @Flag(help: "Sign and send without asking (scripts). Without it, the answer is asked on stdin; closed stdin releases nothing.") var yes = false
    @Option(help: "Also write the checked request object to this file (for `passport verify-vp --request`).") var saveRequest: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let store = userKeyStore()
            let holder = try HolderKey.resolve(store)
            let (claims, format) = try PassportCredential.open(try readTokenArgument(credential), holder: holder.publicKey)
            if let request {
                try answer(request, claims: claims, store: store)
                return
            }
            guard let aud, let nonce else { throw OpenID4VPError.usage("give --request, or both --aud and --nonce") }
            let chosen = Set(disclose.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            // Asked before the pairwise key exists: a declined verifier leaves no key file behind.
            try confirm(["A presentation for \(aud) (nonce \(nonce)) will be signed under your pairwise DID for that verifier,",
                         "disclosing: \(claims.claims.map(\.0).filter(chosen.contains).joined(separator: ", "))."],
                        question: "Sign", action: "signed", yes: yes)
            let pairwise = try store.pairwiseKey(for: aud)
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

    func answer(_ requestArgument: String, claims: DerivedClaims, store: KeyStore) throws {
        guard aud == nil, nonce == nil else { throw OpenID4VPError.usage("--aud and --nonce come from the request; do not give them with --request") }
        let text = try readTokenArgument(requestArgument)
        var policy = AuthorizationRequest.Policy()
        policy.anchors = verifierCA
        policy.insecureLoopback = insecureLoopback
        guard httpTimeout > 0, httpTimeout <= 600 else { throw OpenID4VPError.usage("--http-timeout must be between 0 and 600 seconds") }
        var http = try VerifierHTTP(anchors: verifierCA, deadline: httpTimeout, connectTimeout: min(10, httpTimeout))
        http.allowPlainHTTP = insecureLoopback
        let request = try Wallet.resolve(text, policy: policy, http: http)
        if let saveRequest, let object = request.requestObject { try writePrivateFile(Data(object.utf8), to: saveRequest) }
        let memory = AnsweredRequests(folder: store.folder)
        try memory.check(request)

        var held: [String: Any] = ["age_over_18": claims.ageOver18, "is_human": claims.isHuman]
        if let nationality = claims.nationality { held["nationality"] = nationality }
        let agreed = Set(allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let selection = try DCQLSelection.select(request.dcql, vct: PassportCredential.vct, held: held, agreed: agreed)

        let who = request.signer.map { "\(request.clientID) (certificate \($0.subject)\($0.dnsNames.isEmpty ? "" : ", DNS \($0.dnsNames.joined(separator: ", "))"))" }
            ?? "\(request.clientID) (unsigned request)"
        let what = selection.answers.map { "\($0.claims.isEmpty ? "no claim" : $0.claims.joined(separator: ", ")) (query \($0.queryID))" }.joined(separator: "; ")
        try confirm(["Verifier \(who) asks for: \(what).",
                     "The answer, signed under your pairwise DID for this verifier, goes to \(request.responseURI.absoluteString) (\(request.responseMode)\(request.responseMode == "direct_post.jwt" ? ", encrypted \(request.encryption.rawValue)" : ""))."],
                    question: "Send", action: "sent", yes: yes)

        let pairwise = try store.pairwiseKey(forClientID: request.clientID)
        var vpToken: [String: [String]] = [:]
        for answer in selection.answers {
            vpToken[answer.queryID] = [try PassportCredential.present(claims, format: .sdJWT, disclose: Set(answer.claims),
                                                                      audience: request.clientID, nonce: request.nonce, key: pairwise)]
        }
        let outcome: Wallet.Outcome
        do {
            outcome = try Wallet.send(request, vpToken: vpToken, http: http)
        } catch let error as OpenID4VPError {
            if case .verifierRefused = error { memory.record(request) }
            throw error
        }
        memory.record(request)
        let disclosed = Dictionary(uniqueKeysWithValues: selection.answers.map { ($0.queryID, $0.claims) })
        if json {
            printJSON(PresentRequestReport(
                verifier: .init(clientID: request.clientID, certificateSubject: request.signer?.subject, dnsNames: request.signer?.dnsNames ?? []),
                responseURI: request.responseURI.absoluteString, responseMode: request.responseMode,
                encryption: request.responseMode == "direct_post.jwt" ? request.encryption.rawValue : nil,
                nonce: request.nonce, disclosed: disclosed, did: DIDKey.did(for: pairwise.publicKey), sent: true,
                verifierStatus: outcome.status, redirectURI: outcome.redirectURI))
        } else {
            print("Sent \(selection.disclosed.sorted().joined(separator: ", ")) to \(request.clientID): the verifier accepted it (HTTP \(outcome.status))"
                  + (outcome.redirectURI.map { "; continue at \($0)" } ?? ""))
        }
    }
}

extension OpenID4VPError: ReportableError {}

struct VerifyPresentationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-vp",
        abstract: "Verify a presentation: signatures, audience, nonce, freshness, sd_hash and disclosures.",
        discussion: """
        With --request FILE (the OpenID4VP request object you sent, or its JSON payload), TOKEN is a
        vp_token: a JSON object keyed by DCQL credential query id. Each presentation must be for the
        request's client_id and nonce, of a vct the query names, and disclose what it asked for and
        no more.
        """)

    @Argument(help: "The presentation token, or with --request the vp_token JSON (or a file holding it, or - for stdin).") var token: String
    @Option(help: "The audience (your origin) the presentation must be for (without --request).") var aud: String?
    @Option(help: "The nonce you issued (without --request).") var nonce: String?
    @Option(help: "The OpenID4VP request the vp_token answers (a file: request object or its JSON payload).") var request: String?
    @Option(help: "With --request: TOKEN is a direct_post.jwt response (JWE), opened with this private P-256 JWK (a file).") var decryptionKey: String?
    @Option(help: "Maximum age of the presentation in seconds.") var maxAge: Double = 300
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            if let request {
                guard aud == nil, nonce == nil else { throw OpenID4VPError.usage("--aud and --nonce come from the request; do not give them with --request") }
                var verifier = try VPTokenVerifier(request: try readTokenArgument(request))
                verifier.maxAge = maxAge
                let given = try readTokenArgument(token)
                let vpToken: [String: [String]]
                if let decryptionKey {
                    guard let data = FileManager.default.contents(atPath: decryptionKey),
                          let jwk = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                        throw OpenID4VPError.usage("cannot read the private JWK \(decryptionKey)")
                    }
                    vpToken = try verifier.open(response: given, key: try P256PrivateKeyHandle(jwk: jwk))
                } else {
                    vpToken = try VPTokenVerifier.parseToken(given)
                }
                let results = try verifier.verify(vpToken)
                if json {
                    var credentials: [String: [VPTokenReport.Presentation]] = [:]
                    for result in results {
                        credentials[result.queryID] = try result.presentations.map {
                            VPTokenReport.Presentation(issuer: $0.issuer, claims: try JSONValue.object($0.claims.map { ($0.key, $0.value) }))
                        }
                    }
                    printJSON(VPTokenReport(clientID: verifier.clientID, nonce: verifier.nonce, credentials: credentials))
                } else {
                    print("vp_token valid for \(verifier.clientID)")
                    for result in results {
                        for presentation in result.presentations {
                            print("  \(result.queryID) from \(presentation.issuer)")
                            for (name, value) in presentation.claims.sorted(by: { $0.key < $1.key }) {
                                print("    \(name): \((try? CanonicalJSON.string(value)) ?? "\(value)")")
                            }
                        }
                    }
                }
                return
            }
            guard let aud, let nonce else { throw OpenID4VPError.usage("give --aud and --nonce, or --request") }
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
