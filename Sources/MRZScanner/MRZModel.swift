import LocalFiles
import FoundationEssentials

/// Which Tesseract model reads the MRZ: the toolkit's own OCR-B model (`mrz.traineddata`, trained
/// by scripts/ocr/train-mrz-model), else Debian's general English model as a weaker fallback.
public struct MRZModel: Sendable, Equatable {
    public let dataPath: String
    public let language: String
    /// True when the MRZ model was not found and Debian's `eng` stands in.
    public let isFallback: Bool

    public init(dataPath: String, language: String, isFallback: Bool = false) {
        self.dataPath = dataPath
        self.language = language
        self.isFallback = isFallback
    }

    public static let modelFile = "mrz.traineddata"
    public static let environmentVariable = "PASSPORT_TESSDATA"

    /// Where the MRZ model is looked for, in order: `explicit` (a folder or the .traineddata file),
    /// `$PASSPORT_TESSDATA`, `$XDG_DATA_HOME/passport/tessdata` (or ~/.local/share/…), `../share/passport/tessdata`
    /// beside the executable (an unpacked tarball),
    /// /usr/local/share/passport/tessdata, /usr/share/passport/tessdata, and the `Models` folder of
    /// the source tree this binary was built from.
    public static func searchFolders(explicit: String? = nil) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        var folders: [String] = []
        if let explicit { folders.append(explicit.hasSuffix(".traineddata") ? Paths.parent(explicit) : explicit) }
        if let value = environment[environmentVariable], !value.isEmpty { folders.append(value) }
        folders.append(XDGDirectories.dataHome(environment).appendingPathComponent("passport/tessdata").path)
        if let beside = besideExecutable { folders.append(beside) }
        folders.append("/usr/local/share/passport/tessdata")
        folders.append("/usr/share/passport/tessdata")
        let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent() // Sources/MRZScanner
            .deletingLastPathComponent().deletingLastPathComponent()
        folders.append(sourceTree.appendingPathComponent("Models").path)
        return folders
    }

    /// `share/passport/tessdata` beside the executable's `bin` folder (links resolved): where an
    /// unpacked release tarball keeps the models, wherever it was unpacked.
    static var besideExecutable: String? {
        // The kernel's link names the executable's real path. (Not realpath(3): with FORTIFY, as
        // the packages build, its inline definition differs between Glibc and the C shims here.)
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return Paths.join(Paths.parent(Paths.parent(executable)), "share/passport/tessdata")
    }

    public static let fallbackFolders = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"]

    /// The first MRZ model found, else the fallback; nil when neither exists. An `explicit` path that
    /// holds no model is an error rather than a silent fallback.
    public static func locate(explicit: String? = nil) throws -> MRZModel {
        let fm = FileManager.default
        if let explicit {
            let folder = explicit.hasSuffix(".traineddata") ? Paths.parent(explicit) : explicit
            let language = explicit.hasSuffix(".traineddata") ? Paths.stem(explicit) : "mrz"
            let file = Paths.join(folder, "\(language).traineddata")
            guard fm.fileExists(atPath: file) else {
                throw MRZScanError.modelMissing("No Tesseract model at \(file). Give the folder holding mrz.traineddata, or leave --tessdata out.")
            }
            return MRZModel(dataPath: folder, language: language)
        }
        for folder in searchFolders() where fm.fileExists(atPath: Paths.join(folder, modelFile)) {
            return MRZModel(dataPath: folder, language: "mrz")
        }
        for folder in fallbackFolders where fm.fileExists(atPath: Paths.join(folder, "eng.traineddata")) {
            return MRZModel(dataPath: folder, language: "eng", isFallback: true)
        }
        throw MRZScanError.modelMissing(
            "No Tesseract model found: neither mrz.traineddata (looked in \(searchFolders().joined(separator: ", "))) "
                + "nor Debian's eng model. Run scripts/setup, or apt-get install tesseract-ocr-eng.")
    }
}
