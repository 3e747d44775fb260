import PassportCrypto
import FoundationEssentials
import LDS
import MRZ

/// Passive authentication (ICAO 9303-11 §5.1): the data groups hash to the values in EF.SOD,
/// EF.SOD's signature holds under the Document Signer certificate, and that certificate
/// chains to a trusted CSCA of the issuing state, valid and not revoked.
public enum PassiveAuthentication {
    /// Verifies the files of a dump. `at` fixes the time validity is judged at; by default it
    /// is the SOD's signing time, or now when the SOD has none. `documentSigners` supplies
    /// DSCs that are not embedded in the SOD.
    public static func verify(files: [LDSFile: [UInt8]], trust: TrustStore, at: Date? = nil,
                              documentSigners: [Certificate] = [], now: Date = Date()) -> PassiveAuthenticationReport {
        var report = PassiveAuthenticationReport()
        guard let sodBytes = files[.sod] else {
            report.fail("The dump has no SOD.bin (EF.SOD): nothing to verify against.")
            return report
        }
        let sod: SecurityObject
        let cms: CMSSignedData
        do {
            let contentInfo = try SecurityObject.contentInfo(of: sodBytes)
            cms = try CMSSignedData(contentInfo: contentInfo)
            guard let content = cms.content else { throw TLVError.missing("the LDSSecurityObject in EF.SOD") }
            sod = try SecurityObject(cms: Array(contentInfo), contentType: cms.contentType, content: content)
        } catch {
            report.fail("EF.SOD is malformed: \(error)")
            return report
        }
        checkHashes(files: files, sod: sod, &report)
        checkDataGroupList(files: files, sod: sod, &report)
        let signer = cms.signers[0]
        guard let dsc = checkSignature(cms, signer: signer, documentSigners: documentSigners,
                                       stored: { trust.documentSigners(for: signer) }, &report) else { return report }
        judgementTime(at: at, signer: signer, dsc: dsc, now: now, &report)
        let documentState = files[.dataGroup(1)].flatMap(DataGroup1.issuingState(in:))
        if let csca = checkChain(dsc: dsc, documentState: documentState, trust: trust, &report) {
            checkRevocation(dsc: dsc, csca: csca, trust: trust, &report)
        }
        report.securityObjectVerified = report.passed
        if let cardSecurity = files[.cardSecurity] {
            let check = verifyCardSecurity(cardSecurity, dg14: files[.dataGroup(14)], cardAccess: files[.cardAccess],
                                           documentState: documentState, trust: trust, at: at, now: now)
            for failure in check.failures { report.fail("EF.CardSecurity: \(failure)") }
            report.cardSecurity = check
        }
        return report
    }

    /// EF.CardSecurity (ICAO 9303-11 §9.2; BSI TR-03110-3): SecurityInfos signed like EF.SOD, holding
    /// the chip-authentication key PACE-CAM relies on. A terminal may trust that key only when the
    /// object passes passive authentication, with the same trust, validity and CRL rules as EF.SOD,
    /// (when DG14 is present) names the same chip-authentication keys as DG14, and (when EF.CardAccess
    /// was read) repeats every SecurityInfo of EF.CardAccess.
    public static func verifyCardSecurity(_ bytes: [UInt8], dg14: [UInt8]?, cardAccess: [UInt8]? = nil, documentState: String?,
                                          trust: TrustStore, at: Date? = nil, now: Date = Date()) -> CardSecurityReport {
        var report = CardSecurityReport()
        let cms: CMSSignedData
        do { cms = try CMSSignedData(contentInfo: bytes[...]) } catch {
            report.fail("it is malformed: \(error)")
            return report
        }
        guard let signer = cms.signers.first,
              let dsc = checkSignature(cms, signer: signer, documentSigners: [], stored: { trust.documentSigners(for: signer) },
                                        object: "EF.CardSecurity", &report) else {
            return report
        }
        judgementTime(at: at, signer: signer, dsc: dsc, now: now, &report)
        if let csca = checkChain(dsc: dsc, documentState: documentState, trust: trust, &report) {
            checkRevocation(dsc: dsc, csca: csca, trust: trust, &report)
        }
        if let content = cms.content {
            compareKeys(cardSecurity: content, dg14: dg14, &report)
            if let cardAccess { compareSecurityInfos(cardSecurity: content, cardAccess: cardAccess, &report) }
        }
        return report
    }

