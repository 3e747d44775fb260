import Foundation
@testable import PassiveAuth
import Testing
import TestSupport

/// The trust store's index files, written through `JSON.encoded`, are the bytes JSONEncoder
/// wrote with `.sortedKeys` (slashes escaped): dates as Doubles, optional fields left out.
@Suite struct TrustIndexAsJSONEncoderWroteIt {
    @Test func catalogAndCountryFiles() throws {
        let folder = TrustMaterial.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("trust")
        let editor = try TrustStoreEditor(store: store)
        let ml = try TrustMaterial.masterList([try TrustMaterial.der("TEST-ONLY-csca-UTO.pem"), try TrustMaterial.der("TEST-ONLY-csca-UTO-bp384.pem")], in: folder)
        try editor.importBytes(ml, name: "UTO.ml")
        for name in ["TEST-ONLY-dsc-UTO.pem", "TEST-ONLY-csca-UTO.crl"] {
            try editor.importBytes(Array(try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("pki/\(name)"))), name: name)
        }
        try editor.commit()
        let generation = store.appendingPathComponent(try String(contentsOf: store.appendingPathComponent(TrustDirectory.currentName), encoding: .utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let catalogBytes = try Data(contentsOf: generation.appendingPathComponent("catalog.json"))
        let catalog = try JSONDecoder().decode(TrustCatalog.self, from: catalogBytes)
        #expect(!catalog.masterLists.isEmpty)
        #expect(String(decoding: catalogBytes, as: UTF8.self) == String(decoding: try encoder.encode(catalog), as: UTF8.self))
        for country in catalog.countries {
            let bytes = try Data(contentsOf: generation.appendingPathComponent("countries/\(country).json"))
            let index = try JSONDecoder().decode(CountryIndex.self, from: bytes)
            #expect(!index.certificates.isEmpty && !index.crls.isEmpty)
            #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: try encoder.encode(index), as: UTF8.self))
        }
    }
}
