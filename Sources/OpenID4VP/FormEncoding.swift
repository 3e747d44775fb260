import TextSupport
/// `application/x-www-form-urlencoded` and URL query text, decoded over UTF-8 bytes.
/// Over TextSupport's percent-decoding: a request link is parsed on every scan, and fuzzed millions of times.
enum FormEncoding {
    /// `text` without leading and trailing ASCII white space (what a QR reader or paste adds).
    static func trimmed(_ text: String) -> String {
        text.trimmed { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    }

    /// One name or value: `+` is a space, `%XX` a byte; nil when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8.
    static func decode<S: StringProtocol>(_ component: S) -> String? { PercentEncoding.decode(component, plusIsSpace: true) }
}
