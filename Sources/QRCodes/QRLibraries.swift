import CQREncode
import CZBar
import LibraryLoading

/// libqrencode and ZBar, opened when a QR option is first used (not linked: every other command
/// starts without them).
enum QRLibraries {
    static let encoder = SystemLibrary(name: "libqrencode", purpose: "Showing a QR code (--qr, --qr-out)",
                                       builtWith: passport_qrencode_soname(), override: "PASSPORT_QRENCODE_LIBRARY",
                                       package: passport_qrencode_package())
    static let decoder = SystemLibrary(name: "ZBar", purpose: "Reading a QR code (--request-qr, --qr, --qr-camera)",
                                       builtWith: passport_zbar_soname(), override: "PASSPORT_ZBAR_LIBRARY",
                                       package: passport_zbar_package())
    private static let openedEncoder = encoder.open(passport_qrencode_load)
    private static let openedDecoder = decoder.open(passport_zbar_load)

    /// libqrencode's functions; throws `MissingLibrary` naming the package when it is not installed.
    static func qrencode() throws -> PassportQREncode { try openedEncoder.get() }
    /// ZBar's functions; throws `MissingLibrary` naming the package when it is not installed.
    static func zbar() throws -> PassportZBar { try openedDecoder.get() }
}
