import ArgumentParser
import PassportCLI
import Credentials
import Foundation

/// Benchmark (not a test): SD-JWT and VC-JWT presentations made and verified per second.
struct CredentialsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials", abstract: "Benchmark: credential presentations minted and verified per second.")

    @Option(help: "Presentations per format.") var iterations = 500
    @Flag(help: "Print one JSON object on stdout.") var json = false

    func run() throws {
        let claims = DerivedClaims(ageOver18: true, isHuman: true, nationality: nil, verificationMethod: "NFC Verified",
                                   evidence: ["type": "PassiveAuthentication"], expiry: Date().addingTimeInterval(86_400 * 365))
        let key = try P256PrivateKey()
        let disclose: Set = ["age_over_18", "is_human", "verification_method"]
        var rates: [String: Any] = [:]
        if !json { print("format        present/s       verify/s") }
        for format in CredentialFormat.allCases {
            var tokens: [String] = []
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<iterations {
                tokens.append(try PassportCredential.present(claims, format: format, disclose: disclose,
                                                             audience: "https://a.example", nonce: "n\(i)", key: key))
            }
            let middle = DispatchTime.now().uptimeNanoseconds
            for (i, token) in tokens.enumerated() {
                _ = try PresentationVerifier(audience: "https://a.example", nonce: "n\(i)").verify(token)
            }
            let end = DispatchTime.now().uptimeNanoseconds
            let presented = Double(iterations) / (Double(middle - start) / 1e9)
            let verified = Double(iterations) / (Double(end - middle) / 1e9)
            rates[format.rawValue] = ["presented_per_second": presented.rounded(), "verified_per_second": verified.rounded()]
            if !json {
                print(format.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + String(format: " %14.0f %14.0f", presented, verified))
            }
        }
        if json { printJSON(["iterations": iterations, "formats": rates]) }
    }
}
