import FoundationEssentials
import Synchronization
import MRZ
import MRZScanner
import PassportKit

/// What the page is told about a photo or a camera frame: the MRZ when it is accepted, for the
/// person to confirm before it is used as the key.
public struct DeskMRZReading: Encodable, Sendable {
    /// "read" (a photo), "agreed" (two camera frames), "waiting" (one frame read, a second must
    /// agree) or "no_mrz" (this frame gave none; `message` says why).
    public let status: String
    public var lines: [String]?
    public var documentNumber: String?
    public var birthDate: String?
    public var expiryDate: String?
    public var name: String?
    public var issuingState: String?
    public var format: String?
    public var message: String?
    public var frames: Int?

    init(status: String, mrz: MRZ? = nil, message: String? = nil, frames: Int? = nil) {
        self.status = status
        self.message = message
        self.frames = frames
        guard let mrz else { return }
        lines = mrz.lines
        documentNumber = mrz.documentNumber
        birthDate = mrz.birthDate
        expiryDate = mrz.expiryDate
        name = "\(mrz.primaryIdentifier), \(mrz.secondaryIdentifier)"
        issuingState = mrz.issuingState
        format = mrz.format.rawValue.uppercased()
    }

    enum CodingKeys: String, CodingKey {
        case status, lines, name, format, message, frames
        case documentNumber = "document_number", birthDate = "birth_date", expiryDate = "expiry_date", issuingState = "issuing_state"
    }
}

/// The desk's OCR: the same scanner, work bound and acceptance rule as `passport ocr`. A photo's
/// reading is accepted as `ocr` accepts it; camera frames as `ocr --camera` does, when two frames
/// give the same MRZ. One image is read at a time (the scanner is not shared between threads).
public final class DeskOCR: @unchecked Sendable {
    let tessdata: String?
    private let lock = Mutex(())
    private var loaded: MRZScanner?
    /// The camera's frames so far: MRZ lines → how many frames gave them.
    private var seen: [[String]: Int] = [:]
    private var frames = 0

    public init(tessdata: String?) { self.tessdata = tessdata }

    /// A photo of the data page; throws the scanner's refusal.
    public func photo(_ image: [UInt8]) throws -> DeskMRZReading {
        try lock.withLock { _ in
            do {
                let result = try scanner().scan(imageData: image)
                return DeskMRZReading(status: "read", mrz: result.mrz)
            } catch let error as MRZScanError {
                throw Self.inDeskWords(error)
            }
        }
    }

    /// One camera frame: "agreed" once two frames give the same MRZ. A frame without one is not an
    /// error (the person is still moving the page); a missing model or engine is.
    public func frame(_ image: [UInt8]) throws -> DeskMRZReading {
        try lock.withLock { _ in
            frames += 1
            let result: MRZScanResult
            do {
                result = try scanner().scan(imageData: image)
            } catch let error as MRZScanError {
                if case .modelMissing = error { throw error }
                if case .engine = error { throw error }
                return DeskMRZReading(status: "no_mrz", message: String(describing: Self.inDeskWords(error)), frames: frames)
            }
            let lines = result.mrz.lines
            seen[lines, default: 0] += 1
            if seen[lines, default: 0] >= 2 {
                seen.removeAll()
                let count = frames
                frames = 0
                return DeskMRZReading(status: "agreed", mrz: result.mrz, frames: count)
            }
            return DeskMRZReading(status: "waiting", message: "An MRZ was read; holding for a second frame to agree.", frames: frames)
        }
    }

    /// Forgets the camera's frames (a new document, or the camera stopped).
    public func resetCamera() { lock.withLock { _ in seen.removeAll(); frames = 0 } }

    /// The scanner's refusal as the desk tells it: the desk has no --time-budget (it reads within
    /// the scanner's default limit), so a search its clock stopped gets advice that works here.
    static func inDeskWords(_ error: MRZScanError) -> Error {
        if case .timeLimit(let seconds, _, _) = error { return DeskOCRTimeLimit(seconds: seconds) }
        return error
    }

    private func scanner() throws -> MRZScanner {
        if let loaded { return loaded }
        let made = try MRZScanner(model: MRZModel.locate(explicit: tessdata))
        loaded = made
        return made
    }
}

/// A desk search stopped by the scanner's outer time limit (`MRZScanError.timeLimit`), with the
/// same code as `passport ocr`.
struct DeskOCRTimeLimit: ReportableError {
    let seconds: Double
    var code: String { "ocr_time_limit" }
    var exitStatus: Int32 { ExitStatus.invalid }
    var description: String {
        "The OCR search was stopped by its time limit of \(MRZScanError.secondsText(seconds)) s before it could finish: the computer "
            + "running the desk was too slow or too busy, and the image was not read to the end. Try again when it is less busy, "
            + "or type the MRZ."
    }
}
