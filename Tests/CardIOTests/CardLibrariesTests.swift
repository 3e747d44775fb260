@testable import CardIO
import CNFC
import CPCSCLite
import LibraryLoading
import Testing

/// pcsc-lite and libnfc are opened when first used, not linked: an absent one is a typed error
/// that names the soname and the Debian package.
@Suite struct CardLibrariesOpenedWhenUsed {
    @Test func installedLibrariesOpen() throws {
        let pcsc = try PCSCLibrary.functions()
        #expect(pcsc.g_rgSCardT1Pci.dwProtocol == 2, "T=1's protocol control information, read with dlsym")
        _ = try NFCLibrary.functions()
    }

    @Test func anAbsentPCSCLiteNamesItsPackage() throws {
        let missing = try #require(PCSCLibrary.library.withSoname("libpcsclite-absent.so.1").open(passport_pcsc_load).failure)
        #expect(missing.soname == "libpcsclite-absent.so.1")
        #expect(missing.package == "libpcsclite1")
        #expect(missing.description == "Talking to PC/SC card readers needs pcsc-lite, and libpcsclite-absent.so.1 could not be loaded "
            + "(libpcsclite-absent.so.1: cannot open shared object file: No such file or directory). Install it: sudo apt install libpcsclite1")
    }

    @Test func anAbsentLibNFCNamesItsPackage() throws {
        let missing = try #require(NFCLibrary.library.withSoname("libnfc-absent.so.6").open(passport_nfc_load).failure)
        #expect(missing.package == "libnfc6")
        #expect(missing.description.hasPrefix("Reading through a libnfc device (--nfc) needs libnfc, and libnfc-absent.so.6 could not be loaded ("))
        #expect(missing.description.hasSuffix("). Install it: sudo apt install libnfc6"))
    }

    @Test func theBuiltWithSonamesAreTheDebianOnes() {
        #expect(PCSCLibrary.library.soname == "libpcsclite.so.1")
        #expect(NFCLibrary.library.soname == "libnfc.so.6")
    }
}

extension Result {
    /// The error of a failed result, nil for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
