import Foundation

/// Inputs of zkPassport's Noir circuits (zkpassport/circuits 0.17.0, the version mopro's Noir
/// 1.0.0-beta.19 backend runs), flattened the way Noir's ABI numbers witnesses: parameters in
/// declaration order, struct fields in order, arrays element by element, each as a decimal or
/// 0x-hex field string.
///
/// Not computed here: the Poseidon2 commitments and hashes that chain the circuits together
/// (`comm_in`, `SaltedValue.hash`, the private nullifier). They are passed as 0, which the real
/// circuits reject, so a real prover run falls back to the SD-JWT credential until they are.
public enum CircuitInputs {
    public static let circuitVersion = "zkpassport/circuits 0.17.0 compare/age/standard"

    /// `compare_age` (121 fields): comm_in, current_date, salted private nullifier, salted
    /// expiry date (6 bytes), salted DG1 (95 bytes), salted DG2 hash and hash type,
    /// min_age_required, max_age_required, nullifier_secret, service_scope, service_subscope.
    public static func compareAge(dg1: [UInt8], expiryYYMMDD: String, currentDate: Date, minimumAge: Int = 18,
                                  salt: () -> String = randomField) -> [String] {
        var fields: [String] = []
        func salted(_ values: [String]) { fields.append(salt()); fields += values; fields.append("0") }
        fields.append("0")                                       // comm_in (Poseidon2, not computed)
        fields.append(String(Int(currentDate.timeIntervalSince1970)))
        salted(["0"])                                            // private nullifier
        salted(Array(expiryYYMMDD.utf8.prefix(6)).map { String($0) })
        salted(padded(dg1, to: 95).map { String($0) })
        salted(["0"])                                            // DG2 hash (normalised)
        salted(["3"])                                            // DG2 hash type: SHA-256
        fields += [String(minimumAge), "0", "0", "0", "0"]        // min, max (none), nullifier secret, scope, subscope
        return fields
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