    /// EF.CardAccess is not signed: EF.CardSecurity repeats its SecurityInfos under the Document
    /// Signer's signature (ICAO 9303-11 §9.2, BSI TR-03110-3 A.1.2), which is what lets a terminal
    /// trust the PACE parameters it was offered. Each of them must be there byte for byte; more is
    /// allowed (EF.CardSecurity adds the chip-authentication keys). TR-03105 5.1 LDS_J_02, LDS_J_03.
    static func compareSecurityInfos(cardSecurity content: [UInt8], cardAccess: [UInt8], _ report: inout CardSecurityReport) {
        let signed: Set<[UInt8]>
        let offered: [TLV]
        do {
            signed = Set(try TLV.parse(content).children().map { Array($0.encoded) })
            offered = try TLV.parse(cardAccess).children()
        } catch {
            report.holdsCardAccess = false
            report.fail("its SecurityInfos and EF.CardAccess's cannot be compared: \(error)")
            return
        }
        let missing = offered.filter { !signed.contains(Array($0.encoded)) }
        report.holdsCardAccess = missing.isEmpty
        guard !missing.isEmpty else { return }
        let names = missing.map { info -> String in
            guard let first = try? info.children().first, first.tag == 0x06,
                  let protocolOID = try? ObjectIdentifier.dotted(first.value) else { return "an unparsable SecurityInfo" }
            return protocolOID
        }
        report.fail("it does not hold \(missing.count) of EF.CardAccess's \(offered.count) SecurityInfos as EF.CardAccess has them"
            + " (\(names.joined(separator: ", "))): the PACE parameters the chip offered are not the signed ones")
    }

    /// The chip-authentication keys of EF.CardSecurity must be DG14's: a copy carrying its own key
    /// in a self-made EF.CardSecurity would otherwise pass PACE-CAM.
    static func compareKeys(cardSecurity content: [UInt8], dg14: [UInt8]?, _ report: inout CardSecurityReport) {
        let ownKeys: [ChipAuthenticationPublicKeyInfo]
        do { ownKeys = try SecurityInfos(bytes: content).chipAuthenticationPublicKeys } catch {
            report.fail("its SecurityInfos are malformed: \(error)")
            return
        }
        guard let dg14 else { return }
        guard let dg14Keys = try? SecurityInfos(bytes: dg14).chipAuthenticationPublicKeys else {
            report.fail("DG14 is malformed, so its chip-authentication keys cannot be compared")
            return
        }
        // The public values are compared, not the SubjectPublicKeyInfos: EF.CardSecurity names the
        // curve by TR-03110 standardized domain parameters (an ID), DG14 usually by its OID.
        report.matchesDG14 = Set(ownKeys.map { publicValue(of: $0.subjectPublicKeyInfo) })
            == Set(dg14Keys.map { publicValue(of: $0.subjectPublicKeyInfo) })
        if report.matchesDG14 == false {
            report.fail("its chip-authentication public key differs from DG14's: the chip may be a copy")
        }
    }

    /// The subjectPublicKey BIT STRING of a SubjectPublicKeyInfo (the whole DER when it is not one).
    static func publicValue(of spki: [UInt8]) -> [UInt8] {
        guard let parts = try? TLV.parse(spki).children(), parts.count == 2, parts[1].tag == 0x03 else { return spki }
        return Array(parts[1].value)
    }

