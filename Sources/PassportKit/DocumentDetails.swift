import FoundationEssentials
import LDS
import MRZ

/// Everything a dump's data groups say, as a typed report (for `--json`) and as report lines.
/// Used by `passport show` and `passport scan`. This is personal data: shown only to the user
/// who asked.
public struct DocumentDetails: Sendable {
    public private(set) var report = DocumentReport()
    public private(set) var lines: [(String, String)] = []
    /// Problems parsing individual files (the rest is still shown).
    public private(set) var problems: [String] = []
    private let givenMRZ: MRZ?

    /// `givenMRZ`: the MRZ the reader was given (the data page); DG1 must hold the same.
    public init(files: [LDSFile: [UInt8]], now: Date = Date(), givenMRZ: MRZ? = nil) {
        self.givenMRZ = givenMRZ
        // Each file on its own: one that does not parse is a problem, the others are still shown.
        let describers: [(LDSFile, (inout DocumentDetails, [UInt8]) throws -> Void)] = [
            (.com, { try $0.describeCOM($1) }),
            (.dataGroup(1), { try $0.describeDG1($1, now: now) }),
            (.dataGroup(2), { try $0.describeDG2($1) }),
            (.dataGroup(3), { try $0.describeDG3($1) }),
            (.dataGroup(4), { try $0.describeDG4($1) }),
            (.dataGroup(11), { try $0.describeDG11($1) }),
            (.dataGroup(12), { try $0.describeDG12($1) }),
            (.dataGroup(14), { try $0.describeDG14($1) }),
            (.dataGroup(15), { try $0.describeDG15($1) }),
            (.cardAccess, { try $0.describeCardAccess($1) }),
            (.atrInfo, { try $0.describeATRInfo($1) }),
            (.sod, { try $0.describeSOD($1) }),
        ]
        for (file, describe) in describers {
            guard let bytes = files[file] else { continue }
            do { try describe(&self, bytes) } catch { problems.append("\(file): \(error)") }
        }
        if !problems.isEmpty { report.problems = problems }
    }

    private mutating func describeCOM(_ bytes: [UInt8]) throws {
        let com = try EFCOM(bytes: bytes)
        report.com = DocumentReport.COM(ldsVersion: com.ldsVersion, unicodeVersion: com.unicodeVersion,
                                        dataGroups: com.dataGroups.map(\.name))
        lines.append(("LDS", "version \(com.ldsVersion ?? "?"), lists \(com.dataGroups.map(\.name).joined(separator: " "))"))
        // ICAO 9303-10 §4.6.1: both versions are mandatory in EF.COM (TR-03105 5.1 LDS_A_05, _07).
        if com.ldsVersion == nil { problems.append("COM: no LDS version (5F01), which ICAO 9303-10 requires") }
        if com.unicodeVersion == nil { problems.append("COM: no Unicode version (5F36), which ICAO 9303-10 requires") }
    }

    private mutating func describeDG1(_ bytes: [UInt8], now: Date) throws {
        let dg1 = try DataGroup1(bytes: bytes)
        let summary = DocumentSummary(dg1: dg1, now: now)
        // ICAO 9303 holds DG1 to the MRZ's syntax and check digits, and to the data page.
        problems += dg1.mrz.profileProblems.map { "DG1: \($0)." }
        if let givenMRZ, givenMRZ.lines.joined() != dg1.mrz.lines.joined() {
            problems.append("DG1: the chip's MRZ differs from the MRZ given (the data page): \(dg1.mrz.lines.joined(separator: " ")).")
        }
        report.document = summary
        lines += [("Document", "\(summary.documentCode) (\(summary.mrzFormat)), issued by \(summary.issuingState)"),
                  ("Name", "\(summary.primaryIdentifier), \(summary.secondaryIdentifier)"),
                  ("Number", summary.documentNumber), ("Nationality", summary.nationality),
                  ("Born", "\(summary.birthDate)   Sex \(summary.sex)"), ("Expires", summary.expiryDate)]
    }

    private mutating func describeDG2(_ bytes: [UInt8]) throws {
        let dg2 = try DataGroup2(bytes: bytes)
        report.face = dg2.faces.map { face in
            DocumentReport.Face(standard: face.standard, format: face.format.rawValue, width: face.width,
                                height: face.height, imageBytes: face.image.count, gender: face.gender,
                                eyeColour: face.eyeColour, hairColour: face.hairColour, expression: face.expression,
                                featurePoints: face.featurePoints.map { .init(code: $0.code, x: $0.x, y: $0.y) })
        }
        for face in dg2.faces {
            let size = face.width.map { w in "\(w)×\(face.height ?? 0), " } ?? ""
            lines.append(("Face", "\(face.format.rawValue), \(size)\(face.image.count) bytes, \(face.standard), \(face.featurePoints.count) feature point(s)"))
        }
    }

    private mutating func describeDG3(_ bytes: [UInt8]) throws {
        let dg3 = try DataGroup3(bytes: bytes)
        report.dg3 = dg3.fingers.map { finger in
            DocumentReport.BiometricImage(position: finger.positionName, positionCode: finger.position,
                                          format: finger.compression.description, width: finger.width, height: finger.height,
                                          resolutionPPI: finger.scanResolution.horizontal, quality: finger.qualityDescription,
                                          impression: finger.impressionTypeName, imageBytes: finger.image.count)
        }
        for finger in dg3.fingers {
            lines.append(("Finger", "\(finger.positionName), \(finger.compression), \(finger.width)×\(finger.height) at \(finger.scanResolution.horizontal) ppi, "
                          + "quality \(finger.qualityDescription), \(finger.impressionTypeName), \(finger.image.count) bytes"))
        }
        if !dg3.enciphered.isEmpty { lines.append(("Finger", "\(dg3.enciphered.count) enciphered record(s), not shown")) }
    }

