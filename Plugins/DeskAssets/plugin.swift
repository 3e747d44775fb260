import Foundation
import PackagePlugin

/// Embeds the desk's page (Sources/Desk/Assets: HTML, CSS, JavaScript modules) in the binary as
/// `DeskAssetFiles.swift`, so that `passport desk` serves it with no files beside the binary and
/// no build step for the page itself (scripts/embed-assets writes the Swift file).
@main
struct DeskAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let assets = context.package.directoryURL.appendingPathComponent("Sources/\(target.name)/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path).filter { !$0.hasPrefix(".") }.sorted()
        let inputs = names.map { assets.appendingPathComponent($0) }
        let script = context.package.directoryURL.appendingPathComponent("scripts/embed-assets")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("DeskAssetFiles.swift")
        return [.buildCommand(displayName: "Embedding the desk's page",
                              executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: [script.path, output.path] + inputs.map(\.path),
                              inputFiles: [script] + inputs,
                              outputFiles: [output])]
    }
}
