import BLETraceCoreBluetooth
import Flow
import Foundation
import Replay

/// A capture to replay into the app under test, from Swift Testing or XCTest:
///
/// ```swift
/// import BLETraceTesting
///
/// @Test func reconnectsAfterASupervisionTimeout() async throws {
///     let capture = try ReplayCapture("Fixtures/supervision-timeout.btsnoop")
///     let replay = await capture.replay(HeartRateMonitor.self)
///     #expect(replay.reconnectedAfterUnexpectedDisconnection())
///     try replay.expect(matching: "Fixtures/supervision-timeout.flow")
/// }
/// ```
///
/// The app is launched at the capture's start and every request it makes is answered as the
/// capture's peers answered (Formats/flow.md); ``ReplayOptions`` add what the system does to it
/// (termination, power) and what happens to requests the capture cannot answer.
public struct ReplayCapture: Sendable {
    /// What the replay plays: the capture's peers, their answers and their times.
    public let cassette: Cassette
    /// The capture's file.
    public let path: String
    /// Where the capture is damaged, if it is: every record before the fault is played.
    public let fault: String?

    /// Loads the capture at `path` (btsnoop, pcap, pcapng or PacketLogger). A relative path is
    /// taken from the folder of the test file that says it (`filePath`), so that fixtures sit
    /// beside their tests.
    public init(_ path: String, filePath: StaticString = #filePath) throws {
        self.path = Self.resolve(path, filePath: filePath)
        let (cassette, fault) = try Cassette.load(path: self.path)
        self.cassette = cassette
        self.fault = fault.map { "\($0)" }
    }

    /// Replays the capture into a new instance of `App` (and a new one at each relaunch).
    public func replay<App: BluetoothApp & Launchable>(_ app: App.Type, options: ReplayOptions = .init()) async
        -> ReplayResult
    {
        await replay(name: App.appName, options: options) { App() }
    }

    /// Replays the capture into the app `launching` makes: at launch, and again at each
    /// relaunch after a termination (a closure that creates the app's managers, wrapped as an
    /// app, will do: ``ClosureApp``).
    public func replay(
        name: String = "app", options: ReplayOptions = .init(), launching: @escaping () -> any BluetoothApp
    ) async -> ReplayResult {
        let engine = options.engine(for: cassette)
        let flow = await engine.run(name: name, launching: launching)
        return ReplayResult(engine: engine, flow: flow)
    }

    /// Replays once per moment iOS could kill the app (`KillPointSweep`): `survived` on the
    /// result tells whether the app ends every run holding what it holds without a kill.
    public func sweep<App: BluetoothApp & Launchable>(
        _ app: App.Type, kind: SystemEvent.Kind = .terminate, options: ReplayOptions = .init()
    ) async -> KillPointSweep {
        await KillPointSweep.run(
            cassette, app: ReferenceApps.Entry(App.self), kind: kind, unmatched: options.unmatched,
            events: options.events,
            launchState: options.launchState, platform: options.platform)
    }

    /// Replays the capture once per fault of `faults` at every point where the app's state
    /// differs (`FaultSweep`, Formats/faults.md) and checks each run against what every app must
    /// do after a failure; `check` adds the test's own checks of a run (its messages are
    /// failures). `points` keeps N points per fault, evenly spread.
    ///
    /// ```swift
    /// let sweep = await capture.sweep(HeartRateMonitor.self, faults: .all) { run in
    ///     run.replay.finalState.subscribed.isEmpty ? ["lost the heart rate after \(run.fault)"] : []
    /// }
    /// #expect(sweep.survived, "\(sweep)")
    /// ```
    public func sweep<App: BluetoothApp & Launchable>(
        _ app: App.Type, faults: [FaultSweep.Family], options: ReplayOptions = .init(), points: Int? = nil,
        check: (@Sendable (FaultedRun) -> [String])? = nil
    ) async -> FaultSweepResult {
        var wrapped: FaultSweep.Check?
        if let check {
            wrapped = { (faults: [Fault], engine: ReplayEngine, flow: Flow) -> [String] in
                check(FaultedRun(faults: faults, replay: ReplayResult(engine: engine, flow: flow)))
            }
        }
        let sweep = await FaultSweep.run(
            cassette, app: ReferenceApps.Entry(App.self), families: faults, unmatched: options.unmatched,
            events: options.events,
            launchState: options.launchState, platform: options.platform, points: points, check: wrapped)
        return FaultSweepResult(sweep: sweep, capture: path, app: App.appName)
    }