    /// Step 1: every data group in the dump or listed in EF.SOD against its hash.
    static func checkHashes(files: [LDSFile: [UInt8]], sod: SecurityObject, _ report: inout PassiveAuthenticationReport) {
        report.hashAlgorithm = sod.hashAlgorithm?.rawValue ?? sod.hashAlgorithmOID
        var present: [Int] = []
        present.reserveCapacity(files.count)
        for file in files.keys { if case .dataGroup(let number) = file { present.append(number) } }
        if present.isEmpty {
            report.hashesChecked = false
            report.warn("The dump holds no data groups: only the signature and the certificate chain were checked, not the hashes.")
        }
        // A few numbers each, sorted and merged without a Set: this runs for every dump of a batch.
        var numbers = present + sod.dataGroupHashes.keys
        numbers.sort()
        report.dataGroups.reserveCapacity(numbers.count)
        for (index, number) in numbers.enumerated() where index == 0 || numbers[index - 1] != number {
            let listed = sod.dataGroupHashes[number]
            let bytes = files[.dataGroup(number)]
            let status: DataGroupCheck.Status
            switch (listed, bytes) {
            case (let expected?, let bytes?):
                guard let algorithm = sod.hashAlgorithm else {
                    status = .notChecked
                    report.fail("EF.SOD uses an unknown hash algorithm (\(sod.hashAlgorithmOID)).")
                    break
                }
                if OpenSSLCrypto.digest(algorithm, of: bytes, is: expected) {
                    status = .valid
                } else if case let length = OpenSSLCrypto.digestLength(algorithm), length != expected.count {
                    // Not an altered data group: EF.SOD's value cannot be a hash of that algorithm.
                    status = .mismatch
                    report.fail("DG\(number): EF.SOD's hash value is \(expected.count) bytes, but \(algorithm.rawValue), the algorithm EF.SOD declares, gives \(length): EF.SOD is malformed (its hashes were made with another algorithm than it names, or cut).")
                } else {
                    status = .mismatch
                    report.fail("DG\(number): its \(algorithm.rawValue) hash does not match the one in EF.SOD: the data group was altered.")
                }
            case (_?, nil):
                guard !present.isEmpty else { status = .notChecked; break }
                status = .missing
                report.warn("DG\(number) is listed in EF.SOD but not in the dump (not read, e.g. protected by Extended Access Control).")
            case (nil, _?):
                status = .notListed
                report.warn("DG\(number) is in the dump but not listed in EF.SOD: its content is not authenticated.")
            case (nil, nil):
                continue
            }
            report.dataGroups.append(DataGroupCheck(number: number, status: status))
        }
    }

    /// EF.COM and EF.SOD name the same data groups (ICAO 9303-10 §4.6.1, §4.6.2: EF.COM lists the
    /// data groups present, EF.SOD hashes each of them). A hash for a group EF.COM does not list
    /// fails (the signed and the unsigned list disagree on what the chip holds), and so does a
    /// group EF.COM lists and the chip gave without a hash (content the document claims and
    /// nothing authenticates). A listed group the chip does not hold and EF.SOD does not hash is
    /// EF.COM (unsigned) over-listing, as real chips do: a warning.
    /// Without EF.COM (or an unreadable one) there is nothing to compare.
    static func checkDataGroupList(files: [LDSFile: [UInt8]], sod: SecurityObject, _ report: inout PassiveAuthenticationReport) {
        guard let bytes = files[.com], let com = try? EFCOM(bytes: bytes) else { return }
        // Both lists name DG1-DG16 only (EFCOM and SecurityObject refuse others): sets of bits.
        var listed = DataGroupNumbers(), hashed = DataGroupNumbers(), given = DataGroupNumbers()
        for file in com.dataGroups { if case .dataGroup(let number) = file { listed.insert(number) } }
        for number in sod.dataGroupHashes.keys { hashed.insert(number) }
        for file in files.keys { if case .dataGroup(let number) = file { given.insert(number) } }
        let unlisted = hashed.subtracting(listed)
        if !unlisted.isEmpty {
            report.fail("EF.COM and EF.SOD disagree on the data groups: EF.SOD hashes \(unlisted) that EF.COM does not list.")
        }
        let unhashed = listed.subtracting(hashed).intersection(given)
        if !unhashed.isEmpty {
            report.fail("EF.COM and EF.SOD disagree on the data groups: EF.COM lists \(unhashed), which the chip gave and EF.SOD does not hash.")
        }
        let overListed = listed.subtracting(hashed).subtracting(given)
        if !overListed.isEmpty {
            report.warn("EF.COM lists \(overListed), which the chip does not hold and EF.SOD does not hash.")
        }
    }

