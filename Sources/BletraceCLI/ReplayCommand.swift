import ArgumentParser
import BLETrace
import Foundation
import SystemPackage

/// `bletrace replay FILE [--app NAME]`: play a capture to an app and print its flow;
/// `bletrace replay --list-apps`: the apps.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture to an app and print the app's flow (Formats/flow.md).",
        discussion: "Apps: " + ReferenceApps.available.map { "\($0.name) — \($0.summary)" }.joined(separator: "; "))

    @Argument(
        help: "A capture file: btsnoop, pcap, pcapng or PacketLogger (.pklg); - reads standard input.",
        completion: .path)
    var file: String?
    @Flag(help: "List the apps a capture can be replayed to, one a line: the name, then what it does.")
    var listApps = false
    @Option(
        help: ArgumentHelp(
            "In a container (bug report zip, sysdiagnose, gzip): the capture to replay (default: the current log).",
            valueName: "path"), completion: .members)
    var member: String?
    @Option(
        help: "The reference app to replay to (\(ReferenceApps.available.map(\.name).joined(separator: ", "))).",
        completion: .appNames)
    var app: String = "mirror"
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions
    @OptionGroup var gattSource: GATTSourceOptions
    @Option(
        help:
            "What to do with a request the capture cannot answer: pend (never answered, as by a silent peer), error (CBATTError.unlikelyError) or fail (stop, exit 1). Each is a divergence comment in the flow."
    )
    var unmatched: UnmatchedPolicy = .pend
    @Flag(
        help:
            "Play the capture at its own pace in wall time, with callbacks on the main thread, for app code that uses Timer or other wall-clock timers (default: capture time, at once; asyncAfter(deadline:execute:) fires in it)."
    )
    var realtime = false
    @Option(
        help: ArgumentHelp(
            "iOS terminates the app for memory at SECONDS after the capture's start: what its restore identifiers keep stays with the system, and the next Bluetooth event for it relaunches it.",
            valueName: "seconds"))
    var terminateAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The app crashes at SECONDS: as a termination, iOS relaunches it for a Bluetooth event.",
            valueName: "seconds"))
    var crashAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The user force-quits the app at SECONDS: nothing is kept, nothing relaunches it (iOS 26: unless --accessory-setup-kit).",
            valueName: "seconds"))
    var forceQuitAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The device restarts at SECONDS: the app and every link end; what its restore identifiers kept relaunches it (after --unlock-at when given: the device has a passcode).",
            valueName: "seconds"))
    var rebootAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The first unlock after --reboot-at, on a device with a passcode: the app can be relaunched from then on.",
            valueName: "seconds"))
    var unlockAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "Bluetooth turns off at SECONDS (see --via): connections, pending connects and scans end.",
            valueName: "seconds"))
    var powerOffAt: [Double] = []
    @Option(
        help:
            "How --power-off-at turns Bluetooth off: settings, control-center (what the system kept for a terminated app stays) or airplane-mode (Bluetooth goes off with it)."
    )
    var via: PowerSwitch = .settings
    @Option(help: "The iOS release whose rules the replay follows: 17, 18 or 26 (the current one).")
    var ios: IOSRelease = .ios26
    @Flag(
        help:
            "The app sets its accessories up with AccessorySetupKit (iOS 26: only such apps are relaunched after a force quit, a Control Center toggle or Airplane Mode)."
    )
    var accessorySetupKit = false
    @Option(
        help: ArgumentHelp(
            "What didDisconnectPeripheral carries when ATT's 30 s transaction timeout ends a link: none (the one observation found, the default) or connection-timeout (CBError.connectionTimeout).",
            valueName: "error"))
    var attTimeoutError: ATTTimeoutError = .none
    @Option(
        help: ArgumentHelp(
            "What iOS tells the app when a connection fails to be established (HCI 0x3E): retry (nothing: it tries again by itself, the one observation found, the default) or fail (didFailToConnect with CBError.connectionFailed).",
            valueName: "reading"))
    var establishmentFailure: Platform.EstablishmentFailure = .default
    @Option(
        help: ArgumentHelp(
            "What a pairing cancelled on the phone does: ends-link (the request gets no callback, didDisconnectPeripheral gets CBInternalErrorDomain 17; the default) or fails-request (the request's callback gets it, the link stays). The accounts disagree.",
            valueName: "reading"))
    var pairingCancel: Platform.PairingCancel = .endsLink
    @Option(
        help: ArgumentHelp(
            "The ATT MTU iOS asks for when it connects (185, the value reported since iOS 10; 527 is also seen); a link's MTU is the smaller of it and the peer's. A PacketLogger capture keeps its own exchange.",
            valueName: "bytes"))
    var iosMtu: Int = 185
    // The app in the background and AccessorySetupKit's grants (issue 41 items 9 and 10).
    @Option(
        help: ArgumentHelp(
            "The user leaves the app at SECONDS: it runs in the background, as its --background-modes allow.",
            valueName: "seconds"))
    var backgroundAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The user brings the app back to the foreground at SECONDS: a suspended app gets what iOS queued for it.",
            valueName: "seconds"))
    var foregroundAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The Core Bluetooth background modes the app declares (UIBackgroundModes): central, peripheral, both (the default) or none, comma-separated.",
            valueName: "modes"))
    var backgroundModes: String = "central,peripheral"
    @Option(
        help: ArgumentHelp(
            "With --accessory-setup-kit: the accessories set up for the app, comma-separated addresses, or none (default: the capture's peers); it sees only these, and with none its central managers stay poweredOff.",
            valueName: "addresses"))
    var accessories: String?

    /// `--background-modes` read; nil when it names something else.
    var declaredModes: Platform.BackgroundModes? {
        var modes: Platform.BackgroundModes = []
        for word in backgroundModes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch word {
            case "central": modes.insert(.central)
            case "peripheral": modes.insert(.peripheral)
            case "both": modes.formUnion(.both)
            case "none": break
            default: return nil
            }
        }
        return modes
    }

    /// `--accessories` read (empty for `none`); nil when an address is not one.
    var grantedAccessories: [BluetoothAddress]? {
        var addresses: [BluetoothAddress] = []
        guard accessories != "none" else { return [] }
        for word in (accessories ?? "").split(separator: ",") {
            guard let address = BluetoothAddress(word.trimmingCharacters(in: .whitespaces)) else { return nil }
            addresses.append(address)
        }
        return addresses
    }

    @Option(help: ArgumentHelp("Bluetooth turns on at SECONDS.", valueName: "seconds"))
    var powerOnAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The Bluetooth daemon resets at SECONDS: .resetting, then .poweredOn, every peripheral object invalid.",
            valueName: "seconds"))
    var resetAt: [Double] = []
    @Option(
        help: ArgumentHelp(
            "The user opens the app at SECONDS, if it is not running (after a termination or a force quit).",
            valueName: "seconds"))
    var launchAt: [Double] = []
    @Option(help: "Bluetooth's state when the app launches: poweredOn, poweredOff or unauthorized.")
    var launchState: LaunchState = .poweredOn
    @Option(
        help: ArgumentHelp(
            "Replay once per moment iOS could kill the app and report which kill points lose connections, subscriptions or pending connects: terminate, crash, force-quit, reboot, settings-toggle, control-center, airplane-mode (the app terminated, then Bluetooth off and on a second later), or all (one table). Or once per failure the capture could have had, at every point, checking what every app must do after it (Formats/faults.md): link-loss, att-error, timeout, notifications, service-changed, bond-lost, pairing, reset, power, comma-separated, or faults (every one). Exit 1 when a kill point loses something or a fault breaks the app.",
            valueName: "kinds"))
    var sweep: SweepSelection?
    @Option(help: "The sweep's report: text, json, or junit (a fault sweep: one test case per fault and point).")
    var format: SweepFormat = .text
    @Option(
        help: ArgumentHelp(
            "With --sweep: N kill points, evenly spread from the first to the last (default: every one).",
            valueName: "n"))
    var killPoints: Int?
    @Option(
        help: ArgumentHelp(
            "With a fault sweep: N points per fault, evenly spread from the first to the last (default: every one).",
            valueName: "n"))
    var points: Int?
    @Option(
        help: ArgumentHelp(
            "With a fault sweep: a pattern flow (Formats/flow.md) every faulted run's flow must match.",
            valueName: "flow"), completion: .file(extensions: ["flow"]))
    var expect: String?
    @Option(
        help: ArgumentHelp(
            "Inject a failure the capture did not have: KIND@POINT, KIND one of \(Fault.kindNames.joined(separator: ", ")); POINT seconds after the capture's start, frame:N or request:N (the app's n-th GATT request). Repeatable. A fault sweep prints one for each failure.",
            valueName: "fault"))
    var inject: [String] = []

    enum LaunchState: String, ExpressibleByArgument, CaseIterable {
        case poweredOn, poweredOff, unauthorized
        var state: CBManagerState {
            switch self {
            case .poweredOn: .poweredOn
            case .poweredOff: .poweredOff
            case .unauthorized: .unauthorized
            }
        }
    }
    enum SweepKind: String, ExpressibleByArgument, CaseIterable {
        case terminate, crash, forceQuit = "force-quit", reboot, settingsToggle = "settings-toggle", controlCenter =
            "control-center"
        case airplaneMode = "airplane-mode", all
        /// The kinds this one sweeps.
        var kinds: [SystemEvent.Kind] {
            switch self {
            case .terminate: [.terminate]
            case .crash: [.crash]
            case .forceQuit: [.forceQuit]
            case .reboot: [.reboot]
            case .settingsToggle: [.powerOff]
            case .controlCenter: [.controlCenter]
            case .airplaneMode: [.airplaneMode]
            case .all: KillPointSweep.kinds
            }
        }
        /// The command line's name of a kind of kill.
        static func name(of kind: SystemEvent.Kind) -> String {
            allCases.first { $0 != .all && $0.kinds == [kind] }?.rawValue ?? kind.rawValue
        }
    }
    enum PowerSwitch: String, ExpressibleByArgument, CaseIterable {
        case settings, controlCenter = "control-center", airplaneMode = "airplane-mode"
        var kind: SystemEvent.Kind {
            switch self {
            case .settings: .powerOff
            case .controlCenter: .controlCenter
            case .airplaneMode: .airplaneMode
            }
        }
    }
    enum IOSRelease: String, ExpressibleByArgument, CaseIterable {
        case ios17 = "17", ios18 = "18", ios26 = "26"
        var release: Platform.Release { Platform.Release(rawValue: Int(rawValue)!)! }
    }

    var platform: Platform {
        var platform = Platform(
            release: ios.release, accessorySetupKit: accessorySetupKit, mtu: iosMtu,
            attTimeoutError: attTimeoutError.error,
            establishmentFailure: establishmentFailure, pairingCancel: pairingCancel)
        platform.backgroundModes = declaredModes ?? .both
        platform.accessories = accessories == nil ? nil : grantedAccessories
        return platform
    }

    /// The choices of `--att-timeout-error`.
    enum ATTTimeoutError: String, ExpressibleByArgument, CaseIterable {
        case none, connectionTimeout = "connection-timeout"
        var error: CBError? { self == .connectionTimeout ? CBError(.connectionTimeout) : nil }
    }
    enum SweepFormat: String, ExpressibleByArgument, CaseIterable { case text, json, junit }

    /// `--sweep`: kinds of kill, or kinds of fault.
    enum SweepSelection: ExpressibleByArgument {
        case kill(SweepKind)
        case faults([FaultSweep.Family])

        init?(argument: String) {
            if let kind = SweepKind(rawValue: argument) {
                self = .kill(kind)
                return
            }
            if argument == "faults" {
                self = .faults(FaultSweep.Family.allCases)
                return
            }
            var families: [FaultSweep.Family] = []
            for name in argument.split(separator: ",") {
                guard let family = FaultSweep.Family(rawValue: String(name)) else { return nil }
                if !families.contains(family) { families.append(family) }
            }
            guard !families.isEmpty else { return nil }
            self = .faults(families)
        }

        static var allValueStrings: [String] {
            SweepKind.allCases.map(\.rawValue) + FaultSweep.Family.allCases.map(\.rawValue) + ["faults"]
        }
        static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    }

    /// The faults of `--inject`, read (``validate()`` has checked them).
    var injected: [Fault] { inject.compactMap { try? Fault(parsing: $0) } }

    /// The system events of the command line.
    var events: [SystemEvent] {
        terminateAt.map { SystemEvent(.terminate, at: $0) } + crashAt.map { SystemEvent(.crash, at: $0) }
            + forceQuitAt.map { SystemEvent(.forceQuit, at: $0) } + rebootAt.map { SystemEvent(.reboot, at: $0) }
            + unlockAt.map { SystemEvent(.unlock, at: $0) } + powerOffAt.map { SystemEvent(via.kind, at: $0) }
            + powerOnAt.map { SystemEvent(.powerOn, at: $0) }
            + resetAt.map { SystemEvent(.reset, at: $0) } + launchAt.map { SystemEvent(.launch, at: $0) }
            + backgroundAt.map { SystemEvent(.background, at: $0) }
            + foregroundAt.map { SystemEvent(.foreground, at: $0) }
    }

    /// The options that change the replay, as a flow comment says them.
    var replayOptions: String {
        var words: [String] = []
        let timed = [
            ("terminate-at", terminateAt), ("crash-at", crashAt), ("force-quit-at", forceQuitAt),
            ("reboot-at", rebootAt),
            ("unlock-at", unlockAt), ("power-off-at", powerOffAt), ("power-on-at", powerOnAt), ("reset-at", resetAt),
            ("launch-at", launchAt),
            ("background-at", backgroundAt), ("foreground-at", foregroundAt),
        ]
        for (name, times) in timed {
            for time in times { words.append("--\(name) \(time)") }
        }
        if via != .settings { words.append("--via \(via.rawValue)") }
        if ios != .ios26 { words.append("--ios \(ios.rawValue)") }
        if accessorySetupKit { words.append("--accessory-setup-kit") }
        if declaredModes != .both { words.append("--background-modes \(backgroundModes)") }
        if let accessories { words.append("--accessories \(accessories)") }
        if attTimeoutError != .none { words.append("--att-timeout-error \(attTimeoutError.rawValue)") }
        if iosMtu != 185 { words.append("--ios-mtu \(iosMtu)") }
        if establishmentFailure != .default { words.append("--establishment-failure \(establishmentFailure.rawValue)") }
        if pairingCancel != .endsLink { words.append("--pairing-cancel \(pairingCancel.rawValue)") }
        if launchState != .poweredOn { words.append("--launch-state \(launchState.rawValue)") }
        if unmatched != .pend { words.append("--unmatched \(unmatched.rawValue)") }
        for fault in injected { words.append("--inject \(fault)") }
        if let peer = selection.peer { words.append("--peer \(peer)") }
        if let transport = selection.transport { words.append("--transport \(transport.rawValue)") }
        if let from = selection.from { words.append("--from \(from)") }
        if let to = selection.to { words.append("--to \(to)") }
        if let gatt = gattSource.gatt { words.append("--gatt \(Self.captureName(gatt))") }
        return words.joined(separator: " ")
    }

    func validate() throws {
        guard listApps || file != nil else { throw ValidationError("missing the capture file (or --list-apps)") }
        guard ReferenceApps.named(app) != nil else {
            throw ValidationError(
                "no app named '\(app)'; the apps are: \(ReferenceApps.available.map(\.name).joined(separator: ", "))")
        }
        for time in events.map(\.seconds) where !time.isFinite || time < 0 {
            throw ValidationError(
                "a time of a system event must be seconds after the capture's start (0 or more), not \(time)")
        }
        if selection.brief {
            throw ValidationError("--brief: a replay has no shorter form (its flow is every callback)")
        }
        if sweep != nil, realtime {
            throw ValidationError("--sweep replays many times at capture time; it cannot be --realtime")
        }
        if sweep == nil, format != .text {
            throw ValidationError("--format is the sweep's report format; use it with --sweep")
        }
        if sweep == nil, killPoints != nil {
            throw ValidationError("--kill-points chooses the sweep's kill points; use it with --sweep")
        }
        if let killPoints, killPoints < 1 { throw ValidationError("--kill-points takes 1 or more") }
        var isFaultSweep = false
        if case .faults? = sweep { isFaultSweep = true }
        if case .kill? = sweep, format == .junit {
            throw ValidationError(
                "--format junit is a fault sweep's (--sweep faults); a kill-point sweep's report is text or json")
        }
        if !isFaultSweep, points != nil {
            throw ValidationError(
                "--points chooses a fault sweep's points; use it with --sweep faults (a kill-point sweep's is --kill-points)"
            )
        }
        if !isFaultSweep, expect != nil {
            throw ValidationError(
                "--expect is the pattern a fault sweep's runs must match; use it with --sweep faults (bletrace diff compares one flow)"
            )
        }
        if let points, points < 1 { throw ValidationError("--points takes 1 or more") }
        if sweep != nil, !inject.isEmpty {
            throw ValidationError("--inject replays one fault; a sweep places its own (drop --inject, or --sweep)")
        }
        for text in inject {
            do { _ = try Fault(parsing: text) } catch { throw ValidationError("--inject \(text): \(error)") }
        }
        // An LE ATT MTU is 23 at least (Core 6.0, Vol 3, Part F, §3.2.8) and a 16-bit field.
        if !(23...65535).contains(iosMtu) {
            throw ValidationError("--ios-mtu takes an ATT MTU from 23 to 65535 bytes, not \(iosMtu)")
        }
        if via != .settings, powerOffAt.isEmpty {
            throw ValidationError("--via says how --power-off-at turns Bluetooth off; use it with --power-off-at")
        }
        if !unlockAt.isEmpty, rebootAt.isEmpty {
            throw ValidationError("--unlock-at is the first unlock after a restart; use it with --reboot-at")
        }
        if declaredModes == nil {
            throw ValidationError(
                "--background-modes takes central, peripheral, both or none, comma-separated, not '\(backgroundModes)'")
        }
        if grantedAccessories == nil {
            throw ValidationError(
                "--accessories takes Bluetooth addresses (AA:BB:CC:DD:EE:FF), comma-separated, or none, not '\(accessories ?? "")'"
            )
        }
        if accessories != nil, !accessorySetupKit {
            throw ValidationError(
                "--accessories are the accessories AccessorySetupKit set up; use it with --accessory-setup-kit")
        }
    }

    /// The capture's file name, as the flow's first comment and the sweep's report give it.
    static func captureName(_ file: String) -> String {
        FilePath(file).lastComponent?.string ?? file
    }

    func run() async throws {
        guard let file, !listApps else {
            for entry in ReferenceApps.available { Output.line("\(entry.name)\t\(entry.summary)") }
            return try finish(nil)
        }
        // Checked first, so that a refused -o (the capture itself, a directory) costs nothing.
        try output.apply(input: file)  // `-o -`: standard output
        let cassette: Cassette
        let fault: (any Error)?
        let given = try gattSource.load(air: air)
        let path: String
        do {
            path = try CaptureOptions.path(of: file, member: member)
            if selection.isEmpty {
                (cassette, fault) = try Cassette.load(path: path, air: air.options, given: given)
            } else {
                // The capture cut to the selection (ReplaySelection.swift says how).
                let unknownPeer: Bool
                (cassette, fault, unknownPeer) = try selection.cassette(path: path, air: air.options, given: given)
                if unknownPeer { Output.error("warning: --peer \(selection.peer ?? "") names no device of \(file)") }
            }
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        let entry = ReferenceApps.named(app)!
        if case .faults(let families)? = sweep {
            return try await sweepFaults(families, cassette: cassette, entry: entry, file: file, fault: fault)
        }
        if case .kill(let sweep)? = sweep {
            var results: [(kind: String, sweep: KillPointSweep)] = []
            for kind in sweep.kinds {
                let name = SweepKind.name(of: kind)
                let progress = StepProgress(name: "\(name) sweep of \(Self.captureName(file))", quiet: output.quiet)
                var report: (@Sendable (Int, Int) -> Void)?
                if let progress { report = { done, total in progress.advance(done, of: total, unit: "replays") } }
                let result = await KillPointSweep.run(
                    cassette, app: entry, kind: kind, unmatched: unmatched, events: events,
                    launchState: launchState.state, platform: platform,
                    killPoints: killPoints, progress: report)
                progress?.finish()
                results.append((name, result))
            }
            let capture = Self.captureName(file)
            switch (format, sweep) {
            case (.text, .all):
                Output.line(KillPointSweep.summary(results, capture: capture, app: entry.name, platform: platform))
            case (.text, _):
                Output.line(results[0].sweep.text(capture: capture, app: entry.name, kind: results[0].kind))
            case (.json, .all):
                try Output.json(
                    results.map {
                        FileNamed(JSONSweep($0.sweep, capture: capture, app: entry.name, kind: $0.kind), file: file)
                    })
            case (.json, _), (.junit, _):
                try Output.json(
                    FileNamed(
                        JSONSweep(results[0].sweep, capture: capture, app: entry.name, kind: results[0].kind),
                        file: file))
            }
            Output.flush()
            if results.contains(where: { !$0.sweep.losses.isEmpty }) { throw Exit.finding }
            return try finish(fault)
        }
        let engine = ReplayEngine(
            cassette: cassette, pacing: realtime ? .realtime : .virtual, unmatched: unmatched, events: events,
            launchState: launchState.state,
            platform: platform, faults: try resolvingFrames(injected, path: path, cassette: cassette))
        // The events go to a temporary file as they happen (a long capture's flow is not held in
        // memory); the comments, which come first in the text, are known only at the end.
        let writer: FlowWriter
        do { writer = try FlowWriter.spooling() } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        engine.writer = writer
        var flow = await engine.run(name: entry.name) { entry.make(for: cassette) }
        let options = replayOptions
        flow.comments.insert(
            "capture: \(Self.captureName(file))  app: \(entry.name)" + (options.isEmpty ? "" : "  \(options)"), at: 0)
        // With colour, the comments (what the replay says about the capture) are dim; the
        // events stay as they are. A chunk may end inside a line: its rest waits for the next.
        var partial = ""
        do {
            try writer.writeFlow(comments: flow.comments) { chunk in
                if Style.enabled {
                    var lines = (partial + String(decoding: chunk, as: UTF8.self)).split(
                        separator: "\n", omittingEmptySubsequences: false)
                    partial = String(lines.removeLast())
                    for line in lines { Output.line(line.hasPrefix("#") ? Style.dim(String(line)) : String(line)) }
                } else {
                    Output.text(String(decoding: chunk, as: UTF8.self))
                }
                Output.flush()
            }
            Output.text(partial)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        if engine.failed {
            Output.flush()
            throw Exit.finding
        }
        try finish(fault)
    }
}

extension UnmatchedPolicy: ExpressibleByArgument {}
extension Platform.EstablishmentFailure: ExpressibleByArgument {}
extension Platform.PairingCancel: ExpressibleByArgument {}
