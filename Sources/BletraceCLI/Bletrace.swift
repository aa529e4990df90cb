import ArgumentParser
import BLETrace
import Foundation

/// The `bletrace` command line, for an executable of its own:
///
/// ```swift
/// // Sources/my-bletrace/main.swift — every bletrace subcommand, with the team's apps for
/// // `my-bletrace replay CAPTURE --app HeartRateMonitor`
/// import BletraceCLI
/// import HeartRateKit
///
/// await BletraceCommand.main(apps: [HeartRateMonitor.self])
/// ```
public enum BletraceCommand {
    /// Parses the process's arguments and runs the subcommand, then exits with its code. `apps`
    /// join the reference apps of `replay --app` and `replay --list-apps`.
    public static func main(apps: [any (BluetoothApp & Launchable).Type] = []) async -> Never {
        ReferenceApps.register(apps.map { entry(for: $0) })
        await Bletrace.main()
        exit(0)
    }

    private static func entry<App: BluetoothApp & Launchable>(for type: App.Type) -> ReferenceApps.Entry {
        ReferenceApps.Entry(type)
    }
}

/// The root command. Exit codes, for every subcommand:
/// 0 success; 1 a finding (flows differ, the capture is damaged after the records shown, no
/// Bluetooth on this host); 2 bad input (usage, unreadable or unrecognised file).
struct Bletrace: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bletrace",
        abstract: "What really happened in a Bluetooth LE HCI trace, and whether an app handles it right.",
        discussion: """
            Reads btsnoop (Android, BlueZ), pcap/pcapng (Wireshark) and Apple PacketLogger captures.

            Exit codes: \(Exit.meanings.map { "\($0.code) \($0.word)" }.joined(separator: "; ")) (EXIT STATUS in man bletrace says each in full).
            """,
        version: "\(bletraceVersion) (\(gitCommit))",
        subcommands: analysis + live)

    static let analysis: [any ParsableCommand.Type] = [
        Info.self, Decode.self, Errors.self, Diagnose.self, Stats.self, LifecycleCommand.self, GATT.self,
        ReplayCommand.self, Diff.self,
        Convert.self, RedactCommand.self, Explain.self, ManualCommand.self,
    ]
    #if os(Linux)
    static let live: [any ParsableCommand.Type] = [Capture.self, Adapters.self]
    #else
    static let live: [any ParsableCommand.Type] = []
    #endif

    static func main() async {
        // A reader that goes away (`| head`) shows as EPIPE on the next write, which ends the
        // command with exit code 2 (Output), instead of a signal.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command: any ParsableCommand
            do {
                command = try parseAsRoot()
            } catch {
                // A first word that names no subcommand never parses (the root command takes no
                // arguments); the subcommands' names, which take milliseconds to work out, are
                // only looked at then.
                if let message = unknownSubcommand(Array(CommandLine.arguments.dropFirst())) {
                    Output.error(message)
                    Foundation.exit(2)
                }
                throw error
            }
            // Several captures: a worker each, outputs in file order (CaptureBatch).
            if let batch = try CaptureBatch(command) {
                let code = try batch.run()
                try Output.close()
                Foundation.exit(code)
            }
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            try Output.close()
        } catch let exit as ExitCode {
            // A finding (a damaged capture, flows that differ) keeps what was written before it.
            if exit == Exit.finding { try? Output.close() } else { Output.abandon() }
            Foundation.exit(exit.rawValue)
        } catch {
            Output.abandon()
            let code = exitCode(for: error)
            if code == .success {
                // --help and --version
                Bletrace.exit(withError: error)
            }
            // One style for every error: `bletrace: what went wrong`, then argument-parser's
            // usage lines for a usage error.
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message = "bletrace: " + message.dropFirst("Error: ".count) }
            Output.standardError(message.hasSuffix("\n") ? message : message + "\n")
            Foundation.exit(code == .validationFailure || code == .failure ? 2 : code.rawValue)
        }
    }
}

extension Bletrace {
    /// The message for a first word that names no subcommand (argument-parser would take it for
    /// an argument the root command does not have, "2 unexpected arguments"), with the nearest
    /// names; nil when the words start with an option or a subcommand.
    static func unknownSubcommand(_ words: [String]) -> String? {
        guard let word = words.first, !word.hasPrefix("-") else { return nil }
        var names = ["help"]
        var hidden: [String] = []
        for command in analysis + live {
            let name = command._commandName
            if command.configuration.shouldDisplay { names.append(name) } else { hidden.append(name) }
        }
        guard !names.contains(word), !hidden.contains(word) else { return nil }
        let nearest = Suggestions.nearest(to: word, among: names)
        return "unknown command '\(word)'"
            + (nearest.isEmpty ? "" : "; did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))?")
            + " (bletrace --help lists the commands)"
    }
}

/// The release of bletrace; `--version` adds the git commit it was built from.
let bletraceVersion = "0.1.0"

/// Exit codes shared by the subcommands.
enum Exit {
    static let finding = ExitCode(1)
    static let badInput = ExitCode(2)

    /// What each code means, in a word and in full, for `--help` and the man page's EXIT STATUS.
    static let meanings: [(code: Int32, word: String, meaning: String)] = [
        (
            0, "success",
            "Success: the report was written (errors and diagnose exit 0 whatever they find, unless --fail-on is given); diff: the flows are equal."
        ),
        (
            1, "a finding",
            "A finding: the flows differ, errors or diagnose found what --fail-on names, a sweep's kill point loses state, convert could not carry every record, the capture is damaged after the records shown, or this host has no Bluetooth."
        ),
        (
            2, "bad input",
            "Bad input: a usage error, an unreadable or unrecognised file, an output that cannot be written."
        ),
    ]
}

/// The input and output options every reading command shares.
struct CaptureOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Capture files or directories: btsnoop, pcap, pcapng or PacketLogger (.pklg), also inside an Android bug report zip, an Apple sysdiagnose .tar.gz or a gzip; - reads standard input.",
            discussion:
                "Several captures (files, or directories: their .btsnoop, .log, .cfa, .pcap, .pcapng, .cap and .pklg files, and .zip, .gz and .tgz containers, at any depth) are analysed at once, one per processor, and reported in file order: text under a ==> FILE <== line, JSON with \"file\" in each object. A capture that fails is reported and the others go on; the exit code is the worst of theirs.",
            valueName: "file"),
        completion: .path)
    var files: [String]

    @Option(
        help: ArgumentHelp(
            "With several captures: how many to analyse at once (default: one per processor).", valueName: "n"))
    var jobs: Int?

    @Option(
        help: ArgumentHelp(
            "In a container (bug report zip, sysdiagnose .tar.gz, gzip, tar): the capture to read, by its path inside or its file name.",
            discussion:
                "Without it, the current log: btsnoop_hci.log, bluetoothd-hci-latest.pklg, else the first capture by path. `bletrace info` lists the captures inside (Formats/containers.md).",
            valueName: "path"),
        completion: .members)
    var member: String?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
    }

    /// The capture a run on one file reads (with several, each worker runs the command on one).
    var file: String { files.first ?? "-" }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, jsonl
}
