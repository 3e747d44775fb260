/// The `iss` of an institution's credential against the names of its certificate (SD-JWT VC
/// §3.5; issue 48, item 9). `iss` must be an https URL without userinfo, query or fragment whose
/// host the certificate names (a dNSName, or the host of an https URI subjectAltName); a path or
/// port must be named exactly by a URI subjectAltName. Nothing looser: `https://a.example@b.example/`
/// names b.example while it reads as a.example, and a query or another path is not the
/// institution the certificate was issued to.
public enum IssuerIdentifier {
    /// An https URL taken apart: lower-case host, port when given, path ("" for none or "/").
    struct Name: Equatable {
        let host: String
        let port: String?
        let path: String
    }

    /// `uri` as an https name, or why it is not one.
    static func name(_ uri: String) -> Result<Name, Refusal> {
        let scheme = "https://"
        guard uri.hasPrefix(scheme) else { return .failure(Refusal("is not an https URL")) }
        guard !uri.contains("?") else { return .failure(Refusal("has a query")) }
        guard !uri.contains("#") else { return .failure(Refusal("has a fragment")) }
        let rest = uri.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.contains("@") else { return .failure(Refusal("has userinfo (…@) before its host")) }
        let hostAndPort = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = hostAndPort[0].lowercased()
        let port = hostAndPort.count > 1 ? String(hostAndPort[1]) : nil
        guard isDNSName(host) else { return .failure(Refusal("has no DNS host name")) }
        if let port { guard !port.isEmpty, port.allSatisfy({ ("0"..."9").contains($0) }) else { return .failure(Refusal("has an invalid port")) } }
        let path = String(rest.dropFirst(authority.count))
        return .success(Name(host: host, port: port == "443" ? nil : port, path: path == "/" ? "" : path))
    }

    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func isDNSName(_ host: String) -> Bool {
        !host.isEmpty && !host.hasPrefix(".") && !host.hasSuffix(".") && !host.contains("..")
            && host.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
    }

    /// Throws `CredentialError.rejected` unless the certificate (`subject`, its dNSNames and
    /// URI subjectAltNames) names `iss` as described above.
    public static func check(_ iss: String, dnsNames: [String], uris: [String], subject: String) throws {
        if let refusal = refusal(iss, dnsNames: dnsNames, uris: uris, subject: subject) { throw CredentialError.rejected(refusal) }
    }

    /// Why the certificate does not name `iss`, or nil when it does.
    public static func refusal(_ iss: String, dnsNames: [String], uris: [String], subject: String) -> String? {
        let shown = MessageText.bounded(iss)
        let name: Name
        switch Self.name(iss) {
        case .failure(let refusal): return "iss \(shown) \(refusal.reason): an institution's iss must be an https URL its certificate names"
        case .success(let parsed): name = parsed
        }
        let uriNames = uris.compactMap { try? Self.name($0).get() }
        if uriNames.contains(name) { return nil }
        let hostNamed = dnsNames.contains { $0.lowercased() == name.host } || uriNames.contains { $0.host == name.host }
        guard hostNamed else {
            return "the issuer certificate \(subject) does not name the host of iss \(shown) (its names: \(listed(dnsNames, uris)))"
        }
        guard name.path.isEmpty, name.port == nil else {
            return "the issuer certificate \(subject) names the host of iss \(shown) but not its port and path (no URI subjectAltName is that URL; its names: \(listed(dnsNames, uris)))"
        }
        return nil
    }

    static func listed(_ dnsNames: [String], _ uris: [String]) -> String {
        let all = dnsNames.map { "DNS \($0)" } + uris.map { "URI \($0)" }
        return all.isEmpty ? "none" : all.prefix(5).map { MessageText.bounded($0) }.joined(separator: ", ") + (all.count > 5 ? ", …" : "")
    }
}
