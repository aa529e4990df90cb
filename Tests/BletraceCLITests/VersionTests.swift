import Foundation
import TestSupport
import Testing

@Suite struct VersionTests {
    @Test func versionNamesTheReleaseAndTheGitCommitItWasBuiltFrom() throws {
        let result = try bletrace("--version")
        #expect(result.status == 0)
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let match = try #require(line.wholeMatch(of: /(\d+)\.(\d+)\.(\d+) \(([0-9a-f]{7,40}|unknown)(-dirty)?\)/))
        let commit = String(match.output.4)
        // In a git checkout (a clone, CI), it is the checkout's commit.
        if let git = which("git") {
            let head = try run(git, ["-C", Fixtures.packageRoot.path, "rev-parse", "HEAD"])
            if head.status == 0 {
                #expect(head.stdout.hasPrefix(commit), "\(commit) is not HEAD \(head.stdout)")
            }
        }
    }
}
