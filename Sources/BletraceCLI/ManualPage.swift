import ArgumentParser
import Foundation

/// The sections of `man bletrace` that swift-argument-parser's generate-manual plugin cannot
/// write from the help: ENVIRONMENT, EXIT STATUS with what each code means (the plugin writes
/// only `.Ex -std`, "0 on success, >0 on error"), EXAMPLES and SEE ALSO.
///
/// `make man` (and `make install`) runs the plugin, then `bletrace manual GENERATED -o bletrace.1`,
/// which puts these sections in place of the plugin's EXIT STATUS. The exit codes come from
/// ``Exit/meanings``, the variables from ``ManualPage/environment``, which CLI tests hold to the
/// variables the code reads, and the examples are run by those tests.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual",
        abstract: "Complete the man page generate-manual wrote: its ENVIRONMENT, EXIT STATUS, EXAMPLES and SEE ALSO.",
        shouldDisplay: false)

    @Argument(
        help: ArgumentHelp("The page generate-manual wrote (mdoc); - reads standard input.", valueName: "page"),
        completion: .path)
    var page: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write to FILE instead of standard output (- is standard output).", valueName: "file"),
        completion: .path)
    var output: String?

    func run() throws {
        let generated: String
        do {
            let data =
                page == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: page))
            generated = String(decoding: data, as: UTF8.self)
        } catch {
            Output.error("\(page): cannot read: \(error.localizedDescription)")
            throw Exit.badInput
        }
        guard let page = ManualPage.completing(generated) else {
            Output.error("\(page): not a page generate-manual wrote (no .Sh line)")
            throw Exit.badInput
        }
        if let output { try Output.redirect(to: output, inputs: [self.page]) }
        Output.text(page)
    }
}

enum ManualPage {
    /// An environment variable bletrace reads, and what it changes.
    struct Variable {
        var name: String
        var meaning: String
    }

    /// Every environment variable the command reads.
    static let environment: [Variable] = [
        Variable(name: "NO_COLOR", meaning: "Set and not empty: no colour unless --color always (no-color.org)."),
        Variable(name: "TERM", meaning: "dumb: no colour unless --color always."),
        Variable(
            name: "BLETRACE_PROGRESS",
            meaning:
                "always: the progress line on a terminal's standard error for a capture of any size (without it, only for 16 MB or more)."
        ),
        Variable(
            name: "BLETRACE_MAX_MEMBER_BYTES",
            meaning: "The most bytes one member of a container (zip, tar, gzip) may unpack to; default 4 GiB."),
        Variable(
            name: "TMPDIR",
            meaning: "Where standard input and unpacked container members are kept while they are read; default /tmp."),
    ]

    /// A command worth showing, and what it does. The tests run them in order, in a directory
    /// where Captures/ is the repository's (an example may read what one before it wrote).
    struct Example {
        var what: String
        var command: [String]
        /// The exit code it ends with on the bundled capture (a finding is 1).
        var status: Int32 = 0
    }

    static let examples: [Example] = [
        Example(
            what: "Why each connection ended, most serious finding first:",
            command: ["diagnose", "Captures/reconnect-supervision-timeout.btsnoop"]),
        Example(what: "The story of every connection:", command: ["lifecycle", "Captures/att-errors.btsnoop"]),
        Example(
            what: "Only the ATT errors, as Wireshark's filter names them:",
            command: ["decode", "Captures/att-errors.btsnoop", "--filter", "btatt.error_code"]),
        Example(
            what: "Fail a CI job when a capture holds an unexpected error:",
            command: ["errors", "Captures/att-errors.btsnoop", "--fail-on", "unexpected"],
            status: 1),
        Example(
            what: "Every capture under a directory, as JSON lines in one file:",
            command: ["errors", "Captures/", "--format", "jsonl", "-o", "errors.jsonl"]),
        Example(
            what:
                "Replay a capture to a reference app, then compare its flow with the expected one, as JUnit XML for CI:",
            command: [
                "replay", "Captures/reconnect-supervision-timeout.btsnoop", "--app", "reconnecting", "-o",
                "actual.flow",
            ]),
        Example(
            what: "",
            command: [
                "diff", "Captures/reconnect-supervision-timeout.reconnecting.flow", "actual.flow", "--format", "junit",
                "-o", "report.xml",
            ]),
        Example(
            what: "Rewrite a capture for Wireshark:",
            command: ["convert", "Captures/att-errors.btsnoop", "-o", "att-errors.pcapng"]),
        Example(
            what: "What Android's status 133 is, on both platforms, with no capture:",
            command: ["explain", "status=133"]),
    ]

    /// The manual pages named under SEE ALSO.
    static let seeAlso = [("btmon", 1), ("tshark", 1), ("wireshark-filter", 4)]

    /// `generated` with its EXIT STATUS (and any SEE ALSO) replaced by ``sections``, and tidied
    /// as mdoc wants it (``tidy(_:)``); nil when it has no section.
    static func completing(_ generated: String) -> String? {
        let lines = tidy(
            withoutHiddenCommands(generated.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)))
        guard lines.contains(where: { $0.hasPrefix(".Sh ") }) else { return nil }
        func title(_ line: String) -> String? {
            line.hasPrefix(".Sh ") ? line.dropFirst(4).uppercased().replacingOccurrences(of: "\"", with: "") : nil
        }
        let replaced: Set = ["ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
        var result: [String] = []
        var skipping = false
        var inserted = false
        for line in lines {
            if let title = title(line) {
                skipping = replaced.contains(title)
                // Before the first section that comes after them in mdoc's order (AUTHORS), or in
                // place of the first one replaced.
                if !inserted, skipping || ["AUTHORS", "CAVEATS", "BUGS", "HISTORY", "STANDARDS"].contains(title) {
                    result += sections
                    inserted = true
                }
            }
            if !skipping { result.append(line) }
        }
        if !inserted { result += sections }
        return result.joined(separator: "\n") + "\n"
    }

