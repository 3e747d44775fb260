import CLeptonica
@testable import ImageCodecs
import LibraryLoading
import Testing

/// Leptonica is opened when an image is first decoded or made, not linked: an absent one is a
/// typed error that names the soname and the package of the release built for.
@Suite struct LeptonicaOpenedWhenUsed {
    /// Leptonica 1.83 renamed its library: Debian 12's 1.82 is liblept.so.5 in liblept5, Debian
    /// 13's 1.84 libleptonica.so.6 in libleptonica6.
    static func debianLibrary(minorVersion: Int32) -> (soname: String, package: String) {
        minorVersion >= 83 ? ("libleptonica.so.6", "libleptonica6") : ("liblept.so.5", "liblept5")
    }
    static let builtWith = debianLibrary(minorVersion: LIBLEPT_MINOR_VERSION)

    @Test func theInstalledLeptonicaOpens() throws {
        _ = try Leptonica.functions()
    }

    @Test func anAbsentLeptonicaNamesItsPackage() throws {
        let result = Leptonica.library.withSoname("liblept-absent.so.5").open(passport_leptonica_load)
        guard case .failure(let missing) = result else {
            Issue.record("a library that is not there was opened")
            return
        }
        let package = Self.builtWith.package
        #expect(missing.package == package)
        #expect(missing.description == "Reading images needs Leptonica, and liblept-absent.so.5 could not be loaded "
            + "(liblept-absent.so.5: cannot open shared object file: No such file or directory). Install it: sudo apt install \(package)")
    }

    @Test func theBuiltWithSonameMatchesThePackage() {
        #expect(Leptonica.library.soname == Self.builtWith.soname)
        #expect(Leptonica.library.package == Self.builtWith.package)
    }
}
