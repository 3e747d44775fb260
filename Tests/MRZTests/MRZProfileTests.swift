import MRZ
import Testing

/// DG1's MRZ held to ICAO 9303's syntax and check digits (TR-03105 5.1 LDS_B).
@Suite struct MRZProfile {
    let line1 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
    let line2 = "L898902C36UTO7408122F1204159ZE184226B<<<<<10"

    func problems(_ l1: String, _ l2: String) throws -> [String] { try MRZ(lines: [l1, l2]).profileProblems }

    @Test func theICAOSpecimenHasNone() throws {
        #expect(try problems(line1, line2).isEmpty)
        // unknown day, month or year of birth are fillers (ICAO 9303-3), check digits over them
        #expect(try problems(line1, "L898902C36UTO7408<<7F1204159ZE184226B<<<<<10").isEmpty)
        #expect(try problems(line1, "L898902C36UTO<<<<<<0F1204159ZE184226B<<<<<10").isEmpty)
    }

    @Test func eachBrokenFieldIsNamed() throws {
        #expect(try problems(line1, "L898902C37UTO7408122F1204159ZE184226B<<<<<10").contains { $0.contains("document number check digit") })
        #expect(try problems("Q<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", line2).contains { $0.contains("document code") })
        #expect(try problems("P<U2OERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", line2).contains { $0.contains("issuing state") })
        #expect(try problems("P<UTO<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<", line2).contains { $0.contains("name is void") })
        #expect(try problems(line1, "L898902C36UTO7408122Q1204159ZE184226B<<<<<10").contains { $0.contains("sex") })
        // month 13 with check digits computed over it
        #expect(try problems(line1, "L898902C36UTO7413128F1204159ZE184226B<<<<<10").contains { $0.contains("no month 13") })
    }
}