    /// The lines without the items of subcommands the help does not show (`manual` itself):
    /// generate-manual lists every subcommand.
    static func withoutHiddenCommands(_ lines: [String]) -> [String] {
        let hidden = Set(
            Bletrace.analysis.filter { !$0.configuration.shouldDisplay }.map { ".It Em " + $0._commandName })
        var result: [String] = []
        var skipping = false
        var depth = 0
        for line in lines {
            if skipping {
                if line.hasPrefix(".Bl") {
                    depth += 1
                } else if line.hasPrefix(".El") {
                    if depth == 0 { skipping = false } else { depth -= 1 }
                } else if depth == 0, line.hasPrefix(".It Em ") {
                    skipping = false
                }
            }
            if !skipping, hidden.contains(line) {
                (skipping, depth) = (true, 0)
                continue
            }
            if !skipping { result.append(line) }
        }
        return result
    }

    /// The page's lines as mandoc -T lint and groff -ww accept them: the help's prose has a
    /// sentence a line (mdoc starts a sentence on a new line), a blank line becomes `.Pp`, and a
    /// `.Pp` before a list item, a list's end or a heading (which start their own) is dropped.
    static func tidy(_ lines: [String]) -> [String] {
        var result: [String] = []
        for line in lines {
            if line.isEmpty || line == ".Pp" {
                if let last = result.last, last != ".Pp", !last.hasPrefix(".Sh"), !last.hasPrefix(".Ss"),
                    !last.hasPrefix(".Bl")
                {
                    result.append(".Pp")
                }
                continue
            }
            if line.hasPrefix(".It") || line.hasPrefix(".El") || line.hasPrefix(".Sh") || line.hasPrefix(".Ss"),
                result.last == ".Pp"
            {
                result.removeLast()
            }
            if line.hasPrefix(".Nd "), line.hasSuffix(".") || line.hasSuffix(".\"") {
                // A one-line description without a full stop (mandoc: trailing delimiter).
                result.append(line.hasSuffix("\"") ? line.dropLast(2) + "\"" : String(line.dropLast()))
            } else if line.hasPrefix(".") || line.hasPrefix("'") {
                result.append(line)
            } else {
                result += sentences(line).flatMap { wrapped($0) }
            }
        }
        while result.last == ".Pp" { result.removeLast() }
        return result
    }

    /// A line of prose cut after each sentence's end (`.`, `!` or `?` before a space), a line
    /// that would start like a macro guarded.
    static func sentences(_ line: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            current.append(character)
            let next = line.index(after: index)
            if ".!?".contains(character), next < line.endIndex, line[next] == " ", !current.hasSuffix("e.g."),
                !current.hasSuffix("i.e.")
            {
                parts.append(current)
                current = ""
                index = next
                while index < line.endIndex, line[index] == " " { index = line.index(after: index) }
                continue
            }
            index = next
        }
        if !current.isEmpty { parts.append(current) }
        return parts.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }

    /// A line of prose in lines of at most `width` bytes, cut between words (a word longer than
    /// that stays whole); a line that would start like a macro guarded.
    static func wrapped(_ line: String, width: Int = 80) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ") {
            if !current.isEmpty, current.utf8.count + 1 + word.utf8.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? (word.hasPrefix(".") || word.hasPrefix("'") ? "\\&" : "") : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// ENVIRONMENT, EXIT STATUS, EXAMPLES and SEE ALSO, in mdoc.
    static var sections: [String] {
        var lines = [".Sh ENVIRONMENT", ".Bl -tag -width Ds"]
        for variable in environment { lines += [".It Ev \(variable.name)"] + wrapped(escaped(variable.meaning)) }
        lines += [".El", ".Sh EXIT STATUS", "Every subcommand exits with one of:", ".Bl -tag -width Ds"]
        for (code, _, meaning) in Exit.meanings { lines += [".It \(code)"] + wrapped(escaped(meaning)) }
        lines += [".El", ".Sh EXAMPLES"]
        for (index, example) in examples.enumerated() {
            // An example without words goes on from the one before it.
            if !example.what.isEmpty {
                if index > 0 { lines.append(".Pp") }
                lines += wrapped(escaped(example.what)) + [".Pp"]
            }
            lines.append(".Dl $ bletrace \(example.command.map(escaped).joined(separator: " "))")
        }
        lines.append(".Sh SEE ALSO")
        for (index, (name, section)) in seeAlso.enumerated() {
            lines.append(".Xr \(name) \(section)" + (index < seeAlso.count - 1 ? " ," : ""))
        }
        return lines
    }

    /// Text as mdoc reads it: a backslash doubled, a line that would start with a dot or an
    /// apostrophe guarded.
    static func escaped(_ text: String) -> String {
        let text = text.replacingOccurrences(of: "\\", with: "\\e")
        return text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text
    }
}
