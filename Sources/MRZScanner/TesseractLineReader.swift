import ImageCodecs
import CLeptonica
import CTesseract
#if canImport(Glibc)
import Glibc
#endif

/// One Tesseract engine (C API) set up to read single MRZ lines: LSTM only, the MRZ alphabet only.
/// Not thread-safe; create one per thread.
final class TesseractLineReader {
    static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
    private let handle: OpaquePointer

    /// `dataPath` is the folder holding `<language>.traineddata`.
    init(dataPath: String, language: String) throws {
        guard let handle = TessBaseAPICreate() else { throw MRZScanError.engine("Tesseract could not be created") }
        // Quiet: Tesseract writes its diagnostics to stderr unless told otherwise.
        TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        guard TessBaseAPIInit2(handle, dataPath, language, OEM_LSTM_ONLY) == 0 else {
            TessBaseAPIDelete(handle)
            throw MRZScanError.engine("Tesseract could not load \(language).traineddata from \(dataPath)")
        }
        TessBaseAPISetVariable(handle, "tessedit_char_whitelist", Self.alphabet)
        // An MRZ is never white on black; skip the second, inverted recognition pass.
        TessBaseAPISetVariable(handle, "tessedit_do_invert", "0")
        TessBaseAPISetPageSegMode(handle, PSM_SINGLE_LINE)
        self.handle = handle
    }

    /// Debian's Tesseract is built with OpenMP and asks for four threads per LSTM step. For one MRZ
    /// line that costs far more than it saves: 300 ms instead of 50 ms per line on two cores, and
    /// worse on one core, where the extra threads spin waiting for each other. OMP_THREAD_LIMIT=1
    /// would stop it, but libgomp reads it when the program starts; a maximum of zero active
    /// parallel levels, set on the thread that recognises, has the same effect.
    private static func runParallelRegionsInline() {
        guard let setMaxActiveLevels = ompSetMaxActiveLevels else { return }
        setMaxActiveLevels(0)
    }

    private static let ompSetMaxActiveLevels: (@convention(c) (Int32) -> Void)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }()

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// One line as read: its characters (whitespace dropped) and Tesseract's confidence in each
    /// (0-100).
    struct Reading {
        var text: String
        var confidences: [Float]
    }

    /// The text of one line image, character by character with Tesseract's confidence.
    func read(_ line: LeptonicaImage) -> Reading {
        Self.runParallelRegionsInline()
        TessBaseAPISetImage2(handle, line.pix)
        TessBaseAPISetSourceResolution(handle, 300)
        defer { TessBaseAPIClear(handle) }
        guard TessBaseAPIRecognize(handle, nil) == 0, let iterator = TessBaseAPIGetIterator(handle) else {
            return Reading(text: "", confidences: [])
        }
        defer { TessResultIteratorDelete(iterator) }
        var reading = Reading(text: "", confidences: [])
        repeat {
            guard let raw = TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
            let symbol = String(cString: raw).filter { !$0.isWhitespace }
            TessDeleteText(raw)
            let confidence = TessResultIteratorConfidence(iterator, RIL_SYMBOL)
            for character in symbol {
                reading.text.append(character)
                reading.confidences.append(confidence)
            }
        } while TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        return reading
    }
}
