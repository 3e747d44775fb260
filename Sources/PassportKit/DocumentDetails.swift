import Foundation
import LDS
import MRZ

/// Everything a dump's data groups say, as JSON-ready values and as report lines. Used by
/// `passport show` and `passport scan`. This is personal data: shown only to the user who asked.
public struct DocumentDetails: @unchecked Sendable {
    public private(set) var json: [String: Any] = [:]
    public private(set) var lines: [(String, String)] = []
    /// Problems parsing individual files (the rest is still shown).
    public private(set) var problems: [String] = []

    public init(files: [LDSFile: [UInt8]], now: Date = Date()) {
        func attempt(_ file: LDSFile, _ body: ([UInt8]) throws -> Void) {
            guard let bytes = files[file] else { return }
            do { try body(bytes) } catch { problems.append("\(file): \(error)") }
        }
        attempt(.com) { bytes in
            let com = try EFCOM(bytes: bytes)
            json["com"] = ["lds_version": com.ldsVersion as Any? ?? NSNull(), "unicode_version": com.unicodeVersion as Any? ?? NSNull(),
                           "data_groups": com.dataGroups.map(\.name)]
            lines.append(("LDS", "version \(com.ldsVersion ?? "?"), lists \(com.dataGroups.map(\.name).joined(separator: " "))"))
        }
        attempt(.dataGroup(1)) { bytes in
            let summary = DocumentSummary(dg1: try DataGroup1(bytes: bytes), now: now)
            json["document"] = (try? JSONSerialization.jsonObject(with: JSONEncoder().encode(summary))) ?? [:]
            lines += [("Document", "\(summary.documentCode) (\(summary.mrzFormat)), issued by \(summary.issuingState)"),
                      ("Name", "\(summary.primaryIdentifier), \(summary.secondaryIdentifier)"),
                      ("Number", summary.documentNumber), ("Nationality", summary.nationality),
                      ("Born", "\(summary.birthDate)   Sex \(summary.sex)"), ("Expires", summary.expiryDate)]
        }
        attempt(.dataGroup(2)) { bytes in
            let dg2 = try DataGroup2(bytes: bytes)
            json["face"] = dg2.faces.map { face -> [String: Any] in
                ["standard": face.standard, "format": face.format.rawValue, "width": face.width ?? NSNull(),
                 "height": face.height ?? NSNull(), "image_bytes": face.image.count, "gender": face.gender ?? NSNull(),
                 "eye_colour": face.eyeColour ?? NSNull(), "hair_colour": face.hairColour ?? NSNull(),
                 "expression": face.expression ?? NSNull(),
                 "feature_points": face.featurePoints.map { ["code": $0.code, "x": $0.x, "y": $0.y] }]
            }
            for face in dg2.faces {
                let size = face.width.map { w in "\(w)×\(face.height ?? 0), " } ?? ""
                lines.append(("Face", "\(face.format.rawValue), \(size)\(face.image.count) bytes, \(face.standard), \(face.featurePoints.count) feature point(s)"))
            }
        }
        attempt(.dataGroup(11)) { bytes in
            let dg11 = try DataGroup11(bytes: bytes)
            var object: [String: Any] = [:]
            let fields: [(String, String, String?)] = [
                ("full_name", "Full name", dg11.fullName), ("personal_number", "Personal no.", dg11.personalNumber),
                ("full_date_of_birth", "Date of birth", dg11.fullDateOfBirth), ("place_of_birth", "Place of birth", dg11.placeOfBirth),
                ("address", "Address", dg11.address), ("telephone", "Telephone", dg11.telephone),
                ("profession", "Profession", dg11.profession), ("title", "Title", dg11.title),
                ("personal_summary", "Summary", dg11.personalSummary), ("custody_information", "Custody", dg11.custodyInformation),
            ]
            for (key, label, value) in fields {
                guard let value else { continue }
                object[key] = value
                lines.append((label, DataGroup11.readable(value)))
            }
            if !dg11.otherNames.isEmpty {
                object["other_names"] = dg11.otherNames
                lines.append(("Other names", dg11.otherNames.map(DataGroup11.readable).joined(separator: "; ")))
            }
            json["dg11"] = object
        }
        attempt(.dataGroup(12)) { bytes in
            let dg12 = try DataGroup12(bytes: bytes)
            var object: [String: Any] = ["front_image": dg12.hasFrontImage, "rear_image": dg12.hasRearImage]
            if let v = dg12.issuingAuthority { object["issuing_authority"] = v; lines.append(("Authority", DataGroup11.readable(v))) }
            if let v = dg12.dateOfIssue { object["date_of_issue"] = v; lines.append(("Issued", v)) }
            if let v = dg12.endorsements { object["endorsements"] = v; lines.append(("Endorsements", DataGroup11.readable(v))) }
            if !dg12.otherPersons.isEmpty { object["other_persons"] = dg12.otherPersons }
            json["dg12"] = object
        }
        attempt(.dataGroup(14)) { bytes in
            let infos = try SecurityInfos(bytes: bytes)
            json["dg14"] = DocumentDetails.securityInfosJSON(infos)
            for ca in infos.chipAuthenticationInfos {
                lines.append(("DG14", "Chip Authentication \(ca.isDH ? "DH" : "ECDH"), \(ca.cipher?.rawValue ?? "?"), version \(ca.version)"))
            }
        }
        attempt(.dataGroup(15)) { bytes in
            let dg15 = try DataGroup15(bytes: bytes)
            json["dg15"] = ["algorithm": dg15.isRSA ? "RSA" : "EC", "algorithm_oid": dg15.algorithmOID,
                            "public_key_bytes": dg15.subjectPublicKeyInfo.count]
            lines.append(("DG15", "Active Authentication \(dg15.isRSA ? "RSA" : "ECDSA") public key"))
        }
        attempt(.cardAccess) { bytes in
            let infos = try SecurityInfos(bytes: bytes)
            json["card_access"] = DocumentDetails.securityInfosJSON(infos)
            for pace in infos.paceInfos { lines.append(("PACE", pace.description)) }
        }
        attempt(.sod) { bytes in
            let sod = try SecurityObject(bytes: bytes)
            json["sod"] = ["hash_algorithm": sod.hashAlgorithm?.rawValue ?? sod.hashAlgorithmOID,
                           "lds_security_object_version": sod.version,
                           "data_groups": sod.dataGroupHashes.keys.sorted().map { "DG\($0)" }]
            lines.append(("SOD", "\(sod.hashAlgorithm?.rawValue ?? sod.hashAlgorithmOID) hashes of " + sod.dataGroupHashes.keys.sorted().map { "DG\($0)" }.joined(separator: " ")))
        }
        if !problems.isEmpty { json["problems"] = problems }
    }

    static func securityInfosJSON(_ infos: SecurityInfos) -> [[String: Any]] {
        infos.infos.map { info -> [String: Any] in
            switch info {
            case .pace(let p): return ["type": "PACEInfo", "protocol": p.protocolOID, "description": p.description]
            case .paceDomainParameters(let oid, _, let id): return ["type": "PACEDomainParameterInfo", "protocol": oid, "parameter_id": id ?? NSNull()]
            case .chipAuthentication(let c): return ["type": "ChipAuthenticationInfo", "protocol": c.protocolOID, "version": c.version, "key_id": c.keyID ?? NSNull()]
            case .chipAuthenticationPublicKey(let k): return ["type": "ChipAuthenticationPublicKeyInfo", "protocol": k.protocolOID, "key_id": k.keyID ?? NSNull()]
            case .activeAuthentication(let a): return ["type": "ActiveAuthenticationInfo", "signature_algorithm": a.signatureAlgorithmOID ?? NSNull()]
            case .terminalAuthentication(let v): return ["type": "TerminalAuthenticationInfo", "version": v]
            case .other(let oid, _): return ["type": "other", "protocol": oid]
            }
        }
    }
}