    static func resolve(_ path: String, filePath: StaticString) -> String {
        guard !path.hasPrefix("/") else { return path }
        let folder = URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent()
        return folder.appendingPathComponent(path).standardizedFileURL.path
    }
}

/// An app made of a closure: for a test whose Bluetooth code is not an app type, the closure
/// creates the managers (and keeps what it needs).
public final class ClosureApp: BluetoothApp {
    private let body: (Launch) -> Void
    public init(_ body: @escaping (Launch) -> Void) { self.body = body }
    public func didFinishLaunching(_ launch: Launch) { body(launch) }
}

/// What a replay does besides playing the capture: the system's events and the unmatched policy,
/// as `bletrace replay`'s options.
public struct ReplayOptions: Sendable {
    /// What happens to a request the capture cannot answer (default: pend, as a silent peer).
    public var unmatched: UnmatchedPolicy = .pend
    /// Terminations, force quits, user launches, Bluetooth power changes, and the app's moves to
    /// the background and back (`.background`, `.foreground`), at their times.
    public var events: [SystemEvent] = []
    /// Bluetooth's state at launch.
    public var launchState: CBManagerState = .poweredOn
    /// The iOS release and AccessorySetupKit: which events iOS relaunches the app after
    /// (`bletrace replay --ios`, `--accessory-setup-kit`); the app's background modes and its
    /// AccessorySetupKit accessories (`--background-modes`, `--accessories`).
    public var platform = Platform()
    /// Failures the capture did not have, injected at their points (`bletrace replay --inject`):
    /// `[try Fault(parsing: "link-loss:0x08@12.5")]` replays what a fault sweep reported.
    public var faults: [Fault] = []
    /// Capture time, at once (`.virtual`, the default: the app's `queue.asyncAfter(deadline:execute:)`,
    /// its tasks and `Launch.clock` run on it), or the capture's pace in wall time (`.realtime`,
    /// as `bletrace replay --realtime`: for code on `Timer` or other wall-clock timers; the replay
    /// then runs on the main actor). A sweep always plays in capture time.
    public var pacing: ReplayEngine.Pacing = .virtual

    public init(
        unmatched: UnmatchedPolicy = .pend, events: [SystemEvent] = [], launchState: CBManagerState = .poweredOn,
        platform: Platform = Platform(),
        pacing: ReplayEngine.Pacing = .virtual, faults: [Fault] = []
    ) {
        self.unmatched = unmatched
        self.events = events
        self.launchState = launchState
        self.platform = platform
        self.pacing = pacing
        self.faults = faults
    }

    /// iOS terminates the app for memory at `seconds` after the capture's start.
    public static func terminate(at seconds: Double) -> ReplayOptions {
        .init(events: [SystemEvent(.terminate, at: seconds)])
    }

    /// The same options with one more system event.
    public func with(_ kind: SystemEvent.Kind, at seconds: Double) -> ReplayOptions {
        var copy = self
        copy.events.append(SystemEvent(kind, at: seconds))
        return copy
    }

    func engine(for cassette: Cassette) -> ReplayEngine {
        ReplayEngine(
            cassette: cassette, pacing: pacing, unmatched: unmatched, events: events, launchState: launchState,
            platform: platform, faults: faults)
    }
}
