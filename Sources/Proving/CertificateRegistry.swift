/// The certificate registry the DSC circuit proves its CSCA key is in (zkpassport/circuits
/// 0.17.0 `commit_to_dsc`; zkpassport-utils 0.35 registry version 0): a Poseidon2 Merkle tree of
/// depth 16 over the sorted leaf hashes of CSCA keys, empty places filled with zero subtrees.
///
/// zkPassport's verifiers check the root against the registry they publish; a registry built
/// here from the trust store holds the CSCAs this toolkit trusts, and the same anchors give the
/// same root.
public struct CertificateRegistry: Sendable {
    public struct Entry: Sendable, Equatable {
        /// The state's three-letter code (ASCII), as the circuits name states.
        public let country: [UInt8]
        /// The key as the leaf hashes it: an RSA modulus, or x‖y.
        public let keyBytes: [UInt8]
        /// Two-letter tags (zkPassport marks e.g. "UN" documents); none for most CSCAs.
        public let tags: [String]

        public init(country: String, key: CircuitPublicKey, tags: [String] = []) {
            self.init(country: country, keyBytes: key.registryBytes, tags: tags)
        }

        public init(country: String, keyBytes: [UInt8], tags: [String] = []) {
            self.country = Array(country.utf8)
            self.keyBytes = keyBytes
            self.tags = tags
        }
    }

    public static let depth = 16
    /// The certificate type the DSC circuit commits to for a CSCA (`CSC_CERT_TYPE`).
    static let cscaCertificateType: UInt8 = 1

    /// The leaf hashes, ascending.
    public let leaves: [FieldElement]
    /// levels[0] = leaves, levels[depth] = [root]; a level holds only its non-empty nodes.
    private let levels: [[FieldElement]]
    /// The root of an empty subtree of each height.
    private let zeros: [FieldElement]

    public var root: FieldElement { levels[CertificateRegistry.depth].first ?? zeros[CertificateRegistry.depth] }

    public init(_ entries: [Entry]) throws {
        guard entries.count <= 1 << CertificateRegistry.depth else {
            throw ZKPassportInputError.outOfRange("a registry of \(entries.count) certificates")
        }
        let leaves = try Set(entries.map(CertificateRegistry.leaf)).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        var zeros = [FieldElement.zero]
        var levels = [leaves]
        for _ in 0..<CertificateRegistry.depth {
            let below = levels.last!
            let zero = zeros.last!
            levels.append(stride(from: 0, to: below.count, by: 2).map { index in
                Poseidon2.hash([below[index], index + 1 < below.count ? below[index + 1] : zero])
            })
            zeros.append(Poseidon2.hash([zero, zero]))
        }
        self.leaves = leaves
        self.levels = levels
        self.zeros = zeros
    }

    /// `calculate_certificate_registry_leaf`: H(tags[0..3], be31([1] ‖ country), be31(key bytes)…).
    public static func leaf(_ entry: Entry) throws -> FieldElement {
        guard entry.country.count == 3 else { throw ZKPassportInputError.outOfRange("the country code \(entry.country)") }
        let typeAndCountry = ZKPassportCommitments.packBE([cscaCertificateType] + entry.country)
        return Poseidon2.hash(try tagFlags(entry.tags) + typeAndCountry + ZKPassportCommitments.packBE(entry.keyBytes))
    }

    /// Tags as three 253-bit flag fields: "XY" sets bit (X−'A')·26 + (Y−'A') (zkpassport-utils
    /// `tagsArrayToBitsFlag`).
    public static func tagFlags(_ tags: [String]) throws -> [FieldElement] {
        var limbs = [[UInt8]](repeating: [UInt8](repeating: 0, count: 32), count: 3)
        for tag in tags {
            let letters = Array(tag.utf8)
            guard letters.count == 2, letters.allSatisfy({ (65...90).contains($0) }) else {
                throw ZKPassportInputError.outOfRange("the registry tag \"\(tag)\"")
            }
            let bit = Int(letters[0] - 65) * 26 + Int(letters[1] - 65)
            let position = bit % 253
            limbs[bit / 253][31 - position / 8] |= 1 << (position % 8)
        }
        return limbs.map { FieldElement(bytesBigEndian: $0) }
    }

    /// The leaf's index and its siblings from the leaf up (`compute_merkle_root` takes them in
    /// that order: bit i of the index set means the sibling is on the left at level i).
    public func proof(for entry: Entry) throws -> (index: Int, path: [FieldElement])? {
        let leaf = try CertificateRegistry.leaf(entry)
        guard let index = leaves.firstIndex(of: leaf) else { return nil }
        var path: [FieldElement] = []
        var position = index
        for level in 0..<CertificateRegistry.depth {
            let sibling = position ^ 1
            path.append(sibling < levels[level].count ? levels[level][sibling] : zeros[level])
            position >>= 1
        }
        return (index, path)
    }
}
