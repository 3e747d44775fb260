import ArgumentParser
import FoundationEssentials
import LDS
import PassiveAuth
import PassportKit

/// Where trust anchors come from, as every command that verifies takes them.
public struct TrustOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("masterlist"), help: "An ICAO CSCA master list (.ml); repeatable.") var masterLists: [String] = []
    @Option(name: .customLong("masterlist-signer"), help: "Root certificate the master lists' signer must chain to; repeatable.") var masterListSigners: [String] = []
    @Option(name: .customLong("csca"), help: "A CSCA certificate file (DER/PEM) or folder; repeatable.") var cscas: [String] = []
    @Option(name: .customLong("crl"), help: "A CRL (DER/PEM); repeatable.") var crls: [String] = []
    @Flag(help: "Ignore the default trust folder (\(TrustStore.defaultFolder.path)).") var noDefaultTrust = false

    /// The same options as command-line arguments (for running `passport` as a child process).
    public var arguments: [String] {
        masterLists.flatMap { ["--masterlist", $0] } + masterListSigners.flatMap { ["--masterlist-signer", $0] }
            + cscas.flatMap { ["--csca", $0] } + crls.flatMap { ["--crl", $0] } + (noDefaultTrust ? ["--no-default-trust"] : [])
    }

    public var sources: TrustSources {
        TrustSources(masterLists: masterLists.map(URL.init(fileURLWithPath:)),
                     masterListSigners: masterListSigners.map(URL.init(fileURLWithPath:)),
                     cscas: cscas.map(URL.init(fileURLWithPath:)),
                     crls: crls.map(URL.init(fileURLWithPath:)),
                     useDefaultFolder: !noDefaultTrust)
    }
}

public func parseDay(_ text: String) -> Date? {
    parseISO8601Day(text)
}

public func isoTime(_ date: Date) -> String { iso8601(date) }