    /// Step 2: EF.SOD's signature, by the certificate the SignerInfo names (embedded or
    /// supplied). Returns that Document Signer certificate, or nil when there is none to check with.
    static func checkSignature<Report: SignerCheck>(_ cms: CMSSignedData, signer: SignerInfo, documentSigners: [Certificate],
                                                    stored: () -> [Certificate] = { [] },
                                                    object: String = "EF.SOD", _ report: inout Report) -> Certificate? {
        var candidates: [Certificate] = documentSigners
        for der in cms.certificates {
            if let certificate = try? Certificate.fromSecurityObject(der) { candidates.append(certificate) }
        }
        // The trust store's DSCs (ICAO PKD) only when neither the object nor the caller has one.
        guard let dsc = candidates.first(where: signer.identifies) ?? stored().first(where: signer.identifies) else {
            report.fail("The Document Signer certificate is neither in \(object), nor supplied (--dsc), nor in the trust store: the signature cannot be checked.")
            return nil
        }
        report.documentSigner = dsc.info
        guard let content = cms.content else {
            report.fail("\(object) has no encapsulated content.")
            return nil
        }
        switch CMSVerifier.verifySignerInfo(signer, content: content, contentType: cms.contentType, certificate: dsc) {
        case .success(let verifier):
            report.signature = .passed
            report.signatureScheme = verifier.description
            report.verifiedScheme = verifier.scheme
        case .failure(let reason):
            report.signature = .failed
            report.fail("The \(object) signature is invalid: \(reason.message).")
        }
        return dsc
    }

    /// Step 3: the time validity is judged at.
    static func judgementTime<Report: SignerCheck>(at: Date?, signer: SignerInfo, dsc: Certificate, now: Date,
                                                   _ report: inout Report) {
        if let at {
            report.validityTime = at
            report.validitySource = "given (--at)"
        } else if let signingTime = signer.signingTime {
            report.validityTime = signingTime
            report.validitySource = "signing time in EF.SOD"
        } else {
            // No signing time: the SOD was signed while the DSC's key was in use, so judge at the
            // latest moment it could have been, the end of the key's usage period (or of the
            // DSC's validity), but never later than now.
            let keyEnd = dsc.privateKeyUsageEnd ?? dsc.notAfter
            if keyEnd < now {
                report.validityTime = keyEnd
                report.validitySource = dsc.privateKeyUsageEnd != nil
                    ? "end of the DSC's private key usage period (EF.SOD has no signing time)"
                    : "end of the DSC's validity (EF.SOD has no signing time)"
            } else {
                report.validityTime = now
                report.validitySource = "now (EF.SOD has no signing time)"
            }
        }
    }

    /// ICAO 9303-12 §7.1.1 (certificate profile; BSI TR-03105 5.1 LDS_H): a v3 certificate
    /// issued under the CSCA's exact name, with an authorityKeyIdentifier holding the key
    /// identifier, a critical keyUsage asserting digitalSignature, no MD5/MD2 signature, and
    /// validity dates through 2049 as UTCTime.
    public static func documentSignerProfileProblems(_ dsc: Certificate, csca: Certificate) -> [String] {
        var problems: [String] = []
        if dsc.version != 3 { problems.append("it is an X.509 v\(dsc.version) certificate, not v3") }
        if !dsc.issuer.matches(csca.subject) {
            problems.append("its issuer (\(dsc.issuer)) is not the name of the CSCA whose key signed it (\(csca.subject))")
        }
        if dsc.authorityKeyIdentifier == nil { problems.append("it has no authorityKeyIdentifier with a keyIdentifier") }
        switch dsc.keyUsage {
        case nil: problems.append("it has no keyUsage extension")
        case let usage?:
            if !usage.critical { problems.append("its keyUsage extension is not critical") }
            if !usage.digitalSignature { problems.append("its keyUsage does not assert digitalSignature") }
        }
        if ["1.2.840.113549.1.1.2", "1.2.840.113549.1.1.3", "1.2.840.113549.1.1.4"].contains(dsc.signatureAlgorithm.oid) {
            problems.append("it is signed with MD2/MD4/MD5 (\(dsc.signatureAlgorithm.oid))")
        }
        if let why = dsc.validityEncodingProblem { problems.append("its validity is misencoded: \(why)") }
        return problems
    }

