import Credentials
import PassiveAuth
import PassportCrypto
import FoundationEssentials
import JSONCore
import TextSupport
import LDS
import MRZ
import Proving

/// Turns a verified dump into derived claims and a self-issued credential. Nothing from the MRZ
/// leaves this type except the derived facts (and the nationality when asked for).
public enum CredentialIssuer {
    public enum ProverChoice: String, Sendable, CaseIterable { case auto, mopro, none }

    public struct Outcome: @unchecked Sendable {
        public let credential: String
        public let format: CredentialFormat
        public let holderDID: String
        public let claims: DerivedClaims
        /// L1 self-issued (holder key), or L2 at best when an institution signed (a verifier
        /// that trusts it sees L2).
        public let level: TrustLevel
        /// The institution's iss (nil when self-issued) and how many instances it signed.
        public let issuer: String?
        public let instances: Int
        /// Why no zero-knowledge proof was made (nil when one was).
        public let proverFallbackReason: String?
        public let passiveAuthentication: PassiveAuthenticationReport
    }

    public enum IssueError: Error, CustomStringConvertible {
        case notVerified([String])
        case missingDG1
        case unreadableBirthDate
        case documentExpired(String)
        case validityBeyondDocument(days: Int)
        case institutionFormat
        case badBatch

        public var description: String {
            switch self {
            case .notVerified(let failures):
                return "Refusing to issue a credential: the dump failed passive authentication. " + failures.joined(separator: " ")
            case .missingDG1: return "Refusing to issue a credential: the dump has no DG1."
            case .unreadableBirthDate: return "Refusing to issue a credential: the birth date in DG1 is incomplete, so age cannot be derived."
            case .documentExpired(let date): return "Refusing to issue a credential: the passport expired on \(date)."
            case .validityBeyondDocument(let days):
                return "Refusing to issue a credential: the passport expires before the \(days)-day validity ends; give a shorter --validity-days (a credential's exp must not reveal the passport's)."
            case .institutionFormat: return "An institution issues SD-JWT VC only (--format sd-jwt)."
            case .badBatch: return "--batch must be 1 to 100 and --validity-days at least 1."
            }
        }
    }

