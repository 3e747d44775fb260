import CLeptonica
import LibraryLoading

/// Leptonica, opened when an image is first decoded or made (not linked: commands that handle no
/// image start without it).
package enum Leptonica {
    package static let library = SystemLibrary(name: "Leptonica", purpose: "Reading images",
                                               builtWith: passport_leptonica_soname(), override: "PASSPORT_LEPTONICA_LIBRARY",
                                               package: passport_leptonica_package())
    private static let opened = library.open(passport_leptonica_load).map(quiet)

    /// Its functions; throws `MissingLibrary` naming the package when it is not installed. Every
    /// way of making an image goes through this (`LeptonicaImage.decode`, `.grey`).
    package static func functions() throws -> PassportLeptonica { try opened.get() }

    /// Leptonica would otherwise comment on stderr.
    private static func quiet(_ functions: PassportLeptonica) -> PassportLeptonica {
        _ = functions.setMsgSeverity(Int32(L_SEVERITY_NONE))
        return functions
    }
}

/// Leptonica's functions, for code that holds an image: every `LeptonicaImage` was made through
/// `Leptonica.functions()`, so the library is open by then.
package var leptonica: PassportLeptonica {
    guard let functions = try? Leptonica.functions() else {
        preconditionFailure("Leptonica called before an image was made through Leptonica.functions()")
    }
    return functions
}