    /// `documentSignerProfileProblems`, judged once for each of the last few pairs: a batch's
    /// dumps name the same DSC and CSCA again and again (each entry holds both, so that no
    /// other certificate takes their identities).
    static func profileProblems(_ dsc: Certificate, csca: Certificate) -> [String] {
        if let known = judgedProfiles.value(where: { $0.dsc === dsc && $0.csca === csca }) { return known }
        let problems = documentSignerProfileProblems(dsc, csca: csca)
        judgedProfiles.remember(problems, for: (dsc, csca))
        return problems
    }
    private static let judgedProfiles = RecentlyMade<(dsc: Certificate, csca: Certificate), [String]>(capacity: 8)

    /// Step 4: DSC → a trusted CSCA that signed it, valid at the judgement time, of the issuing
    /// state. Returns the CSCA (even when a later check failed), or nil when none signed the DSC.
    static func checkChain<Report: SignerCheck>(dsc: Certificate, documentState: String?, trust: TrustStore,
                                                _ report: inout Report) -> Certificate? {
        let country = documentState ?? dsc.issuer.country ?? "?"
        let named = trust.cscas(issuing: dsc)
        guard !named.isEmpty else {
            report.chain = .failed
            report.fail("No trusted CSCA for \(country) (\(dsc.issuer)). Add a master list with --masterlist or the CSCA certificate with --csca.")
            return nil
        }
        let signing = named.filter { trust.certificate(dsc, isSignedBy: $0) }
        guard !signing.isEmpty else {
            report.chain = .failed
            report.fail("The Document Signer certificate's signature does not verify with any trusted CSCA named \(dsc.issuer).")
            return nil
        }
        let time = report.validityTime
        // Prefer a CSCA valid at the time; among those, a self-signed one over a link certificate.
        let csca = signing.first { $0.isValid(at: time) && $0.isSelfIssued } ?? signing.first { $0.isValid(at: time) } ?? signing[0]
        report.csca = csca.info
        let failuresBefore = report.failures.count
        for problem in profileProblems(dsc, csca: csca) {
            report.fail("The Document Signer certificate does not follow the ICAO 9303-12 profile: \(problem).")
        }
        if !csca.isCA {
            report.fail("The certificate that issued the DSC (\(csca.subject)) is not a CA certificate.")
        }
        if !dsc.isValid(at: time) {
            report.fail("The Document Signer certificate was not valid at \(iso(time)) (\(report.validitySource)): it is valid from \(iso(dsc.notBefore)) to \(iso(dsc.notAfter)).")
        }
        if !csca.isValid(at: time) {
            report.fail("The CSCA \(csca.subject) was not valid at \(iso(time)): it is valid from \(iso(csca.notBefore)) to \(iso(csca.notAfter)).")
        }
        let cscaCountry = csca.subject.country ?? ""
        if let dscCountry = dsc.subject.country, !dscCountry.isEmpty, dscCountry.uppercased() != cscaCountry.uppercased() {
            report.fail("The Document Signer (C=\(dscCountry)) and its CSCA (C=\(cscaCountry)) are of different countries.")
        }
        if let documentState, !CountryCodes.matches(certificateCountry: cscaCountry, mrzCode: documentState) {
            report.fail("The CSCA is of \(cscaCountry), but the document was issued by \(documentState).")
        }
        report.chain = report.failures.count == failuresBefore ? .passed : .failed
        return csca
    }

