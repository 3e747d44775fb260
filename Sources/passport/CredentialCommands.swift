import ArgumentParser
import PassportCLI
import Credentials
import PassiveAuth
import FoundationEssentials
import LocalFiles
import JSONCore
import TextSupport
import LDS
import PassportKit
import OpenID4VP
import OpenID4VPClient
import TokenKeys
import QRCodes

extension CredentialFormat: ExpressibleByArgument {}
extension CredentialIssuer.ProverChoice: ExpressibleByArgument {}

struct IssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a credential with derived claims (age_over_18, is_human) from a verified dump.",
        discussion: """
        The dump must pass passive authentication (same trust flags as `passport verify`). The credential
        carries no MRZ data: only age_over_18, is_human, nationality (with --nationality) and how the
        passport was checked. Without --issuer-key it is self-issued (level L1: a verifier sees only your
        own word), signed by your holder key (did:key, P-256) from the key store in
        \(KeyStore.defaultFolder.path), or on your token after `passport keys init --pkcs11`. With
        --issuer-key and --issuer-chain an institution that checked the chip signs it (level L2 for
        verifiers that trust the institution's CA): --batch instances, each bound to a new key of the
        key store, so that each verifier is shown its own. What will be signed is shown and you are asked
        first (--yes in scripts; a closed stdin signs nothing).
        """)

    @Argument(help: "The dump folder.") var dump: String
    @OptionGroup var trustOptions: TrustOptions
    @Option(help: "sd-jwt (SD-JWT VC, default) or jwt (VC-JWT).") var format: CredentialFormat = .sdJWT
    @Option(help: "auto, mopro or none: make a zero-knowledge proof when a prover is available.") var prover: CredentialIssuer.ProverChoice = .auto
    @Option(help: "The mopro Noir prover library (.so); also PASSPORT_MOPRO_LIBRARY or prover.json in the config folder.") var proverLibrary: String?
    @Option(help: "The folder of zkPassport's compiled circuits (nargo JSON, named <package>.json).") var proverCircuits: String?
    @Flag(help: "Also include the holder's nationality.") var nationality = false
    @Option(help: "Sign as an institution: its P-256 private key (PEM).") var issuerKey: String?
    @Option(help: "The institution's certificate chain (PEM, its own certificate first), carried as x5c.") var issuerChain: String?
    @Option(help: "The institution's iss (default: its certificate's URI subjectAltName).") var issuerId: String?
    @Option(help: "With --issuer-key: how many instances to sign, one per verifier the holder will show it to.") var batch = 10
    @Option(help: "With --issuer-key: days the credential is valid from the day of issuance.") var validityDays = 30
    @Option(help: "Write the credential to this file (mode 0600) instead of stdout.") var out: String?
    @Flag(help: "Sign without asking (scripts). Without it, the answer is asked on stdin; closed stdin signs nothing.") var yes = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let trust = try trustOptions.sources.load()
            let store = try userKeyStore()
            var institution: InstitutionIssuer?
            switch (issuerKey, issuerChain) {
            case (let key?, let chain?): institution = try IssuerTrust.institution(keyFile: key, chainFile: chain, issuer: issuerId)
            case (nil, nil): guard issuerId == nil else { throw OpenID4VPError.usage("--issuer-id goes with --issuer-key and --issuer-chain") }
            default: throw OpenID4VPError.usage("give both --issuer-key and --issuer-chain")
            }
            let outcome = try CredentialIssuer.issue(dump: folder, trust: trust, holder: { try HolderKey.resolve(store) }, format: format,
                                                     includeNationality: nationality, prover: prover,
                                                     institution: institution, batch: batch, validity: TimeInterval(validityDays) * 86_400,
                                                     instanceKeys: { count in try (0..<count).map { _ in try store.newInstanceKey().publicKey } },
                                                     proverConfiguration: ProverSettings.resolve(library: proverLibrary, circuits: proverCircuits),
                                                     confirm: { claims, did in
                if let institution {
                    try confirm(["The passport passed verification. As the institution \(institution.issuer), \(batch) instance(s) of an SD-JWT credential (level L2 for verifiers that trust your CA) will be signed, each bound to a new key in \(store.folder.path):",
                                 "  " + claims.summary,
                                 "  valid \(validityDays) day(s) from today"],
                                question: "Sign", action: "signed", yes: yes)
                    return
                }
                let location = (try? HolderToken.recorded(in: store.folder)).map { "on token \"\($0.tokenLabel)\"" } ?? "in \(store.folder.path)"
                try confirm(["The passport passed verification. A self-issued \(format.rawValue) credential (level L1: verifiers see your own word, not the passport's) will be signed by your holder key \(did) (\(location)):",
                             "  " + claims.summary,
                             "  presentable until the passport expires, \(iso8601(claims.expiry)) (presentations do not carry this date)"],
                            question: "Sign", action: "signed", yes: yes)
            })
            if let out { try writePrivateFile(Data(outcome.credential.utf8), to: out) }
            if let reason = outcome.proverFallbackReason { printError("note: \(reason)") }
            if json {
                printJSON(try IssueReport(outcome, out: out))
            } else if out == nil {
                print(outcome.credential)
            } else {
                print("Credential (\(outcome.format.rawValue), \(outcome.claims.verificationMethod), level \(outcome.level.rawValue) \(outcome.level.name)"
                      + (outcome.issuer.map { ", issuer \($0), \(outcome.instances) instances" } ?? "") + ") written to \(out ?? "")")
            }
        } catch {
            throw fail(error, json: json)
        }
    }
}

