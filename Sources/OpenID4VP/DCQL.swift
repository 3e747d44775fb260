import Credentials
import FoundationEssentials
import JSONCore

/// A Digital Credentials Query Language query (OpenID4VP 1.0 §6), parsed strictly: what is
/// malformed is refused, members this wallet does not use are ignored.
public struct DCQLQuery: @unchecked Sendable {
    public struct ClaimQuery: @unchecked Sendable {
        public let id: String?
        /// Strings (object keys), non-negative integers (array indexes) or nil (all elements).
        public let path: [PathElement]
        /// JSON values the claim must have, when given.
        public let values: [Any]?
        /// The path as text, for messages: age_over_18, address.street, nationalities[0].
        public var pathText: String {
            path.enumerated().map { index, element in
                switch element {
                case .key(let name): return index == 0 ? name : ".\(name)"
                case .index(let i): return "[\(i)]"
                case .all: return "[*]"
                }
            }.joined()
        }
    }

    public enum PathElement: Sendable, Equatable {
        case key(String)
        case index(Int)
        case all
    }

    public struct CredentialQuery: @unchecked Sendable {
        public let id: String
        public let format: String
        public let vctValues: [String]?
        public let multiple: Bool
        public let claims: [ClaimQuery]?
        public let claimSets: [[String]]?
    }

    public struct CredentialSet: Sendable {
        public let options: [[String]]
        public let required: Bool
    }

