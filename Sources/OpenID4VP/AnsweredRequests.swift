import LocalFiles
import Credentials
import FoundationEssentials
import PassportCrypto

/// Requests this wallet has answered, so that the same request (client_id and nonce) is not
/// answered twice. Stored as HMACs keyed by the key store's own secret (so that the file does
/// not let anyone test which verifiers were answered), kept for a day.
public struct AnsweredRequests: @unchecked Sendable {
    public let file: URL
    let store: KeyStore
    public init(store: KeyStore) {
        self.store = store
        file = store.folder.appendingPathComponent("oid4vp-answered.txt")
    }

    func key(clientID: String, nonce: String) throws -> String {
        try store.keyedName("oid4vp-answered:\(clientID)\u{0}\(nonce)")
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
        let key = try self.key(clientID: request.clientID, nonce: request.nonce)
        if entries(now: now).contains(where: { $0.0 == key }) {
            throw OpenID4VPError.badRequest("this request (client_id \(request.clientID), nonce \(request.nonce)) has already been answered: a replayed request is not answered again")
        }
    }

    public func record(_ request: AuthorizationRequest, now: Date = Date()) {
        var lines = entries(now: now).map { "\($0.0) \(Int($0.1))" }
        guard let key = try? self.key(clientID: request.clientID, nonce: request.nonce) else { return }
        lines.append("\(key) \(Int(now.timeIntervalSince1970))")
        try? PrivateFiles.createFolder(file.deletingLastPathComponent())
        try? PrivateFiles.replace(file, with: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
