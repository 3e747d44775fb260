import CEAC
@testable import ChipProtocols
import LibraryLoading
import Testing

/// OpenPACE's libeac is opened when terminal credentials are first read, not linked: an absent
/// one is a typed error that names the soname and the package.
@Suite struct EACLibraryOpenedWhenUsed {
    @Test func anAbsentLibEACNamesItsPackage() throws {
        let result = EACLibrary.library.withSoname("libeac-absent.so.3").open(passport_eac_load)
        guard case .failure(let missing) = result else {
            Issue.record("a library that is not there was opened")
            return
        }
        #expect(missing.soname == "libeac-absent.so.3")
        #expect(missing.package == "libeac3")
        #expect(missing.description == "Terminal authentication (--eac, --terminal-cert) needs OpenPACE's libeac, and libeac-absent.so.3 "
            + "could not be loaded (libeac-absent.so.3: cannot open shared object file: No such file or directory). Install it: sudo apt install libeac3")
    }

    @Test func theBuiltWithSonameIsDebians() {
        #expect(EACLibrary.library.soname == "libeac.so.3")
    }
}
