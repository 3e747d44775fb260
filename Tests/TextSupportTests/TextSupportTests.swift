import Foundation
import LocalFiles
import TestSupport
import TextSupport
import Testing

/// TextSupport and LocalFiles' Paths against the Foundation calls they replace (issue 47: those
/// live in the Foundation that brings ICU), on chosen and seeded inputs.
@Suite struct TextSupportAgainstFoundation {
    @Test func fixedDecimalsAsPrintfWritesThem() {
        var rng = SplitMix(seed: 7)
        let chosen: [Double] = [0, -0.0, 1, -1, 0.05, 0.15, 2.5, 1234.5678, -0.0004, 99.995, 1e12, 0.000001]
        let values = chosen + (0..<2000).map { _ in Double.random(in: -10_000...10_000, using: &rng) }
        for value in values {
            for decimals in [0, 1, 2, 3, 6] {
                let printf = String(format: "%.\(decimals)f", value)
                let ours = value.fixed(decimals)
                // printf rounds the exact binary value half to even; ours rounds the scaled double half
                // away from zero: they may differ in the last digit only on an exact tie.
                if ours != printf {
                    #expect(abs(Double(ours)! - Double(printf)!) <= pow(10, -Double(decimals)) * 1.0000001, "\(value) %.\(decimals)f")
                }
            }
        }
        #expect(1.5.fixed(2) == "1.50" && (-0.004).fixed(2) == "0.00" && (-2.5).fixed(0) == "-3" && 0.125.fixed(1) == "0.1")
    }

    @Test func hexAndZeroPaddingAsPrintf() {
        for value in [0, 1, 9, 10, 15, 16, 255, 4095, 0x6982, 0xFFFF] {
            #expect(value.hex(2) == String(format: "%02X", value))
            #expect(value.hex(4) == String(format: "%04X", value))
            #expect(value.hex(2, uppercase: false) == String(format: "%02x", value))
            #expect(value.zeroPadded(3) == String(format: "%03d", value))
        }
        #expect((-5).zeroPadded(4) == String(format: "%04d", -5))
    }

    @Test func trimmingAndPaddingAsNSString() {
        for text in ["", "  ", " a ", "\ta b\n", "\r\nx\r\n", "ü ", "a", "  lead", "trail  "] {
            #expect(text.trimmed() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
            // NSString pads by UTF-16 units ("\r\n" is two), TextSupport by characters (one).
            for width in [0, 1, 4, 9] where !text.contains("\r\n") {
                #expect(text.padded(to: width) == text.padding(toLength: width, withPad: " ", startingAt: 0))
            }
        }
    }

    @Test func percentDecodingAsFoundation() {
        for text in ["a%20b", "%C3%A9", "100%", "%zz", "%e2%82%ac", "plain", "%FF", "a+b"] {
            #expect(PercentEncoding.decode(text, plusIsSpace: false) == text.removingPercentEncoding, "\(text)")
        }
        #expect(PercentEncoding.decode("a+b%2B", plusIsSpace: true) == "a b+")
    }

    @Test func percentEncodingKeepsOnlyTheUnreservedSet() {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        for text in ["a b", "x=1&y=2", "é€😀", "-._~", "/?#[]@!$&'()*+,;=%", ""] {
            #expect(PercentEncoding.encodeUnreserved(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
        }
    }

    @Test func pathsAsNSString() {
        for path in ["a/b/c.txt", "c.txt", "/c", "/", "a/b/", "dir//x", "/usr/share/passport/tessdata/mrz.traineddata", ".hidden", "a/.b", ""] {
            let ns = path as NSString
            #expect(Paths.parent(path) == ns.deletingLastPathComponent, "parent of \(path)")
            #expect(Paths.lastComponent(path) == ns.lastPathComponent, "last of \(path)")
            #expect(Paths.stem(path) == (ns.lastPathComponent as NSString).deletingPathExtension, "stem of \(path)")
            #expect(Paths.join(path, "n") == ns.appendingPathComponent("n"), "join \(path)")
        }
    }
}
