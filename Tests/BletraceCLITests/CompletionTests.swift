import Foundation
import TestSupport
import Testing

/// The shell completions bletrace generates (`--generate-completion-script bash|zsh|fish`), run
/// the way the shells run them: bash's completion function called with COMP_WORDS and COMP_CWORD
/// set, fish's `complete -C`; zsh's script read for what it offers (zsh completes only inside an
/// interactive line editor).
@Suite struct CompletionTests {
    /// A directory laid out for completing in: captures, flows, a subdirectory, another file.
    let directory: URL

    init() throws {
        directory = try ContainerFixtures.directory()
        let captures = directory.appendingPathComponent("Captures")
        try FileManager.default.createDirectory(
            at: captures.appendingPathComponent("recorded"), withIntermediateDirectories: true)
        for name in [
            "Captures/reconnect.btsnoop", "Captures/restore.pklg", "Captures/scan.btsnoop", "expected.flow",
            "notes.txt",
        ] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
    }

    /// What bash offers for `line` (the cursor at its end), in `directory`: the generated script
    /// sourced, the words split as readline splits them, `_bletrace` called as `complete -F` calls
    /// it, COMPREPLY printed one a line.
    func bash(_ line: String) throws -> [String] {
        let script = try #require(try bletrace("--generate-completion-script", "bash").stdout.nilIfEmpty)
        let scriptFile = directory.appendingPathComponent("bletrace.bash").path
        try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        let driver = """
            cd "$1" || exit 9
            source "$2"
            line="$3"
            read -ra COMP_WORDS <<< "$line"
            [[ "$line" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="$line"
            COMP_POINT=${#line}
            COMP_WORDS[0]="$4"
            _bletrace bletrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try run("/bin/bash", ["-c", driver, "bash", directory.path, scriptFile, line, bletracePath])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The apps `replay --list-apps` names, one a line before a tab.
    var appNames: [String] {
        get throws {
            try bletrace("replay", "--list-apps").stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
    }

    @Test(arguments: ["info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt", "replay", "convert"])
    func bashCompletesTheCaptureArgumentWithFilesAndDirectories(_ command: String) throws {
        #expect(
            Set(try bash("bletrace \(command) Captures/re")) == [
                "Captures/reconnect.btsnoop", "Captures/restore.pklg", "Captures/recorded",
            ])
    }

    @Test func bashCompletesEveryOutputFileOption() throws {
        for line in [
            "bletrace info x -o Captures/s", "bletrace lifecycle x --output Captures/s",
            "bletrace replay x -o Captures/s",
            "bletrace convert x -o Captures/s", "bletrace capture -i hci0 -o Captures/s",
            "bletrace diff a b -o Captures/s",
        ] {
            #expect(try bash(line) == ["Captures/scan.btsnoop"], "\(line)")
        }
    }

    @Test func bashCompletesFlowsForDiffWithTheDirectoriesToReachThem() throws {
        #expect(Set(try bash("bletrace diff ")) == ["expected.flow", "Captures"])
        #expect(Set(try bash("bletrace diff expected.flow ")) == ["expected.flow", "Captures"])
    }

    @Test func bashOffersTheAppsForReplayApp() throws {
        let apps = try appNames
        #expect(apps.count >= 2)
        #expect(try bash("bletrace replay x --app ") == apps)
        let first = try #require(apps.first)
        let prefix = String(first.prefix(2))
        #expect(try bash("bletrace replay x --app \(prefix)") == apps.filter { $0.hasPrefix(prefix) })
    }

    @Test(arguments: [
        ("bletrace lifecycle x --format ", ["text", "json", "jsonl", "svg", "html"]),
        ("bletrace info x --color ", ["never", "auto", "always"]),
        ("bletrace errors x --fail-on ", ["unexpected", "any"]),
        ("bletrace diagnose x --fail-on ", ["error", "warning"]),
        ("bletrace errors x --transport ", ["le", "br-edr"]),
        ("bletrace replay x --unmatched ", ["pend", "error", "fail"]),
        ("bletrace replay x --ios ", ["17", "18", "26"]),
        ("bletrace replay x --via ", ["settings", "control-center", "airplane-mode"]),
        ("bletrace replay x --establishment-failure ", ["retry", "fail"]),
        ("bletrace replay x --pairing-cancel ", ["ends-link", "fails-request"]),
        ("bletrace replay x --launch-state ", ["poweredOn", "poweredOff", "unauthorized"]),
        ("bletrace diff a b --format ", ["text", "json", "junit"]),
        ("bletrace diff a b --interleave ", ["none", "peripheral"]),
        ("bletrace convert a b --to ", ["btsnoop", "pcap", "pcapng", "pklg"]),
        ("bletrace convert a b --datalink ", ["1001", "1002", "2001", "187", "201", "254"]),
    ])
    func bashCompletesTheValuesOfEnumOptions(_ line: String, _ values: [String]) throws {
        #expect(try bash(line) == values)
    }

    @Test func bashCompletesTheSweepKindsAndTheLiveSources() throws {
        let kinds = try bash("bletrace replay x --sweep ")
        #expect(kinds.contains("terminate") && kinds.contains("all") && kinds.contains("airplane-mode"))
        #expect(kinds.contains("faults") && kinds.contains("link-loss") && kinds.contains("reconnect-loss"))
        // Asked of bletrace itself when tab is pressed (a custom completion).
        let sources = try bash("bletrace capture -i ")
        #expect(sources.contains("bluetooth-monitor") && sources.contains("hci-monitor"))
    }

    /// `--member` offers the captures inside the container on the line, as `bletrace info` lists
    /// them; nothing when the line names no container.
    @Test func bashCompletesTheMembersOfTheContainerOnTheLine() throws {
        let report = try ContainerFixtures.androidBugReport(files: [
            ("btsnoop_hci.log", Fixtures.capture("att-errors.btsnoop")),
            ("btsnoop_hci.log.last", Fixtures.capture("scan.btsnoop")),
        ])
        let info = try bletrace("info", report)
        let listed = [
            ContainerFixtures.androidLogs + "btsnoop_hci.log", ContainerFixtures.androidLogs + "btsnoop_hci.log.last",
        ]
        for member in listed { #expect(info.stdout.contains(member), "\(info.stdout)") }
        for command in ["lifecycle", "replay", "convert"] {
            #expect(Set(try bash("bletrace \(command) \(report) --member ")) == Set(listed), "\(command)")
        }
        #expect(
            try bash("bletrace lifecycle \(report) --member \(ContainerFixtures.androidLogs)btsnoop_hci.log.") == [
                listed[1]
            ])
        #expect(try bash("bletrace lifecycle \(Fixtures.capture("scan.btsnoop")) --member ").isEmpty)
    }

    /// `--peer` offers the devices of the capture on the line: its connections' peers and the
    /// advertisers it heard (as `lifecycle` names them), on every command that takes it.
    @Test func bashCompletesThePeersOfTheCaptureOnTheLine() throws {
        let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let lifecycle = try json(try bletrace("lifecycle", capture, "--format", "json").stdout)
        let peers = Set(try #require(lifecycle["connections"] as? [[String: Any]]).compactMap { $0["peer"] as? String })
        try #require(!peers.isEmpty)
        for command in ["decode", "errors", "diagnose", "stats", "lifecycle", "gatt", "replay"] {
            let offered = Set(try bash("bletrace \(command) \(capture) --peer "))
            #expect(peers.isSubset(of: offered), "\(command): \(offered)")
        }
        let first = try #require(peers.sorted().first)
        #expect(try bash("bletrace lifecycle \(capture) --peer \(first.prefix(5))").contains(first))
        // A scan's advertisers and their names.
        let scan = Fixtures.capture("scan.btsnoop")
        let devices = try #require(
            try json(try bletrace("lifecycle", scan, "--format", "json").stdout)["scans"] as? [[String: Any]]
        )
        .flatMap { $0["devices"] as? [[String: Any]] ?? [] }
        let offered = Set(try bash("bletrace decode \(scan) --peer "))
        #expect(!devices.isEmpty)
        for device in devices {
            #expect(offered.contains(device["address"] as! String))
            if let name = device["name"] as? String, !name.contains(" ") { #expect(offered.contains(name), "\(name)") }
        }
        #expect(try bash("bletrace lifecycle nothing-here.btsnoop --peer ").isEmpty)
    }

    @Test func bashCompletesTheFieldsOfAFilter() throws {
        #expect(try bash("bletrace decode x --filter att.e") == ["att.error"])
        #expect(
            Set(try bash("bletrace decode x --filter btatt.")) == ["btatt.opcode", "btatt.handle", "btatt.error_code"])
    }

    @Test func bashCompletesSubcommandNames() throws {
        #expect(try bash("bletrace lifecyc") == ["lifecycle"])
        #expect(Set(try bash("bletrace d")) == ["decode", "diagnose", "diff"])
    }

    @Test func fishCompletesFilesAppsAndValues() throws {
        let fish = try #require(which("fish"), "fish is installed by make deps")
        let script = try bletrace("--generate-completion-script", "fish").stdout
        let scriptFile = directory.appendingPathComponent("bletrace.fish").path
        try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        // The script's own functions call `bletrace`: it is found on PATH.
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("bletrace").path, withDestinationPath: bletracePath)
        func complete(_ line: String) throws -> [String] {
            let result = try run(
                fish,
                [
                    "--no-config", "-c", "cd $argv[1]; and source $argv[2]; and complete -C $argv[3]", directory.path,
                    scriptFile, line,
                ],
                input: nil, environment: ["PATH": "\(bin.path):/usr/bin:/bin", "HOME": directory.path])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        #expect(
            Set(try complete("bletrace lifecycle Captures/re")) == [
                "Captures/reconnect.btsnoop", "Captures/restore.pklg", "Captures/recorded/",
            ])
        #expect(Set(try complete("bletrace info x -o Captures/s")) == ["Captures/scan.btsnoop"])
        #expect(try complete("bletrace replay x --app ") == (try appNames))
        #expect(try complete("bletrace errors x --fail-on ") == ["unexpected", "any"])
    }

    @Test func zshCompletesFilesForEveryFileArgumentAndOptionAndOffersTheApps() throws {
        let script = try bletrace("--generate-completion-script", "zsh").stdout
        // Each capture-reading command's files, and its -o.
        for command in ["info", "decode", "errors", "diagnose", "stats", "lifecycle", "gatt"] {
            let body = try #require(Self.function("_bletrace_\(command)", in: script), "\(command)")
            #expect(body.contains("'*:file:_files'"), "\(command)")
            #expect(body.contains("{--output,-o}") && body.contains(":file:_files'"), "\(command)")
        }
        let replay = try #require(Self.function("_bletrace_replay", in: script))
        #expect(replay.contains("':file:_files'"))
        let apps = try appNames
        #expect(replay.contains("___app=(" + apps.map { "'\($0)'" }.joined(separator: " ") + ")"))
        let diff = try #require(Self.function("_bletrace_diff", in: script))
        #expect(diff.contains(":expected:_files -g") && diff.contains(":actual:_files -g"))
        // zsh itself reads the script: it defines the function compinit would call.
        if let zsh = which("zsh") {
            let scriptFile = directory.appendingPathComponent("_bletrace").path
            try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
            let result = try run(
                zsh,
                [
                    "-f", "-c", "autoload -U compinit && compinit -u -D && source $1 && whence -w _bletrace_replay",
                    "zsh", scriptFile,
                ],
                input: nil, environment: ["HOME": directory.path, "PATH": "/usr/bin:/bin"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("_bletrace_replay: function"))
        }
    }

    /// The text of the shell function `name` in `script`, up to the next function.
    static func function(_ name: String, in script: String) -> String? {
        guard let start = script.range(of: "\n\(name)() {\n") else { return nil }
        let rest = script[start.upperBound...]
        let end = rest.range(of: "\n}\n")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
