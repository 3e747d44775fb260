import Credentials
import DocumentSecurity
import Foundation
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
        /// Why no zero-knowledge proof was made (nil when one was).
        public let proverFallbackReason: String?
        public let passiveAuthentication: PassiveAuthenticationReport
    }

    public enum IssueError: Error, CustomStringConvertible {
        case notVerified([String])
        case missingDG1
        case unreadableBirthDate
        case documentExpired(String)

        public var description: String {
            switch self {
            case .notVerified(let failures):
                return "Refusing to issue a credential: the dump failed passive authentication. " + failures.joined(separator: " ")
            case .missingDG1: return "Refusing to issue a credential: the dump has no DG1."
            case .unreadableBirthDate: return "Refusing to issue a credential: the birth date in DG1 is incomplete, so age cannot be derived."
            case .documentExpired(let date): return "Refusing to issue a credential: the passport expired on \(date)."
            }
        }
    }

    public static func issue(dump: DumpFolder, trust: TrustStore, keyStore: KeyStore, format: CredentialFormat,
                             includeNationality: Bool, prover: ProverChoice, proverConfiguration: ProverRunner.Configuration? = nil,
                             proverRunner: ProverRunner = .besideCurrentExecutable(), now: Date = Date()) throws -> Outcome {
        let report = try DumpVerifier.verify(dump: dump, trust: trust, now: now)
        guard report.passed else { throw IssueError.notVerified(report.failures) }
        guard let dg1Bytes = dump.files[.dataGroup(1)],
              report.dataGroups.contains(where: { $0.number == 1 && $0.status == .valid }) else { throw IssueError.missingDG1 }
        let mrz = try DataGroup1(bytes: dg1Bytes).mrz

        guard let birth = calendarDate(mrz.birthDate, kind: .birth, now: now) else { throw IssueError.unreadableBirthDate }
        guard let expiry = calendarDate(mrz.expiryDate, kind: .expiry, now: now) else { throw IssueError.unreadableBirthDate }
        // The document is valid through its expiry day.
        let expiryEnd = expiry.addingTimeInterval(86_399)
        guard expiryEnd > now else { throw IssueError.documentExpired(MRZDate.isoDate(mrz.expiryDate, kind: .expiry, now: now)) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let eighteenth = calendar.date(byAdding: .year, value: 18, to: birth)!

        // The zero-knowledge path: mopro's prover in a child process; any failure falls back.
        var fallbackReason: String?
        var proofEvidence: [String: Any]?
        switch (prover, proverConfiguration) {
        case (.none, _):
            fallbackReason = "no zero-knowledge proof requested (--prover none)"
        case (_, nil):
            fallbackReason = "no mopro prover library is configured (--prover-library, PASSPORT_MOPRO_LIBRARY or ~/.config/passport/prover.json)"
        case (_, let configuration?):
            let inputs: [String]
            do {
                inputs = try compareAgeInputs(dump: dump, dg1: dg1Bytes, now: now)
            } catch {
                fallbackReason = "cannot build the compare_age circuit inputs: \(error); issued the SD-JWT credential instead"
                break
            }
            switch proverRunner.prove(inputs: inputs, configuration: configuration) {
            case .success(let proof):
                proofEvidence = ["system": "UltraHonk (Noir via mopro)", "circuit": CircuitInputs.circuitVersion,
                                 "proof": Base64URL.encode(proof.proof),
                                 "verification_key_sha256": OpenSSLCrypto.digest(.sha256, proof.verificationKey).map { String(format: "%02x", $0) }.joined()]
            case .failure(let error):
                fallbackReason = "\(error); issued the SD-JWT credential instead"
            }
        }
        var evidence: [String: Any] = [
            "type": "PassiveAuthentication",
            "passive_authentication": "passed",
            "hash_algorithm": report.hashAlgorithm ?? "unknown",
            "signature_algorithm": report.signatureScheme ?? "unknown",
            "trust_anchor": ["type": "CSCA", "country": countryOf(report.csca?.subject) ?? mrz.issuingState,
                             "subject": report.csca?.subject ?? ""],
            "data_groups_verified": report.dataGroups.filter { $0.status == .valid }.map(\.number),
            // Recorded by the scan that made the dump (manifest), when it says.
            "active_authentication": dump.manifest?.activeAuthentication ?? "not_recorded",
            "chip_authentication": dump.manifest?.chipAuthentication ?? "not_recorded",
        ]
        if let proofEvidence { evidence["zero_knowledge_proof"] = proofEvidence }
        let claims = DerivedClaims(ageOver18: eighteenth <= now, isHuman: true,
                                   nationality: includeNationality ? mrz.nationality : nil,
                                   verificationMethod: fallbackReason == nil ? "ZKP Verified" : "NFC Verified",
                                   evidence: evidence, expiry: expiryEnd)
        let key = try keyStore.holderKey()
        let credential = try PassportCredential.issue(claims, format: format, key: key, now: now)
        return Outcome(credential: credential, format: format, holderDID: DIDKey.did(for: key.publicKey), claims: claims,
                       proverFallbackReason: fallbackReason, passiveAuthentication: report)
    }

    /// A reason the circuit inputs cannot be built from a dump.
    struct CircuitInputError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// zkPassport's compare_age inputs from a verified dump: DG1, the EF.SOD eContent
    /// (LDSSecurityObject), the SignerInfo signature with the Document Signer's key type, and
    /// DG2's hash as listed in the SOD. Fresh random salts; no service scope, no nullifier secret.
    static func compareAgeInputs(dump: DumpFolder, dg1: [UInt8], now: Date) throws -> [String] {
        guard let sodBytes = dump.files[.sod] else { throw CircuitInputError("the dump has no EF.SOD") }
        let sod = try SecurityObject(bytes: sodBytes)
        let cms = try CMSSignedData(contentInfo: sod.cms[...])
        guard let dg2Hash = sod.dataGroupHashes[2] else { throw CircuitInputError("EF.SOD lists no DG2 hash") }
        guard let signer = cms.signers.first else { throw CircuitInputError("EF.SOD has no SignerInfo") }
        var documentSigner: Certificate?
        for der in cms.certificates {
            if let certificate = try? Certificate(der: der, source: "EF.SOD"), signer.identifies(certificate) {
                documentSigner = certificate
                break
            }
        }
        guard let documentSigner else {
            throw CircuitInputError("the Document Signer certificate is not in EF.SOD, so its key type is unknown")
        }
        let signature = try sodSignature(signer.signature, documentSigner: documentSigner)
        let algorithm: DG2HashAlgorithm? = switch sod.hashAlgorithm {
        case .sha1?: .sha1
        case .sha224?: .sha224
        case .sha256?: .sha256
        case .sha384?: .sha384
        case .sha512?: .sha512
        case nil: nil
        }
        return try CircuitInputs.compareAge(dg1: dg1, eContent: sod.content, signature: signature, dg2Hash: dg2Hash,
                                            dg2HashAlgorithm: algorithm, currentDate: now)
    }

    /// The SOD signature with what the circuits need of the DSC key, read from the certificate's
    /// SubjectPublicKeyInfo: for RSA the modulus length, for ECDSA the curve (named or explicit).
    static func sodSignature(_ signature: [UInt8], documentSigner: Certificate) throws -> SODSignature {
        var fields = try TLV.parse(TLV.parse(documentSigner.der).children()[0].encoded).children()
        if fields.first?.tag == 0xA0 { fields.removeFirst() } // version
        guard fields.count >= 6, fields[5].tag == 0x30 else { throw CircuitInputError("the DSC has no SubjectPublicKeyInfo") }
        let publicKeyInfo = try fields[5].children()
        guard publicKeyInfo.count == 2, publicKeyInfo[0].tag == 0x30, publicKeyInfo[1].tag == 0x03 else {
            throw CircuitInputError("the DSC's SubjectPublicKeyInfo is malformed")
        }
        let algorithm = try publicKeyInfo[0].children()
        guard let oid = algorithm.first, oid.tag == 0x06 else { throw CircuitInputError("the DSC's key algorithm is malformed") }
        switch try ObjectIdentifier.dotted(oid.value) {
        case "1.2.840.10045.2.1": // id-ecPublicKey
            guard algorithm.count > 1 else { throw CircuitInputError("the DSC's EC key names no curve") }
            let curve = try ECDSACurve(parameters: Array(algorithm[1].encoded))
            return .ecdsa(signature: signature, curve: curve)
        case "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.10": // rsaEncryption, RSASSA-PSS
            // BIT STRING: unused-bits byte 0, then RSAPublicKey ::= SEQUENCE { modulus, publicExponent }.
            let bits = publicKeyInfo[1].value
            guard bits.first == 0 else { throw CircuitInputError("the DSC's RSA key is malformed") }
            let key = try TLV.parse(bits.dropFirst()).children()
            guard let modulus = key.first, modulus.tag == 0x02 else { throw CircuitInputError("the DSC's RSA key has no modulus") }
            return .rsa(signature: signature, modulusBytes: modulus.value.drop(while: { $0 == 0 }).count)
        case let other:
            throw CircuitInputError("the DSC's key algorithm \(other) is neither RSA nor ECDSA")
        }
    }

    /// YYMMDD → midnight UTC of that day; nil with fillers or impossible values.
    static func calendarDate(_ yymmdd: String, kind: MRZDate.Kind, now: Date) -> Date? {
        guard yymmdd.count == 6, yymmdd.allSatisfy(\.isNumber), let year = MRZDate.fullYear(yymmdd, kind: kind, now: now),
              let month = Int(yymmdd.dropFirst(2).prefix(2)), let day = Int(yymmdd.suffix(2)) else { return nil }
        var components = DateComponents()
        components.year = year; components.month = month; components.day = day
        components.timeZone = TimeZone(identifier: "UTC")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components),
              calendar.component(.month, from: date) == month, calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    static func countryOf(_ subject: String?) -> String? {
        subject?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("C=") }.map { String($0.dropFirst(2)) }
    }
}

