/// The parameters of a Noir circuit's `main`, in declaration order, as a witness lays them out:
/// each shape takes a fixed number of the flattened witness values (arrays element by element,
/// struct fields in order, `str<N>` as N bytes).
public indirect enum NoirShape: Sendable, Equatable {
    case field
    /// u8 … u64, given in decimal.
    case integer
    /// `[u8; n]`
    case bytes(Int)
    /// `[Field; n]`
    case fields(Int)
    /// `str<n>` (ASCII)
    case string(Int)
    /// zkPassport's `SaltedValue<T>`: salt, value, hash.
    case salted(NoirShape)

    public var count: Int {
        switch self {
        case .field, .integer: 1
        case .bytes(let n), .fields(let n), .string(let n): n
        case .salted(let inner): 2 + inner.count
        }
    }
}

public struct NoirParameter: Sendable, Equatable {
    public let name: String
    public let shape: NoirShape
    public init(_ name: String, _ shape: NoirShape) {
        self.name = name
        self.shape = shape
    }
}

/// The `main` parameters of the zkpassport/circuits 0.17.0 packages the chain uses, read from
/// their `src/noir/bin/**/src/main.nr` at commit fef4b948 (2026-04-16; a later commit still
/// labelled 0.17.0, 1f5a9e14, changed the DSC and compare_age parameters). Lengths: DG1 95,
/// signed attributes 256, eContent 700, certificate registry path 16, tags 3.
public enum ZKPassportABI {
    public static let circuitsCommit = "fef4b948"
    static let dg1 = NoirShape.bytes(95)
    static let signedAttributes = NoirShape.bytes(256)
    static let eContent = NoirShape.bytes(700)

    /// The signature-checking key: RSA modulus (n bytes) and its Barrett parameter (n + 1), or
    /// the EC point's coordinates.
    public enum KeyLayout: Sendable {
        case rsa(modulusBytes: Int, pss: Bool)
        case ecdsa(coordinateBytes: Int)
    }

    /// `sig_check_dsc_tbs_<T>_…`: the CSCA signed the DSC's TBS certificate.
    public static func documentSignerCircuit(tbs: Int, key: KeyLayout, signatureBytes: Int) -> [NoirParameter] {
        var parameters = [
            NoirParameter("certificate_registry_root", .field), NoirParameter("certificate_registry_index", .field),
            NoirParameter("certificate_registry_hash_path", .fields(16)), NoirParameter("certificate_tags", .fields(3)),
            NoirParameter("salt", .field), NoirParameter("country", .string(3)),
        ]
        switch key {
        case .rsa(let n, let pss):
            parameters += [NoirParameter("tbs_certificate", .bytes(tbs)), NoirParameter("csc_pubkey", .bytes(n)),
                           NoirParameter("csc_pubkey_redc_param", .bytes(n + 1)), NoirParameter("dsc_signature", .bytes(signatureBytes)),
                           NoirParameter("exponent", .integer)]
            if pss { parameters.append(NoirParameter("pss_salt_len", .integer)) }
        case .ecdsa(let k):
            parameters += [NoirParameter("csc_pubkey_x", .bytes(k)), NoirParameter("csc_pubkey_y", .bytes(k)),
                           NoirParameter("dsc_signature", .bytes(signatureBytes)), NoirParameter("tbs_certificate", .bytes(tbs))]
        }
        return parameters
    }

    /// `sig_check_id_data_tbs_<T>_…`: the DSC signed the SOD's signed attributes.
    public static func idDataCircuit(tbs: Int, key: KeyLayout, signatureBytes: Int) -> [NoirParameter] {
        var parameters = [NoirParameter("comm_in", .field), NoirParameter("salt_in", .field), NoirParameter("salt_out", .field),
                          NoirParameter("dg1", dg1)]
        switch key {
        case .rsa(let n, let pss):
            parameters += [NoirParameter("dsc_pubkey", .bytes(n)), NoirParameter("dsc_pubkey_redc_param", .bytes(n + 1)),
                           NoirParameter("sod_signature", .bytes(signatureBytes)), NoirParameter("tbs_certificate", .bytes(tbs)),
                           NoirParameter("signed_attributes", signedAttributes), NoirParameter("exponent", .integer),
                           NoirParameter("e_content", eContent)]
            if pss { parameters.append(NoirParameter("pss_salt_len", .integer)) }
        case .ecdsa(let k):
            parameters += [NoirParameter("dsc_pubkey_x", .bytes(k)), NoirParameter("dsc_pubkey_y", .bytes(k)),
                           NoirParameter("sod_signature", .bytes(signatureBytes)), NoirParameter("tbs_certificate", .bytes(tbs)),
                           NoirParameter("signed_attributes", signedAttributes), NoirParameter("e_content", eContent)]
        }
        return parameters
    }

