import Foundation
import TestSupport
import Testing

/// The examples of the README and of the documentation pages (Formats/*.md: the command
/// reference, Formats/commands.md, holds most), run as written: each code block that starts with
/// a `$ ` command is run in bash (the commands in order, with the built bletrace on PATH) in a directory where
/// `Captures/` is the repository's and `../shared` the shared folder (a block that reads
/// `../shared/` is skipped, saying so, without it), and what it prints must be what the block shows. A line `…`
/// stands for any run of lines, a blank line before a command only sets it apart; a block that
/// shows no output must exit 0. The documentation cannot drift from the commands again.
@Suite struct ReadmeExamplesTests {
    struct Block: CustomTestStringConvertible, Sendable {
        /// The page, from the repository's root, and the line of the block's opening fence.
        var file: String
        var line: Int
        var commands: [String]
        var expected: [String]
        var place: String { "\(file):\(line)" }
        var testDescription: String { "\(place): \(commands.first ?? "")" }
    }

    /// README.md, then every page of Formats/, in name order.
    static let pages: [String] = {
        let formats = Fixtures.packageRoot.appendingPathComponent("Formats")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: formats.path)) ?? []
        return ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "Formats/\($0)" }
    }()

    /// Blocks that cannot run here, and why.
    static let notRun: [String: String] = [
        "bletrace info bugreport-panther-TQ3A-2026-01-01.zip": "a user's bug report, not in the repository",
        "swift test --filter reconnectsAfterASupervisionTimeout": "runs a user's package",
    ]
    /// Blocks that show a host without Bluetooth: run only on one.
    static let withoutBluetooth = ["bletrace capture --monitor -o live.btsnoop", "bletrace adapters"]

    static var blocks: [Block] { pages.flatMap { blocks(in: $0) } }

    static func blocks(in page: String) -> [Block] {
        guard let text = try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent(page), encoding: .utf8)
        else { return [] }
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("```") else {
                index += 1
                continue
            }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            index += 1
            guard body.first?.hasPrefix("$ ") == true else { continue }
            var block = Block(file: page, line: start + 1, commands: [], expected: [])
            var position = 0
            while position < body.count {
                var line = body[position]
                if line.hasPrefix("$ ") {
                    var command = String(line.dropFirst(2))
                    // A command goes on after a backslash, or inside a ''' string.
                    while command.hasSuffix("\\") || command.components(separatedBy: "'''").count % 2 == 0,
                        position + 1 < body.count
                    {
                        position += 1
                        line = body[position]
                        command += "\n" + line
                    }
                    block.commands.append(command)
                } else if !(line.isEmpty && position + 1 < body.count && body[position + 1].hasPrefix("$ ")) {
                    // (A blank line before a command only sets it apart.)
                    block.expected.append(line)
                }
                position += 1
            }
            blocks.append(block)
        }
        return blocks
    }

    /// The directory the examples run in: Captures/ and logs/ (the directory of captures the
    /// "Many captures" section reads) lead to the repository's captures; the flows the diff
    /// examples compare are made as the pages say (actual.flow by the replay it shows,
    /// gives-up.flow cut after the disconnection as `make demo` cuts it, reconnects.flow as the
    /// block that shows it with `cat`). It is `bletrace/` in a fresh directory, with `shared` beside
    /// it leading to the shared folder when there is one (the examples of shared captures read
    /// `../shared/captures/public/`, as from a clone with the shared folder beside it).
    static func workspace() throws -> URL {
        let outer = try ContainerFixtures.directory()
        let directory = outer.appendingPathComponent("bletrace")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let shared = Fixtures.shared {
            try FileManager.default.createSymbolicLink(
                atPath: outer.appendingPathComponent("shared").path, withDestinationPath: shared.path)
        }
        let captures = URL(fileURLWithPath: Fixtures.capture("att-errors.btsnoop")).deletingLastPathComponent().path
        for name in ["Captures", "logs"] {
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent(name).path, withDestinationPath: captures)
        }
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("bletrace").path, withDestinationPath: bletracePath)
        let setup = """
            bletrace replay Captures/reconnect-supervision-timeout.btsnoop --app reconnecting -o actual.flow
            sed '/didDisconnectPeripheral/q' Captures/reconnect-supervision-timeout.reconnecting.flow > gives-up.flow
            """
        let made = try run(
            "/bin/bash", ["-c", "cd \"$1\" && PATH=\"$1/bin:$PATH\" && \(setup)", "bash", directory.path])
        #expect(made.status == 0, "\(made.stderr)")
        if let shown = blocks.first(where: {
            $0.commands == ["cat reconnects.flow", "bletrace diff reconnects.flow actual.flow"]
        }) {
            let flow = shown.expected.prefix { !$0.hasPrefix("flows ") }.joined(separator: "\n") + "\n"
            try flow.write(to: directory.appendingPathComponent("reconnects.flow"), atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test func theReadmeAndTheCommandReferenceHaveExamplesToRun() {
        #expect(Self.blocks(in: "README.md").count >= 5)
        #expect(Self.blocks(in: "Formats/commands.md").count >= 15)
    }

    @Test(arguments: blocks)
    func theBlockPrintsWhatTheReadmeShows(_ block: Block) throws {
        if let reason = Self.notRun[block.commands[0]] {
            // Kept honest: the list names only blocks that exist.
            #expect(!reason.isEmpty)
            return
        }
        if Self.withoutBluetooth.contains(block.commands[0]),
            FileManager.default.fileExists(atPath: "/sys/class/bluetooth")
        {
            return
        }
        let script = block.commands.joined(separator: "\n")
        if Fixtures.shared == nil, script.contains("../shared/") {
            print("\(block.place): not run: it reads a shared capture, and \(Fixtures.sharedMissing)")
            return
        }
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let result = try run(
            "/bin/bash",
            ["-c", "cd \"$1\" && PATH=\"$1/bin:$PATH\" && shift && eval \"$1\"", "bash", directory.path, script])
        if block.expected.isEmpty {
            #expect(result.status == 0, "\(result.stderr)")
            return
        }
        var actual = (result.stdout + result.stderr).components(separatedBy: "\n")
        while actual.last == "" { actual.removeLast() }
        #expect(
            Self.matches(block.expected, actual),
            "\(block.place) shows:\n\(block.expected.joined(separator: "\n"))\nbut the commands print:\n\(actual.joined(separator: "\n"))"
        )
    }

    /// `expected` against `actual` line by line (trailing spaces aside), `…` matching any run.
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        func trimmed(_ line: String) -> Substring {
            line[..<(line.lastIndex { $0 != " " }.map { line.index(after: $0) } ?? line.startIndex)]
        }
        var memo: [Int: Bool] = [:]
        func match(_ e: Int, _ a: Int) -> Bool {
            let key = e * (actual.count + 1) + a
            if let known = memo[key] { return known }
            let result: Bool
            if e == expected.count {
                result = a == actual.count
            } else if expected[e].trimmingCharacters(in: .whitespaces) == "…" {
                result = (a...actual.count).contains { match(e + 1, $0) }
            } else {
                result = a < actual.count && trimmed(expected[e]) == trimmed(actual[a]) && match(e + 1, a + 1)
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }

    @Test func theMatcherTakesAnEllipsisForAnyRunAndNothingElse() {
        #expect(Self.matches(["a", "…", "d"], ["a", "b", "c", "d"]))
        #expect(Self.matches(["a", "…"], ["a"]))
        #expect(!Self.matches(["a", "d"], ["a", "b", "d"]))
        #expect(!Self.matches(["a", "…", "e"], ["a", "b", "d"]))
    }
}
