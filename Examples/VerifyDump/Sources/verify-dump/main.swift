// Usage: verify-dump DUMP_FOLDER CSCA_FILE
// Exit 0 when the dump passes passive authentication against the CSCA, 1 when it does not,
// 2 when the arguments or the CSCA file cannot be used.
import Foundation
import PassiveAuth

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: verify-dump DUMP_FOLDER CSCA_FILE\n".utf8))
    exit(2)
}

let trust = TrustStore()
do {
    try trust.addCSCA(at: URL(fileURLWithPath: arguments[2]))
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(2)
}

do {
    let report = try DumpVerifier.verify(folder: URL(fileURLWithPath: arguments[1]), trust: trust)
    for failure in report.failures { print("failed: \(failure)") }
    print(report.passed ? "verified" : "not verified")
    exit(report.passed ? 0 : 1)
} catch {
    print("not verified: \(error)")
    exit(1)
}
