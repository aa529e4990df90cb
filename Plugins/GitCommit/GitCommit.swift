import Foundation
import PackagePlugin

/// Writes `GitCommit.swift` for the `BletraceCLI` target: the commit the package was built from
/// (`git describe --always --dirty`), or "unknown" outside a git checkout, so that
/// `bletrace --version` can name it. The file is rewritten only when the text changes.
///
/// A build command, not a prebuild one: SwiftPM runs prebuild commands only when it plans the
/// build again, so a commit followed by an incremental build kept the commit before. The command
/// runs again when what `git describe` reads changes — the checkout's `HEAD`, its reference log
/// (every commit, checkout or reset writes to it), its index — or a source file of the package
/// (which may make the tree dirty).
@main
struct GitCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let file = output.appending(path: "GitCommit.swift")
        let package = context.package.directoryURL
        let script = """
            commit=$(git -C '\(package.path)' describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
            mkdir -p '\(output.path)'
            text="/// Written by the GitCommit build plugin.
            let gitCommit = \\"$commit\\""
            [ "$(cat '\(file.path)' 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > '\(file.path)'
            """
        let gitState = Self.gitDirectory(of: package).map { git in
            ["HEAD", "logs/HEAD", "index"].map { git.appending(path: $0) }
        }
        let sources = context.package.targets.compactMap { $0.sourceModule }.flatMap { $0.sourceFiles.map(\.url) }
        return [
            .buildCommand(
                displayName: "Recording the git commit of bletrace",
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script],
                inputFiles: (gitState ?? []) + sources,
                outputFiles: [file])
        ]
    }

    /// The checkout's git directory: `.git` itself, or where a `.git` file points (a worktree).
    static func gitDirectory(of package: URL) -> URL? {
        let dotGit = package.appending(path: ".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return dotGit }
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("gitdir:") })
        else { return nil }
        let path = line.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespaces)
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
    }
}