/// Where the mopro prover comes from: `--prover-library`, `PASSPORT_MOPRO_LIBRARY`, or
/// `$XDG_CONFIG_HOME/passport/prover.json` ({"library", "circuit", "srs", "namespace",
/// "contract_version", "checksums", "timeout_seconds", "memory_limit_mb"}).
public enum ProverSettings {
    public static var configFile: URL { TrustStore.defaultFolder.deletingLastPathComponent().appendingPathComponent("prover.json") }

    public static func resolve(library flag: String?, circuit circuitFlag: String?) -> ProverRunner.Configuration? {
        let config = (FileManager.default.contents(atPath: configFile.path))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        guard let library = flag ?? ProcessInfo.processInfo.environment["PASSPORT_MOPRO_LIBRARY"] ?? config["library"] as? String else {
            return nil
        }
        var configuration = ProverRunner.Configuration(library: library, circuit: circuitFlag ?? config["circuit"] as? String ?? "")
        configuration.srs = config["srs"] as? String
        if let namespace = config["namespace"] as? String { configuration.expectation.namespace = namespace }
        if let version = config["contract_version"] as? Int { configuration.expectation.contractVersion = UInt32(version) }
        if let checksums = config["checksums"] as? [String: Int] { configuration.expectation.checksums = checksums.mapValues { UInt16($0) } }
        if let timeout = config["timeout_seconds"] as? Double { configuration.timeout = timeout }
        if let memory = config["memory_limit_mb"] as? Int { configuration.memoryLimitMB = memory }
        return configuration
    }
}
