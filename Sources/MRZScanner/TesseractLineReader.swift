import ImageCodecs
import CLeptonica
import CTesseract

/// One Tesseract engine (C API) set up to read single MRZ lines: LSTM only, the MRZ alphabet only.
/// Not thread-safe; create one per thread.
final class TesseractLineReader {
    static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
    private let handle: OpaquePointer
    private let tess: PassportTesseract

    /// `dataPath` is the folder holding `<language>.traineddata`.
    init(dataPath: String, language: String) throws {
        let tess = try Self.library.get()
        self.tess = tess
        guard let handle = tess.TessBaseAPICreate() else { throw MRZScanError.engine("Tesseract could not be created") }
        // Quiet: Tesseract writes its diagnostics to stderr unless told otherwise.
        _ = tess.TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        guard tess.TessBaseAPIInit2(handle, dataPath, language, OEM_LSTM_ONLY) == 0 else {
            tess.TessBaseAPIDelete(handle)
            throw MRZScanError.engine("Tesseract could not load \(language).traineddata from \(dataPath)")
        }
        _ = tess.TessBaseAPISetVariable(handle, "tessedit_char_whitelist", Self.alphabet)
        // An MRZ is never white on black; skip the second, inverted recognition pass.
        _ = tess.TessBaseAPISetVariable(handle, "tessedit_do_invert", "0")
        tess.TessBaseAPISetPageSegMode(handle, PSM_SINGLE_LINE)
        self.handle = handle
    }

    /// Debian's Tesseract is built with OpenMP and asks for four threads per LSTM step. For one MRZ
    /// line that costs far more than it saves: 300 ms instead of 50 ms per line on two cores, and
    /// worse on one core, where the extra threads spin waiting for each other. OMP_THREAD_LIMIT=1
    /// would stop it, but libgomp reads it when the program starts; a maximum of zero active
    /// parallel levels, set on the thread that recognises, has the same effect.
    private func runParallelRegionsInline() {
        tess.omp_set_max_active_levels?(0)
    }

    /// Tesseract's version ("5.3.0"), opening the library; the error names the package to install.
    static func libraryVersion() throws -> String {
        try library.get().TessVersion().map { String(cString: $0) } ?? "unknown"
    }

    /// libtesseract, opened on first use (not linked: commands that read no photo never load it).
    private static let library: Result<PassportTesseract, MRZScanError> = {
        var error = [CChar](repeating: 0, count: 512)
        guard let table = passport_tesseract_load(&error, error.count) else {
            return .failure(.engine("Reading a photo needs Tesseract, and \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)). "
                                    + "Install it: sudo apt install \(String(cString: passport_tesseract_package()))"))
        }
        return .success(table.pointee)
    }()

    deinit {
        tess.TessBaseAPIEnd(handle)
        tess.TessBaseAPIDelete(handle)
    }

    /// One line as read: its characters (whitespace dropped) and Tesseract's confidence in each
    /// (0-100).
    struct Reading {
        var text: String
        var confidences: [Float]
    }

    /// The text of one line image, character by character with Tesseract's confidence.
    func read(_ line: LeptonicaImage) -> Reading {
        runParallelRegionsInline()
        tess.TessBaseAPISetImage2(handle, line.pix)
        tess.TessBaseAPISetSourceResolution(handle, 300)
        defer { tess.TessBaseAPIClear(handle) }
        guard tess.TessBaseAPIRecognize(handle, nil) == 0, let iterator = tess.TessBaseAPIGetIterator(handle) else {
            return Reading(text: "", confidences: [])
        }
        defer { tess.TessResultIteratorDelete(iterator) }
        var reading = Reading(text: "", confidences: [])
        repeat {
            guard let raw = tess.TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
            let symbol = String(cString: raw).filter { !$0.isWhitespace }
            tess.TessDeleteText(raw)
            let confidence = tess.TessResultIteratorConfidence(iterator, RIL_SYMBOL)
            for character in symbol {
                reading.text.append(character)
                reading.confidences.append(confidence)
            }
        } while tess.TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        return reading
    }
}

/// The Tesseract library as this machine has it.
public enum TesseractEngine {
    /// Its version ("5.3.0"); throws `MRZScanError.engine` naming the package when it is missing.
    public static func version() throws -> String { try TesseractLineReader.libraryVersion() }
    /// The Debian package that gives the library this build opens (from the headers it was built with).
    public static var debianPackage: String { String(cString: passport_tesseract_package()) }
}