    private mutating func describeDG4(_ bytes: [UInt8]) throws {
        let dg4 = try DataGroup4(bytes: bytes)
        report.dg4 = dg4.irises.map { iris in
            DocumentReport.BiometricImage(position: iris.eye.description, positionCode: iris.eye.rawValue,
                                          format: iris.format.description, width: iris.width, height: iris.height,
                                          resolutionPPI: nil, quality: iris.qualityDescription, impression: nil,
                                          imageBytes: iris.image.count)
        }
        for iris in dg4.irises {
            lines.append(("Iris", "\(iris.eye), image \(iris.imageNumber), \(iris.format), \(iris.width)×\(iris.height), "
                          + "quality \(iris.qualityDescription), \(iris.image.count) bytes"))
        }
        if !dg4.enciphered.isEmpty { lines.append(("Iris", "\(dg4.enciphered.count) enciphered record(s), not shown")) }
    }

    private mutating func describeDG11(_ bytes: [UInt8]) throws {
        let dg11 = try DataGroup11(bytes: bytes)
        report.dg11 = DocumentReport.DG11(
            fullName: dg11.fullName, personalNumber: dg11.personalNumber, fullDateOfBirth: dg11.fullDateOfBirth,
            placeOfBirth: dg11.placeOfBirth, address: dg11.address, telephone: dg11.telephone,
            profession: dg11.profession, title: dg11.title, personalSummary: dg11.personalSummary,
            custodyInformation: dg11.custodyInformation, otherNames: dg11.otherNames.isEmpty ? nil : dg11.otherNames)
        let fields: [(String, String?)] = [
            ("Full name", dg11.fullName), ("Personal no.", dg11.personalNumber), ("Date of birth", dg11.fullDateOfBirth),
            ("Place of birth", dg11.placeOfBirth), ("Address", dg11.address), ("Telephone", dg11.telephone),
            ("Profession", dg11.profession), ("Title", dg11.title), ("Summary", dg11.personalSummary),
            ("Custody", dg11.custodyInformation),
        ]
        for (label, value) in fields {
            if let value { lines.append((label, DataGroup11.readable(value))) }
        }
        if !dg11.otherNames.isEmpty {
            lines.append(("Other names", dg11.otherNames.map(DataGroup11.readable).joined(separator: "; ")))
        }
    }

    private mutating func describeDG12(_ bytes: [UInt8]) throws {
        let dg12 = try DataGroup12(bytes: bytes)
        report.dg12 = DocumentReport.DG12(frontImage: dg12.hasFrontImage, rearImage: dg12.hasRearImage,
                                          issuingAuthority: dg12.issuingAuthority, dateOfIssue: dg12.dateOfIssue,
                                          endorsements: dg12.endorsements,
                                          otherPersons: dg12.otherPersons.isEmpty ? nil : dg12.otherPersons)
        if let v = dg12.issuingAuthority { lines.append(("Authority", DataGroup11.readable(v))) }
        if let v = dg12.dateOfIssue { lines.append(("Issued", v)) }
        if let v = dg12.endorsements { lines.append(("Endorsements", DataGroup11.readable(v))) }
    }

    private mutating func describeDG14(_ bytes: [UInt8]) throws {
        let infos = try SecurityInfos(bytes: bytes)
        report.dg14 = infos.infos.map(SecurityInfoReport.init)
        for ca in infos.chipAuthenticationInfos {
            lines.append(("DG14", "Chip Authentication \(ca.isDH ? "DH" : "ECDH"), \(ca.cipher?.rawValue ?? "?"), version \(ca.version)"))
        }
    }

    private mutating func describeDG15(_ bytes: [UInt8]) throws {
        let dg15 = try DataGroup15(bytes: bytes)
        report.dg15 = DocumentReport.DG15(algorithm: dg15.isRSA ? "RSA" : "EC", algorithmOID: dg15.algorithmOID,
                                          publicKeyBytes: dg15.subjectPublicKeyInfo.count)
        lines.append(("DG15", "Active Authentication \(dg15.isRSA ? "RSA" : "ECDSA") public key"))
    }

    private mutating func describeCardAccess(_ bytes: [UInt8]) throws {
        let infos = try SecurityInfos(bytes: bytes)
        report.cardAccess = infos.infos.map(SecurityInfoReport.init)
        for pace in infos.paceInfos { lines.append(("PACE", pace.description)) }
    }

    private mutating func describeATRInfo(_ bytes: [UInt8]) throws {
        let info = try ATRInfo(bytes: bytes)
        lines.append(("Chip", "commands up to \(info.maxCommandBytes) bytes, answers up to \(info.maxResponseBytes) (EF.ATR/INFO)"))
    }

    private mutating func describeSOD(_ bytes: [UInt8]) throws {
        let sod = try SecurityObject(bytes: bytes)
        report.sod = DocumentReport.SOD(hashAlgorithm: sod.hashAlgorithm?.rawValue ?? sod.hashAlgorithmOID,
                                        ldsSecurityObjectVersion: sod.version,
                                        dataGroups: sod.dataGroupHashes.keys.sorted().map { "DG\($0)" })
        lines.append(("SOD", "\(sod.hashAlgorithm?.rawValue ?? sod.hashAlgorithmOID) hashes of " + sod.dataGroupHashes.keys.sorted().map { "DG\($0)" }.joined(separator: " ")))
    }

}
