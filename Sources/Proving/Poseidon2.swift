/// Poseidon2 over the BN254 scalar field as Noir and zkPassport's circuits use it (port of
/// scripts/zk/poseidon2.py, which cites the sources and test vectors).
///
/// Permutation: Barretenberg's `Poseidon2Bn254ScalarFieldParams`, t = 4, S-box x^5, 8 full
/// rounds split 4 + 4 around 56 partial rounds:
///
///     M_E · state
///     4 × [ add rc[r] (all lanes); x^5 (all lanes); M_E ]
///     56 × [ add rc[r][0] (lane 0); x^5 (lane 0); M_I ]
///     4 × [ add rc[r] (all lanes); x^5 (all lanes); M_E ]
///
///     M_E = [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]]
///     M_I: y_i = D_i·x_i + Σx
///
/// Hash: `Poseidon2::hash(input, message_size)` of noir-lang/poseidon v0.2.6, a sponge with rate
/// 3 whose capacity lane starts at IV = message_size · 2^64.
public enum Poseidon2 {
    public static let width = 4
    public static let rate = 3

    static let roundsFull = Poseidon2Constants.roundsFull
    static let roundsPartial = Poseidon2Constants.roundsPartial

    static let diagonal: [FieldElement] = Poseidon2Constants.internalMatrixDiagonal.map { FieldElement(hex: $0)! }
    static let roundConstants: [[FieldElement]] = Poseidon2Constants.roundConstants.map { row in
        row.map { FieldElement(hex: $0)! }
    }

    /// M_E · s.
    static func externalLayer(_ s: [FieldElement]) -> [FieldElement] {
        [
            FieldElement.linearCombination([5, 7, 1, 3], s),
            FieldElement.linearCombination([4, 6, 1, 1], s),
            FieldElement.linearCombination([1, 3, 5, 7], s),
            FieldElement.linearCombination([1, 1, 4, 6], s),
        ]
    }

    /// M_I · s: y_i = D_i·s_i + Σs.
    static func internalLayer(_ s: [FieldElement]) -> [FieldElement] {
        let total = FieldElement.sum(s)
        return (0..<width).map { i in diagonal[i] * s[i] + total }
    }

    /// A full round: constants and S-box on every lane, then M_E.
    static func fullRound(_ s: [FieldElement], _ round: Int) -> [FieldElement] {
        externalLayer((0..<width).map { i in (s[i] + roundConstants[round][i]).pow5() })
    }

    /// The Poseidon2 permutation of 4 field elements.
    public static func permute(_ state: [FieldElement]) -> [FieldElement] {
        precondition(state.count == width, "the Poseidon2 BN254 permutation takes exactly 4 field elements")
        var s = externalLayer(state)
        let half = roundsFull / 2
        for round in 0..<half {
            s = fullRound(s, round)
        }
        for round in half..<(half + roundsPartial) {
            s[0] = (s[0] + roundConstants[round][0]).pow5()
            s = internalLayer(s)
        }
        for round in (half + roundsPartial)..<(roundsFull + roundsPartial) {
            s = fullRound(s, round)
        }
        return s
    }

    /// Noir `Poseidon2::hash(inputs, message_size)`: only the first `messageSize` inputs are
    /// absorbed, three at a time, each block (the last one zero-padded) followed by one
    /// permutation; at least one permutation runs. The length enters the IV, so it separates
    /// domains. The output is lane 0.
    public static func hash(_ inputs: [FieldElement], messageSize: Int) -> FieldElement {
        precondition(messageSize >= 0 && messageSize <= inputs.count, "message_size exceeds the number of inputs")
        var state = [FieldElement.zero, FieldElement.zero, FieldElement.zero, initialValue(messageSize)]
        if messageSize == 0 {
            return permute(state)[0]
        }
        var start = 0
        while start < messageSize {
            let end = min(start + rate, messageSize)
            for j in start..<end {
                state[j - start] = state[j - start] + inputs[j]
            }
            state = permute(state)
            start = end
        }
        return state[0]
    }

    /// `hash(inputs, messageSize: inputs.count)`, the way zkPassport's circuits call it.
    public static func hash(_ inputs: [FieldElement]) -> FieldElement {
        hash(inputs, messageSize: inputs.count)
    }

    /// message_size · 2^64.
    static func initialValue(_ messageSize: Int) -> FieldElement {
        let n = UInt64(messageSize)
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<8 {
            bytes[23 - i] = UInt8(truncatingIfNeeded: n >> (8 * i))
        }
        return FieldElement(canonical: bytes)
    }
}
