import CardIO
import Credentials
import ChipProtocols
import PassiveAuth
import PassportCrypto
import Foundation
import JSONCore
import LDS
import MRZ
import OpenID4VP
import Proving

/// The parser under test, chosen by the FUZZ_TARGET environment variable (scripts/fuzz sets it).
/// Each must either succeed or throw: a crash, a hang or a sanitizer report is a bug.
enum Target: String, CaseIterable {
    case tlv, com, dg1, dg2, dg3, dg4, dg11, dg12, securityinfos, dg15, sod, cms, passive, sm, mrz, mrzocr, sdjwt, jws, apdu, zkcert, uniffi
    case ldif, nfcjson, oid4vp, dcql, vptoken, dumpfolder, cvcert
}

let target: Target = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = Target(rawValue: name) else {
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of: \(Target.allCases.map(\.rawValue).joined(separator: " "))\n".utf8))
        exit(2)
    }
    return target
}()

/// Fixed 3DES session keys and counter for the secure-messaging target (the ICAO D.4 values).
let smKeys = SessionKeys(suite: .tripleDES, encryptionKey: hexBytes("979EC13B1CBFE9DCD01AB0FED307EAE5"),
                         macKey: hexBytes("F1CB1F1FB5ADF208806B89DC579DC1F8"))

/// A store folder that never exists: the LDIF target only reads and checks.
let fuzzStore = URL(fileURLWithPath: "/nonexistent/passport-fuzz-trust")

func hexBytes(_ s: String) -> [UInt8] {
    stride(from: 0, to: s.count, by: 2).map { UInt8(String(Array(s)[$0...$0 + 1]), radix: 16)! }
}