    /// Verifies `dump`, derives the claims, then signs them with the key `holder` gives (asked for
    /// only once the dump passed) after `confirm` accepted them (it throws to stop; nothing is signed).
    /// With `institution`, the institution signs (level L2): `batch` instances, each bound to a
    /// new holder key that `instanceKeys` makes in the key store, valid `validity` seconds from
    /// the day of issuance; the holder key is then not used.
    public static func issue(dump: DumpFolder, trust: TrustStore, holder: () throws -> any ES256Signer, format: CredentialFormat,
                             includeNationality: Bool, prover: ProverChoice,
                             institution: InstitutionIssuer? = nil, batch: Int = 10, validity: TimeInterval = 30 * 86_400,
                             instanceKeys: (Int) throws -> [P256PublicKey] = { _ in [] },
                             proverConfiguration: Result<ProverRunner.Configuration?, ProverSettings.Problem> = .success(nil),
                             proverRunner: ProverRunner = .sameExecutable(), now: Date = Date(),
                             confirm: (_ claims: DerivedClaims, _ holderDID: String) throws -> Void = { _, _ in }) throws -> Outcome {
        let report = try DumpVerifier.verify(dump: dump, trust: trust, now: now)
        var claims = try derive(files: dump.files, report: report, activeAuthentication: dump.manifest?.activeAuthentication,
                                chipAuthentication: dump.manifest?.chipAuthentication, includeNationality: includeNationality, now: now)
        let dg1Bytes = dump.files[.dataGroup(1)]!  // derive refused a dump without a valid DG1
        let expiryEnd = claims.expiry

        // The zero-knowledge path: zkPassport's four circuits, proved by mopro's library in a
        // child process; any failure falls back to the SD-JWT credential.
        var fallbackReason: String?
        var proofEvidence: [String: Any]?
        switch (prover, proverConfiguration) {
        case (.none, _):
            fallbackReason = "no zero-knowledge proof requested (--prover none)"
        case (_, .failure(let problem)):
            fallbackReason = "\(problem); issued the SD-JWT credential instead"
        case (_, .success(nil)):
            fallbackReason = "no mopro prover library is configured (--prover-library, PASSPORT_MOPRO_LIBRARY or ~/.config/passport/prover.json)"
        case (_, .success(let configuration?)):
            let chain: ZKPassportChain
            do {
                chain = try ProofInputs.chain(dump: dump, dg1: dg1Bytes, report: report, trust: trust, now: now)
            } catch {
                fallbackReason = "cannot build zkPassport's circuit inputs: \(error); issued the SD-JWT credential instead"
                break
            }
            let jobs = chain.circuits.map { ProverRunner.Job(name: $0.name, inputs: $0.inputs) }
            switch proverRunner.prove(jobs, configuration: configuration) {
            case .success(let proofs):
                proofEvidence = [
                    "system": "UltraHonk (Noir via mopro)", "circuits": ZKPassportChain.circuitsVersion,
                    "proofs": zip(chain.circuits, proofs).map { circuit, proof -> [String: Any] in
                        ["circuit": circuit.name, "proof": Base64URL.encode(proof.proof),
                         "public_inputs": circuit.publicInputs.map(\.hex),
                         "verification_key_sha256": OpenSSLCrypto.digest(.sha256, proof.verificationKey).map { $0.hex(2, uppercase: false) }.joined()]
                    },
                ]
            case .failure(let error):
                fallbackReason = "\(error); issued the SD-JWT credential instead"
            }
        }
        if let proofEvidence { claims.evidence["zero_knowledge_proof"] = proofEvidence }
        claims.verificationMethod = fallbackReason == nil ? "ZKP Verified" : "NFC Verified"
        if let institution {
            guard format == .sdJWT else { throw IssueError.institutionFormat }
            guard batch >= 1, batch <= 100, validity >= 86_400 else { throw IssueError.badBatch }
            // The exp every instance carries is the day plus the validity: never the passport's.
            let end = Date(timeIntervalSince1970: TimeInterval(PassportCredential.issuanceDay(now))).addingTimeInterval(validity)
            guard end <= expiryEnd else { throw IssueError.validityBeyondDocument(days: Int(validity / 86_400)) }
            try confirm(claims, institution.issuer)
            let keys = try instanceKeys(batch)
            let credential = try PassportCredential.issueBatch(claims, institution: institution, holderKeys: keys, validity: validity, now: now)
            var issued = claims
            issued.expiry = end
            return Outcome(credential: credential, format: .sdJWT, holderDID: institution.issuer, claims: issued, level: .L2,
                           issuer: institution.issuer, instances: keys.count, proverFallbackReason: fallbackReason, passiveAuthentication: report)
        }
        let key = try holder()
        try confirm(claims, DIDKey.did(for: key.publicKey))
        // The holder's own file keeps the passport's expiry (so that `present` stops with it);
        // presentations carry the day and a fixed validity instead.
        let credential = try PassportCredential.issue(claims, format: format, key: key, now: now, expiry: expiryEnd)
        return Outcome(credential: credential, format: format, holderDID: DIDKey.did(for: key.publicKey), claims: claims, level: .L1,
                       issuer: nil, instances: 1, proverFallbackReason: fallbackReason, passiveAuthentication: report)
    }

