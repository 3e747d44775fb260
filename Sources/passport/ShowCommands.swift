import ArgumentParser
import PassportCLI
import Foundation
import ImageCodecs
import LDS
import PassportKit

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show what a dump's files contain (DG1, face, DG11, DG12, DG14, DG15, SOD).")

    @Argument(help: "The dump folder.") var dump: String
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            let details = DocumentDetails(files: folder.files)
            if json {
                printJSON(ShowReport(dump: folder, details: details))
            } else {
                for (label, value) in details.lines { print("  \(label.padding(toLength: 14, withPad: " ", startingAt: 0)) \(value)") }
                print("  Files          " + folder.files.sorted { $0.key < $1.key }.map { "\($0.key.name) (\($0.value.count) B)" }.joined(separator: ", "))
                for problem in details.problems { print("  Problem        \(problem)") }
            }
            if !details.problems.isEmpty { throw Exit.invalidDocument }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, json: json)
        }
    }
}

struct PhotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo", abstract: "Extract the face image from DG2 and save it as PNG (JPEG and JPEG 2000 are decoded).")

    @Argument(help: "The dump folder.") var dump: String
    @Option(help: "The PNG file to write.") var out: String
    @Flag(help: "Save the image as stored (JPEG or JPEG 2000) instead of converting to PNG.") var raw = false
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        do {
            let folder = try DumpFolder(reading: URL(fileURLWithPath: dump))
            guard let bytes = folder.files[.dataGroup(2)] else { throw PhotoError.noDG2 }
            let face = try DataGroup2(bytes: bytes).faces[0]
            let output = raw ? face.image : try ImageConverter.png(from: face.image)
            let size = try ImageConverter.dimensions(of: face.image)
            try writePrivateFile(Data(output), to: out)
            if json {
                printJSON(PhotoReport(out: out, sourceFormat: face.format.rawValue, width: size.width, height: size.height, bytes: output.count))
            } else {
                print("Saved the face image (\(face.format.rawValue), \(size.width)×\(size.height)) to \(out)")
            }
        } catch {
            throw fail(error, json: json)
        }
    }

    enum PhotoError: ReportableError {
        case noDG2
        var description: String { "The dump has no DG2 (face image)." }
        var code: String { "image_error" }
        var exitStatus: Int32 { ExitStatus.invalid }
    }
}
