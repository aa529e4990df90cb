import Foundation
import TestSupport
import Testing

/// The conventions of Formats/commands.md, "Conventions", held on every subcommand: one error
/// style, `-o FILE` (`-` is standard output) on every command that writes, `-` as input, `--color`
/// with NO_COLOR and TERM=dumb, `"version"` and `"file"` in every JSON document, options that do
/// not apply refused, "did you mean" for a misspelt subcommand, JUnit even on bad input, a
/// directory's non-HCI files passed over with a note, a live source named as the user named it.
@Suite struct ConventionsTests {
    static let capture = Fixtures.capture("att-errors.btsnoop")
    static let flow = Fixtures.capture("att-errors.mirror.flow")
    static let otherFlow = Fixtures.capture("att-errors.sdk-timeout.flow")

    /// Every subcommand, with arguments that make it run on the bundled capture (and a second
    /// file where it takes two). `capture` and `adapters` need a controller: they are run only
    /// where a test says.
    static let runs: [String: [String]] = [
        "info": ["info", capture],
        "decode": ["decode", capture],
        "errors": ["errors", capture],
        "diagnose": ["diagnose", capture],
        "stats": ["stats", capture],
        "lifecycle": ["lifecycle", capture],
        "gatt": ["gatt", capture],
        "replay": ["replay", capture],
        "diff": ["diff", flow, flow],
        "convert": ["convert", capture, "--to", "pcap"],
        "redact": ["redact", capture, "--to", "pcap"],
        "capture": ["capture", "-i", "tcp:127.0.0.1:1", "--count", "1"],
        "adapters": ["adapters"],
        "explain": ["explain", "status=133"],
    ]
    /// The commands that write a report for people, and take --color.
    static let reporting = [
        "info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt", "replay", "diff", "explain",
    ]
    /// The commands that write a file or a report, and take -o.
    static let writing = reporting + ["convert", "capture"]

