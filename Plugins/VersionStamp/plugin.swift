import Foundation
import PackagePlugin

/// Generates `BuildVersion.swift` from the VERSION file and, in a git checkout, the commit, so that
/// `passport --version`, the package name and the changelog come from one place. It runs before
/// every build (a prebuild command) and rewrites the file only when its text changes.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        let script = context.package.directoryURL.appendingPathComponent("scripts/version-stamp")
        return [.prebuildCommand(displayName: "Stamping the version",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [script.path, context.package.directoryURL.path, output.appendingPathComponent("BuildVersion.swift").path],
                                 outputFilesDirectory: output)]
    }
}
