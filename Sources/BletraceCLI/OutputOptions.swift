import ArgumentParser
import Foundation

/// Where a command's text goes and whether it is coloured: `-o FILE` (`-` is standard output)
/// and `--color`, on every command that writes.
struct DestinationOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write to FILE instead of standard output (- is standard output).", valueName: "file"),
        completion: .path)
    var output: String?

    /// The file `-o` names; nil for standard output (no `-o`, or `-o -`).
    var outputFile: String? { output == "-" ? nil : output }

    @Option(
        help: ArgumentHelp(
            "Colour the text output: never, auto or always.",
            discussion:
                "auto colours only a terminal, and never when the NO_COLOR environment variable is set (no-color.org) or TERM is dumb."
        ))
    var color: ColorChoice = .auto

    /// Opens `-o FILE` and decides colour, before anything is written. `inputs` are the files
    /// read, which `-o` must not overwrite.
    func apply(inputs: [String]) throws {
        // One place opens every output file (OutputFile): never the input by any name, devices
        // written through, regular files replaced whole.
        if let outputFile { try Output.redirect(to: outputFile, inputs: inputs) }
        Style.enabled = color.enabled(toTerminal: outputFile == nil && isatty(STDOUT_FILENO) == 1)
    }
}

/// The output options every analysis command shares: ``DestinationOptions`` and the progress line.
struct OutputOptions: ParsableArguments {
    @OptionGroup var destination: DestinationOptions

    var output: String? { destination.output }
    var outputFile: String? { destination.outputFile }
    var color: ColorChoice { destination.color }

    @Flag(
        name: .shortAndLong,
        help: ArgumentHelp(
            "No progress line on standard error.",
            discussion:
                "Without it, a capture of 16 MB or more read for longer than half a second shows one on a terminal (bytes read of the file's size, records per second), erased at the end."
        ))
    var quiet = false

    /// The progress line for reading `path` (nil when none is to be shown); `streamsOutput`: the
    /// command writes while it reads.
    func progress(for path: String, streamsOutput: Bool) -> ProgressLine? {
        ProgressLine(path: path, quiet: quiet, streamsOutput: streamsOutput, toFile: outputFile != nil)
    }

    /// Opens `-o FILE` and decides colour, before anything is written. `input` is the capture
    /// read, which `-o` must not overwrite.
    func apply(input: String? = nil) throws {
        try destination.apply(inputs: input.map { [$0] } ?? [])
    }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case never, auto, always

    /// Whether text is coloured: always or never as asked; auto on a terminal unless NO_COLOR is
    /// set and not empty (no-color.org) or TERM is dumb (or unset: no terminal to speak of).
    func enabled(toTerminal terminal: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool
    {
        switch self {
        case .always: true
        case .never: false
        case .auto:
            terminal && (environment["NO_COLOR"] ?? "").isEmpty && !["", "dumb"].contains(environment["TERM"] ?? "")
        }
    }
}

/// ANSI styles for text output, applied only when colour is on (``OutputOptions/apply(input:)``).
enum Style {
    nonisolated(unsafe) static var enabled = false

    static func red(_ text: String) -> String { wrap(text, "31") }
    static func yellow(_ text: String) -> String { wrap(text, "33") }
    static func green(_ text: String) -> String { wrap(text, "32") }
    static func bold(_ text: String) -> String { wrap(text, "1") }
    static func dim(_ text: String) -> String { wrap(text, "2") }
    /// `label: value` with the label bold.
    static func boldLabel(_ line: String) -> String {
        guard enabled, let colon = line.firstIndex(of: ":") else { return line }
        return bold(String(line[...colon])) + line[line.index(after: colon)...]
    }

    private static func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

extension CaptureOptions {
    /// The capture's path; `-` (standard input) is first copied to a temporary file, removed when
    /// the program exits, since every format needs its header read before its records.
    var path: String {
        get throws { try Self.path(of: file, member: member) }
    }

    /// The plain capture file to read for `file`: `file` itself, or for `-` a file holding
    /// standard input; for a container (zip, tar, gzip, bug report text), its `member` or its
    /// default member, unpacked (``ContainerInputs``).
    static func path(of file: String, member: String? = nil) throws -> String {
        try ContainerInputs.resolve(try standardInputPath(of: file), member: member)
    }

    /// `file`, or for `-` a file holding standard input.
    static func standardInputPath(of file: String) throws -> String {
        guard file == "-" else { return file }
        if let path = StandardInput.path { return path }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bletrace-stdin-\(ProcessInfo.processInfo.processIdentifier)").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path)
        else {
            Output.error("cannot keep standard input in \(path)")
            throw Exit.badInput
        }
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty { out.write(chunk) }
        try out.close()
        StandardInput.path = path
        atexit { if let path = StandardInput.path { unlink(path) } }
        return path
    }
}

private enum StandardInput {
    nonisolated(unsafe) static var path: String?
}
