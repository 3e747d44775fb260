import Foundation
import PassiveAuth
import Testing
import TestSupport

/// RFC 2849 reading, and malformed LDIF refused with the line named.
@Suite struct LDIFParserTests {
    func parse(_ text: String) throws -> [LDIFRecord] { try LDIFParser.parse(Array(text.utf8), file: "t.ldif") }

    func error(_ text: String) -> LDIFError? {
        do { _ = try parse(text); return nil } catch let error as LDIFError { return error } catch { return nil }
    }

    @Test func foldedBase64AndPlainValues() throws {
        let value = [UInt8](0..<200)
        let text = "version: 1\n# a comment\n folded comment\n\n" + "dn:: " + Data("cn=Ä,c=DE".utf8).base64EncodedString() + "\n"
            + TrustMaterial.line("userCertificate;binary", value) + "sn: plain value\r\n"
        let records = try parse(text)
        #expect(records.count == 1)
        #expect(records[0].dn == "cn=Ä,c=DE")
        #expect(records[0].line == 5)
        #expect(records[0].values("usercertificate;binary").first?.bytes == value)
        #expect(records[0].values("sn").first?.bytes == Array("plain value".utf8))
    }

    @Test func changeRecords() throws {
        let text = """
        dn: cn=a,o=dsc,c=DE,dc=data
        changetype: modify
        replace: userCertificate;binary
        userCertificate;binary:: AAEC
        -
        delete: description
        -

        dn: cn=b,o=dsc,c=DE,dc=data
        changetype: delete

        """
        let records = try parse(text)
        #expect(records.map(\.changeType) == [.modify, .delete])
        #expect(records[0].modifications.map(\.operation) == [.replace, .delete])
        #expect(records[0].modifications[0].values.first?.bytes == [0, 1, 2])
        #expect(records[1].line == 9)
    }

    @Test func badBase64NamesTheLine() {
        let failure = error("version: 1\n\ndn: cn=x\nuserCertificate;binary:: !!!notbase64\n")
        #expect(failure?.line == 4)
        #expect(failure?.reason.contains("not valid base64") == true)
    }

    @Test func truncatedEntryNamesTheLine() {
        // The file ends inside a modify block, and in another inside an attribute line.
        #expect(error("dn: cn=x\nchangetype: modify\nadd: userCertificate;binary\nuserCertificate;binary:: AAEC\n")?.line == 3)
        #expect(error("dn: cn=x\nuserCertificate;binary")?.reason.contains("truncated") == true)
        #expect(error("objectClass: top\n")?.reason.contains("dn:") == true)
    }

    @Test func hugeValueIsRefused() {
        var bytes = Array("dn: cn=x\nuserCertificate;binary:: AAAA\n".utf8)
        let continuation = Array(" QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n".utf8)
        bytes.removeLast()
        bytes += [0x0A]
        let lines = LDIFParser.maximumLineLength / (continuation.count - 2) + 2
        bytes.reserveCapacity(bytes.count + lines * continuation.count)
        for _ in 0..<lines { bytes += continuation }
        do {
            _ = try LDIFParser.parse(bytes, file: "huge.ldif")
            Issue.record("a value over the limit was accepted")
        } catch let error as LDIFError {
            #expect(error.line == 2)
            #expect(error.reason.contains("huge length"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func hugeDERLengthInsideAValueIsAClearError() throws {
        // A certificate whose DER length field claims 2^31 bytes.
        let ldif = TrustMaterial.ldif([("dsc", "userCertificate;binary", [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x02, 0x01, 0x00])])
        let editor = try TrustStoreEditor(store: TrustMaterial.temporaryFolder().appendingPathComponent("trust"))
        #expect {
            try editor.importBytes(ldif, name: "bad.ldif")
        } throws: { error in
            guard case TrustStoreError.ldif(let ldif)? = error as? TrustStoreError else { return false }
            return ldif.line == 5 && ldif.reason.contains("not a readable certificate")
        }
    }
}
