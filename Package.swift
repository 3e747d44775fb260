// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PassportToolkit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "passport", targets: ["passport"]),
        .executable(name: "passport-prover", targets: ["passport-prover"]),
        .library(name: "PassportKit", targets: ["PassportKit"]),
        // The building blocks on their own, for the fuzzing package in Fuzz/ and for embedders.
        .library(name: "PassportModules", targets: ["MRZ", "LDS", "CardIO", "DocumentSecurity", "Credentials", "Proving"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System-library shims: headers come from Debian's -dev packages, found with pkg-config.
        .systemLibrary(name: "CPCSCLite", path: "Sources/CPCSCLite", pkgConfig: "libpcsclite",
                       providers: [.apt(["libpcsclite-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),

        .systemLibrary(name: "CNFC", path: "Sources/CNFC", pkgConfig: "libnfc",
                       providers: [.apt(["libnfc-dev"])]),
        .systemLibrary(name: "CLeptonica", path: "Sources/CLeptonica", pkgConfig: "lept",
                       providers: [.apt(["libleptonica-dev"])]),

        .systemLibrary(name: "CTesseract", path: "Sources/CTesseract", pkgConfig: "tesseract",
                       providers: [.apt(["libtesseract-dev"])]),

        .target(name: "MRZ"),
        .target(name: "MRZScanner", dependencies: ["MRZ", "CTesseract", "CLeptonica"]),
        .target(name: "LDS", dependencies: ["MRZ"]),
        .target(name: "CardIO", dependencies: ["CPCSCLite", "CNFC"]),
        .target(name: "DocumentSecurity", dependencies: ["LDS", "CardIO", "MRZ", "COpenSSL"]),
        .target(name: "Credentials", dependencies: ["COpenSSL"]),
        .target(name: "ImageCodecs", dependencies: ["CLeptonica"]),
        .target(name: "CUniFFI"),
        .target(name: "Proving", dependencies: ["CUniFFI", "COpenSSL"]),
        .executableTarget(name: "passport-prover", dependencies: ["Proving"]),
        .target(name: "PassportKit", dependencies: ["MRZ", "LDS", "CardIO", "DocumentSecurity", "Credentials", "ImageCodecs", "Proving"]),
        .executableTarget(name: "passport", dependencies: [
            "PassportKit", "Credentials", "ImageCodecs", "MRZScanner",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .target(name: "TestSupport", dependencies: ["COpenSSL"], path: "Tests/TestSupport"),
        .testTarget(name: "MRZTests", dependencies: ["MRZ", "TestSupport"]),
        .testTarget(name: "MRZScannerTests", dependencies: ["MRZScanner", "MRZ", "TestSupport"]),
        .testTarget(name: "LDSTests", dependencies: ["LDS", "TestSupport"]),
        .testTarget(name: "CardIOTests", dependencies: ["CardIO", "TestSupport"]),
        .testTarget(name: "DocumentSecurityTests", dependencies: ["DocumentSecurity", "CardIO", "LDS", "TestSupport"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "LDS", "TestSupport"]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials", "PassportKit", "TestSupport"]),
        .testTarget(name: "PassportKitTests", dependencies: ["PassportKit", "LDS", "DocumentSecurity", "TestSupport"]),
        .testTarget(name: "ProvingTests", dependencies: ["Proving", "CUniFFI", "COpenSSL", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["PassportKit", "LDS", "DocumentSecurity", "TestSupport"]),
    ]
)