    @Test func everySubcommandTheHelpListsIsCoveredHere() throws {
        let help = try bletrace("--help").stdout
        let listed = help.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
            .compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard line.hasPrefix("  "), !line.hasPrefix("    "), let first = words.first, first != "See" else {
                    return nil
                }
                return String(first)
            }
        #expect(Set(listed) == Set(Self.runs.keys))
    }

    @Test(arguments: runs.keys.sorted())
    func aUsageErrorIsOneBletraceLineThenTheUsage(_ command: String) throws {
        let result = try bletrace(Self.runs[command]! + ["--no-such-option"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("bletrace: ") == true, "\(result.stderr)")
        #expect(result.stderr.contains("Usage: bletrace \(command)"), "\(result.stderr)")
        #expect(!result.stderr.contains("Error:"))
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        "info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt", "replay", "diff", "convert",
    ])
    func aFileThatCannotBeReadIsOneBletraceLine(_ command: String) throws {
        var arguments = Self.runs[command]! + (command == "convert" ? ["-o", "-"] : [])
        arguments[1] = "/nonexistent/capture.btsnoop"
        let result = try bletrace(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("bletrace: "), "\(result.stderr)")
        #expect(result.stderr.contains("/nonexistent/capture.btsnoop"))
        #expect(!result.stderr.contains("Usage:"))
    }

    @Test(arguments: writing.filter { $0 != "capture" })
    func dashOWritesTheFileAndDashODashIsStandardOutput(_ command: String) throws {
        let out = try Fixtures.temporaryFile([], name: command == "convert" ? "out.pcap" : "\(command).out")
        let toFile = try bletrace(Self.runs[command]! + ["-o", out])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let written = try Fixtures.contents(out)
        #expect(!written.isEmpty)
        let toStandardOutput = try bletrace(Self.runs[command]! + ["-o", "-"])
        #expect(toStandardOutput.status == 0, "\(toStandardOutput.stderr)")
        if command == "convert" {
            // The capture on standard output (binary: its bytes are compared through a pipe
            // elsewhere, OutputPathTests), its summary on standard error.
            #expect(!toStandardOutput.stdout.isEmpty)
            #expect(toStandardOutput.stderr.contains("records written"))
        } else {
            #expect(toFile.stdout.isEmpty)
            #expect(Array(toStandardOutput.stdout.utf8) == written)
        }
    }

    @Test func theOldSpellingsOfTheOutputStillWork() throws {
        // convert IN OUT, capture -w FILE: kept, hidden from the help.
        let out = try Fixtures.temporaryFile([], name: "old.pcap")
        #expect(try bletrace("convert", Self.capture, out).status == 0)
        #expect(try Fixtures.contents(out).count > 24)
        #expect(try bletrace("convert", Self.capture, out, "-o", out).status == 2)
        #expect(!(try bletrace("convert", "--help")).stdout.contains("<OUT>"))
        let twice = try bletrace("capture", "-i", "hci0", "-o", "a.btsnoop", "-w", "b.btsnoop")
        #expect(twice.status == 2 && twice.stderr.contains("not both"))
        #expect(!(try bletrace("capture", "--help")).stdout.contains("-w "))
    }

    @Test func everyCommandReadsDashAsStandardInput() throws {
        let bytes = Data(try Fixtures.contents(Self.capture))
        // convert - (refused before): the same records as from the file.
        let out = try Fixtures.temporaryFile([], name: "piped.pcap")
        let piped = try bletrace(["convert", "-", "-o", out], input: bytes)
        #expect(piped.status == 0, "\(piped.stderr)")
        let direct = try Fixtures.temporaryFile([], name: "direct.pcap")
        #expect(try bletrace("convert", Self.capture, "-o", direct).status == 0)
        #expect(try Fixtures.contents(out) == (try Fixtures.contents(direct)))
        // replay - and diff's either file.
        let replayed = try bletrace(["replay", "-"], input: bytes)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        // (The flow's first comment names the capture as given.)
        func events(_ flow: String) -> [Substring] {
            flow.split(separator: "\n").filter { !$0.hasPrefix("# capture:") }
        }
        #expect(events(replayed.stdout) == events(try bletrace("replay", Self.capture).stdout))
        let flowBytes = Data(try Fixtures.contents(Self.flow))
        #expect(try bletrace(["diff", "-", Self.flow], input: flowBytes).status == 0)
        #expect(try bletrace(["diff", Self.flow, "-"], input: flowBytes).status == 0)
    }

    /// `--color always` colours what each reporting command prints (a capture whose peers'
    /// discovery, errors and findings give every command something to mark), `never` nothing.
    @Test(arguments: reporting)
    func colorAlwaysColoursEveryReportAndNeverNothing(_ command: String) throws {
        let escape = "\u{1B}["
        var arguments = Self.runs[command]!
        if command == "diff" { arguments = ["diff", Self.flow, Self.otherFlow] }
        let always = try bletrace(arguments + ["--color", "always"])
        #expect(always.stdout.contains(escape), "\(command)")
        let never = try bletrace(arguments + ["--color", "never"])
        #expect(!never.stdout.contains(escape), "\(command)")
        #expect(never.stdout == (try bletrace(arguments)).stdout)
    }

    /// On a terminal (a pty from script(1)), auto colours unless NO_COLOR is set or TERM is
    /// dumb; --color always wins over both.
    @Test func autoColoursATerminalUnlessNOCOLOROrADumbTerminal() throws {
        let script = try #require(which("script"))
        func onTerminal(_ environment: [String: String], _ options: String = "") throws -> String {
            let command = "\(bletracePath) errors \(Self.capture) \(options)"
            let result = try run(
                script, ["-qec", command, "/dev/null"], input: nil,
                environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let escape = "\u{1B}["
        #expect(try onTerminal(["TERM": "xterm"]).contains(escape))
        #expect(!(try onTerminal(["TERM": "xterm", "NO_COLOR": "1"])).contains(escape))
        #expect(!(try onTerminal(["TERM": "dumb"])).contains(escape))
        #expect(!(try onTerminal([:])).contains(escape))
        #expect(try onTerminal(["TERM": "dumb", "NO_COLOR": "1"], "--color always").contains(escape))
    }

    /// Every JSON document names its version and its file: the analysis commands' (both
    /// formats where the JSONL is the document on one line), and the sweep's.
    @Test func everyJSONDocumentHasAVersionAndAFile() throws {
        for command in ["info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt"] {
            let document = try json(try bletrace(command, Self.capture, "--format", "json").stdout)
            #expect(document["version"] as? Int == 3, "\(command)")
            #expect(document["file"] as? String == Self.capture, "\(command)")
        }
        for command in ["info", "stats", "lifecycle", "gatt"] {
            let line = try json(try bletrace(command, Self.capture, "--format", "jsonl").stdout)
            #expect(line["file"] as? String == Self.capture, "\(command)")
        }
        let sweep = try json(try bletrace("replay", Self.capture, "--sweep", "terminate", "--format", "json").stdout)
        #expect(sweep["version"] as? Int == 3)
        #expect(sweep["file"] as? String == Self.capture)
        #expect(sweep["capture"] as? String == "att-errors.btsnoop")
        // Several captures: each document once with its file, not twice.
        let many = try bletrace("stats", Self.capture, Fixtures.capture("scan.btsnoop"), "--format", "json")
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(many.stdout.utf8)) as? [[String: Any]])
        #expect(documents.map { $0["file"] as? String } == [Self.capture, Fixtures.capture("scan.btsnoop")])
        #expect(!many.stdout.contains("\"file\" : \"\(Self.capture)\",\n  \"file\""))
    }

    @Test(arguments: [
        (["errors", capture, "--brief", "--format", "json"], "--brief"),
        (["decode", capture, "-v", "--format", "json"], "-v"),
        (["decode", capture, "--verbose", "--format", "jsonl"], "-v"),
        (["lifecycle", capture, "--brief", "--format", "json"], "--brief"),
        (["replay", capture, "--format", "json"], "--format"),
    ])
    func anOptionThatDoesNotApplyIsRefused(_ arguments: [String], _ option: String) throws {
        let result = try bletrace(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("bletrace: \(option)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `errors --all` asks the text for the expected errors, which JSON lists anyway: a note, not
    /// a refusal, and the same document as without it.
    @Test(arguments: ["json", "jsonl"])
    func errorsAllWithJSONIsANote(_ format: String) throws {
        let with = try bletrace(["errors", Self.capture, "--all", "--format", format])
        let without = try bletrace(["errors", Self.capture, "--format", format])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.stderr.hasPrefix("bletrace: note: --all chooses what the text shows"), "\(with.stderr)")
        #expect(with.stdout == without.stdout)
        #expect(with.stdout.contains("\"expected\""))
    }

    @Test func aMisspeltSubcommandGetsTheNearestNames() throws {
        let typo = try bletrace("lifecycl", Self.capture)
        #expect(typo.status == 2)
        #expect(
            typo.stderr.hasPrefix("bletrace: unknown command 'lifecycl'; did you mean 'lifecycle'?"), "\(typo.stderr)")
        #expect(try bletrace("dif", "a", "b").stderr.contains("did you mean 'diff'?"))
        #expect(try bletrace("stast", Self.capture).stderr.contains("did you mean 'stats'?"))
        let nothingNear = try bletrace("xyzzy")
        #expect(nothingNear.status == 2)
        #expect(nothingNear.stderr.contains("unknown command 'xyzzy'") && !nothingNear.stderr.contains("did you mean"))
        // Options and help still reach the root.
        #expect(try bletrace("--version").status == 0)
        #expect(try bletrace("help", "info").status == 0)
    }

    @Test func diffWritesJUnitEvenWhenAFlowCannotBeRead() throws {
        let broken = try Fixtures.temporaryFile(Array("not a flow line\n".utf8), name: "broken.flow")
        for arguments in [["diff", "/nonexistent/expected.flow", Self.flow], ["diff", Self.flow, broken]] {
            let report = try Fixtures.temporaryFile([], name: "report.xml")
            let result = try bletrace(arguments + ["--format", "junit", "-o", report])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("bletrace: "))
            let xml = String(decoding: try Fixtures.contents(report), as: UTF8.self)
            #expect(xml.contains("errors=\"1\"") && xml.contains("<error type=\"BadInput\""), "\(xml)")
            if let xmllint = which("xmllint") {
                #expect(try run(xmllint, ["--noout", report]).status == 0)
            }
        }
        // Text and JSON keep standard output empty on bad input.
        #expect(try bletrace("diff", "/nonexistent/expected.flow", Self.flow).stdout.isEmpty)
    }

    @Test(.sharedCaptures) func aDirectoryPassesOverFilesThatAreNoCaptureWithANote() throws {
        let directory = try ContainerFixtures.directory()
        try Data(try Fixtures.contents(Self.capture)).write(to: directory.appendingPathComponent("good.btsnoop"))
        // An over-the-air sniffer capture (link type 256), which the analyses read, and a text
        // file named like a capture.
        try Data(try Fixtures.contents(Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng")))
            .write(to: directory.appendingPathComponent("air.pcapng"))
        try Data("not a capture\n".utf8).write(to: directory.appendingPathComponent("notes.log"))
        let result = try bletrace("errors", directory.path, "--format", "jsonl")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("air.pcapng skipped"), "\(result.stderr)")
        #expect(result.stderr.contains("note: \(directory.path)/notes.log skipped"), "\(result.stderr)")
        let files = Set(try jsonLines(result.stdout).compactMap { $0["file"] as? String })
        #expect(files == ["\(directory.path)/good.btsnoop", "\(directory.path)/air.pcapng"])
        // Named on its own, the text file is bad input.
        #expect(try bletrace("errors", directory.appendingPathComponent("notes.log").path).status == 2)
    }

    @Test(arguments: ["decode", "errors", "lifecycle"])
    func aPeerThatNamesNoDeviceIsAWarning(_ command: String) throws {
        let result = try bletrace(command, Self.capture, "--peer", "nobody")
        #expect(result.status == 0)
        #expect(
            result.stderr.contains("bletrace: warning: --peer nobody names no device of \(Self.capture)"),
            "\(result.stderr)")
        // A peer of the capture: no warning.
        #expect(try bletrace(command, Self.capture, "--peer", "F0:F1:F2:F3:F4:05").stderr.isEmpty)
    }

    @Test(.sharedCaptures) func gattTakesTheSelectionOptions() throws {
        // whoisbe-pongbot-last: GATT discovery with five LE peers, BR/EDR attempts that never connected.
        let capture = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        func peers(_ options: String...) throws -> [String] {
            try bletrace(["gatt", capture] + options).stdout.split(separator: "\n").filter { $0.hasPrefix("peer ") }
                .map(String.init)
        }
        let all = try peers()
        #expect(all.count >= 2)
        let first = try #require(all.first)
        let address = String(first.split(separator: " ")[1])
        #expect(try peers("--peer", address) == [first])
        #expect(try peers("--transport", "br-edr").isEmpty)
        #expect(
            try bletrace("gatt", capture, "--transport", "br-edr").stdout.hasPrefix(
                "no GATT discovery on the connections selected"))
        #expect(try peers("--to", "10").count < all.count)
        #expect(try bletrace("gatt", capture, "--peer", "nobody").stderr.contains("warning: --peer nobody"))
        #expect(try bletrace("gatt", capture, "--brief").status == 2)
    }

    @Test(
        .sharedCaptures,
        arguments: [["--peer", "5C:B2:60:06:49:73"], ["--transport", "br-edr"], ["--from", "600", "--to", "1200"]])
    func statsCountsWhatDecodeShowsAndLifecycleTellsUnderTheSameSelection(_ options: [String]) throws {
        let capture = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        let counts = try json(try bletrace(["stats", capture, "--format", "json"] + options).stdout)
        let whole = try json(try bletrace("stats", capture, "--format", "json").stdout)
        let records = try #require(counts["records"] as? Int)
        #expect(records > 0 && records < (whole["records"] as? Int ?? 0))
        // decode writes a line a record it keeps.
        #expect(records == (try bletrace(["decode", capture] + options).stdout.split(separator: "\n").count))
        let story = try json(try bletrace(["lifecycle", capture, "--format", "json"] + options).stdout)
        #expect(counts["connections"] as? Int == (story["connections"] as? [Any])?.count)
    }

    @Test func aLiveSourceIsNamedAsTheUserNamedIt() throws {
        // Without a controller hci0 (a container, a CI machine), the failure names hci0 as given.
        let result = try bletrace(
            "capture", "-i", "hci0", "-o", try Fixtures.temporaryFile([], name: "live.btsnoop"), "--duration", "0.2")
        if result.status != 0 {
            #expect(result.stderr.hasPrefix("bletrace: hci0"), "\(result.stderr)")
        }
        #expect(!result.stderr.contains("bletrace: bluetooth0"))
    }
}
