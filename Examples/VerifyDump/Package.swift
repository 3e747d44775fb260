// swift-tools-version:6.0
// A dump verifier that depends on the toolkit's PassiveAuth product alone: it builds with
// libssl-dev and links neither PC/SC, libnfc, Tesseract nor Leptonica.
import PackageDescription

let package = Package(
    name: "VerifyDump",
    dependencies: [.package(name: "PassportToolkit", path: "../..")],
    targets: [
        .executableTarget(name: "verify-dump", dependencies: [
            .product(name: "PassiveAuth", package: "PassportToolkit"),
        ]),
    ]
)
