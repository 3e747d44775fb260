import Foundation
import JSONCore
import TestSupport
import Testing

/// JSONCore against two peers: Foundation's JSONSerialization (what wrote every signed payload
/// and report before issue 47, so the bytes must not change) and Python's json module (a parser
/// of its own). Values come from a fixed seed, so a failure is reproducible.
@Suite struct JSONCoreAgainstPeers {
    /// A random JSON value: nested objects and arrays, strings with escapes, control characters,
    /// slashes and non-ASCII, integers of every size, fractions, booleans and null.
    static func randomValue(_ rng: inout SplitMix, depth: Int = 0) -> Any {
        randomValue(&rng, depth: depth, name: randomString)
    }

    /// The member names our signed payloads, key files and requests use (the string keys of
    /// Credentials, OpenID4VP, OpenID4VPClient and CredentialIssuer, plus the age and passport
    /// claims). JSONSerialization sorted names by a locale-aware, case-insensitive, numeric
    /// comparison (ICU puts `_` before `@` and before digits), JSONCore by UTF-16 code units
    /// (RFC 8785); on these names the two orders agree, so what was signed before is unchanged.
    /// `@context` is left out: it sorts after `_sd` in ICU's order and before it in RFC 8785's,
    /// but the two are never members of one object (`@context` is in a VC-JWT's `vc` object,
    /// `_sd` in SD-JWT payloads; `vcObjectIsUnchanged` checks the former).
    static let payloadNames = """
        _sd _sd_alg active_authentication alg aud chip_authentication cipher ciphertext circuit circuits
        client_id_prefixes_supported cnf country credentialSubject crv data_groups_verified did enc epk exp file format
        hash_algorithm holder iat id iss jti jwk kdf keys kid kty n nbf nonce p passive_authentication proof proofs
        public_inputs public_jwk r request_object_signing_alg_values_supported response_modes_supported salt scrypt
        sd_hash signature_algorithm sub subject system tag trust_anchor typ type vc vct verifiableCredential
        verification_key_sha256 version vp vp_formats_supported vp_token x x5c y age_over_18 age_over_21 is_human
        nationality issuing_country document_type verification_method expiry birth_year given_name family_name
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    static func payloadName(_ rng: inout SplitMix) -> String { payloadNames.randomElement(using: &rng)! }

    static func randomValue(_ rng: inout SplitMix, depth: Int, name: (inout SplitMix) -> String) -> Any {
        switch Int.random(in: depth > 3 ? 0..<5 : 0..<7, using: &rng) {
        case 0: return randomString(&rng)
        case 1: return [Int.min, Int.max, 0, -1, 1_700_000_000, Int.random(in: -1_000_000...1_000_000, using: &rng)].randomElement(using: &rng)!
        case 2: return [0.5, -1.25, 1e-7, 3.141592653589793, 1.5e300, Double.random(in: -1e6...1e6, using: &rng)].randomElement(using: &rng)!
        case 3: return Bool.random(using: &rng)
        case 4: return JSON.null
        case 5: return (0..<Int.random(in: 0..<5, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1, name: name) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &rng) { object[name(&rng)] = randomValue(&rng, depth: depth + 1, name: name) }
            return object
        }
    }

    static func randomString(_ rng: inout SplitMix) -> String {
        let pieces = ["a", "Z", "0", "_", "/", "\\", "\"", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "€", "😀", "https://x.example/a?b=c", " ", "<", "&"]
        return (0..<Int.random(in: 0..<8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    /// The same value as Foundation's JSONSerialization takes it (JSON.null is NSNull there).
    static func foundationValue(_ value: Any) -> Any {
        switch value {
        case is JSON.Null: return NSNull()
        case let array as [Any]: return array.map(foundationValue)
        case let object as [String: Any]: return object.mapValues(foundationValue)
        default: return value
        }
    }

    @Test func serializesAsJSONSerializationDidWithSortedKeysAndUnescapedSlashes() throws {
        var rng = SplitMix(seed: 47)
        for _ in 0..<3000 {
            let value = Self.randomValue(&rng, depth: 0, name: Self.payloadName)
            let ours = try JSON.serialize(value)
            let foundation = try JSONSerialization.data(withJSONObject: Self.foundationValue(value),
                                                        options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
            #expect(ours == [UInt8](foundation), "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: foundation, as: UTF8.self))")
        }
    }

    @Test func readsBackWhatItWrites() throws {
        var rng = SplitMix(seed: 48)
        for _ in 0..<3000 {
            let text = try JSON.serialize(Self.randomValue(&rng))
            #expect(try JSON.serialize(try JSON.parse(text, fragmentsAllowed: true)) == text)
        }
    }

    /// Python's json.dumps with sorted keys, compact separators and UTF-8 kept is the same text
    /// for integers, strings, booleans, null and nesting (Python spells fractions its own way).
    @Test func pythonReadsAndWritesTheSameText() throws {
        var rng = SplitMix(seed: 49)
        var lines: [[UInt8]] = []
        for _ in 0..<500 {
            var value = Self.randomValue(&rng)
            value = Self.withoutFractions(value)
            lines.append(try JSON.serialize(value))
        }
        let input = lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        let script = """
        import sys, json
        for line in sys.stdin.read().split("\\n"):
            print(json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        """
        let python = try run(["python3", "-c", script], input: input)
        let theirs = python.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(theirs.count == lines.count)
        for (ours, their) in zip(lines, theirs) {
            // Python escapes DEL as itself and writes control characters in lower-case hex, as we do.
            #expect(String(decoding: ours, as: UTF8.self) == String(their))
        }
    }

    static func withoutFractions(_ value: Any) -> Any {
        switch value {
        case is Double: return 7
        case let array as [Any]: return array.map(withoutFractions)
        case let object as [String: Any]: return object.mapValues(withoutFractions)
        default: return value
        }
    }

    @Test func vcObjectIsUnchanged() throws {
        let vc: [String: Any] = ["@context": ["https://www.w3.org/2018/credentials/v1"], "type": ["VerifiableCredential"],
                                 "credentialSubject": ["id": "did:key:z", "age_over_18": true], "issuer": "did:key:z"]
        let foundation = try JSONSerialization.data(withJSONObject: vc, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(try JSON.serialize(vc) == [UInt8](foundation))
    }

    /// Where the two orders part: JSONCore follows RFC 8785, not ICU's collation.
    @Test func sortsNamesByUTF16CodeUnitsAsRFC8785() throws {
        let object: [String: Any] = ["b": 1, "B": 2, "_": 3, "a10": 4, "a9": 5, "\u{FF61}": 6, "\u{1F600}": 7, "": 8]
        #expect(String(decoding: try JSON.serialize(object), as: UTF8.self)
                == "{\"\":8,\"B\":2,\"_\":3,\"a10\":4,\"a9\":5,\"b\":1,\"\u{1F600}\":7,\"\u{FF61}\":6}")
    }

    /// JSONSerialization accepts a comma before a closing bracket; RFC 8259 does not, nor does JSONCore.
    @Test(arguments: ["[1,]", "{\"a\":1,}", "[1,,2]"])
    func refusesATrailingComma(text: String) {
        #expect((try? JSON.parse(Array(text.utf8))) == nil)
    }

    /// Texts JSONSerialization accepts or refuses: JSONCore must decide the same.
    static let texts = [
        "{}", "[]", " [1, 2.5, -0, 1e3, 1E-2, true, false, null] ", "{\"a\":{\"b\":[{}]}}", "\"x\"", "12", "[\"\\u00e9\\ud83d\\ude00\"]",
        "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[-]", "{a:1}", "['a']", "[\"a\u{01}\"]", "[\"\\x\"]",
        "[\"\\ud800\"]", "[\"\\udc00\"]", "[tru]", "[nul]", "[1] x", "", "[", "{\"a\" 1}", "[\"\\u12\"]", "[1e400]", "[NaN]",
    ]

    @Test(arguments: texts)
    func acceptsAndRefusesAsJSONSerialization(text: String) {
        let ours = (try? JSON.parse(Array(text.utf8), fragmentsAllowed: true)) != nil
        let foundation = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
        #expect(ours == foundation, "\(text)")
    }

    @Test func parsedTypesAreSwiftsOwn() throws {
        let value = try JSON.parse(Array("{\"i\":5,\"big\":123456789012345678901,\"f\":1.5,\"e\":1e2,\"b\":true,\"n\":null,\"s\":\"\\/\"}".utf8))
        let object = try #require(value as? [String: Any])
        #expect(object["i"] as? Int == 5)
        #expect(object["big"] as? Double == 123456789012345678901)
        #expect(object["f"] as? Double == 1.5)
        #expect(object["e"] as? Double == 100)
        #expect(object["b"] as? Bool == true && object["b"] as? Int == nil)
        #expect(object["n"] is JSON.Null)
        #expect(object["s"] as? String == "/")
        #expect(JSON.double(object["i"]) == 5 && JSON.double(object["b"]) == nil)
    }

    @Test func refusesWhatAReaderMustNotGuessAt() {
        func reason(_ text: String, depth: Int = 512) -> String? {
            do { _ = try JSON.parse(Array(text.utf8), maxDepth: depth); return nil } catch { return error.reason }
        }
        #expect(reason("{\"a\":1,\"a\":2}")?.contains("appears twice") == true)
        #expect(reason("[[[[1]]]]", depth: 3)?.contains("deeper than 3") == true)
        #expect(reason("[[[1]]]", depth: 3) == nil)
        #expect(reason("5")?.contains("object or array") == true)
        #expect((try? JSON.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) != nil)
        #expect(reason("[\"\u{FF}\"]") == nil)
        #expect((try? JSON.parse([UInt8(ascii: "["), UInt8(ascii: "\""), 0xC3, UInt8(ascii: "\""), UInt8(ascii: "]")])) == nil)
    }

    @Test func prettyPrintingIsJSONSerializations() throws {
        // (Empty containers differ on purpose: JSONSerialization wrote "[\n\n  ]", JSONCore "[]".)
        let value: [String: Any] = ["b": [1, 2], "a": ["c": "x/y", "d": [true, "\n"]]]
        let ours = try JSON.serialize(value, style: [.prettyPrinted, .sortedKeys])
        let foundation = try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
    }

    @Test func refusesWhatIsNotJSON() {
        #expect(throws: JSON.ValueError.self) { try JSON.serialize(["x": Double.nan]) }
        #expect(throws: JSON.ValueError.self) { try JSON.serialize(["x": Date()]) }
        #expect(!JSON.isValid([Double.infinity]))
    }

    func run(_ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
