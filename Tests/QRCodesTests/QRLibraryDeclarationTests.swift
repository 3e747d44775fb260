import Foundation
import Testing
import TestSupport

/// libqrencode's and ZBar's functions, constants and struct are declared in Sources/CQREncode and
/// Sources/CZBar by hand (so the build needs no -dev package): they must be the libraries' own,
/// checked by compiling them against qrencode.h and zbar.h (libqrencode-dev, libzbar-dev).
@Suite struct QRLibraryDeclarations {
    static func compiles(_ source: String) throws -> QRPeers.Output {
        let folder = QRPeers.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = folder.appendingPathComponent("check.c")
        try Data(source.utf8).write(to: check)
        return try QRPeers.run("cc", ["-fsyntax-only", check.path])
    }

    @Test func qrencodeDeclarationsAreTheHeaders() throws {
        let header = TestPaths.projectRoot.appendingPathComponent("Sources/CQREncode/include/CQREncode.h").path
        let r = try Self.compiles("""
        #include <stddef.h>
        #include <qrencode.h>
        #define _Nullable
        #define _Nonnull
        #define PASSPORT_QRENCODE_TYPES_FROM_HEADER 1
        #include "\(header)"
        #define SAME(name) _Static_assert(__builtin_types_compatible_p(__typeof__(((PassportQREncode *)0)->name), __typeof__(&name)), \\
            #name " is declared otherwise by qrencode.h");
        PASSPORT_QRENCODE_FUNCTIONS(SAME)
        struct declared { PASSPORT_QRCODE_FIELDS };
        _Static_assert(sizeof(struct declared) == sizeof(QRcode), "QRcode's size");
        _Static_assert(offsetof(struct declared, width) == offsetof(QRcode, width), "QRcode's width");
        _Static_assert(offsetof(struct declared, data) == offsetof(QRcode, data), "QRcode's data");
        _Static_assert(QR_ECLEVEL_L == 0 && QR_ECLEVEL_M == 1 && QR_ECLEVEL_Q == 2 && QR_ECLEVEL_H == 3, "QRecLevel");

        """)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func zbarDeclarationsAreTheHeaders() throws {
        let header = TestPaths.projectRoot.appendingPathComponent("Sources/CZBar/include/CZBar.h").path
        let r = try Self.compiles("""
        #include <stddef.h>
        #include <zbar.h>
        #define _Nullable
        #define _Nonnull
        #define PASSPORT_ZBAR_TYPES_FROM_HEADER 1
        #include "\(header)"
        #define SAME(name) _Static_assert(__builtin_types_compatible_p(__typeof__(((PassportZBar *)0)->name), __typeof__(&name)), \\
            #name " is declared otherwise by zbar.h");
        PASSPORT_ZBAR_FUNCTIONS(SAME)
        _Static_assert(ZBAR_NONE == 0 && ZBAR_QRCODE == 64, "zbar_symbol_type_t");
        _Static_assert(ZBAR_CFG_ENABLE == 0 && ZBAR_CFG_BINARY == 4, "zbar_config_t");
        _Static_assert(zbar_fourcc('Y', '8', '0', '0') == ((unsigned long)'Y' | ((unsigned long)'8' << 8) | ((unsigned long)'0' << 16) | ((unsigned long)'0' << 24)), "Y800");

        """)
        #expect(r.status == 0, "\(r.stderr)")
    }
}
