// swift-tools-version:6.0
// libFuzzer targets for every parser that reads bytes from a chip, a file or a token. Built
// separately (scripts/fuzz) because they link libFuzzer's main instead of their own.
import PackageDescription

let package = Package(
    name: "PassportFuzz",
    dependencies: [.package(name: "PassportToolkit", path: "..")],
    targets: [
        .executableTarget(name: "PassportFuzz", dependencies: [
            .product(name: "PassportModules", package: "PassportToolkit"),
            .product(name: "OpenID4VP", package: "PassportToolkit"),
        ]),
    ]
)
