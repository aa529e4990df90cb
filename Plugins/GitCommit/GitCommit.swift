import Foundation
import PackagePlugin

/// Writes `GitCommit.swift` for the `bletrace` target before every build: the commit the package
/// was built from (`git describe --always --dirty`), or "unknown" outside a git checkout, so that
/// `bletrace --version` can name it. The file is rewritten only when the commit changes.
@main
struct GitCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let file = output.appending(path: "GitCommit.swift")
        let package = context.package.directoryURL.path
        let script = """
            commit=$(git -C '\(package)' describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
            mkdir -p '\(output.path)'
            text="/// Written by the GitCommit build plugin.
            let gitCommit = \\"$commit\\""
            [ "$(cat '\(file.path)' 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > '\(file.path)'
            """
        return [
            .prebuildCommand(
                displayName: "Recording the git commit of bletrace",
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script],
                outputFilesDirectory: output)
        ]
    }
}
