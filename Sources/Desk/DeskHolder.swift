import Credentials
import FoundationEssentials
import OpenID4VP
import OpenID4VPClient
import PassportKit
import QRCodes
import TextSupport

/// What the holder made from one result: the claims it gives, the last presentation shown as a
/// QR code, and a verifier's request waiting for the person's answer. Held in `DeskState`, so
/// that it goes when the result goes.
struct DeskHolderItem: @unchecked Sendable {
    let holder: Holder
    var presentationSVG: String?
    var pending: Holder.PendingAnswer?
}

/// The holder's side of the desk (`passport desk --holder`, on the holder's own machine): the
/// claims a document read and verified here gives, shown to a verifier as a QR code, or sent in
/// answer to the request a verifier's QR code holds, after the person agreed. Presentations are
/// self-issued (level L1), each verifier under its own pairwise key of this machine's key store.
public final class DeskHolder: Sendable {
    public struct Settings: Sendable {
        public var store: KeyStore
        /// CA certificates (PEM files) trusted for verifiers' TLS and request objects.
        public var verifierCA: [String] = []
        /// http:// request and response URIs on loopback (tests only).
        public var insecureLoopback = false
        /// Seconds each exchange with a verifier may take.
        public var httpTimeout: Double = 30

        public init(store: KeyStore) { self.store = store }
    }

    /// The claims the page offers, in this order; nationality only when the person ticks it.
    static let offered = ["age_over_18", "is_human", "nationality"]
    static let agreedByDefault: Set<String> = ["age_over_18", "is_human"]

    let settings: Settings
    let http: VerifierHTTP

    public init(settings: Settings) throws {
        guard settings.httpTimeout > 0, settings.httpTimeout <= 600 else {
            throw OpenID4VPError.usage("--http-timeout must be between 0 and 600 seconds")
        }
        var http = try VerifierHTTP(anchors: settings.verifierCA, deadline: settings.httpTimeout, connectTimeout: min(10, settings.httpTimeout))
        http.allowPlainHTTP = settings.insecureLoopback
        self.settings = settings
        self.http = http
    }

    // MARK: the claims

    struct Claim: Encodable {
        let name: String
        let value: String
        /// Ticked on the page until the person says otherwise.
        let agreed: Bool
    }

    struct ClaimsAnswer: Encodable {
        let level = "L1"
        let levelLine: String
        let claims: [Claim]
        enum CodingKeys: String, CodingKey { case level, claims, levelLine = "level_line" }
    }

    func claims(_ record: DeskRecord, state: DeskState) throws -> ClaimsAnswer {
        let holder = try holder(for: record, state: state)
        let holding = holder.holding
        let claims = Self.offered.compactMap { name in
            holding[name].map { Claim(name: name, value: "\($0)", agreed: Self.agreedByDefault.contains(name)) }
        }
        return ClaimsAnswer(levelLine: holder.levelLine, claims: claims)
    }

    /// The result's holder, made from its verified document the first time it is asked for.
    func holder(for record: DeskRecord, state: DeskState) throws -> Holder {
        let item = try state.holderItem(record.result.id) {
            guard let contents = record.contents else { throw DeskHolderError.notReadHere }
            guard let verification = record.verification else { throw DeskHolderError.notVerified }
            guard record.result.ok else { throw DeskHolderError.notValid(Self.firstFailure(record.result)) }
            let claims = try CredentialIssuer.derive(files: contents.files, report: verification,
                                                     activeAuthentication: contents.activeAuthentication.status,
                                                     chipAuthentication: contents.chipAuthentication.status, includeNationality: true)
            return DeskHolderItem(holder: Holder(credential: HeldCredential(selfIssued: claims), store: settings.store))
        }
        guard let item else { throw DeskHolderError.gone }
        return item.holder
    }

    static func firstFailure(_ result: DeskResult) -> String {
        if let failed = result.verdicts.first(where: { $0.status == .failed }) { return "\(failed.title): \(failed.summary)" }
        return result.document.problems?.first ?? "a check failed"
    }

    // MARK: a presentation shown as a QR code

    struct PresentationBody: Decodable {
        let audience: String
        let nonce: String
        let disclose: [String]
    }

    struct PresentationAnswer: Encodable {
        struct Code: Encodable { let version: Int; let modules: Int; let image: String }
        let did: String
        let disclosed: [String]
        let bytes: Int
        let qr: Code
        let level = "L1"
    }

    /// Signs a presentation for the verifier the person named (its origin and nonce) and draws
    /// it as a QR code; a presentation too large for one code is refused, never split.
    func presentation(_ record: DeskRecord, body: [UInt8], state: DeskState) throws -> PresentationAnswer {
        guard let given = try? JSONDecoder().decode(PresentationBody.self, from: Data(body)) else {
            throw DeskHolderError.badRequest("Expected {\"audience\", \"nonce\", \"disclose\": [claim names]}.")
        }
        let audience = given.audience.trimmed()
        let nonce = given.nonce.trimmed()
        try Self.checkField(audience, "The verifier's origin", limit: 2048)
        try Self.checkField(nonce, "The verifier's nonce", limit: 512)
        // Before anything is signed: without libqrencode no pairwise key is made for nothing.
        try QREncoder.requireLibrary()
        let holder = try holder(for: record, state: state)
        let disclose = Set(given.disclose)
        let unknown = disclose.subtracting(holder.holding.keys)
        guard unknown.isEmpty else { throw DeskHolderError.badRequest("This document gives no claim \(unknown.sorted().joined(separator: ", ")).") }
        guard !disclose.isEmpty else { throw DeskHolderError.badRequest("Tick at least one claim to disclose.") }
        let (token, did) = try holder.present(disclose: disclose, origin: audience, nonce: nonce)
        let matrix = try QREncoder.encode(token)
        let id = record.result.id
        let svg = QRRendering.svg(matrix)
        guard state.updateHolderItem(id, { $0.presentationSVG = svg }) else { throw DeskHolderError.gone }
        return PresentationAnswer(did: did, disclosed: Self.offered.filter(disclose.contains), bytes: token.utf8.count,
                                  qr: .init(version: matrix.version, modules: matrix.size, image: "/api/results/\(id)/presentation.svg"))
    }

