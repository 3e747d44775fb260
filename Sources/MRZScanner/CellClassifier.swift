import FoundationEssentials
import Glibc

/// Names the character in one MRZ cell (LineCells' patches): a small fully connected network
/// (ReLU hidden layers, softmax output over the 37 MRZ characters) trained by
/// scripts/ocr/train-cell-model on cells cut by this module from the tuning generator's pages.
///
/// The model file (`mrz-cells.bin`, little-endian): the magic "MRZC", UInt32 version 1, UInt32
/// patch width and height, the UInt32 number of layers, then per layer UInt32 outputs and inputs,
/// outputs × inputs Float32 weights (row by row) and outputs Float32 biases.
final class CellClassifier: Sendable {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
    static let fileName = "mrz-cells.bin"

    struct Layer {
        let outputs: Int
        let inputs: Int
        let weights: [Float]
        let biases: [Float]
    }

    private let layers: [Layer]

    /// One cell's reading: the probability of each character of `alphabet`.
    struct Reading {
        let probabilities: [Float]
        var best: Character { alphabet[probabilities.indices.max { probabilities[$0] < probabilities[$1] }!] }
    }

    /// A line's cells as read.
    struct LineReading {
        let cells: [Reading]
        var text: String { String(cells.map(\.best)) }
    }

    init(layers: [Layer]) { self.layers = layers }

    /// Loads a model file; nil (the cell reader is then not used) when it is missing or malformed.
    convenience init?(contentsOf path: String) {
        guard let data = FileManager.default.contents(atPath: path), let layers = Self.parse([UInt8](data)) else { return nil }
        self.init(layers: layers)
    }

    static func parse(_ bytes: [UInt8]) -> [Layer]? {
        var offset = 0
        func u32() -> Int? {
            guard offset + 4 <= bytes.count else { return nil }
            defer { offset += 4 }
            return Int(UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
        }
        func floats(_ count: Int) -> [Float]? {
            guard count >= 0, offset + 4 * count <= bytes.count else { return nil }
            var values = [Float](repeating: 0, count: count)
            for index in 0..<count {
                let at = offset + 4 * index
                let bits = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
                values[index] = Float(bitPattern: bits)
            }
            offset += 4 * count
            return values
        }
        guard bytes.count >= 4, Array(bytes[0..<4]) == Array("MRZC".utf8) else { return nil }
        offset = 4
        guard u32() == 1, u32() == LineCells.patchWidth, u32() == LineCells.patchHeight, let count = u32(), (1...8).contains(count) else {
            return nil
        }
        var layers: [Layer] = []
        var inputs = LineCells.patchSize
        for _ in 0..<count {
            guard let outputs = u32(), let declared = u32(), declared == inputs, (1...4096).contains(outputs),
                  let weights = floats(outputs * inputs), let biases = floats(outputs) else { return nil }
            layers.append(Layer(outputs: outputs, inputs: inputs, weights: weights, biases: biases))
            inputs = outputs
        }
        guard inputs == alphabet.count, offset == bytes.count else { return nil }
        return layers
    }

    /// Reads every cell of a line.
    func read(_ cells: LineCells) -> [Reading] {
        (0..<cells.count).map { cell in
            cells.patches.withUnsafeBufferPointer { buffer in
                classify(UnsafeBufferPointer(rebasing: buffer[(cell * LineCells.patchSize)..<((cell + 1) * LineCells.patchSize)]))
            }
        }
    }

    /// Σ a[i]·b[i], eight lanes at a time (the compiler keeps a scalar sum in order otherwise).
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var lanes = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            lanes += UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
            i += 8
        }
        var sum = lanes.sum()
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
    }

    func classify(_ patch: UnsafeBufferPointer<Float>) -> Reading {
        var activations = Array(patch)
        for (index, layer) in layers.enumerated() {
            var next = layer.biases
            layer.weights.withUnsafeBufferPointer { weights in
                activations.withUnsafeBufferPointer { input in
                    for output in 0..<layer.outputs {
                        next[output] += Self.dot(weights.baseAddress! + output * layer.inputs, input.baseAddress!, layer.inputs)
                    }
                }
            }
            if index < layers.count - 1 {
                for i in next.indices where next[i] < 0 { next[i] = 0 }
            }
            activations = next
        }
        // Softmax.
        let top = activations.max() ?? 0
        var exponentials = activations.map { Glibc.exp($0 - top) }
        let total = exponentials.reduce(0, +)
        for i in exponentials.indices { exponentials[i] /= total }
        return Reading(probabilities: exponentials)
    }
}
