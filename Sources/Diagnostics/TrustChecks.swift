import FoundationEssentials
import PassiveAuth
import PassportKit
import LDS

/// The trust store: CSCAs per country, CSCAs that expired or expire within 90 days, CRLs past
/// their next update, master lists anchored only in themselves.
enum TrustChecks {
    static let importHint = "passport trust import FILE (a master list .ml, a CSCA certificate, a CRL or an ICAO PKD LDIF; docs/verifying.md)"

    static func checks(folder: URL = TrustStore.defaultFolder, now: Date = Date()) -> [DoctorCheck] {
        let directory: TrustDirectory?
        do { directory = try TrustDirectory.open(folder) } catch {
            return [DoctorCheck("trust", "trust store", .fail, "\(folder.path) cannot be read: \(error)",
                                fix: "move \(folder.path) aside and import the trust material again: \(importHint)")]
        }
        let report = TrustListReport(store: folder, directory: directory, now: now)
        let countries = report.countries.filter { $0.cscas.total > 0 }
        guard !countries.isEmpty else {
            return [DoctorCheck("trust", "trust store", .warn, "\(folder.path) holds no CSCA: scans are read but not verified",
                                fix: importHint)]
        }
        var checks = [DoctorCheck("trust", "trust store", .ok,
                                  "\(countries.reduce(0) { $0 + $1.cscas.total }) CSCA(s): "
                                  + countries.map { "\($0.country) \($0.cscas.total)" }.joined(separator: ", "))]
        checks += validity(countries)
        checks += revocation(report.countries, now: now)
        for list in report.masterLists where list.anchor.hasPrefix("its own CSCA") {
            checks.append(DoctorCheck("trust", "master list \(list.source)", .warn,
                                      "anchored only in itself (\(list.anchor)): anyone could have made it",
                                      fix: "import it again with the signer's root published by \(list.country): passport trust import \(list.source) --masterlist-signer ROOT.pem"))
        }
        return checks
    }

    /// Expired CSCAs are normal (documents signed before still verify); a country with no valid
    /// one left, and CSCAs about to expire, are not.
    static func validity(_ countries: [TrustListReport.Country]) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let expired = countries.filter { $0.cscas.expired > 0 }
        if !expired.isEmpty {
            checks.append(DoctorCheck("trust", "expired CSCAs", .ok,
                                      expired.map { "\($0.country) \($0.cscas.expired)" }.joined(separator: ", ")
                                      + " (kept: documents signed before they expired still verify)"))
        }
        let none = countries.filter { $0.cscas.valid + $0.cscas.expiringSoon == 0 && $0.cscas.notYetValid == 0 }
        if !none.isEmpty {
            checks.append(DoctorCheck("trust", "countries without a valid CSCA", .warn,
                                      none.map(\.country).joined(separator: ", ") + ": every CSCA has expired, documents issued now cannot be verified",
                                      fix: "import a current master list: \(importHint)"))
        }
        let expiring = countries.filter { $0.cscas.expiringSoon > 0 }
        if !expiring.isEmpty {
            checks.append(DoctorCheck("trust", "CSCAs expiring within 90 days", .warn,
                                      expiring.map { "\($0.country) \($0.cscas.expiringSoon)" }.joined(separator: ", "),
                                      fix: "import a newer master list before they expire: \(importHint)"))
        }
        return checks
    }

    static func revocation(_ countries: [TrustListReport.Country], now: Date) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        for country in countries {
            for crl in country.crls {
                guard let text = crl.nextUpdate, let next = parseISO8601(text), next < now else { continue }
                checks.append(DoctorCheck("trust", "CRL of \(country.country)", .warn,
                                          "\(crl.issuer): next update was due \(text); revocation is judged on an old list",
                                          fix: "import the current CRL of \(country.country) (from its CSCA's distribution point or the ICAO PKD): \(importHint)"))
            }
        }
        return checks
    }
}
