import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Replay

/// What a replay gave: the app's flow, as values and as text, the state the app ended in, and
/// questions tests ask of them.
public struct ReplayResult: Sendable, CustomStringConvertible {
    /// Every event, in order, typed: what the questions below ask.
    public let records: [FlowRecord]
    /// Every event, in order, as text (Formats/flow.md), with the replay's comments.
    public let flow: Flow
    /// What the app held at the end: connections, subscriptions, pending connects.
    public let finalState: AppState
    /// The replay stopped on a request the capture could not answer (`UnmatchedPolicy.fail`).
    public let failed: Bool
    /// The state of each peripheral the app was given, by address, at the end of the capture.
    public let peripheralStates: [String: CBPeripheralState]
    /// The rule the app broke that crashes an iOS app (CoreBluetooth raises an exception: a CCCD
    /// written directly, a descriptor other than 2901/2904 made, a writable characteristic with a
    /// cached value, a service added twice); nil when it broke none. The replay stops there.
    public var crashReason: String? {
        records.last { $0.event == .system(.crash) }?.argument(.reason)
    }

    /// The peripherals (by address) whose connection or attempt iOS ended because the app let go
    /// of its last reference to the object ("API MISUSE: Forcing disconnection of unused
    /// peripheral"): an app that forgets to keep its `CBPeripheral` loses it on iOS.
    public var unusedPeripherals: [String] {
        records.filter { $0.event == .system(.unusedPeripheral) }.compactMap { $0.argument(.peripheral) }
    }

    /// A short account, for test failure messages: the events and the end state.
    public var description: String {
        var parts = ["\(records.count) flow events"]
        if !finalState.connected.isEmpty {
            parts.append("ends connected to \(finalState.connected.sorted().joined(separator: ", "))")
        }
        if !finalState.subscribed.isEmpty {
            parts.append("subscribed to \(finalState.subscribed.sorted().joined(separator: ", "))")
        }
        if !finalState.pending.isEmpty {
            parts.append("connecting to \(finalState.pending.sorted().joined(separator: ", "))")
        }
        if finalState.connected.isEmpty, finalState.subscribed.isEmpty, finalState.pending.isEmpty {
            parts.append("ends holding nothing")
        }
        if let crashReason { parts.append("crashed: \(crashReason)") }
        if !unusedPeripherals.isEmpty {
            parts.append("let go of \(unusedPeripherals.joined(separator: ", ")) while connecting or connected")
        }
        return "replay (" + parts.joined(separator: "; ") + ")"
    }

    /// The flow's text, as `bletrace replay` prints it.
    public var text: String { flow.text }

    /// The events of `actor` (every event when nil), in order: `replay.events(of: .central)`.
    public func events(of actor: FlowActor? = nil) -> [FlowRecord] {
        guard let actor else { return records }
        return records.filter { actor.matches($0.event) }
    }

    /// The events `name` names, of any manager of its kind, in order:
    /// `replay.events(.peripheral(.didUpdateValueFor))`, `replay.events(.central(.didConnect))`.
    public func events(_ name: FlowEventName) -> [FlowRecord] {
        records.filter { name.matches($0.event) }
    }

    /// The errors CoreBluetooth gave the app, in order: each callback whose `error=` is not nil.
    public var errors: [GivenError] {
        records.compactMap { record in record.error.map { GivenError(event: record, error: $0) } }
    }

    /// Whether the app was given `code` in some callback.
    public func surfaced(_ code: CBATTError.Code) -> Bool {
        errors.contains { $0.error == .att(code) }
    }

    /// Whether the app was given `code` in some callback.
    public func surfaced(_ code: CBError.Code) -> Bool {
        errors.contains { $0.error == .cb(code) }
    }

    /// Whether, after each disconnection it did not ask for (one with an error), the app asked
    /// to connect to that peripheral again before the capture ended; false when there was no
    /// such disconnection.
    public func reconnectedAfterUnexpectedDisconnection() -> Bool {
        var any = false
        for (index, record) in records.enumerated()
        where FlowEventName.central(.didDisconnectPeripheral).matches(record.event) {
            guard record.error != nil, let peripheral = record.argument(.peripheral) else { continue }
            any = true
            let again = records[(index + 1)...].contains {
                $0.event == .app(.connect) && $0.argument(.peripheral) == peripheral
            }
            if !again { return false }
        }
        return any
    }

