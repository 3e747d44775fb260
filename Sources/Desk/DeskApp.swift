import FoundationEssentials
import TextSupport
import LDS
import LibraryLoading
import LocalFiles
import MRZ
import PassiveAuth
import PassportKit

/// The desk's routes: each request, already past `DeskGuard`, becomes a change of `DeskState`
/// or an answer drawn from it. Nothing is written to disk but by "Save dump".
public final class DeskApp: Sendable {
    public let state: DeskState
    let ocr: DeskOCR
    let trust: TrustStore
    /// Where "Save dump" writes (a folder per dump, 0700, files 0600).
    let saveFolder: URL
    /// The holder's side (`--holder`): nil on an inspection desk, which makes no presentation.
    let holder: DeskHolder?

    public init(state: DeskState, ocr: DeskOCR, trust: TrustStore?, saveFolder: URL, holder: DeskHolder? = nil) {
        self.state = state
        self.ocr = ocr
        self.trust = trust ?? TrustStore()
        self.saveFolder = saveFolder
        self.holder = holder
        state.setHolderMode(holder != nil)
    }

    public func handle(_ request: DeskRequest) -> DeskResponse {
        let route = (request.method == "HEAD" ? "GET" : request.method, request.path)
        switch route {
        case ("GET", "/"): return asset("index.html")
        case ("GET", let path) where path.hasPrefix("/assets/"): return asset(String(path.dropFirst("/assets/".count)))
        case ("GET", "/api/events"): return .events
        case ("GET", "/api/state"): return .json(state.snapshot())
        case ("POST", "/api/key"): return setKey(request.body)
        case ("POST", "/api/reader"): return selectReader(request.body)
        case ("POST", "/api/keep-reading"): return keepReading(request.body)
        case ("POST", "/api/clear"): state.clear(); ocr.resetCamera(); return .noContent
        case ("POST", "/api/ocr/photo"): return readMRZ { try ocr.photo(request.body) }
        case ("POST", "/api/ocr/frame"): return readMRZ { try ocr.frame(request.body) }
        case ("POST", "/api/ocr/reset"): ocr.resetCamera(); return .noContent
        case ("POST", "/api/dump"): return verifyDump(request)
        case (let method, let path) where path.hasPrefix("/api/results/"): return result(method, path, request)
        case (_, let path) where path.hasPrefix("/api/") || path == "/": return .error(405, "method", "\(request.method) is not answered at \(path).")
        default: return .error(404, "not_found", "Nothing at \(request.path).")
        }
    }

