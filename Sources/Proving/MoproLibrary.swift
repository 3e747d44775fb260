import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// mopro's Noir prover loaded with dlopen (a shared library the user builds with `mopro init
/// --adapter noir`). Symbols carry the crate's namespace: uniffi_<ns>_fn_func_generate_noir_proof…
/// Before any call the UniFFI contract version and the three function checksums must match the
/// values the library's generated bindings embed (given in the configuration).
public final class MoproLibrary {
    public struct Expectation: Codable, Sendable {
        public var namespace: String
        public var contractVersion: UInt32
        /// Per function, the checksums of the builds whose signatures match what this toolkit
        /// marshals. (A checksum hashes the signature and the doc comment.)
        public var checksums: [String: Set<UInt16>]

        public init(namespace: String, contractVersion: UInt32, checksums: [String: Set<UInt16>]) {
            self.namespace = namespace
            self.contractVersion = contractVersion
            self.checksums = checksums
        }

        /// mopro's Noir template (crate mopro_example_app_noir, UniFFI 0.31, contract version 30):
        /// the values of its published NoirSwift bindings, and 19122 for get_noir_verification_key
        /// as built by mopro-cli 0.3.4-0.3.6, whose doc comment differs by one typo. Another crate
        /// name or signature needs its own values (configuration `checksums`).
        public static let noirSwift = Expectation(namespace: "mopro_example_app_noir", contractVersion: 30, checksums: [
            "generate_noir_proof": [48204], "get_noir_verification_key": [32602, 19122], "verify_noir_proof": [53745],
        ])
    }

    typealias ContractVersion = @convention(c) () -> UInt32
    typealias Checksum = @convention(c) () -> UInt16
    typealias FromBytes = @convention(c) (ForeignBytes, UnsafeMutablePointer<RustCallStatus>) -> RustBuffer
    typealias Free = @convention(c) (RustBuffer, UnsafeMutablePointer<RustCallStatus>) -> Void
    typealias Generate = @convention(c) (RustBuffer, RustBuffer, RustBuffer, Int8, RustBuffer, Int8, UnsafeMutablePointer<RustCallStatus>) -> RustBuffer
    typealias Verify = @convention(c) (RustBuffer, RustBuffer, Int8, RustBuffer, Int8, UnsafeMutablePointer<RustCallStatus>) -> Int8
    typealias VerificationKey = @convention(c) (RustBuffer, RustBuffer, Int8, Int8, UnsafeMutablePointer<RustCallStatus>) -> RustBuffer

    private let handle: UnsafeMutableRawPointer
    private let fromBytes: FromBytes
    private let free: Free
    private let generate: Generate
    private let verify: Verify
    private let verificationKey: VerificationKey

    public init(path: String, expect: Expectation) throws {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw ProverError.libraryMissing(dlerror().map { String(cString: $0) } ?? path)
        }
        self.handle = handle
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let pointer = dlsym(handle, name) else { throw ProverError.incompatible("symbol \(name) is missing") }
            return unsafeBitCast(pointer, to: type)
        }
        let ns = expect.namespace
        let contract = try symbol("ffi_\(ns)_uniffi_contract_version", as: ContractVersion.self)()
        guard contract == expect.contractVersion else {
            throw ProverError.incompatible("UniFFI contract version \(contract), expected \(expect.contractVersion)")
        }
        for name in ["generate_noir_proof", "get_noir_verification_key", "verify_noir_proof"] {
            let actual = try symbol("uniffi_\(ns)_checksum_func_\(name)", as: Checksum.self)()
            guard let accepted = expect.checksums[name], accepted.contains(actual) else {
                let expected = expect.checksums[name].map { $0.sorted().map(String.init).joined(separator: " or ") } ?? "none configured"
                throw ProverError.incompatible("checksum of \(name) is \(actual), expected \(expected) (a library built from other sources)")
            }
        }
        fromBytes = try symbol("ffi_\(ns)_rustbuffer_from_bytes", as: FromBytes.self)
        free = try symbol("ffi_\(ns)_rustbuffer_free", as: Free.self)
        generate = try symbol("uniffi_\(ns)_fn_func_generate_noir_proof", as: Generate.self)
        verify = try symbol("uniffi_\(ns)_fn_func_verify_noir_proof", as: Verify.self)
        verificationKey = try symbol("uniffi_\(ns)_fn_func_get_noir_verification_key", as: VerificationKey.self)
    }

    deinit { dlclose(handle) }

    /// A RustBuffer owned by the library, holding `bytes` (the library frees argument buffers).
    private func buffer(_ bytes: [UInt8]) throws -> RustBuffer {
        var status = RustCallStatus()
        let result = bytes.withUnsafeBufferPointer { fromBytes(ForeignBytes(len: Int32(bytes.count), data: $0.baseAddress), &status) }
        try check(&status, "rustbuffer_from_bytes")
        return result
    }

    private func take(_ buffer: RustBuffer) -> [UInt8] {
        let bytes = buffer.bytes
        var status = RustCallStatus()
        free(buffer, &status)
        return bytes
    }

    private func check(_ status: inout RustCallStatus, _ call: String) throws {
        switch status.code {
        case 0: return
        case 1: throw ProverError.failed("\(call): \(UniFFICodec.decodeError(take(status.errorBuf)))")
        case 2:
            let message = String(decoding: take(status.errorBuf), as: UTF8.self)
            throw ProverError.failed("\(call) panicked\(message.isEmpty ? "" : ": \(message)")")
        default: throw ProverError.failed("\(call) ended with status \(status.code)")
        }
    }

    public func generateProof(circuit: String, srs: String?, inputs: [String], onChain: Bool, verificationKey vk: [UInt8],
                              lowMemory: Bool) throws -> [UInt8] {
        var status = RustCallStatus()
        let result = generate(try buffer(Array(circuit.utf8)), try buffer(UniFFICodec.optionString(srs)),
                              try buffer(UniFFICodec.vecString(inputs)), onChain ? 1 : 0,
                              try buffer(UniFFICodec.vecU8(vk)), lowMemory ? 1 : 0, &status)
        try check(&status, "generate_noir_proof")
        return try UniFFICodec.readVecU8(take(result))
    }

    public func verifyProof(circuit: String, proof: [UInt8], onChain: Bool, verificationKey vk: [UInt8], lowMemory: Bool) throws -> Bool {
        var status = RustCallStatus()
        let result = verify(try buffer(Array(circuit.utf8)), try buffer(UniFFICodec.vecU8(proof)), onChain ? 1 : 0,
                            try buffer(UniFFICodec.vecU8(vk)), lowMemory ? 1 : 0, &status)
        try check(&status, "verify_noir_proof")
        guard result == 0 || result == 1 else { throw ProverError.garbage("verify_noir_proof returned \(result) for a bool") }
        return result == 1
    }

    public func verificationKey(circuit: String, srs: String?, onChain: Bool, lowMemory: Bool) throws -> [UInt8] {
        var status = RustCallStatus()
        let result = verificationKey(try buffer(Array(circuit.utf8)), try buffer(UniFFICodec.optionString(srs)),
                                     onChain ? 1 : 0, lowMemory ? 1 : 0, &status)
        try check(&status, "get_noir_verification_key")
        return try UniFFICodec.readVecU8(take(result))
    }
}
