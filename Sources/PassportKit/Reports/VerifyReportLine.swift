import JSONCore

// `verify --json`'s line for each dump of a batch, written directly (JSONLine says why). The
// members are in sorted order by hand; ReportsAsJSONEncoderWroteThem.batchLinesWrittenDirectly
// compares the lines with JSONEncoder's bytes for the same reports, so a member added to one of
// these Codable types and not here fails it.

extension VerifyReport: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("active_authentication", activeAuthentication)
            $0.member("dump", dump)
            $0.member("ok", ok)
            $0.member("passive_authentication", passiveAuthentication)
            $0.member("trust", trust)
        }
    }
}

extension AuthenticationReport: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("detail", detail)
            $0.member("status", status)
        }
    }
}

extension PassiveAuthenticationSummary: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("card_security", cardSecurity)
            $0.member("chain", chain.rawValue)
            $0.member("csca", csca)
            $0.member("data_groups", dataGroups)
            $0.member("document_signer", documentSigner)
            $0.member("failures", failures)
            $0.member("hash_algorithm", hashAlgorithm)
            $0.member("hashes_checked", hashesChecked)
            $0.member("passed", passed)
            $0.member("revocation", revocation.rawValue)
            $0.member("signature", signature.rawValue)
            $0.member("signature_algorithm", signatureAlgorithm)
            $0.member("validity_time", validityTime)
            $0.member("validity_time_source", validityTimeSource)
            $0.member("warnings", warnings)
        }
    }
}

extension PassiveAuthenticationSummary.DataGroup: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("number", number)
            $0.member("status", status.rawValue)
        }
    }
}

extension CertificateReport: JSONLineWritable {
    /// Written once for each of the last few certificates (`CertificateReport.of` kept the
    /// object; its report's strings are the same strings, so they compare at once).
    public func write(to line: inout JSONLine) {
        if let made = Made.find({ $0.report == self }) { return line.raw(made.line) }
        Members(report: self).write(to: &line)
    }

    /// The object written member by member (what `Made` keeps).
    struct Members: JSONLineWritable {
        let report: CertificateReport

        func write(to line: inout JSONLine) {
            line.object {
                $0.member("issuer", report.issuer)
                $0.member("key", report.key)
                $0.member("not_after", report.notAfter)
                $0.member("not_before", report.notBefore)
                $0.member("serial", report.serial)
                $0.member("source", report.source)
                $0.member("subject", report.subject)
            }
        }
    }
}

extension CardSecuritySummary: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("chain", chain.rawValue)
            $0.member("csca", csca)
            $0.member("document_signer", documentSigner)
            $0.member("failures", failures)
            $0.member("holds_card_access", holdsCardAccess)
            $0.member("matches_dg14", matchesDG14)
            $0.member("passed", passed)
            $0.member("revocation", revocation.rawValue)
            $0.member("signature", signature.rawValue)
            $0.member("signature_algorithm", signatureAlgorithm)
        }
    }
}

extension VerifyLineError: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("dump", dump)
            $0.member("error", error)
            $0.member("ok", ok)
        }
    }
}

extension ErrorReport.Detail: JSONLineWritable {
    public func write(to line: inout JSONLine) {
        line.object {
            $0.member("code", code)
            $0.member("message", message)
        }
    }
}