    public let credentials: [CredentialQuery]
    public let credentialSets: [CredentialSet]?

    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && (Character($0).isLetter || Character($0).isNumber || $0 == "_" || $0 == "-") }
    }

    public init(json: Any?) throws {
        guard let object = json as? [String: Any] else { throw OpenID4VPError.badQuery("dcql_query is not a JSON object") }
        guard let list = object["credentials"] as? [Any], !list.isEmpty else {
            throw OpenID4VPError.badQuery("credentials is missing or not a non-empty array")
        }
        var ids = Set<String>()
        credentials = try list.enumerated().map { index, entry in
            guard let query = entry as? [String: Any] else { throw OpenID4VPError.badQuery("credentials[\(index)] is not an object") }
            guard let id = query["id"] as? String, Self.isIdentifier(id) else {
                throw OpenID4VPError.badQuery("credentials[\(index)].id is missing or not made of letters, digits, _ and -")
            }
            guard ids.insert(id).inserted else { throw OpenID4VPError.badQuery("credential query id \(id) appears twice") }
            guard let format = query["format"] as? String, !format.isEmpty else { throw OpenID4VPError.badQuery("credential query \(id) has no format") }
            var vctValues: [String]?
            if let meta = query["meta"] {
                guard let meta = meta as? [String: Any] else { throw OpenID4VPError.badQuery("credential query \(id): meta is not an object") }
                if let values = meta["vct_values"] {
                    guard let values = values as? [String], !values.isEmpty else {
                        throw OpenID4VPError.badQuery("credential query \(id): meta.vct_values is not a non-empty array of strings")
                    }
                    vctValues = values
                }
            }
            var multiple = false
            if let value = query["multiple"] {
                guard let flag = JSON.bool(value) else { throw OpenID4VPError.badQuery("credential query \(id): multiple is not a boolean") }
                multiple = flag
            }
            var claims: [ClaimQuery]?
            if let rawClaims = query["claims"] {
                guard let array = rawClaims as? [Any], !array.isEmpty else {
                    throw OpenID4VPError.badQuery("credential query \(id): claims is not a non-empty array")
                }
                var claimIDs = Set<String>()
                claims = try array.enumerated().map { claimIndex, raw in
                    let claim = try Self.claim(raw, where: "credential query \(id), claims[\(claimIndex)]")
                    if let cid = claim.id, !claimIDs.insert(cid).inserted {
                        throw OpenID4VPError.badQuery("credential query \(id): claim id \(cid) appears twice")
                    }
                    return claim
                }
            }
            var claimSets: [[String]]?
            if let rawSets = query["claim_sets"] {
                guard let claims else { throw OpenID4VPError.badQuery("credential query \(id): claim_sets without claims") }
                guard let sets = rawSets as? [[String]], !sets.isEmpty, !sets.contains(where: \.isEmpty) else {
                    throw OpenID4VPError.badQuery("credential query \(id): claim_sets is not a non-empty array of non-empty arrays of claim ids")
                }
                let known = Set(claims.compactMap(\.id))
                for set in sets { for cid in set where !known.contains(cid) {
                    throw OpenID4VPError.badQuery("credential query \(id): claim_sets names claim id \(cid), which no claim has")
                } }
                claimSets = sets
            }
            return CredentialQuery(id: id, format: format, vctValues: vctValues, multiple: multiple, claims: claims, claimSets: claimSets)
        }
        if let rawSets = object["credential_sets"] {
            guard let sets = rawSets as? [Any], !sets.isEmpty else { throw OpenID4VPError.badQuery("credential_sets is not a non-empty array") }
            credentialSets = try sets.enumerated().map { index, raw in
                guard let set = raw as? [String: Any], let options = set["options"] as? [[String]], !options.isEmpty,
                      !options.contains(where: \.isEmpty) else {
                    throw OpenID4VPError.badQuery("credential_sets[\(index)].options is not a non-empty array of non-empty arrays of ids")
                }
                for option in options { for cid in option where !ids.contains(cid) {
                    throw OpenID4VPError.badQuery("credential_sets[\(index)] names credential query \(cid), which does not exist")
                } }
                var required = true
                if let value = set["required"] {
                    guard let flag = JSON.bool(value) else { throw OpenID4VPError.badQuery("credential_sets[\(index)].required is not a boolean") }
                    required = flag
                }
                return CredentialSet(options: options, required: required)
            }
        } else {
            credentialSets = nil
        }
    }

    static func claim(_ raw: Any, where place: String) throws -> ClaimQuery {
        guard let object = raw as? [String: Any] else { throw OpenID4VPError.badQuery("\(place) is not an object") }
        var id: String?
        if let value = object["id"] {
            guard let text = value as? String, isIdentifier(text) else { throw OpenID4VPError.badQuery("\(place).id is not an identifier") }
            id = text
        }
        guard let rawPath = object["path"] as? [Any], !rawPath.isEmpty else { throw OpenID4VPError.badQuery("\(place).path is missing or empty") }
        let path: [PathElement] = try rawPath.map { element in
            if element is JSON.Null { return .all }
            if let text = element as? String { return .key(text) }
            if let index = JSON.int(element), index >= 0 { return .index(index) }
            if let number = JSON.double(element), let index = Int(exactly: number), index >= 0 { return .index(index) }
            throw OpenID4VPError.badQuery("\(place).path holds \(element), which is not a string, a non-negative integer or null")
        }
        var values: [Any]?
        if let rawValues = object["values"] {
            guard let array = rawValues as? [Any], !array.isEmpty,
                  array.allSatisfy({ $0 is String || JSON.bool($0) != nil || JSON.double($0) != nil }) else {
                throw OpenID4VPError.badQuery("\(place).values is not a non-empty array of strings, numbers and booleans")
            }
            values = array
        }
        return ClaimQuery(id: id, path: path, values: values)
    }
}

/// What this wallet answers a DCQL query with: for each credential query it answers, the
/// claims to disclose from the one credential it holds.
public struct DCQLSelection: Sendable, Equatable {
    public struct Answer: Sendable, Equatable {
        public let queryID: String
        public let claims: [String]
    }
    public let answers: [Answer]
    public var disclosed: Set<String> { Set(answers.flatMap(\.claims)) }

