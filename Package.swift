// swift-tools-version:6.0
import PackageDescription

// Modules by what a caller needs; dependencies point down only (docs/ARCHITECTURE.md):
//   shims (C libraries) → PassportCrypto, MRZ → LDS → PassiveAuth | ChipProtocols (+ CardIO)
//   → Credentials, Proving → PassportKit → the command lines.
let package = Package(
    name: "PassportToolkit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "passport", targets: ["passport"]),
        .executable(name: "passport-bench", targets: ["passport-bench"]),
        // Verify recorded chip dumps (EF.SOD, DSC → CSCA, CRLs, master lists): links libcrypto only.
        .library(name: "PassiveAuth", targets: ["PassiveAuth"]),
        // Read a passport's chip (BAC, PACE, secure messaging, chip and active authentication).
        .library(name: "ChipProtocols", targets: ["ChipProtocols"]),
        // The whole pipeline: image → chip → verified document → credential.
        .library(name: "PassportKit", targets: ["PassportKit"]),
        // The building blocks on their own, for the fuzzing package in Fuzz/ and for embedders.
        .library(name: "PassportModules", targets: ["JSONCore", "MRZ", "LDS", "CardIO", "PassiveAuth", "ChipProtocols", "Credentials", "Proving"]),
        // OpenID4VP request, DCQL and response parsing and checks (no network), for Fuzz/ and embedders.
        .library(name: "OpenID4VP", targets: ["OpenID4VP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The desk's HTTP/1.1 server (loopback only): NIO's core, its POSIX sockets and its HTTP parser.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // OpenSSL, the one C library linked (pkg-config finds it; headers from libssl-dev).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Every other C library is opened with dlopen by the code that first needs it, not linked,
        // so that a command which does not use it starts without it: each shim is a table of the
        // library's functions typed by its -dev package's headers, which CLibraryLoader fills, and
        // LibraryLoading turns a missing library into an error naming its Debian package.
        .target(name: "CLibraryLoader"),
        .target(name: "LibraryLoading", dependencies: ["CLibraryLoader"]),
        // pcsc-lite (libpcsclite-dev), libnfc (libnfc-dev), OpenPACE's libeac (libeac-dev),
        // Leptonica (libleptonica-dev), libsecret with GLib (declared in the shim: libsecret-1-dev).
        .target(name: "CPCSCLite", dependencies: ["CLibraryLoader"]),
        .target(name: "CNFC", dependencies: ["CLibraryLoader"]),
        .target(name: "CEAC", dependencies: ["CLibraryLoader"]),
        .target(name: "CLeptonica", dependencies: ["CLibraryLoader"]),
        .target(name: "CLibSecret", dependencies: ["CLibraryLoader"]),
        // Large stacks one command needs (headers from libtesseract-dev and FFmpeg's -dev packages).
        .target(name: "CTesseract", dependencies: ["CLibraryLoader"]),
        .target(name: "CFFmpeg", dependencies: ["CLibraryLoader"]),
        // zlib's raw inflate for the desk's zip uploads, opened when a zip is read (not linked).
        .target(name: "CZlib", dependencies: ["CLibraryLoader"]),
        // QR codes: libqrencode (encoding) and ZBar (decoding), opened when a QR option is used;
        // their few functions are declared in the shims, so the build needs neither -dev package.
        .target(name: "CQREncode", dependencies: ["CLibraryLoader"]),
        .target(name: "CZBar", dependencies: ["CLibraryLoader"]),
        // PKCS#11 headers only (p11-kit's, without pkg-config: nothing of p11-kit is linked); a
        // token's module is opened with dlopen at run time.
        .systemLibrary(name: "CPKCS11", path: "Sources/CPKCS11", providers: [.apt(["libp11-kit-dev"])]),
        .target(name: "CUniFFI"),
        // HTTPS through the system's libcurl (OpenSSL, the system's CA store and proxy settings),
        // opened on first use (not linked): one exchange in C, since curl_easy_setopt is variadic.
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),

        // Base: the only OpenSSL wrappers (digests, random bytes, ciphers, keys, BIGNUMs, SecretBytes).
        .target(name: "PassportCrypto", dependencies: ["COpenSSL"]),
        .target(name: "MRZ"),
        // What FoundationEssentials lacks, without the ICU that Foundation brings: JSON text as
        // Swift values, and string and number spelling (trim, pad, fixed decimals, hex, percent).
        .target(name: "JSONCore"),
        .target(name: "TextSupport"),
        // Where files live on this machine (XDG base directories) and how personal data is written
        // (0600/0700); threads with descriptor tables of their own (CLinux: Linux calls glibc
        // declares only under _GNU_SOURCE).
        .target(name: "CLinux"),
        .target(name: "LocalFiles", dependencies: ["CLinux"]),
        // Data: BER-TLV/DER and the files of the logical data structure.
        .target(name: "LDS", dependencies: ["JSONCore", "TextSupport", "MRZ", "PassportCrypto", "LocalFiles"]),
        // Trust: CMS, X.509, master lists, CRLs, the trust store, dump verification.
        .target(name: "PassiveAuth", dependencies: ["JSONCore", "TextSupport", "LDS", "MRZ", "PassportCrypto", "COpenSSL", "LocalFiles"]),
        // Chip: transports, then the protocols spoken over them.
        .target(name: "CardIO", dependencies: ["TextSupport", "CPCSCLite", "CNFC", "LibraryLoading"]),
        .target(name: "ChipProtocols", dependencies: ["LocalFiles", "TextSupport", "CardIO", "LDS", "MRZ", "PassportCrypto", "COpenSSL", "CEAC", "LibraryLoading"]),
        // Image: Leptonica (decoding, geometry), then Tesseract for the MRZ.
        .target(name: "ImageCodecs", dependencies: ["CLeptonica", "LibraryLoading"]),
        .target(name: "MRZScanner", dependencies: ["TextSupport", "MRZ", "ImageCodecs", "CTesseract", "CLeptonica", "LocalFiles"]),
        // QR codes: text → matrix → terminal text, SVG, PNG (zlib through CZlib); grey pixels or an image file → the one code's text.
        .target(name: "QRCodes", dependencies: ["CQREncode", "CZBar", "CZlib", "LibraryLoading", "ImageCodecs"]),
        // Video: camera (V4L2) and video-file frames through FFmpeg, read until two frames agree.
        .target(name: "VideoFrames", dependencies: ["TextSupport", "CFFmpeg", "MRZScanner", "MRZ", "QRCodes"]),
        .target(name: "Credentials", dependencies: ["JSONCore", "TextSupport", "PassportCrypto", "LocalFiles"]),
        // The holder key on a hardware token (PKCS#11: YubiKey PIV, Nitrokey, smart cards, SoftHSM).
        .target(name: "TokenKeys", dependencies: ["TextSupport", "CPKCS11", "Credentials", "PassportCrypto"]),
        // The key store's device key in the desktop keyring (Secret Service via libsecret).
        .target(name: "SystemKeyring", dependencies: ["CLibSecret", "Credentials", "LibraryLoading"]),
        // OpenID4VP 1.0: request objects (JAR, x509_hash / x509_san_dns), DCQL, vp_token and
        // direct_post.jwt responses (JWE ECDH-ES) — parsing and checks, no network (fuzzed).
        .target(name: "OpenID4VP", dependencies: ["JSONCore", "TextSupport", "Credentials", "PassportCrypto", "COpenSSL", "LocalFiles"]),
        // The wallet's HTTP side over libcurl. Kept apart so that only the passport command links
        // libcurl, not Credentials or PassiveAuth.
        .target(name: "OpenID4VPClient", dependencies: ["JSONCore", "TextSupport", "OpenID4VP", "CCurl"]),
        .target(name: "Proving", dependencies: ["JSONCore", "LocalFiles", "CUniFFI", "MRZ", "LDS", "PassiveAuth", "PassportCrypto", "COpenSSL"]),
        // Pipeline: scan → verify → issue, with typed reports.
        .target(name: "PassportKit", dependencies: ["JSONCore", "TextSupport", "LocalFiles", "MRZ", "LDS", "CardIO", "ChipProtocols", "PassiveAuth", "Credentials", "Proving", "LibraryLoading"],
                plugins: ["VersionStamp"]),
        // `passport doctor`: what stops a reader, OCR, verification or the key store here.
        .target(name: "Diagnostics", dependencies: ["LocalFiles", "TextSupport", "CardIO", "PassiveAuth", "PassportKit", "Credentials", "TokenKeys", "MRZScanner", "VideoFrames", "COpenSSL", "LibraryLoading"]),
        // VERSION (and the git commit) → PassportKitVersion, before every build.
        .plugin(name: "VersionStamp", capability: .buildTool()),
        // `passport desk`: the inspection desk in a browser, a loopback HTTP server over PassportKit
        // whose page (Sources/Desk/Assets) is embedded in the binary by the DeskAssets plugin.
        .target(name: "Desk", dependencies: ["TextSupport", 
            "PassportKit", "Diagnostics", "CardIO", "LDS", "MRZ", "PassiveAuth", "PassportCrypto", "LocalFiles",
            "ImageCodecs", "MRZScanner", "CZlib", "Credentials", "OpenID4VP", "OpenID4VPClient", "QRCodes", "LibraryLoading",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], exclude: ["Assets"], plugins: ["DeskAssets"]),
        .plugin(name: "DeskAssets", capability: .buildTool()),

        // Command lines: options and rendering shared by both tools, then the tools.
        .target(name: "PassportCLI", dependencies: ["JSONCore", "TextSupport", 
            "PassportKit", "ImageCodecs", "MRZScanner", "LocalFiles", "LDS",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "passport", dependencies: ["JSONCore", "TextSupport", 
            "PassportCLI", "PassportKit", "LocalFiles", "Credentials", "TokenKeys", "SystemKeyring", "OpenID4VP", "OpenID4VPClient", "ImageCodecs", "MRZScanner", "VideoFrames",
            "Diagnostics", "Desk", "Proving", "QRCodes",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "passport-bench", dependencies: [
            "PassportCLI", "PassportKit", "Credentials", "MRZScanner",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .target(name: "TestSupport", dependencies: ["PassportCrypto", "PassiveAuth", "LDS"], path: "Tests/TestSupport"),
        .testTarget(name: "MRZTests", dependencies: ["MRZ", "TestSupport"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "TestSupport"]),
        .testTarget(name: "TextSupportTests", dependencies: ["TextSupport", "LocalFiles", "TestSupport"]),
        .testTarget(name: "LocalFilesTests", dependencies: ["LocalFiles", "CLinux", "LDS"]),
        .testTarget(name: "MRZScannerTests", dependencies: ["MRZScanner", "MRZ", "ImageCodecs", "CLeptonica", "TestSupport"]),
        .testTarget(name: "VideoFramesTests", dependencies: ["VideoFrames", "MRZScanner", "MRZ", "TestSupport"]),
        .testTarget(name: "QRCodesTests", dependencies: ["QRCodes", "VideoFrames", "CQREncode", "CZBar", "LibraryLoading", "TestSupport"]),
        .testTarget(name: "LDSTests", dependencies: ["LDS", "LocalFiles", "TestSupport"]),
        .testTarget(name: "CardIOTests", dependencies: ["CardIO", "CPCSCLite", "CNFC", "LibraryLoading", "TestSupport"]),
        .testTarget(name: "PassiveAuthTests", dependencies: ["PassiveAuth", "PassportCrypto", "LDS", "LocalFiles", "TestSupport"]),
        .testTarget(name: "ChipProtocolsTests", dependencies: ["ChipProtocols", "CEAC", "LibraryLoading", "PassiveAuth", "PassportCrypto", "CardIO", "LDS", "MRZ", "TestSupport"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "CLeptonica", "LibraryLoading", "LDS", "TestSupport"]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials", "PassportKit", "TestSupport"]),
        .testTarget(name: "OpenID4VPTests", dependencies: ["OpenID4VP", "JSONCore", "Credentials", "PassportCrypto", "TestSupport"]),
        .testTarget(name: "PassportKitTests", dependencies: ["JSONCore", "PassportKit", "LDS", "PassiveAuth", "TestSupport"]),
        .testTarget(name: "ProvingTests", dependencies: ["Proving", "CUniFFI", "COpenSSL", "TestSupport"]),
        .testTarget(name: "DeskTests", dependencies: ["Desk", "PassportKit", "LDS", "Credentials", "OpenID4VPClient", "TestSupport"]),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics", "CardIO", "PassportKit", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["PassportKit", "LDS", "ChipProtocols", "PassiveAuth", "PassportCrypto", "TestSupport"]),
    ]
)