func run(_ bytes: [UInt8]) {
    switch target {
    case .tlv: _ = try? TLV.parseAll(bytes[...]); _ = try? TLV.totalLength(ofObjectStartingWith: bytes[...])
    case .com: _ = try? EFCOM(bytes: bytes)
    case .dg1: _ = try? DataGroup1(bytes: bytes)
    case .dg2: _ = try? DataGroup2(bytes: bytes)
    case .dg3:
        // The finger records, and the names `passport show` prints for them.
        for finger in (try? DataGroup3(bytes: bytes))?.fingers ?? [] {
            _ = (finger.positionName, finger.impressionTypeName, finger.qualityDescription, finger.fileExtension, finger.formatMatchesDeclared)
        }
    case .dg4:
        for iris in (try? DataGroup4(bytes: bytes))?.irises ?? [] {
            _ = (iris.eye.description, iris.format.description, iris.qualityDescription, iris.fileExtension, iris.formatMatchesDeclared)
        }
    case .cvcert:
        // A CV certificate (libeac decodes it, our code reads the rest) and EF.CVCA's references.
        if let certificate = try? CVCertificate(der: bytes) {
            _ = (certificate.summary, certificate.readableDataGroups, certificate.verifyCertificateData.count)
        }
        _ = TerminalAuthentication.trustPoints(efCVCA: bytes)
    case .dg11: _ = try? DataGroup11(bytes: bytes)
    case .dg12: _ = try? DataGroup12(bytes: bytes)
    case .securityinfos: _ = try? SecurityInfos(bytes: bytes)
    case .dg15: _ = try? DataGroup15(bytes: bytes)
    case .sod: _ = try? SecurityObject(bytes: bytes)
    case .cms: _ = try? CMSSignedData(contentInfo: bytes[...])
    case .passive:
        _ = PassiveAuthentication.verify(files: [.sod: [0x77] + TLV.encodeLength(bytes.count) + bytes], trust: TrustStore())
    case .sm:
        // Responses as a chip could send them, unwrapped with fixed keys.
        guard let response = try? ResponseAPDU(encoded: bytes) else { return }
        let channel = SecureMessagingChannel(over: NullChannel(), keys: smKeys, ssc: hexBytes("887022120C06C227"))
        _ = try? channel.unwrap(response)
    case .mrz: _ = try? MRZ(text: String(decoding: bytes, as: UTF8.self))
    case .mrzocr: _ = try? MRZCorrector.correct(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    case .sdjwt, .jws:
        var verifier = PresentationVerifier(audience: "https://a.example", nonce: "n")
        verifier.maxAge = .infinity
        _ = try? verifier.verify(String(decoding: bytes, as: UTF8.self))
    case .apdu: _ = try? CommandAPDU(encoded: bytes)
    case .oid4vp: fuzzRequest(String(decoding: bytes, as: UTF8.self))
    case .dcql:
        if let json = try? JSON.parse(bytes, fragmentsAllowed: true), let query = try? DCQLQuery(json: json) {
            _ = try? DCQLSelection.select(query, vct: PassportCredential.vct, held: ["age_over_18": true, "is_human": true, "nationality": "UTO"],
                                          agreed: ["age_over_18", "is_human", "nationality"])
        }
    case .vptoken: fuzzResponse(String(decoding: bytes, as: UTF8.self))
    case .zkcert:
        // A Document Signer certificate from EF.SOD, split and its key read for the circuits.
        if let certificate = try? Certificate(der: bytes) {
            _ = certificate.tbsCertificateDER
            _ = certificate.signatureValue
            _ = try? CircuitPublicKey(certificate: certificate)
        }
        if let key = try? CircuitPublicKey(subjectPublicKeyInfo: bytes), case .rsa(let modulus, _) = key, modulus.count <= 1024 {
            _ = try? CircuitPublicKey.barrettParameter(modulus)
        }
    case .ldif:
        // An ICAO PKD download as `trust import` reads it, applied to a store in memory only
        // (nothing is committed, so nothing is written).
        _ = try? LDIFParser.parse(bytes, file: "fuzz.ldif")
        if let editor = try? TrustStoreEditor(store: fuzzStore) { try? editor.importBytes(bytes, name: "fuzz.ldif") }
    case .nfcjson:
        // An NFCPassportReader export, then passive authentication of what it holds.
        if let dump = try? NFCPassportReaderExport.dump(bytes, url: URL(fileURLWithPath: "/fuzz.json")) {
            _ = PassiveAuthentication.verify(files: dump.files, trust: TrustStore())
            if let evidence = dump.evidence { _ = try? ChipEvidence(json: evidence) }
        }
    case .dumpfolder: DumpFolderFuzz.run(bytes)
    case .uniffi:
        // What a prover library hands back: a Vec<u8> and an error buffer.
        _ = try? UniFFICodec.readVecU8(bytes)
        _ = UniFFICodec.decodeError(bytes)
    }
}

final class NullChannel: CardChannel {
    var supportsExtendedLength: Bool { false }
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU { ResponseAPDU(data: [], status: .success) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// libFuzzer's driver, called from the entry point SwiftPM gives executables (it renames `main`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("PassportFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    _ = target // fail fast on a missing FUZZ_TARGET
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector, fuzz)
}

/// The OpenID4VP request: the text a verifier shows (URL or parameters) and a request object
/// for each client identifier prefix (x509 ones reach the certificate parsing and chain check).
func fuzzRequest(_ text: String) {
    var policy = AuthorizationRequest.Policy()
    policy.systemStore = false
    policy.insecureLoopback = true
    for clientID in ["redirect_uri:https://rp.example/cb", "x509_hash:abc", "x509_san_dns:rp.example"] {
        _ = try? AuthorizationRequest.verify(requestObject: text, clientID: clientID, policy: policy)
    }
    if let reference = try? AuthorizationRequestReference(text) { _ = try? AuthorizationRequest.fromParameters(reference, policy: policy) }
}

/// A fixed request and decryption key for the response target.
let responseKey = try! P256PrivateKeyHandle(jwk: ["kty": "EC", "crv": "P-256", "x": "weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ",
                                                  "y": "e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck", "d": "VEmDZpDXXK8p8N0Cndsxs924q6nS1RXFASRl6BfUqdw"])
let responseVerifier: VPTokenVerifier = {
    var verifier = try! VPTokenVerifier(request: #"{"client_id":"x509_hash:abc","nonce":"n","dcql_query":{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["age_over_18"]}]}]}}"#)
    verifier.maxAge = .infinity
    return verifier
}()

/// The response: a direct_post.jwt JWE (decrypted with a fixed key) or a vp_token JSON object.
func fuzzResponse(_ text: String) {
    if let (_, plain) = try? JWE.decrypt(text, with: responseKey) { _ = try? VPTokenVerifier.parseToken(String(decoding: plain, as: UTF8.self)) }
    if let token = try? VPTokenVerifier.parseToken(text) { _ = try? responseVerifier.verify(token) }
}
