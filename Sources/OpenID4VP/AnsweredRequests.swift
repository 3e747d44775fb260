import LocalFiles
import Credentials
import Foundation
import PassportCrypto

/// Requests this wallet has answered, so that the same request (client_id and nonce) is not
/// answered twice. Stored as salted hashes, kept for a day.
public struct AnsweredRequests: Sendable {
    public let file: URL
    public init(folder: URL) { file = folder.appendingPathComponent("oid4vp-answered.txt") }

    static func key(clientID: String, nonce: String) -> String {
        Base64URL.encode(OpenSSLCrypto.sha256(Array("oid4vp-answered:\(clientID)\u{0}\(nonce)".utf8)))
    }

    func entries(now: Date) -> [(String, Double)] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let time = Double(parts[1]), time > now.timeIntervalSince1970 - 86_400 else { return nil }
            return (String(parts[0]), time)
        }
    }

    public func check(_ request: AuthorizationRequest, now: Date = Date()) throws {
        let key = Self.key(clientID: request.clientID, nonce: request.nonce)
        if entries(now: now).contains(where: { $0.0 == key }) {
            throw OpenID4VPError.badRequest("this request (client_id \(request.clientID), nonce \(request.nonce)) has already been answered: a replayed request is not answered again")
        }
    }

    public func record(_ request: AuthorizationRequest, now: Date = Date()) {
        var lines = entries(now: now).map { "\($0.0) \(Int($0.1))" }
        lines.append("\(Self.key(clientID: request.clientID, nonce: request.nonce)) \(Int(now.timeIntervalSince1970))")
        try? PrivateFiles.createFolder(file.deletingLastPathComponent())
        try? PrivateFiles.replace(file, with: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
