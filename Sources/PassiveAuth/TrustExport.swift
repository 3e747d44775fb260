import FoundationEssentials

/// `passport trust export`: the store as an LDIF file in the ICAO PKD layout, which
/// `trust import` reads back to the same store. Master lists are written whole (their
/// signatures are checked again on import); CSCAs that came from no master list as
/// `cACertificate;binary`, DSCs as `userCertificate;binary`, CRLs as `certificateRevocationList;binary`.
extension TrustDirectory {
    static let baseDN = "dc=data,dc=download,dc=pkd,dc=icao,dc=int"

    public func exportLDIF() throws -> [UInt8] {
        var text = "version: 1\n"
        for list in catalog.masterLists {
            text += entry(cn: list.sha256, group: "ml", country: list.country,
                          attribute: "pkdMasterListContent", bytes: try object(list.sha256))
        }
        for country in catalog.countries {
            for certificate in index(country).certificates {
                // A CSCA carried by a master list comes back with that list.
                let direct = certificate.origins.contains { !$0.hasPrefix("ml:") }
                guard certificate.kind == .dsc || direct else { continue }
                let isCSCA = certificate.kind == .csca
                text += entry(cn: certificate.sha256, group: isCSCA ? "csca" : "dsc", country: country,
                              attribute: isCSCA ? "cACertificate;binary" : "userCertificate;binary", bytes: try object(certificate.sha256))
            }
            for crl in index(country).crls {
                text += entry(cn: crl.sha256, group: "crl", country: country,
                              attribute: "certificateRevocationList;binary", bytes: try object(crl.sha256))
            }
        }
        return Array(text.utf8)
    }

    func entry(cn: String, group: String, country: String, attribute: String, bytes: [UInt8]) -> String {
        "\n" + LDIFParser.line("dn", Array("cn=\(cn),o=\(group),c=\(country),\(TrustDirectory.baseDN)".utf8))
            + LDIFParser.line(attribute, bytes, forceBase64: true)
    }
}