    /// Step 5: every CRL of this CSCA must be genuine, and none may list the DSC.
    static func checkRevocation<Report: SignerCheck>(dsc: Certificate, csca: Certificate, trust: TrustStore,
                                                     _ report: inout Report) {
        let relevant = trust.crls(issuedBy: csca)
        guard !relevant.isEmpty else {
            report.revocation = .notChecked
            return
        }
        report.revocation = .passed
        for crl in relevant {
            if !trust.crl(crl, isSignedBy: csca) {
                report.revocation = .failed
                report.fail("The CRL \(crl.source) is not signed by \(csca.subject): it cannot be trusted.")
            } else if crl.revokes(dsc) {
                report.revocation = .failed
                report.fail("The Document Signer certificate (serial \(hexString(dsc.serialNumber))) is revoked by \(crl.source).")
            }
        }
    }

    static func iso(_ date: Date) -> String {
        iso8601(date)
    }
}

/// Data-group numbers 1-63 as the bits of one word, spelled "DG1, DG14" in order.
struct DataGroupNumbers: CustomStringConvertible {
    private var bits: UInt64 = 0

    /// Numbers outside 1-63 are not data groups of any LDS and are left out.
    mutating func insert(_ number: Int) {
        if (1...63).contains(number) { bits |= 1 << UInt64(number) }
    }
    var isEmpty: Bool { bits == 0 }
    func subtracting(_ other: Self) -> Self { Self(bits: bits & ~other.bits) }
    func intersection(_ other: Self) -> Self { Self(bits: bits & other.bits) }
    var description: String {
        (1...63).filter { bits & (1 << UInt64($0)) != 0 }.map { "DG\($0)" }.joined(separator: ", ")
    }
}

/// What passive authentication finds out about one signed object (EF.SOD or EF.CardSecurity):
/// its signature, its signer, the signer's chain and revocation, and the time they were judged at.
public protocol SignerCheck {
    var signature: PassiveAuthenticationReport.Status { get set }
    var signatureScheme: String? { get set }
    /// The scheme the signature verified with.
    var verifiedScheme: SignatureScheme? { get set }
    var documentSigner: CertificateInfo? { get set }
    var csca: CertificateInfo? { get set }
    var chain: PassiveAuthenticationReport.Status { get set }
    var revocation: PassiveAuthenticationReport.Status { get set }
    var validityTime: Date { get set }
    var validitySource: String { get set }
    var failures: [String] { get }
    mutating func fail(_ message: String)
}

/// The result of passive authentication, with every failure explained.
public struct PassiveAuthenticationReport: SignerCheck, Sendable {
    public enum Status: String, Sendable, Codable { case passed, failed, notChecked = "not_checked" }

    public var hashAlgorithm: String?
    public var hashesChecked = true
    public var dataGroups: [DataGroupCheck] = []
    public var signature: Status = .notChecked
    public var signatureScheme: String?
    /// The scheme the EF.SOD signature verified with.
    public var verifiedScheme: SignatureScheme?
    public var sodSignatureScheme: SignatureScheme? { verifiedScheme }
    public var documentSigner: CertificateInfo?
    public var csca: CertificateInfo?
    public var chain: Status = .notChecked
    public var revocation: Status = .notChecked
    public var validityTime = Date()
    public var validitySource = ""
    /// EF.CardSecurity's own passive authentication, when the dump holds one (its failures are
    /// also among `failures`).
    public var cardSecurity: CardSecurityReport?
    /// EF.SOD and the data groups passed, whatever EF.CardSecurity (another signed object) gave.
    public var securityObjectVerified = false
    /// The recorded Active Authentication answer (evidence.json) checked again against DG15.
    public var activeAuthentication: RecordedCheck = .notRecorded
    /// Why verification failed; empty when it passed.
    public private(set) var failures: [String] = []
    /// Things worth knowing that do not make it fail.
    public private(set) var warnings: [String] = []