    /// `held`: claim name → value of the claims this wallet may disclose (flat, top-level).
    /// `agreed`: the claims the person allows to be disclosed.
    public static func select(_ query: DCQLQuery, format: String = "dc+sd-jwt", vct: String,
                              held: [String: Any], agreed: Set<String>) throws -> DCQLSelection {
        var failures: [String: String] = [:]
        var matches: [String: [String]] = [:]
        for credential in query.credentials {
            do { matches[credential.id] = try match(credential, format: format, vct: vct, held: held) } catch let error as OpenID4VPError {
                if case .cannotSatisfy(let why) = error { failures[credential.id] = why } else { throw error }
            }
        }
        var chosen: [String] = []
        if let sets = query.credentialSets {
            for (index, set) in sets.enumerated() where set.required {
                guard let option = set.options.first(where: { $0.allSatisfy { matches[$0] != nil } }) else {
                    let reasons = set.options.flatMap { $0.compactMap { failures[$0] } }
                    throw OpenID4VPError.cannotSatisfy("no option of credential set \(index) can be answered: \(reasons.joined(separator: "; "))")
                }
                chosen += option.filter { !chosen.contains($0) }
            }
            // Optional sets are left out: disclosing less is the person's default.
        } else {
            for credential in query.credentials {
                if let why = failures[credential.id] { throw OpenID4VPError.cannotSatisfy(why) }
                chosen.append(credential.id)
            }
        }
        guard !chosen.isEmpty else { throw OpenID4VPError.cannotSatisfy("the query requires no credential") }
        let answers = chosen.map { Answer(queryID: $0, claims: matches[$0]!) }
        let asked = Set(answers.flatMap(\.claims))
        let beyond = asked.subtracting(agreed)
        guard beyond.isEmpty else {
            throw OpenID4VPError.cannotSatisfy("the verifier asks for \(beyond.sorted().joined(separator: ", ")), more than you agreed to disclose (\(agreed.sorted().joined(separator: ", "))); agree to it to answer (present --allow, or tick it on the desk)")
        }
        return DCQLSelection(answers: answers)
    }

    static func match(_ credential: DCQLQuery.CredentialQuery, format: String, vct: String, held: [String: Any]) throws -> [String] {
        guard credential.format == format else {
            throw OpenID4VPError.cannotSatisfy("credential query \(credential.id) asks for format \(credential.format); this wallet holds \(format) only")
        }
        if let values = credential.vctValues, !values.contains(vct) {
            throw OpenID4VPError.cannotSatisfy("credential query \(credential.id) asks for vct \(values.joined(separator: " or ")); this wallet holds \(vct)")
        }
        guard let claims = credential.claims else { return [] } // no selectively disclosable claim asked for
        func answer(_ claim: DCQLQuery.ClaimQuery) throws -> String {
            guard claim.path.count == 1, case .key(let name) = claim.path[0], let value = held[name] else {
                throw OpenID4VPError.cannotSatisfy("credential query \(credential.id) asks for the claim \(claim.pathText), which this credential does not hold (it holds \(held.keys.sorted().joined(separator: ", ")))")
            }
            if let values = claim.values {
                guard values.contains(where: { jsonEqual($0, value) }) else {
                    throw OpenID4VPError.cannotSatisfy("credential query \(credential.id) accepts \(claim.pathText) only with a value this credential does not have")
                }
            }
            return name
        }
        if let sets = credential.claimSets {
            var lastError: Error?
            for set in sets {
                do {
                    return try set.map { id in try answer(claims.first { $0.id == id }!) }
                } catch { lastError = error }
            }
            throw lastError!
        }
        return try claims.map(answer)
    }

    static func jsonEqual(_ a: Any, _ b: Any) -> Bool {
        if let x = JSON.bool(a), let y = JSON.bool(b) { return x == y }
        if let x = a as? String, let y = b as? String { return x == y }
        if let x = JSON.double(a), let y = JSON.double(b) { return x == y }
        return false
    }
}