    /// The claims a document that passed passive authentication gives (`report` is its
    /// verification; `activeAuthentication`/`chipAuthentication` what the read recorded, nil when
    /// it did not say): age_over_18, is_human, the nationality when asked for, and evidence
    /// without personal data. `expiry` is the end of the document's expiry day. Nothing is signed.
    public static func derive(files: [LDSFile: [UInt8]], report: PassiveAuthenticationReport, activeAuthentication: String?,
                              chipAuthentication: String?, includeNationality: Bool, now: Date = Date()) throws -> DerivedClaims {
        guard report.passed else { throw IssueError.notVerified(report.failures) }
        guard let dg1Bytes = files[.dataGroup(1)],
              report.dataGroups.contains(where: { $0.number == 1 && $0.status == .valid }) else { throw IssueError.missingDG1 }
        let mrz = try DataGroup1(bytes: dg1Bytes).mrz
        guard let birth = calendarDate(mrz.birthDate, kind: .birth, now: now) else { throw IssueError.unreadableBirthDate }
        guard let expiry = calendarDate(mrz.expiryDate, kind: .expiry, now: now) else { throw IssueError.unreadableBirthDate }
        // The document is valid through its expiry day.
        let expiryEnd = expiry.addingTimeInterval(86_399)
        guard expiryEnd > now else { throw IssueError.documentExpired(MRZDate.isoDate(mrz.expiryDate, kind: .expiry, now: now)) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.gmt
        let eighteenth = calendar.date(byAdding: .year, value: 18, to: birth)!
        let evidence: [String: Any] = [
            "type": "PassiveAuthentication",
            "passive_authentication": "passed",
            "hash_algorithm": report.hashAlgorithm ?? "unknown",
            "signature_algorithm": report.signatureScheme ?? "unknown",
            "trust_anchor": ["type": "CSCA", "country": countryOf(report.csca?.subject) ?? mrz.issuingState,
                             "subject": report.csca?.subject ?? ""],
            "data_groups_verified": report.dataGroups.filter { $0.status == .valid }.map(\.number),
            "active_authentication": activeAuthentication ?? "not_recorded",
            "chip_authentication": chipAuthentication ?? "not_recorded",
        ]
        return DerivedClaims(ageOver18: eighteenth <= now, isHuman: true, nationality: includeNationality ? mrz.nationality : nil,
                             verificationMethod: "NFC Verified", evidence: evidence, expiry: expiryEnd)
    }

    /// The zkPassport circuits (package names; compiled as `<name>.json`) a proof for this dump
    /// needs, in proving order. Throws when the dump fails passive authentication or a circuit
    /// cannot take its data.
    public static func zkCircuits(dump: DumpFolder, trust: TrustStore, now: Date = Date()) throws -> [String] {
        let report = try DumpVerifier.verify(dump: dump, trust: trust, now: now)
        guard report.passed else { throw IssueError.notVerified(report.failures) }
        guard let dg1 = dump.files[.dataGroup(1)] else { throw IssueError.missingDG1 }
        return try ProofInputs.chain(dump: dump, dg1: dg1, report: report, trust: trust, now: now).circuits.map(\.name)
    }

    /// YYMMDD → midnight UTC of that day; nil with fillers or impossible values.
    static func calendarDate(_ yymmdd: String, kind: MRZDate.Kind, now: Date) -> Date? {
        guard yymmdd.count == 6, yymmdd.allSatisfy(\.isNumber), let year = MRZDate.fullYear(yymmdd, kind: kind, now: now),
              let month = Int(yymmdd.dropFirst(2).prefix(2)), let day = Int(yymmdd.suffix(2)) else { return nil }
        var components = DateComponents()
        components.year = year; components.month = month; components.day = day
        components.timeZone = TimeZone.gmt
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.gmt
        guard let date = calendar.date(from: components),
              calendar.component(.month, from: date) == month, calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    static func countryOf(_ subject: String?) -> String? {
        subject?.split(separator: ",").map { $0.trimmed() }
            .first { $0.hasPrefix("C=") }.map { String($0.dropFirst(2)) }
    }
}

/// Where the mopro prover comes from: `--prover-library`, `PASSPORT_MOPRO_LIBRARY`, or
/// `$XDG_CONFIG_HOME/passport/prover.json` ({"library", "circuits", "srs", "namespace",
/// "contract_version", "checksums", "timeout_seconds", "memory_limit_mb"}); the compiled
/// circuits from `--prover-circuits`, the file's "circuits" or `PASSPORT_ZKPASSPORT_CIRCUITS`.
public enum ProverSettings {
    public static var configFile: URL { TrustStore.defaultFolder.deletingLastPathComponent().appendingPathComponent("prover.json") }

    /// A configuration that cannot be used as it stands.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// nil when no library is configured anywhere.
    public static func resolve(library flag: String?, circuits circuitsFlag: String?,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               configFile: URL = ProverSettings.configFile) -> Result<ProverRunner.Configuration?, Problem> {
        var config: [String: Any] = [:]
        if let data = FileManager.default.contents(atPath: configFile.path) {
            guard let object = try? JSON.parse(data) as? [String: Any] else {
                return .failure(Problem(description: "\(configFile.path) is not a JSON object"))
            }
            config = object
        }
        guard let library = flag ?? environment["PASSPORT_MOPRO_LIBRARY"] ?? config["library"] as? String else {
            return .success(nil)
        }
        guard let circuits = circuitsFlag ?? environment["PASSPORT_ZKPASSPORT_CIRCUITS"] ?? config["circuits"] as? String else {
            return .failure(Problem(description: "no folder of compiled zkPassport circuits is configured (--prover-circuits)"))
        }
        var configuration = ProverRunner.Configuration(library: library, circuits: circuits)
        configuration.srs = config["srs"] as? String
        if let namespace = config["namespace"] as? String { configuration.expectation.namespace = namespace }
        if let version = JSON.int(config["contract_version"]) { configuration.expectation.contractVersion = UInt32(truncatingIfNeeded: version) }
        if let checksums = config["checksums"] as? [String: Any] {
            var accepted: [String: Set<UInt16>] = [:]
            for (name, value) in checksums {
                if let one = JSON.int(value) { accepted[name] = [UInt16(truncatingIfNeeded: one)] }
                else if let many = value as? [Int] { accepted[name] = Set(many.map { UInt16(truncatingIfNeeded: $0) }) }
                else { return .failure(Problem(description: "\(configFile.path): checksums.\(name) is neither a number nor a list")) }
            }
            configuration.expectation.checksums = accepted
        }
        if let timeout = JSON.double(config["timeout_seconds"]) { configuration.timeout = timeout }
        if let memory = JSON.int(config["memory_limit_mb"]) { configuration.memoryLimitMB = memory }
        return .success(configuration)
    }
}
