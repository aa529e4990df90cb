import BLETraceCoreBluetooth
import Foundation
import Testing

@testable import Replay

/// How the replay runs an app's jobs: one job for each time a task can go on, not two.
@Suite struct ReplayExecutorTests {
    /// A nonisolated task that sleeps on the launch clock `count` times, then notes that it is done.
    final class SleepingApp: NSObject, BluetoothApp, CBCentralManagerDelegate, @unchecked Sendable {
        let count: Int
        var central: CBCentralManager?
        var woken = 0
        init(count: Int) { self.count = count }

        func didFinishLaunching(_ launch: Launch) {
            central = CBCentralManager(delegate: self, queue: nil)
            let clock = launch.clock
            Task { await sleep(on: clock) }
        }

        nonisolated func sleep(on clock: any Clock<Duration>) async {
            for _ in 0..<count {
                try? await clock.sleep(for: .milliseconds(10))
                woken += 1
            }
        }

        func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    }

    @Test func aNonisolatedTaskWokenByTheClockRunsAsOneJobAWaking() async {
        let app = SleepingApp(count: 100)
        let engine = ReplayEngine(
            cassette: cassette([episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08)]))
        _ = await engine.run(app, name: "sleeper")
        #expect(app.woken == 100)
        // The task's start and each waking are a job each, with a few for the launch; a waking
        // run isolated to the replay's executor would hop to the global one and be a second job.
        #expect(engine.appJobsRun >= 101)
        #expect(engine.appJobsRun <= 110)
    }
}
