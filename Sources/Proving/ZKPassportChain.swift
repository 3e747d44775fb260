import FoundationEssentials
import PassiveAuth
import PassportCrypto

/// What zkPassport's circuits need of one passport whose passive authentication passed: the
/// chip's DG1, the EF.SOD pieces, the Document Signer certificate and the CSCA's key.
public struct PassportProofData: Sendable {
    /// DG1 as read from the chip (tag 61 …).
    public var dg1: [UInt8]
    /// The EF.SOD eContent: the LDSSecurityObject DER.
    public var eContent: [UInt8]
    /// The SignerInfo's signed attributes as signed (SET OF, tag 0x31).
    public var signedAttributes: [UInt8]
    /// The SignerInfo's digest algorithm: the hash of eContent in the signed attributes.
    public var signedAttributesHash: DigestAlgorithm
    /// The LDSSecurityObject's hash algorithm (of the data groups).
    public var dataGroupHash: DigestAlgorithm
    /// DG2's hash as the LDSSecurityObject lists it.
    public var dg2Hash: [UInt8]
    /// The SignerInfo signature and its scheme.
    public var sodSignature: [UInt8]
    public var sodScheme: CircuitSignatureScheme
    /// The Document Signer certificate (DER) and the scheme of its own signature (by the CSCA).
    public var documentSigner: [UInt8]
    public var documentSignerScheme: CircuitSignatureScheme
    /// The key of the CSCA that signed the Document Signer certificate.
    public var csca: CircuitPublicKey

    public init(dg1: [UInt8], eContent: [UInt8], signedAttributes: [UInt8], signedAttributesHash: DigestAlgorithm,
                dataGroupHash: DigestAlgorithm, dg2Hash: [UInt8], sodSignature: [UInt8], sodScheme: CircuitSignatureScheme,
                documentSigner: [UInt8], documentSignerScheme: CircuitSignatureScheme, csca: CircuitPublicKey) {
        self.dg1 = dg1
        self.eContent = eContent
        self.signedAttributes = signedAttributes
        self.signedAttributesHash = signedAttributesHash
        self.dataGroupHash = dataGroupHash
        self.dg2Hash = dg2Hash
        self.sodSignature = sodSignature
        self.sodScheme = sodScheme
        self.documentSigner = documentSigner
        self.documentSignerScheme = documentSignerScheme
        self.csca = csca
    }
}

/// The witnesses of zkPassport's proof chain (zkpassport/circuits 0.17.0) for one passport, in
/// the order each circuit's `main` declares its parameters (Noir ABI: arrays element by element,
/// struct fields in order, `str<3>` as three bytes). Each circuit's `comm_out` is the next one's
/// `comm_in`, so together they prove "a passport signed by a CSCA in the registry says its
/// holder is at least `minimumAge`" without revealing DG1:
///
/// 1. `sig_check_dsc_tbs_<T>_<CSCA key>_<hash>`: the CSCA key is in the registry and signed the
///    DSC's TBS certificate.
/// 2. `sig_check_id_data_tbs_<T>_<DSC key>_<hash>`: the DSC key in that TBS signed the SOD's
///    signed attributes.
/// 3. `data_check_integrity_sa_<hash>_dg_<hash>`: DG1's hash is in eContent, eContent's in the
///    signed attributes; commits to salted DG1, expiry, DG2 hash and the private nullifier.
/// 4. `compare_age`: the birth date in the committed DG1 is at least `minimumAge` years before
///    the current date, and the document has not expired.
public struct ZKPassportChain: Sendable {
    public static let circuitsVersion = "zkpassport/circuits 0.17.0"

    /// The salts that link the circuits; random by default. `dsc` is the DSC circuit's salt and
    /// the ID-data circuit's salt_in, `idData` its salt_out and the integrity circuit's salt_in.
    public struct Salts: Sendable {
        public var dsc: FieldElement
        public var idData: FieldElement
        public var disclosure: IntegrityToDisclosureSalts

        public init(dsc: FieldElement, idData: FieldElement, disclosure: IntegrityToDisclosureSalts) {
            self.dsc = dsc
            self.idData = idData
            self.disclosure = disclosure
        }

