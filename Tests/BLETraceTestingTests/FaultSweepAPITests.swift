import BLETraceCoreBluetooth
import BLETraceTesting
import Foundation
import Replay
import TestSupport
import Testing

/// `capture.sweep(App.self, faults:) { run in … }` (issue 42): a user's app swept from a test,
/// with the test's own check, and each failure replayed alone through `ReplayOptions.faults`.
@Suite struct FaultSweepAPITests {
    let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func aUsersAppIsSweptAndItsFailuresReplayAlone() async throws {
        let replayCapture = try ReplayCapture(capture)
        // SensorApp reconnects only when the disconnection carries an error: ATT's transaction
        // timeout carries none on iOS, so a timeout leaves it disconnected.
        let result = await replayCapture.sweep(SensorApp.self, faults: [.timeout])
        #expect(!result.survived, "\(result)")
        let fault = try #require(result.failures(breaking: .noReconnect).first)
        #expect("\(result)".contains("ReplayOptions(faults: [try Fault(parsing: \"\(fault)\")])"))
        let alone = await replayCapture.replay(
            SensorApp.self, options: ReplayOptions(faults: [try Fault(parsing: "\(fault)")]))
        #expect(alone.finalState.connected.isEmpty && alone.finalState.pending.isEmpty, "\(alone)")
        #expect(!(result.sweep.reference.connected.isEmpty), "without the fault it ends connected")
        #expect(alone.flow.comments.contains { $0.hasPrefix("fault \(fault)") })
    }

    @Test func theTestsOwnCheckRunsOnEveryRun() async throws {
        let result = try await ReplayCapture(capture).sweep(SensorApp.self, faults: .all, points: 2) { run in
            run.replay.events(.peripheral(.didUpdateValueFor)).count < 4
                ? ["fewer than 4 heart rates after \(run.faults)"] : []
        }
        #expect(!result.sweep.runs.isEmpty)
        #expect(result.sweep.families == FaultSweep.Family.allCases)
        // The check saw each run's own faults, and failed some (a timeout or a lost link leaves
        // fewer heart rates than the capture has).
        let checked = result.sweep.runs.filter { run in run.failures.contains { $0.invariant == .check } }
        #expect(!checked.isEmpty)
        for run in checked where run.sameAs == nil {
            #expect(run.failures.contains { $0.message == "fewer than 4 heart rates after \(run.faults)" })
        }
    }
}
