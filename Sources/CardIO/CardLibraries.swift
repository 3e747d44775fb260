import CNFC
import CPCSCLite
import LibraryLoading

/// pcsc-lite, opened when a command first asks pcscd for something (not linked: commands that
/// use no reader start without it).
enum PCSCLibrary {
    static let library = SystemLibrary(name: "pcsc-lite", purpose: "Talking to PC/SC card readers",
                                       builtWith: passport_pcsc_soname(), override: "PASSPORT_PCSC_LIBRARY",
                                       package: passport_pcsc_package())
    private static let opened = library.open(passport_pcsc_load)

    /// Its functions; throws `MissingLibrary` naming the package when it is not installed.
    static func functions() throws -> PassportPCSC { try opened.get() }
}

/// libnfc, opened when a command first looks for a libnfc device (not linked).
enum NFCLibrary {
    static let library = SystemLibrary(name: "libnfc", purpose: "Reading through a libnfc device (--nfc)",
                                       builtWith: passport_nfc_soname(), override: "PASSPORT_NFC_LIBRARY",
                                       package: passport_nfc_package())
    private static let opened = library.open(passport_nfc_load)

    /// Its functions; throws `MissingLibrary` naming the package when it is not installed.
    static func functions() throws -> PassportNFC { try opened.get() }
}