    /// Compares the flow with the expected one in `path` (relative to the test file's folder),
    /// as `bletrace diff` does: times and comments aside, event by event, or as a pattern when
    /// the file has `...` lines, `key=*` values, `@<=S` timings or `# match: in-order`
    /// (Formats/flow.md); events of different peripherals may interleave when it names several.
    /// Throws
    /// ``FlowMismatch`` with the diff when they differ. With `BLETRACE_RECORD=1` in the
    /// environment (or `record: true`) it writes the flow to `path` instead (without times), and passes.
    public func expect(
        matching path: String, record: Bool = ProcessInfo.processInfo.environment["BLETRACE_RECORD"] == "1",
        filePath: StaticString = #filePath
    ) throws {
        let file = ReplayCapture.resolve(path, filePath: filePath)
        if record {
            try golden.write(toFile: file, atomically: true, encoding: .utf8)
            return
        }
        let expected: FlowExpectation
        do {
            expected = try FlowExpectation(parsing: String(contentsOfFile: file, encoding: .utf8), source: path)
        } catch let error as FlowError {
            throw FlowMismatch(report: "\(error)")
        } catch {
            throw FlowMismatch(
                report:
                    "\(path): cannot read the expected flow (\(error.localizedDescription)); run with BLETRACE_RECORD=1 to write it"
            )
        }
        let comparison = FlowComparison(expected: expected, actual: flow)
        guard comparison.isEqual else {
            throw FlowMismatch(report: comparison.report(expectedName: path, actualName: "replay"))
        }
    }

    /// The flow as a golden file keeps it: the header, the comments, the events without times.
    public var golden: String {
        var lines = ["# " + Flow.header] + flow.comments.map { "# " + $0 }
        lines += flow.events.map(\.signature)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// An actor of a flow line; `central` and `peripheralManager` stand for every manager of their
/// kind (`central2` …).
public enum FlowActor: String, Sendable, CaseIterable {
    case system, app, central, peripheral, peripheralManager

    func matches(_ event: FlowRecord.Event) -> Bool {
        switch (self, event) {
        case (.system, .system), (.app, .app), (.central, .central), (.peripheral, .peripheral),
            (.peripheralManager, .peripheralManager):
            true
        default: false
        }
    }
}

/// An event of a flow, of any manager of its kind: `.central(.didConnect)`,
/// `.peripheral(.didUpdateValueFor)`, `.system(.relaunch)`.
public enum FlowEventName: Hashable, Sendable {
    case system(FlowRecord.System)
    case app(FlowRecord.App)
    case central(FlowRecord.Central)
    case peripheral(FlowRecord.Peripheral)
    case peripheralManager(FlowRecord.PeripheralManager)

    func matches(_ event: FlowRecord.Event) -> Bool {
        switch (self, event) {
        case (.system(let a), .system(let b)): a == b
        case (.app(let a), .app(let b)): a == b
        case (.central(let a), .central(let b, _)): a == b
        case (.peripheral(let a), .peripheral(let b)): a == b
        case (.peripheralManager(let a), .peripheralManager(let b, _)): a == b
        default: false
        }
    }
}

/// An error the app was given: the callback's event and the error
/// (`.att(.insufficientAuthentication)`, `.cb(.connectionTimeout)`; as text
/// `CBATTError.insufficientAuthentication`).
public struct GivenError: Sendable, Hashable, CustomStringConvertible {
    public let event: FlowRecord
    public let error: CallbackError
    public var description: String { "\(event.event.actor) \(event.event.name): \(error)" }
}

/// The replay's flow differs from the expected one; `description` is the diff, first
/// divergence first (Swift Testing and XCTest show it as the failure).
public struct FlowMismatch: Error, CustomStringConvertible, Sendable {
    public let report: String
    public var description: String { report }
}
