import Foundation
import LDS

/// Trust material built at test time from the fixture PKI: LDIF downloads in the ICAO PKD
/// layout, a master list signed with the fixture CSCA (openssl cms), and an EF.SOD without
/// its Document Signer certificate.
public enum TrustMaterial {
    public static let pki = TestPaths.fixtures.appendingPathComponent("pki")
    public static let base = "dc=data,dc=download,dc=pkd,dc=icao,dc=int"

    public static func der(_ pemName: String) throws -> [UInt8] {
        let text = try String(contentsOf: pki.appendingPathComponent(pemName), encoding: .utf8)
        let body = text.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return [UInt8](try unwrap(Data(base64Encoded: body), "PEM body"))
    }

    public static func crl() throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: pki.appendingPathComponent("TEST-ONLY-csca-UTO.crl")))
        guard bytes.first != 0x30 else { return bytes }
        let body = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return [UInt8](try unwrap(Data(base64Encoded: body), "PEM body"))
    }

    /// One attribute line, base64, folded at 76 columns (RFC 2849), written independently of
    /// the parser under test.
    public static func line(_ name: String, _ bytes: [UInt8]) -> String {
        let text = "\(name):: \(Data(bytes).base64EncodedString())"
        var out = String(text.prefix(76))
        var rest = text.dropFirst(76)
        while !rest.isEmpty {
            out += "\n " + rest.prefix(75)
            rest = rest.dropFirst(75)
        }
        return out + "\n"
    }

    /// An LDIF download with one entry per (group, attribute, value): group is dsc, crl or ml.
    public static func ldif(_ entries: [(group: String, attribute: String, bytes: [UInt8])], country: String = "UTO") -> [UInt8] {
        var text = "version: 1\n"
        for (index, entry) in entries.enumerated() {
            text += "\ndn: cn=entry\(index),o=\(entry.group),c=\(country),\(base)\n"
            text += "objectClass: top\n"
            text += line(entry.attribute, entry.bytes)
        }
        return Array(text.utf8)
    }

    /// A CSCA master list of `certificates`, CMS-signed by the fixture CSCA (which is in it).
    public static func masterList(_ certificates: [[UInt8]], in folder: URL) throws -> [UInt8] {
        let list = TLV.encode(tag: 0x30, value: TLV.encode(tag: 0x02, value: [0]) + TLV.encode(tag: 0x31, value: certificates.flatMap { $0 }))
        let content = folder.appendingPathComponent("list-\(UUID().uuidString).der")
        let output = folder.appendingPathComponent("ml-\(UUID().uuidString).ml")
        try Data(list).write(to: content)
        let status = try run("/usr/bin/openssl", ["cms", "-sign", "-binary", "-nodetach", "-outform", "DER",
                                                  "-econtent_type", "2.23.136.1.1.2",
                                                  "-signer", pki.appendingPathComponent("TEST-ONLY-csca-UTO.pem").path,
                                                  "-inkey", pki.appendingPathComponent("TEST-ONLY-csca-UTO.key.pem").path,
                                                  "-in", content.path, "-out", output.path])
        guard status == 0 else { throw Failure("openssl cms -sign failed") }
        return [UInt8](try Data(contentsOf: output))
    }

    public static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The EF.SOD with the SignedData `certificates` field taken out: the signature (over the
    /// signed attributes) still holds, but only a DSC from elsewhere can check it.
    public static func withoutCertificates(_ sod: [UInt8]) throws -> [UInt8] {
        let wrapper = try TLV.parse(sod)
        let contentInfo = try unwrap(try wrapper.children().first, "ContentInfo")
        let parts = try contentInfo.children()
        let signedData = try unwrap(try parts[1].children().first, "SignedData")
        let fields = try signedData.children().filter { $0.tag != 0xA0 }
        let rebuilt = TLV.encode(tag: 0x30, value: fields.flatMap { Array($0.encoded) })
        let info = TLV.encode(tag: 0x30, value: Array(parts[0].encoded) + TLV.encode(tag: 0xA0, value: rebuilt))
        return TLV.encode(tag: 0x77, value: info)
    }

    public static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trust-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    static func unwrap<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw Failure("\(what) missing") }
        return value
    }
}
