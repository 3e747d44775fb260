import Foundation

/// Inputs of zkPassport's Noir circuits (zkpassport/circuits 0.17.0, the version mopro's Noir
/// 1.0.0-beta.19 backend runs), flattened the way Noir's ABI numbers witnesses: parameters in
/// declaration order, struct fields in order, arrays element by element, each as a decimal or
/// 0x-hex field string.
///
/// The Poseidon2 values that chain the circuits (`comm_in`, the `SaltedValue` hashes, the
/// private nullifier, the normalised DG2 hash) are computed by `ZKPassportCommitments` from the
/// passport's DG1, the EF.SOD eContent and signature and DG2's hash, exactly as the ID-data and
/// integrity circuits would (port of scripts/zk/commitments.py, checked against zkPassport's
/// published values). `compare_age` itself only checks `comm_in` against the salted values it is
/// given; the link to the passport signature is made when a verifier matches `comm_in` with an
/// integrity proof's `comm_out` made with the same salts.
public enum CircuitInputs {
    public static let circuitVersion = "zkpassport/circuits 0.17.0 compare/age/standard"

    /// `compare_age` (121 fields): comm_in, current_date, salted private nullifier, salted
    /// expiry date (6 bytes, read from DG1), salted DG1 (95 bytes), salted DG2 hash (normalised)
    /// and hash type, min_age_required, max_age_required (0: none), nullifier_secret (0),
    /// service_scope (0), service_subscope (0). See `CompareAgeWitness.inputs()` for the format.
    /// Throws when the data do not fit the circuit (DG1 over 95 bytes, eContent over 700, an
    /// unknown DG2 hash length, an unreadable signature).
    public static func compareAge(dg1: [UInt8], eContent: [UInt8], signature: SODSignature, dg2Hash: [UInt8],
                                  dg2HashAlgorithm: DG2HashAlgorithm? = nil, currentDate: Date, minimumAge: Int = 18,
                                  salts: IntegrityToDisclosureSalts = .random()) throws -> [String] {
        try CompareAgeWitness(dg1: dg1, eContent: eContent, signature: signature, dg2Hash: dg2Hash,
                              dg2HashAlgorithm: dg2HashAlgorithm, currentDate: currentDate, minimumAge: minimumAge,
                              salts: salts).inputs()
    }

    /// The byte arrays the data-integrity and signature circuits take, zero-padded to their sizes.
    public static func padded(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        Array(bytes.prefix(size)) + [UInt8](repeating: 0, count: max(0, size - bytes.count))
    }

    public static let dg1Size = 95, eContentSize = 700, signedAttributesSize = 256, tbsSizes = [700, 1000, 1200, 1600]

    /// A random 248-bit salt (below the BN254 field modulus).
    public static func randomField() -> String {
        var bytes = [UInt8](repeating: 0, count: 31)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        return "0x" + bytes.map { String(format: "%02x", $0) }.joined()
    }
}