        public static func random() -> Salts {
            Salts(dsc: ZKPassportCommitments.randomSalt(), idData: ZKPassportCommitments.randomSalt(), disclosure: .random())
        }
    }

    /// One circuit's witness: its package name (the compiled circuit is `<name>.json`), the
    /// witness fields and the public inputs a proof of it carries.
    public struct Circuit: Sendable {
        public let name: String
        public let inputs: [String]
        public let publicInputs: [FieldElement]
        /// `main`'s parameters, which `inputs` fill in order (`ProverTOML`).
        public let parameters: [NoirParameter]
    }

    public let circuits: [Circuit]

    /// Builds the four witnesses. `registry` must hold the CSCA (with the DG1 issuing state as
    /// its country). With `revealNullifier` false, compare_age gets the private nullifier in
    /// hidden form and outputs nullifier 0: no value stays the same across credentials of
    /// one passport.
    public init(document: PassportProofData, registry: CertificateRegistry, cscaTags: [String] = [], currentDate: Date,
                minimumAge: Int = 18, salts: Salts = .random(), revealNullifier: Bool = false) throws {
        let dg1 = try ZKPassportCommitments.pad(document.dg1, to: ZKPassportCommitments.dg1Length, what: "DG1")
        let eContent = try ZKPassportCommitments.pad(document.eContent, to: ZKPassportCommitments.eContentLength,
                                                     what: "the EF.SOD eContent")
        let signedAttributes = try ZKPassportCommitments.pad(document.signedAttributes, to: ZKPassportCommitments.signedAttributesLength,
                                                             what: "the signed attributes")
        guard document.signedAttributes.first == 0x31 else {
            throw ZKPassportInputError.malformedSignature("the signed attributes must be given as signed (SET, tag 31)")
        }
        let certificate = try ZKPassportChain.documentSigner(document.documentSigner)
        let dscKey = try CircuitPublicKey(certificate: certificate)
        let signedTBS = certificate.tbsCertificateDER
        guard let tbsSize = ZKPassportCommitments.tbsMaxSizes.first(where: { signedTBS.count <= $0 }) else {
            throw ZKPassportInputError.tooLong(what: "the DSC TBS certificate", count: signedTBS.count,
                                               maximum: ZKPassportCommitments.tbsMaxSizes.last!)
        }
        let tbs = try ZKPassportCommitments.pad(signedTBS, to: tbsSize, what: "the DSC TBS certificate")
        let country = try ZKPassportCommitments.issuingCountry(fromDG1: dg1)

        // 1. DSC circuit
        let entry = CertificateRegistry.Entry(country: String(decoding: country, as: UTF8.self), key: document.csca, tags: cscaTags)
        guard let membership = try registry.proof(for: entry) else {
            throw ZKPassportInputError.unsupportedKey("the CSCA key (\(String(decoding: country, as: UTF8.self))) is not in the certificate registry")
        }
        let dscSignature = try document.csca.circuitSignature(certificate.signatureValue)
        var dsc = [registry.root.hex, String(membership.index)] + membership.path.map(\.hex)
        dsc += try CertificateRegistry.tagFlags(cscaTags).map(\.hex) + [salts.dsc.hex] + Witness.ascii(country)
        switch document.csca {
        case .rsa(_, let exponent):
            dsc += Witness.bytes(tbs) + (try document.csca.witnessFields()) + Witness.bytes(dscSignature) + [String(exponent)]
            if case .rsaPSS(_, let saltLength) = document.documentSignerScheme { dsc.append(String(saltLength)) }
        case .ecdsa:
            dsc += (try document.csca.witnessFields()) + Witness.bytes(dscSignature) + Witness.bytes(tbs)
        }
        let dscOut = try ZKPassportCommitments.hashSaltCountryTBS(salt: salts.dsc, country: country, tbs: signedTBS, tbsMaxSize: tbsSize)
        let dscName = "sig_check_dsc_tbs_\(tbsSize)_\(try document.csca.circuitFragment(for: document.documentSignerScheme))_"
            + document.documentSignerScheme.hash.circuitName

        // 2. ID-data circuit
        let sodSignature = try dscKey.circuitSignature(document.sodSignature)
        let privateNullifier = try ZKPassportCommitments.privateNullifier(dg1: dg1, eContent: eContent, signature: sodSignature)
        var idData = [dscOut.hex, salts.dsc.hex, salts.idData.hex] + Witness.bytes(dg1)
        switch dscKey {
        case .rsa(_, let exponent):
            idData += (try dscKey.witnessFields()) + Witness.bytes(sodSignature) + Witness.bytes(tbs) + Witness.bytes(signedAttributes)
            idData += [String(exponent)] + Witness.bytes(eContent)
            if case .rsaPSS(_, let saltLength) = document.sodScheme { idData.append(String(saltLength)) }
        case .ecdsa:
            idData += (try dscKey.witnessFields()) + Witness.bytes(sodSignature) + Witness.bytes(tbs) + Witness.bytes(signedAttributes)
            idData += Witness.bytes(eContent)
        }
        let idOut = try ZKPassportCommitments.hashSaltCountrySignedAttrDG1EContentPrivateNullifier(
            salt: salts.idData, country: country, signedAttributes: document.signedAttributes, dg1: dg1, eContent: document.eContent,
            privateNullifier: privateNullifier)
        let idName = "sig_check_id_data_tbs_\(tbsSize)_\(try dscKey.circuitFragment(for: document.sodScheme))_\(document.sodScheme.hash.circuitName)"

        // 3. Integrity circuit
        let disclosure = salts.disclosure
        let noHash = FieldElement.zero.hex
        var integrity = [idOut.hex, salts.idData.hex, disclosure.dg1.hex] + Witness.bytes(dg1) + [noHash]
        integrity += [disclosure.expiryDate.hex, disclosure.dg2Hash.hex] + Witness.bytes(signedAttributes) + Witness.bytes(eContent)
        integrity += [disclosure.privateNullifier.hex, privateNullifier.hex, noHash]
        let integrityName = "data_check_integrity_sa_\(document.signedAttributesHash.circuitName)_dg_\(document.dataGroupHash.circuitName)"

        // 4. compare_age
        let age = CompareAgeWitness(dg1: dg1, eContent: document.eContent, signature: .raw(sodSignature), dg2Hash: document.dg2Hash,
                                    dg2HashAlgorithm: document.dataGroupHash, currentDate: currentDate, minimumAge: minimumAge,
                                    salts: disclosure, revealNullifier: revealNullifier)
        let integrityOut = try age.commitmentIn()

        circuits = [
            Circuit(name: dscName, inputs: dsc, publicInputs: [registry.root, dscOut],
                    parameters: ZKPassportABI.documentSignerCircuit(tbs: tbsSize, key: try ZKPassportChain.layout(document.csca, document.documentSignerScheme),
                                                                    signatureBytes: dscSignature.count)),
            Circuit(name: idName, inputs: idData, publicInputs: [dscOut, idOut],
                    parameters: ZKPassportABI.idDataCircuit(tbs: tbsSize, key: try ZKPassportChain.layout(dscKey, document.sodScheme),
                                                            signatureBytes: sodSignature.count)),
            Circuit(name: integrityName, inputs: integrity, publicInputs: [idOut, integrityOut], parameters: ZKPassportABI.integrityCircuit),
            Circuit(name: "compare_age", inputs: try age.inputs(), publicInputs: try age.publicInputs(), parameters: ZKPassportABI.compareAgeCircuit),
        ]
    }

    /// How a key's witness fields split: RSA modulus and Barrett parameter (n, n + 1 bytes), or
    /// the two coordinates.
    static func layout(_ key: CircuitPublicKey, _ scheme: CircuitSignatureScheme) throws -> ZKPassportABI.KeyLayout {
        let fields = try key.witnessFields().count
        switch key {
        case .rsa:
            if case .rsaPSS = scheme { return .rsa(modulusBytes: (fields - 1) / 2, pss: true) }
            return .rsa(modulusBytes: (fields - 1) / 2, pss: false)
        case .ecdsa: return .ecdsa(coordinateBytes: fields / 2)
        }
    }

    /// The Document Signer certificate, read by passive authentication's X.509 type.
    static func documentSigner(_ der: [UInt8]) throws -> Certificate {
        do { return try Certificate(der: der, source: "the proof data") } catch {
            throw ZKPassportInputError.unsupportedKey("the Document Signer certificate cannot be read (\(error))")
        }
    }
}