    /// True only when every present, listed hash matches, the signature holds and the chain
    /// reaches a trusted CSCA (valid, not revoked, of the issuing state).
    public var passed: Bool { failures.isEmpty && signature == .passed && chain == .passed }

    public mutating func fail(_ message: String) { failures.append(message) }
    public mutating func warn(_ message: String) { warnings.append(message) }
}

/// A check of something the scan recorded, made again offline.
public enum RecordedCheck: Sendable, Equatable {
    case passed
    case failed(String)
    case notRecorded

    public var status: String {
        switch self {
        case .passed: return "passed"
        case .failed: return "failed"
        case .notRecorded: return "not_recorded"
        }
    }
    public var detail: String? {
        if case .failed(let why) = self { return why }
        return nil
    }
}

/// Passive authentication of EF.CardSecurity.
public struct CardSecurityReport: SignerCheck, Sendable {
    public var signature: PassiveAuthenticationReport.Status = .notChecked
    public var signatureScheme: String?
    public var verifiedScheme: SignatureScheme?
    public var documentSigner: CertificateInfo?
    public var csca: CertificateInfo?
    public var chain: PassiveAuthenticationReport.Status = .notChecked
    public var revocation: PassiveAuthenticationReport.Status = .notChecked
    public var validityTime = Date()
    public var validitySource = ""
    /// Whether its chip-authentication keys are DG14's; nil without DG14.
    public var matchesDG14: Bool?
    /// Whether it repeats every SecurityInfo of EF.CardAccess; nil when EF.CardAccess was not read.
    public var holdsCardAccess: Bool?
    public private(set) var failures: [String] = []

    /// Signed, chained to a trusted CSCA and consistent with DG14.
    public var passed: Bool { failures.isEmpty && signature == .passed && chain == .passed }
    /// The signature holds (whatever the chain) and nothing but the chain failed.
    public var signatureValid: Bool { signature == .passed && matchesDG14 != false }

    public mutating func fail(_ message: String) { failures.append(message) }
}

public struct DataGroupCheck: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        case valid, mismatch
        /// Listed in EF.SOD, absent from the dump.
        case missing
        /// In the dump, not listed in EF.SOD.
        case notListed = "not_listed"
        case notChecked = "not_checked"
    }
    public let number: Int
    public let status: Status
}

/// A certificate as reports show it.
public struct CertificateInfo: Sendable {
    public let subject: String
    public let issuer: String
    public let serialNumber: String
    public let notBefore: Date
    public let notAfter: Date
    public let key: String
    public let source: String
    /// The certificate itself (DER), for what needs its key or TBS (zero-knowledge proofs).
    public let der: [UInt8]

    init(_ certificate: Certificate) {
        der = certificate.der
        subject = certificate.subject.description
        issuer = certificate.issuer.description
        serialNumber = hexString(certificate.serialNumber)
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        key = certificate.keyDescription
        source = certificate.source
    }
}

/// Errors loading verification inputs (the verification outcome itself is a report, not an error).
public enum PassiveAuthenticationError: Error, Sendable, CustomStringConvertible {
    public struct Reason: Error, Sendable {
        public let message: String
        init(_ message: String) { self.message = message }
    }
    case malformedCertificate(source: String, why: String)
    case malformedCRL(source: String, why: String)
    case malformedPEM(String)
    case malformedSOD(String)
    case unsupportedAlgorithm(String)
    case badMasterList(String, String)
    case fileNotFound(String)

    public var description: String {
        switch self {
        case .malformedCertificate(let source, let why): return "Cannot read the certificate in \(source): \(why)."
        case .malformedCRL(let source, let why): return "Cannot read the CRL \(source): \(why)."
        case .malformedPEM(let label): return "A PEM block (\(label)) is not valid base64."
        case .malformedSOD(let why): return "EF.SOD is malformed: \(why)."
        case .unsupportedAlgorithm(let oid): return "Unsupported algorithm \(oid)."
        case .badMasterList(let name, let why): return "The master list \(name) was rejected: \(why)."
        case .fileNotFound(let path): return "\(path) does not exist."
        }
    }
}
