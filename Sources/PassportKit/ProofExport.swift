import LocalFiles
import FoundationEssentials
import Glibc
import LDS
import PassiveAuth
import Proving

/// `passport prove --export`: the inputs of the four zkPassport circuits a passport needs, as
/// nargo `Prover.toml` files anyone with the circuits and Noir can execute, written only after
/// the dump passed passive authentication. They hold DG1 and the SOD: personal data, so the
/// folder is 0700 and the files 0600.
public enum ProofExport {
    public struct Written: Sendable {
        public let circuit: String
        public let file: URL
        public let parameters: Int
        public let values: Int
    }

    public enum Problem: Error, CustomStringConvertible {
        /// The passport's algorithms or sizes are ones the circuits do not take.
        case notProvable(String)
        case cannotWrite(path: String, why: String)
        public var description: String {
            switch self {
            case .notProvable(let why): "Cannot prepare zero-knowledge inputs for this passport: \(why)."
            case .cannotWrite(let path, let why): "Cannot write \(path): \(why)."
            }
        }
    }

    public static func write(dump: DumpFolder, trust: TrustStore, to folder: URL, minimumAge: Int = 18, now: Date = Date()) throws -> [Written] {
        let report = try DumpVerifier.verify(dump: dump, trust: trust, now: now)
        guard report.passed else { throw CredentialIssuer.IssueError.notVerified(report.failures) }
        guard let dg1 = dump.files[.dataGroup(1)] else { throw CredentialIssuer.IssueError.missingDG1 }
        let chain: ZKPassportChain
        do {
            chain = try ProofInputs.chain(dump: dump, dg1: dg1, report: report, trust: trust, now: now, minimumAge: minimumAge)
        } catch let error as ProofInputs.Failure {
            throw Problem.notProvable(error.description)
        } catch let error as ZKPassportInputError {
            throw Problem.notProvable(String(describing: error))
        }
        // Everything is rendered before anything is written: a failure leaves no partial export.
        let files = try chain.circuits.map { circuit -> (ZKPassportChain.Circuit, String) in
            let header = ["\(circuit.name): inputs of `main` in \(ZKPassportChain.circuitsVersion) (commit \(ZKPassportABI.circuitsCommit)),",
                          "in declaration order. PERSONAL DATA (DG1, EF.SOD): keep this file private.",
                          "Check: nargo execute --package \(circuit.name) (see README.md beside this folder)."]
            do { return (circuit, try ProverTOML.render(circuit.inputs, parameters: circuit.parameters, circuit: circuit.name, header: header)) } catch {
                throw Problem.notProvable(String(describing: error))
            }
        }
        try makePrivateFolder(folder)
        var written: [Written] = []
        for (circuit, text) in files {
            let circuitFolder = folder.appendingPathComponent(circuit.name)
            try makePrivateFolder(circuitFolder)
            let file = circuitFolder.appendingPathComponent("Prover.toml")
            try writePrivate(Data(text.utf8), to: file)
            written.append(Written(circuit: circuit.name, file: file, parameters: circuit.parameters.count, values: circuit.inputs.count))
        }
        try writePrivate(Data(readme(chain.circuits.map(\.name)).utf8), to: folder.appendingPathComponent("README.md"))
        return written
    }

    static func readme(_ circuits: [String]) -> String {
        var lines = [
            "# Zero-knowledge inputs for one passport",
            "",
            "Written by `passport prove --export` after passive authentication passed. Each folder holds the",
            "`Prover.toml` of one zkPassport circuit (\(ZKPassportChain.circuitsVersion), commit",
            "\(ZKPassportABI.circuitsCommit)): the values of its `main` parameters, in declaration order. The four",
            "circuits chain (each one's output commitment is the next one's `comm_in`) to prove \"age >= the",
            "minimum\" without revealing DG1. These files hold DG1 and the EF.SOD: personal data.",
            "",
            "What has been run here: the values were computed by this toolkit, and its tests check them against",
            "zkPassport's published fixtures and the circuits' parameter lists. What has NOT been run here:",
            "nargo, the circuits, or any prover (no Noir toolchain on the machine that wrote this).",
            "",
            "To check them with Noir (nargo matching the circuits' Nargo.toml):",
            "",
            "    git clone https://github.com/zkpassport/circuits && cd circuits && git checkout \(ZKPassportABI.circuitsCommit)",
        ]
        for circuit in circuits {
            lines += [
                "",
                "    # \(circuit)",
                "    dir=$(dirname \"$(grep -rl 'name = \"\(circuit)\"' src/noir/bin --include=Nargo.toml)\")",
                "    cp EXPORT/\(circuit)/Prover.toml \"$dir/Passport.toml\"",
                "    (cd src/noir && nargo execute --package \(circuit) --prover-name Passport)",
            ]
        }
        lines += ["", "(EXPORT is the folder this README is in.) Each `nargo execute` must finish without a failed assertion;",
                  "its printed return value is the circuit's output commitment.", ""]
        return lines.joined(separator: "\n")
    }

    /// The export folder, new or given, is narrowed to 0700: it holds nothing but personal data.
    static func makePrivateFolder(_ url: URL) throws {
        do { try PrivateFiles.createFolder(url) } catch let error as PrivateFiles.WriteError {
            throw Problem.cannotWrite(path: error.path, why: error.reason)
        }
        guard chmod(url.path, 0o700) == 0 else { throw Problem.cannotWrite(path: url.path, why: String(cString: strerror(errno))) }
    }

    static func writePrivate(_ data: Data, to url: URL) throws {
        do { try PrivateFiles.write(data, to: url) } catch let error as PrivateFiles.WriteError {
            throw Problem.cannotWrite(path: error.path, why: error.reason)
        }
    }
}