    static let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
                        "svg": "image/svg+xml"]

    func asset(_ name: String) -> DeskResponse {
        guard let text = DeskAssetFiles.files[name], let type = Self.types[String(name.split(separator: ".").last ?? "")] else {
            return .error(404, "not_found", "No such part of the page: \(name).")
        }
        return .bytes(Array(text.utf8), type: type)
    }

    // MARK: the key

    struct KeyBody: Decodable {
        var mrz: String?
        var documentNumber: String?
        var documentNumberCheck: String?
        var birth: String?
        var birthCheck: String?
        var expiry: String?
        var expiryCheck: String?
        var can: String?
        var source: String?
        enum CodingKeys: String, CodingKey {
            case mrz, birth, expiry, can, source
            case documentNumber = "document_number", documentNumberCheck = "document_number_check"
            case birthCheck = "birth_check", expiryCheck = "expiry_check"
        }
    }

    func setKey(_ body: [UInt8]) -> DeskResponse {
        guard let given = try? JSONDecoder().decode(KeyBody.self, from: Data(body)) else {
            return .error(400, "bad_request", "Expected {\"document_number\", \"birth\", \"expiry\"}, {\"mrz\"} or {\"can\"}.")
        }
        do {
            let key = try Self.key(from: given)
            state.setKey(key)
            return .json(state.snapshot())
        } catch {
            return .error(422, ErrorReport.code(of: error), ErrorReport.message(of: error))
        }
    }

    static func key(from given: KeyBody) throws -> DeskKey {
        let source = ["typed", "camera", "photo"].contains(given.source ?? "") ? given.source! : "typed"
        if let can = given.can {
            guard can.count == 6, can.allSatisfy(\.isASCII), can.allSatisfy(\.isNumber) else {
                throw MRZError.invalidField("The CAN is the 6-digit card access number printed on the document.")
            }
            return DeskKey(credentials: AccessCredentials(can: can), printedMRZ: nil, source: source)
        }
        if let text = given.mrz {
            let mrz = try MRZ(text: text)
            let key = try mrz.checkedAccessKey()
            try key.validate()
            return DeskKey(credentials: AccessCredentials(mrz: key), printedMRZ: mrz, source: source)
        }
        guard let number = given.documentNumber, let birth = given.birth, let expiry = given.expiry else {
            throw MRZError.invalidField("Give the document number, the birth date and the expiry date (YYMMDD), or the CAN.")
        }
        let key = MRZAccessKey(documentNumber: number, birthDate: birth, expiryDate: expiry)
        try key.validate()
        let fields = [("document number", key.documentNumber.count < 9 ? key.documentNumber.padded(to: 9, with: "<") : key.documentNumber,
                       given.documentNumberCheck), ("birth date", birth, given.birthCheck), ("expiry date", expiry, given.expiryCheck)]
        for (label, field, check) in fields {
            guard let check, !check.isEmpty else { continue }
            if CheckDigit.compute(field).map(String.init) != check.uppercased() {
                throw MRZError.invalidField("The check digit of the \(label) does not match (\(check) given); check both for typos.")
            }
        }
        return DeskKey(credentials: AccessCredentials(mrz: key), printedMRZ: nil, source: source)
    }

    // MARK: readers and modes

    func selectReader(_ body: [UInt8]) -> DeskResponse {
        struct Body: Decodable { let reader: String? }
        guard let given = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
            return .error(400, "bad_request", "Expected {\"reader\": NAME or null}.")
        }
        state.select(reader: given.reader)
        return .json(state.snapshot())
    }

    func keepReading(_ body: [UInt8]) -> DeskResponse {
        struct Body: Decodable { let on: Bool }
        guard let given = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
            return .error(400, "bad_request", "Expected {\"on\": true or false}.")
        }
        state.setKeepReading(given.on)
        return .json(state.snapshot())
    }

    // MARK: OCR

    func readMRZ(_ read: () throws -> DeskMRZReading) -> DeskResponse {
        do { return .json(try read()) } catch { return Self.failure(error) }
    }

    // MARK: recorded dumps

    func verifyDump(_ request: DeskRequest) -> DeskResponse {
        let label = String((request.query["name"] ?? "dropped dump").prefix(200))
        do {
            let type = request.header("content-type")?.lowercased() ?? ""
            let files: [String: [UInt8]]
            if type.hasPrefix("application/zip") || type.hasPrefix("application/x-zip") {
                files = try DumpUpload.files(zip: request.body)
            } else if type.hasPrefix("application/json") {
                files = try DumpUpload.files(json: request.body)
            } else {
                return .error(415, "bad_request", "Send a zip (application/zip) or the files as JSON (application/json).")
            }
            let dump = try DumpUpload.dump(named: files, label: label)
            let trust = self.trust
            let record = try state.add { id in try DeskRecords.dump(dump, label: label, id: id, trust: trust) }
            return .json(record.result)
        } catch {
            return .error(422, ErrorReport.code(of: error) == "error" ? "upload_refused" : ErrorReport.code(of: error), ErrorReport.message(of: error))
        }
    }

    // MARK: results

    func result(_ method: String, _ path: String, _ request: DeskRequest) -> DeskResponse {
        let parts = path.split(separator: "/").map(String.init)  // api, results, ID[, name]
        guard parts.count >= 3, let id = Int(parts[2]), let record = state.record(id: id) else {
            return .error(404, "not_found", "No such result: it was cleared, or the desk was restarted.")
        }
        switch (method, parts.count == 4 ? parts[3] : nil) {
        case ("GET", nil): return .json(record.result)
        case ("GET", "report.json"):
            var response = DeskResponse.json(record.result)
            response.headers.append(("Content-Disposition", "attachment; filename=\"passport-report-\(id).json\""))
            return response
        case ("GET", "evidence.json"):
            guard let evidence = record.evidence else { return .error(404, "not_found", "This result has no evidence.json.") }
            return .bytes(evidence, type: "application/json", download: "evidence-\(id).json")
        case ("GET", let name?) where record.images[name] != nil: return .bytes(record.images[name]!, type: "image/png")
        case ("POST", "save"): return save(record)
        case (_, let name?) where DeskApp.holderRoutes.contains(name): return holderRoute(method, name, record, request)
        default: return .error(404, "not_found", "No such part of result \(id).")
        }
    }

    // MARK: the holder (--holder)

    static let holderRoutes: Set<String> = ["claims", "presentation", "presentation.svg", "request-frame", "request-photo", "request-send", "request-decline"]

    func holderRoute(_ method: String, _ name: String, _ record: DeskRecord, _ request: DeskRequest) -> DeskResponse {
        guard let holder else { return Self.failure(DeskHolderError.disabled, status: 404) }
        let id = record.result.id
        do {
            switch (method, name) {
            case ("GET", "claims"): return .json(try holder.claims(record, state: state))
            case ("POST", "presentation"): return .json(try holder.presentation(record, body: request.body, state: state))
            case ("GET", "presentation.svg"):
                guard let svg = holder.presentationSVG(id, state: state) else { return .error(404, "not_found", "No presentation was made from result \(id).") }
                return .bytes(Array(svg.utf8), type: "image/svg+xml")
            case ("POST", "request-frame"), ("POST", "request-photo"):
                // The claims the person agreed to disclose, as ticked on the page.
                let agreed = Set((request.query["agreed"] ?? "").split(separator: ",").map(String.init))
                return .json(try holder.readRequest(record, image: request.body, frame: name == "request-frame", agreed: agreed, state: state))
            case ("POST", "request-send"): return .json(try holder.send(id, state: state))
            case ("POST", "request-decline"): holder.decline(id, state: state); return .noContent
            default: return .error(405, "method", "\(method) is not answered at \(name).")
            }
        } catch let missing as MissingLibrary {
            return Self.failure(missing, status: 503)
        } catch DeskHolderError.gone {
            return Self.failure(DeskHolderError.gone, status: 404)
        } catch {
            // What was given or read (a code too large for one QR code included), or the verifier's answer.
            return Self.failure(error, status: 422)
        }
    }

    /// An error as the page shows it: 503 for what the machine lacks (a library, the network's
    /// configuration), 422 for what was given or read.
    static func failure(_ error: Error, status: Int? = nil) -> DeskResponse {
        let environment = ErrorReport.exitStatus(of: error) == ExitStatus.environment
        return .error(status ?? (environment ? 503 : 422), ErrorReport.code(of: error), ErrorReport.message(of: error))
    }

    /// Writes the dump `passport scan --out` would have written, into the save folder.
    func save(_ record: DeskRecord) -> DeskResponse {
        guard let contents = record.contents else {
            return .error(409, "not_savable", "Only documents read at the desk are saved; a dropped dump is on disk already.")
        }
        let stamp = record.result.at.filter { $0.isNumber || $0 == "T" }.replacing("T", with: "-")
        let destination = saveFolder.appendingPathComponent("passport-\(stamp)-\(record.result.id)")
        do {
            try PrivateFiles.createFolder(saveFolder)
            if FileManager.default.fileExists(atPath: destination.path) { throw DumpError.destinationExists(destination.path) }
            try DumpWriter.write(contents, to: destination)
            struct Saved: Encodable { var ok = true; let path: String }
            return .json(Saved(path: destination.path))
        } catch {
            return .error(500, ErrorReport.code(of: error), ErrorReport.message(of: error))
        }
    }
}