    func presentationSVG(_ id: Int, state: DeskState) -> String? { state.holderItem(id)?.presentationSVG }

    static func checkField(_ value: String, _ label: String, limit: Int) throws {
        guard !value.isEmpty else { throw DeskHolderError.badRequest("\(label) is empty: the verifier gives it.") }
        guard value.utf8.count <= limit else { throw DeskHolderError.badRequest("\(label) is longer than \(limit) bytes.") }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DeskHolderError.badRequest("\(label) holds control characters.")
        }
    }

    // MARK: a verifier's request read from its QR code

    struct RequestAnswer: Encodable {
        /// "looking" (no code in this frame yet) or "request" (read and checked: the person decides).
        let status: String
        var verifier: String?
        var asked: String?
        var responseHost: String?
        var hostNote: String?
        var summary: [String]?
        enum CodingKeys: String, CodingKey {
            case status, verifier, asked, summary
            case responseHost = "response_host", hostNote = "host_note"
        }
    }

    /// Reads a verifier's QR code from a camera frame or a photo, fetches and checks the request
    /// it links to, and keeps it for the person's answer. Nothing is signed or sent. A camera
    /// frame without a readable code is "looking"; a photo without one is an error.
    func readRequest(_ record: DeskRecord, image: [UInt8], frame: Bool, agreed: Set<String>, state: DeskState) throws -> RequestAnswer {
        let holder = try holder(for: record, state: state)
        let source = frame ? "the camera" : "the photo"
        let text: String
        do {
            text = try QRImageReader.read(image, source: source)
        } catch let error as QRCodeError where frame {
            switch error {
            case .noCode, .damaged: return RequestAnswer(status: "looking")
            default: throw error
            }
        }
        let link = try QRContent.request(text, source: source, limit: InputBounds.maxTokenBytes)
        var policy = AuthorizationRequest.Policy()
        policy.anchors = settings.verifierCA
        policy.insecureLoopback = settings.insecureLoopback
        let request = try Wallet.resolve(link, policy: policy, http: http)
        let pending = try holder.prepare(request, agreed: agreed.intersection(Self.offered))
        guard state.updateHolderItem(record.result.id, { $0.pending = pending }) else { throw DeskHolderError.gone }
        return RequestAnswer(status: "request", verifier: pending.verifier, asked: pending.asked, responseHost: pending.responseHost,
                             hostNote: pending.hostNote, summary: pending.summary)
    }

    struct SentAnswer: Encodable {
        let sent = true
        let clientID: String
        let disclosed: [String: [String]]
        let did: String
        let verifierStatus: Int
        @NullEncoded var redirectURI: String?
        enum CodingKeys: String, CodingKey {
            case sent, disclosed, did
            case clientID = "client_id", verifierStatus = "verifier_status", redirectURI = "redirect_uri"
        }
    }

    /// The person agreed: signs and sends the answer to the request waiting for it.
    func send(_ id: Int, state: DeskState) throws -> SentAnswer {
        // Taken before sending: a second click cannot answer the same request twice.
        var taken: (Holder, Holder.PendingAnswer)?
        state.updateHolderItem(id) { item in
            if let pending = item.pending { taken = (item.holder, pending) }
            item.pending = nil
        }
        guard let (holder, pending) = taken else { throw DeskHolderError.noPendingRequest }
        let sent = try holder.send(pending, http: http)
        return SentAnswer(clientID: pending.request.clientID, disclosed: sent.disclosed, did: sent.did,
                          verifierStatus: sent.outcome.status, redirectURI: sent.outcome.redirectURI)
    }

    /// The person declined: the request is forgotten, nothing was signed or sent.
    func decline(_ id: Int, state: DeskState) {
        state.updateHolderItem(id) { $0.pending = nil }
    }
}

/// Why the desk made no presentation.
public enum DeskHolderError: Error, Equatable, Sendable, ReportableError {
    case disabled
    case notReadHere
    case notVerified
    case notValid(String)
    case gone
    case noPendingRequest
    case badRequest(String)

    public var description: String {
        switch self {
        case .disabled:
            return "This desk inspects documents and makes no presentation: start it with --holder on the holder's own machine (it signs with this machine's key store)."
        case .notReadHere:
            return "Only a document read here gives claims to present; for a recorded dump use `passport issue DUMP` and `passport present`."
        case .notVerified:
            return "Passive authentication did not run (the desk has no trust anchors: --csca, --masterlist or `passport trust import`), and claims are only derived from a verified document."
        case .notValid(let why):
            return "This document did not pass every check, so no claim is derived from it: \(why)"
        case .gone: return "That result was cleared; read the document again."
        case .noPendingRequest: return "No verifier's request is waiting for an answer: read its QR code first."
        case .badRequest(let why): return why
        }
    }

    public var code: String {
        switch self {
        case .disabled: return "holder_disabled"
        case .notReadHere, .notVerified, .notValid: return "not_presentable"
        case .gone: return "not_found"
        case .noPendingRequest: return "no_pending_request"
        case .badRequest: return "bad_request"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .disabled: return ExitStatus.environment
        case .notReadHere, .notVerified, .notValid, .gone, .noPendingRequest, .badRequest: return ExitStatus.invalid
        }
    }
}
