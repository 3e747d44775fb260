import Credentials
import DocumentSecurity
import Foundation
import LDS
import MRZ

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
                             includeNationality: Bool, prover: ProverChoice, now: Date = Date()) throws -> Outcome {
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

        let fallbackReason: String? = switch prover {
        case .none: "no zero-knowledge proof requested (--prover none)"
        case .auto, .mopro: "no mopro prover library is configured on this machine; issued the SD-JWT credential instead"
        }
        let evidence: [String: Any] = [
            "type": "PassiveAuthentication",
            "passive_authentication": "passed",
            "hash_algorithm": report.hashAlgorithm ?? "unknown",
            "signature_algorithm": report.signatureScheme ?? "unknown",
            "trust_anchor": ["type": "CSCA", "country": countryOf(report.csca?.subject) ?? mrz.issuingState,
                             "subject": report.csca?.subject ?? ""],
            "data_groups_verified": report.dataGroups.filter { $0.status == .valid }.map(\.number),
            "active_authentication": "not_performed",
            "chip_authentication": "not_performed",
        ]
        let claims = DerivedClaims(ageOver18: eighteenth <= now, isHuman: true,
                                   nationality: includeNationality ? mrz.nationality : nil,
                                   verificationMethod: fallbackReason == nil ? "ZKP Verified" : "NFC Verified",
                                   evidence: evidence, expiry: expiryEnd)
        let key = try keyStore.holderKey()
        let credential = try PassportCredential.issue(claims, format: format, key: key, now: now)
        return Outcome(credential: credential, format: format, holderDID: DIDKey.did(for: key.publicKey), claims: claims,
                       proverFallbackReason: fallbackReason, passiveAuthentication: report)
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