/// Reads a token or credential given inline, as a file path, or "-" for stdin.
func readTokenArgument(_ value: String) throws -> String {
    if value == "-" { return String(decoding: try StandardStreams.readInput(), as: UTF8.self) }
    if FileManager.default.fileExists(atPath: value) { return String(decoding: try StandardStreams.readFile(value), as: UTF8.self) }
    return value
}

/// Like `readTokenArgument`, but reads at most `limit` bytes of a file or stdin: nil when there
/// is more, which is then left unread.
func readBoundedArgument(_ value: String, limit: Int) throws -> String? {
    let bytes: [UInt8]
    if value == "-" {
        bytes = try StandardStreams.readInput(limit: limit)
    } else if FileManager.default.fileExists(atPath: value) {
        bytes = try StandardStreams.readFile(value, limit: limit)
    } else {
        return value.utf8.count > limit ? nil : value
    }
    return bytes.count > limit ? nil : String(decoding: bytes, as: UTF8.self)
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
        --request-qr IMAGE or --request-qr-camera DEVICE|VIDEO read that link from a photo of the
        verifier's QR code or from a camera (V4L2, e.g. /dev/video0) or video file, then go on as
        --request; a QR code that is not an openid4vp:// or haip-vp:// link is refused, nothing sent.
        Without --request, --aud and --nonce bind a presentation printed on stdout; --qr shows it as
        a QR code instead (error correction M; one code holds 2331 bytes, a larger presentation is
        refused, never split: disclose fewer claims) and --qr-out FILE.png|FILE.svg writes it as an
        image. With --request the presentation goes to the verifier's response_uri and is not shown.
        """)

    @Argument(help: "The credential (a file written by `passport issue --out`, the token itself, or - for stdin).") var credential: String
    @Option(help: "The verifier's origin, e.g. https://shop.example (without --request).") var aud: String?
    @Option(help: "The verifier's nonce (without --request).") var nonce: String?
    @Option(help: "Claims to disclose, comma-separated (without --request).") var disclose = "age_over_18,is_human"
    @Option(help: "An OpenID4VP request: openid4vp:// URL, client_id=…&request_uri=…, a request object, or a file holding one.") var request: String?
    @Option(name: .customLong("verifier-ca"), help: "A PEM file of CA certificates trusted for the verifier's TLS and request-object certificates (repeatable).") var verifierCA: [String] = []
    @Option(help: "Claims you agree to disclose to a --request verifier, comma-separated; a request asking for more is refused.") var allow = "age_over_18,is_human"
    @Flag(help: "Allow an http:// request_uri and response_uri on loopback (tests only).") var insecureLoopback = false
    @Option(help: "Seconds each exchange with a --request verifier may take in all, connection and TLS included.") var httpTimeout: Double = 30
    @Flag(help: "Sign and send without asking (scripts). Without it, the answer is asked on stdin; closed stdin releases nothing.") var yes = false
    @Option(help: "Also write the checked request object to this file (for `passport verify-vp --request`).") var saveRequest: String?
    @Option(name: .customLong("request-qr"), help: ArgumentHelp("Read the verifier's openid4vp:// or haip-vp:// request from a photo of its QR code (PNG, JPEG, TIFF, BMP, PNM), then answer it as --request does.",
                                                              valueName: "image")) var requestQR: String?
    @Option(name: .customLong("request-qr-camera"), help: ArgumentHelp("Read the verifier's QR code from a camera (V4L2 device such as /dev/video0) or a video file, frame by frame until one decodes (at most 300 frames read), then answer it as --request does.",
                                                                     valueName: "source")) var requestQRCamera: String?
    @Flag(help: "Without --request: show the presentation as a QR code on the terminal (instead of its text), for the verifier to scan.") var qr = false
    @Option(name: .customLong("qr-out"), help: ArgumentHelp("Without --request: also write the presentation's QR code to this file, PNG or SVG by its extension (mode 0600).",
                                                          valueName: "file")) var qrOut: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        let requested = [request, requestQR, requestQRCamera].compactMap { $0 }.count
        guard requested <= 1 else { throw ValidationError("give one of --request, --request-qr and --request-qr-camera") }
        if requested == 1 && (qr || qrOut != nil) {
            throw ValidationError("with a request the presentation is sent to the verifier's response_uri, not shown: --qr and --qr-out go with --aud and --nonce")
        }
        if qr && json { throw ValidationError("--qr draws the code on the terminal; with --json use --qr-out FILE") }
    }

    func run() throws {
        do {
            if let qrOut { try QRPresentation.checkImageName(qrOut) }
            if qr || qrOut != nil { try QREncoder.requireLibrary() }
            // A request read from a QR code is checked before the key store is opened: a code that
            // is not a request is refused with nothing signed or sent.
            let requestText = try resolveRequestText()
            let store = try userKeyStore()
            let holderKey = try HolderKey.resolve(store)
            let holder = Holder(credential: try PassportCredential.open(try readTokenArgument(credential), holder: holderKey.publicKey), store: store)
            if let requestText {
                try answer(requestText, holder: holder)
                return
            }
            guard let aud, let nonce else { throw OpenID4VPError.usage("give --request, or both --aud and --nonce") }
            let chosen = Set(disclose.split(separator: ",").map { $0.trimmed() }.filter { !$0.isEmpty })
            // Asked before the pairwise key exists: a declined verifier leaves no key file behind.
            let credential = holder.credential
            try confirm(["A presentation for \(aud) (nonce \(nonce)) will be signed under your \(credential.level == .L1 ? "pairwise DID" : "own credential instance") for that verifier,",
                         "disclosing: \(credential.claims.claims.map(\.0).filter(chosen.contains).joined(separator: ", ")).",
                         holder.levelLine],
                        question: "Sign", action: "signed", yes: yes)
            let (token, did) = try holder.present(disclose: chosen, origin: aud, nonce: nonce)
            let matrix = qr || qrOut != nil ? try QRPresentation.matrix(for: token) : nil
            if let matrix, let qrOut { try QRPresentation.write(matrix, to: qrOut) }
            if json {
                var report = PresentReport(token: token, format: credential.format, did: did, disclosed: chosen, level: credential.level)
                if let matrix, let qrOut { report.qrImage = .init(file: qrOut, version: matrix.version, modules: matrix.size) }
                printJSON(report)
            } else if let matrix, qr {
                QRPresentation.show(matrix)
                printError("QR code version \(matrix.version) (\(matrix.size)×\(matrix.size) modules, \(token.utf8.count) bytes, error correction M).")
            } else {
                print(token)
            }
        } catch {
            throw fail(error, json: json)
        }
    }

    /// The request's text: --request as given (inline, a file), or the link in a verifier's QR code.
    func resolveRequestText() throws -> String? {
        if let request { return try readTokenArgument(request) }
        guard let source = try QRSource.from(image: requestQR, camera: requestQRCamera,
                                             imageOption: "--request-qr", cameraOption: "--request-qr-camera") else { return nil }
        return try QRContent.request(try source.read(), source: source.name, limit: InputBounds.maxTokenBytes)
    }

    func answer(_ text: String, holder: Holder) throws {
        guard aud == nil, nonce == nil else { throw OpenID4VPError.usage("--aud and --nonce come from the request; do not give them with --request") }
        var policy = AuthorizationRequest.Policy()
        policy.anchors = verifierCA
        policy.insecureLoopback = insecureLoopback
        guard httpTimeout > 0, httpTimeout <= 600 else { throw OpenID4VPError.usage("--http-timeout must be between 0 and 600 seconds") }
        var http = try VerifierHTTP(anchors: verifierCA, deadline: httpTimeout, connectTimeout: min(10, httpTimeout))
        http.allowPlainHTTP = insecureLoopback
        let request = try Wallet.resolve(text, policy: policy, http: http)
        if let saveRequest, let object = request.requestObject { try writePrivateFile(Data(object.utf8), to: saveRequest) }
        let agreed = Set(allow.split(separator: ",").map { $0.trimmed() }.filter { !$0.isEmpty })
        let pending = try holder.prepare(request, agreed: agreed)
        // Every line is passed through terminalSafe by confirm: the verifier's text is data.
        try confirm(pending.summary, question: "Send", action: "sent", yes: yes)
        let sent = try holder.send(pending, http: http)
        let level = holder.credential.level
        if json {
            printJSON(PresentRequestReport(
                verifier: .init(clientID: request.clientID, certificateSubject: request.signer?.subject, dnsNames: request.signer?.dnsNames ?? []),
                responseURI: request.responseURI.absoluteString, responseMode: request.responseMode,
                encryption: request.responseMode == "direct_post.jwt" ? request.encryption.rawValue : nil,
                nonce: request.nonce, disclosed: sent.disclosed, did: sent.did, sent: true,
                verifierStatus: sent.outcome.status, redirectURI: sent.outcome.redirectURI, level: level))
        } else {
            print(terminalSafe("Sent \(pending.selection.disclosed.sorted().joined(separator: ", ")) to \(request.clientID) (level \(level.rawValue) at best): the verifier accepted it (HTTP \(sent.outcome.status))"
                  + (sent.outcome.redirectURI.map { "; continue at \($0)" } ?? "")))
        }
    }
}

extension TrustLevel: ExpressibleByArgument {}

struct VerifyPresentationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-vp",
        abstract: "Verify a presentation: signatures, audience, nonce, freshness, sd_hash, disclosures, the credential's type and the issuer's trust level.",
        discussion: """
        The verdict is "valid" (exit 0) only when signatures, holder binding and freshness hold, the
        credential is of a type you accept (--vct; default the toolkit's own) and the level this
        verifier establishes meets --require-level (default L2):
          L1  self-issued: signed by the holder's own did:key; the holder's word, bound to no passport
          L2  issued by an institution whose x5c chain verifies to a --trust-issuer CA, whose
              certificate is for signing credentials and names the credential's iss
          L3  a zero-knowledge proof checked against the CSCA registry: this verifier has no proof
              verifier, so it never establishes L3
        A presentation below the required level is reported with its level and refused (exit 1);
        the claims of a refused presentation are not shown.
        With --request FILE (the OpenID4VP request object you sent, or its JSON payload), TOKEN is a
        vp_token: a JSON object keyed by DCQL credential query id, or the whole direct_post form body
        (vp_token=…&state=…). Each presentation must be for the request's client_id and nonce, of a vct
        the query names, and disclose what it asked for and no more; the response's state (form body,
        --state, or the decrypted direct_post.jwt response) must be the request's.
        TOKEN and the request are read up to 1 MiB; anything larger is refused unread.
        """)

    @Argument(help: "The presentation token, or with --request the vp_token JSON or direct_post form body (or a file holding it, or - for stdin); not with --qr or --qr-camera.") var token: String?
    @Option(help: "The audience (your origin) the presentation must be for (without --request).") var aud: String?
    @Option(help: "The nonce you issued (without --request).") var nonce: String?
    @Option(help: "The OpenID4VP request the vp_token answers (a file: request object or its JSON payload).") var request: String?
    @Option(help: "With --request: TOKEN is a direct_post.jwt response (JWE), opened with this private P-256 JWK (a file).") var decryptionKey: String?
    @Option(help: "With --request and a bare vp_token: the state the direct_post response carried.") var state: String?
    @Option(name: .customLong("trust-issuer"), help: "A PEM file of CA certificates whose issuers you trust (L2; repeatable).") var trustIssuer: [String] = []
    @Option(help: "The level you require: L1 (accept self-issued credentials), L2 (a trusted issuer) or L3.") var requireLevel: TrustLevel = .L2
    @Option(help: ArgumentHelp("A credential type (SD-JWT VC vct) you accept (repeatable). Default: the toolkit's own, \(PassportCredential.vct); with --request, the types a credential query names (vct_values), which --vct narrows.",
                               valueName: "vct")) var vct: [String] = []
    @Option(help: "Maximum age of the presentation in seconds.") var maxAge: Double = 300
    @Option(help: ArgumentHelp("Read the presentation (or with --request the vp_token) from a photo of its QR code (PNG, JPEG, TIFF, BMP, PNM) instead of TOKEN.",
                               valueName: "image")) var qr: String?
    @Option(name: .customLong("qr-camera"), help: ArgumentHelp("Read it from a camera (V4L2 device such as /dev/video0) or a video file, frame by frame until a QR code decodes (at most 300 frames read).",
                                                             valueName: "source")) var qrCamera: String?
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func validate() throws {
        let given = [token, qr, qrCamera].compactMap { $0 }.count
        guard given == 1 else { throw ValidationError(given == 0 ? "give TOKEN, --qr IMAGE or --qr-camera SOURCE" : "give one of TOKEN, --qr and --qr-camera") }
    }

    func run() throws {
        do {
            let issuerTrust = trustIssuer.isEmpty ? nil : try IssuerTrust.check(anchors: trustIssuer)
            if let request {
                try verifyToken(answering: request, issuerTrust: issuerTrust)
            } else {
                try verifyPresentation(issuerTrust: issuerTrust)
            }
        } catch let error as CredentialError {
            printError("error: \(terminalSafe(error.description))")
            if json { printJSON(ErrorReport(code: "invalid_presentation", message: error.description)) }
            throw Exit.invalidDocument
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }

    /// One presentation for --aud and --nonce.
    func verifyPresentation(issuerTrust: IssuerChainCheck?) throws {
        guard let aud, let nonce else { throw OpenID4VPError.usage("give --aud and --nonce, or --request") }
        guard state == nil else { throw OpenID4VPError.usage("--state goes with --request") }
        var verifier = PresentationVerifier(audience: aud, nonce: nonce)
        verifier.maxAge = maxAge
        verifier.issuerTrust = issuerTrust
        if !vct.isEmpty { verifier.acceptedTypes = Set(vct) }
        let result = try verifier.verify(try readToken())
        let report = try PresentationReport(result, required: requireLevel)
        if json {
            printJSON(report)
        } else {
            printVerdict(result, report)
        }
        if let refusal = report.refusal {
            if !json { printError(terminalSafe("error: \(refusal)")) }
            throw Exit.invalidDocument
        }
    }

    /// The verdict on one presentation; its claims only when it is valid.
    func printVerdict(_ result: VerifiedPresentation, _ report: PresentationReport) {
        if let refusal = report.refusal {
            print(terminalSafe("Presentation refused (\(result.format.rawValue)) from \(result.issuer): \(refusal)"))
            return
        }
        let certificate = result.issuerCertificate.map { ", certificate \($0)" } ?? ""
        print(terminalSafe("Presentation valid (\(result.format.rawValue)) from \(result.issuer), level \(result.level.rawValue) (\(result.level.name)\(certificate))"))
        printClaims(result.claims, indent: "  ")
    }

    func printClaims(_ claims: [String: Any], indent: String) {
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) {
            print(terminalSafe("\(indent)\(name): \((try? CanonicalJSON.string(value)) ?? "\(value)")"))
        }
    }

    /// --request: a vp_token (or the response that carries it) against the request it answers.
    func verifyToken(answering requestFile: String, issuerTrust: IssuerChainCheck?) throws {
        guard aud == nil, nonce == nil else { throw OpenID4VPError.usage("--aud and --nonce come from the request; do not give them with --request") }
        var verifier = try VPTokenVerifier(request: try readRequest(requestFile))
        verifier.maxAge = maxAge
        verifier.issuerTrust = issuerTrust
        verifier.acceptedTypes = vct.isEmpty ? nil : Set(vct)
        let results = try verifier.verify(try openResponse(verifier))
        let below = results.flatMap(\.presentations).first { !$0.meets(requireLevel) }
        let refusal = below.map { PresentationReport.refusal($0.level, required: requireLevel) }
        if json {
            printJSON(try VPTokenReport(clientID: verifier.clientID, nonce: verifier.nonce, results: results.map { ($0.queryID, $0.presentations) },
                                        required: requireLevel, refusal: refusal))
        } else {
            printTokenVerdict(results, clientID: verifier.clientID, refusal: refusal)
        }
        if refusal != nil { throw Exit.invalidDocument }
    }

    /// The vp_token TOKEN carries: a direct_post body or bare vp_token, or with
    /// --decryption-key a direct_post.jwt response.
    func openResponse(_ verifier: VPTokenVerifier) throws -> [String: [String]] {
        let given = try readToken()
        guard let decryptionKey else { return try verifier.open(posted: given, state: state) }
        guard state == nil else { throw OpenID4VPError.usage("--state is read from the encrypted response; do not give it with --decryption-key") }
        guard let data = FileManager.default.contents(atPath: decryptionKey),
              let jwk = (try? JSON.parse(data)) as? [String: Any] else {
            throw OpenID4VPError.usage("cannot read the private JWK \(decryptionKey)")
        }
        return try verifier.open(response: given, key: try P256PrivateKeyHandle(jwk: jwk))
    }

    /// The verdict on a vp_token; the claims of each presentation only when the whole is valid.
    func printTokenVerdict(_ results: [VPTokenVerifier.Result], clientID: String, refusal: String?) {
        print(terminalSafe(refusal.map { "vp_token refused for \(clientID): \($0)" } ?? "vp_token valid for \(clientID)"))
        for result in results {
            for presentation in result.presentations {
                print(terminalSafe("  \(result.queryID) from \(presentation.issuer), level \(presentation.level.rawValue) (\(presentation.level.name))"))
                if refusal == nil { printClaims(presentation.claims, indent: "    ") }
            }
        }
    }

    /// TOKEN, read up to 1 MiB: what is larger is refused before it is read to its end or parsed.
    func readToken() throws -> String {
        if let source = try QRSource.from(image: qr, camera: qrCamera, imageOption: "--qr", cameraOption: "--qr-camera") {
            let text = try source.read()
            // With --request the code holds a vp_token (JSON or a form body), which the verifier parses.
            guard request == nil else {
                guard text.utf8.count <= InputBounds.maxTokenBytes else {
                    throw QRCodeError.tooLong(source: source.name, bytes: text.utf8.count, limit: InputBounds.maxTokenBytes)
                }
                return text
            }
            return try QRContent.presentation(text, source: source.name, limit: InputBounds.maxTokenBytes)
        }
        let token = token ?? "-"
        guard let text = try readBoundedArgument(token, limit: InputBounds.maxTokenBytes) else {
            let source = token == "-" ? "stdin" : MessageText.bounded(token)
            let why = "\(source) holds more than the \(InputBounds.maxTokenBytes) bytes (1 MiB) this verifier reads; it was refused unread"
            if request != nil { throw OpenID4VPError.invalidResponse(why) }
            throw CredentialError.rejected(why)
        }
        return text
    }

    func readRequest(_ file: String) throws -> String {
        guard let text = try readBoundedArgument(file, limit: InputBounds.maxTokenBytes) else {
            throw OpenID4VPError.usage("the request \(MessageText.bounded(file)) holds more than \(InputBounds.maxTokenBytes) bytes (1 MiB); give the request object you sent")
        }
        return text
    }
}
