import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Replay

/// What a replay gave: the app's flow, as values and as text, the state the app ended in, and
/// questions tests ask of them.
public struct ReplayResult: Sendable, CustomStringConvertible {
    /// Every event, in order (Formats/flow.md).
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
        flow.events.last { $0.actor == "system" && $0.name == "crash" }?.argument("reason")
    }

    /// The peripherals (by address) whose connection or attempt iOS ended because the app let go
    /// of its last reference to the object ("API MISUSE: Forcing disconnection of unused
    /// peripheral"): an app that forgets to keep its `CBPeripheral` loses it on iOS.
    public var unusedPeripherals: [String] {
        flow.events.filter { $0.actor == "system" && $0.name == "unusedPeripheral" }.compactMap { $0.argument("peripheral") }
    }

    /// A short account, for test failure messages: the events and the end state.
    public var description: String {
        var parts = ["\(flow.events.count) flow events"]
        if !finalState.connected.isEmpty { parts.append("ends connected to \(finalState.connected.sorted().joined(separator: ", "))") }
        if !finalState.subscribed.isEmpty { parts.append("subscribed to \(finalState.subscribed.sorted().joined(separator: ", "))") }
        if !finalState.pending.isEmpty { parts.append("connecting to \(finalState.pending.sorted().joined(separator: ", "))") }
        if finalState == AppState() { parts.append("ends holding nothing") }
        if let crashReason { parts.append("crashed: \(crashReason)") }
        if !unusedPeripherals.isEmpty { parts.append("let go of \(unusedPeripherals.joined(separator: ", ")) while connecting or connected") }
        return "replay (" + parts.joined(separator: "; ") + ")"
    }

    /// The flow's text, as `bletrace replay` prints it.
    public var text: String { flow.text }

    /// The events of `actor` (and named `name`, when given), in order:
    /// `replay.events(of: .peripheral, named: "didUpdateValueFor")`.
    public func events(of actor: FlowActor? = nil, named name: String? = nil) -> [FlowEvent] {
        flow.events.filter { event in
            (actor.map { event.actor == $0.rawValue || event.actor.hasPrefix($0.rawValue) && event.actor.dropFirst($0.rawValue.count).allSatisfy(\.isNumber) } ?? true)
                && (name.map { event.name == $0 } ?? true)
        }
    }

    /// The errors CoreBluetooth gave the app, in order: each callback whose `error=` is not nil.
    public var errors: [GivenError] {
        flow.events.compactMap { event in
            guard let error = event.argument("error"), error != "nil" else { return nil }
            return GivenError(event: event, error: error)
        }
    }

    /// Whether the app was given `code` in some callback.
    public func surfaced(_ code: CBATTError.Code) -> Bool {
        errors.contains { $0.error == "\(CBATTError(code))" }
    }

    /// Whether the app was given `code` in some callback.
    public func surfaced(_ code: CBError.Code) -> Bool {
        errors.contains { $0.error == "\(CBError(code))" }
    }

    /// Whether, after each disconnection it did not ask for (one with an error), the app asked
    /// to connect to that peripheral again before the capture ended; false when there was no
    /// such disconnection.
    public func reconnectedAfterUnexpectedDisconnection() -> Bool {
        let events = flow.events
        var any = false
        for (index, event) in events.enumerated() where event.name == "didDisconnectPeripheral" {
            guard let error = event.argument("error"), error != "nil", let peripheral = event.argument("peripheral") else { continue }
            any = true
            let again = events[(index + 1)...].contains {
                $0.actor == "app" && $0.name == "connect" && $0.argument("peripheral") == peripheral
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
            throw FlowMismatch(report: "\(path): cannot read the expected flow (\(error.localizedDescription)); run with BLETRACE_RECORD=1 to write it")
        }
        let comparison = FlowComparison(expected: expected, actual: flow)
        guard comparison.isEqual else { throw FlowMismatch(report: comparison.report(expectedName: path, actualName: "replay")) }
    }

    /// The flow as a golden file keeps it: the header, the comments, the events without times.
    public var golden: String {
        var lines = ["# " + Flow.header] + flow.comments.map { "# " + $0 }
        lines += flow.events.map(\.signature)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// An actor of a flow line.
public enum FlowActor: String, Sendable, CaseIterable {
    case system, app, central, peripheral, peripheralManager
}

/// An error the app was given: the callback's event and the error as the flow writes it
/// (`CBATTError.insufficientAuthentication`, `CBError.connectionTimeout`).
public struct GivenError: Sendable, Hashable, CustomStringConvertible {
    public let event: FlowEvent
    public let error: String
    public var description: String { "\(event.actor) \(event.name): \(error)" }
}

/// The replay's flow differs from the expected one; `description` is the diff, first
/// divergence first (Swift Testing and XCTest show it as the failure).
public struct FlowMismatch: Error, CustomStringConvertible, Sendable {
    public let report: String
    public var description: String { report }
}