    /// `data_check_integrity_sa_<hash>_dg_<hash>`.
    public static let integrityCircuit = [
        NoirParameter("comm_in", .field), NoirParameter("salt_in", .field), NoirParameter("salted_dg1", .salted(dg1)),
        NoirParameter("expiry_date_salt", .field), NoirParameter("dg2_hash_salt", .field),
        NoirParameter("signed_attributes", signedAttributes), NoirParameter("e_content", eContent),
        NoirParameter("salted_private_nullifier", .salted(.field)),
    ]

    /// `compare_age` (bin/compare/age/standard).
    public static let compareAgeCircuit = [
        NoirParameter("comm_in", .field), NoirParameter("current_date", .integer),
        NoirParameter("salted_private_nullifier", .salted(.field)), NoirParameter("salted_expiry_date", .salted(.bytes(6))),
        NoirParameter("salted_dg1", .salted(dg1)), NoirParameter("salted_dg2_hash", .salted(.field)),
        NoirParameter("salted_dg2_hash_type", .salted(.integer)), NoirParameter("min_age_required", .integer),
        NoirParameter("max_age_required", .integer), NoirParameter("nullifier_secret", .field),
        NoirParameter("service_scope", .field), NoirParameter("service_subscope", .field),
    ]
}

/// A witness as nargo's `Prover.toml`: one key per `main` parameter, in declaration order;
/// scalars as quoted strings (hex fields, decimal integers), arrays as arrays, `str<N>` as a
/// string, structs as inline tables (so the order holds: TOML puts [tables] after all keys).
public enum ProverTOML {
    public enum Problem: Error, CustomStringConvertible {
        case countMismatch(circuit: String, parameters: Int, values: Int)
        case notText(parameter: String)
        public var description: String {
            switch self {
            case .countMismatch(let circuit, let parameters, let values):
                "\(circuit): its parameters take \(parameters) values but the witness has \(values)"
            case .notText(let parameter): "\(parameter) is not printable ASCII"
            }
        }
    }

    public static func render(_ values: [String], parameters: [NoirParameter], circuit: String, header: [String] = []) throws -> String {
        let total = parameters.reduce(0) { $0 + $1.shape.count }
        guard total == values.count else { throw Problem.countMismatch(circuit: circuit, parameters: total, values: values.count) }
        var lines = header.map { "# \($0)" }
        var rest = values[...]
        for parameter in parameters {
            let taken = Array(rest.prefix(parameter.shape.count))
            rest = rest.dropFirst(parameter.shape.count)
            lines.append("\(parameter.name) = \(try value(taken, parameter.shape, name: parameter.name))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func value(_ values: [String], _ shape: NoirShape, name: String) throws -> String {
        switch shape {
        case .field, .integer: return quoted(values[0])
        case .bytes, .fields: return "[" + values.map(quoted).joined(separator: ", ") + "]"
        case .string:
            let bytes = values.compactMap { UInt8($0) }
            guard bytes.count == values.count, bytes.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != 0x22 && $0 != 0x5C }) else {
                throw Problem.notText(parameter: name)
            }
            return quoted(String(decoding: bytes, as: UTF8.self))
        case .salted(let inner):
            let middle = Array(values[1..<(values.count - 1)])
            return "{ salt = \(quoted(values[0])), value = \(try value(middle, inner, name: name)), hash = \(quoted(values[values.count - 1])) }"
        }
    }

    static func quoted(_ text: String) -> String { "\"\(text)\"" }
}
