// Formats/porting.md, "Timers in a replay": a cancellable timeout on asyncAfter, which a replay
// moves to the capture's clock (CaptureTimeTimersTests), and which is Dispatch's anywhere else.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

@MainActor
final class ConnectWatchdog {
    private var generation = 0

    func arm(seconds: Double, onTimeout: @escaping @MainActor () -> Void) {
        generation += 1
        let armed = generation
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.generation == armed else { return }
                onTimeout()
            }
        }
    }

    func disarm() { generation += 1 }
}

@Suite struct TimersInCaptureTimeTests {
    @MainActor
    @Test func outsideAReplayTheTimeoutFiresOnTheWallClock() async {
        let watchdog = ConnectWatchdog()
        await withCheckedContinuation { (fired: CheckedContinuation<Void, Never>) in
            watchdog.arm(seconds: 0.01) { fired.resume() }
        }
    }

    @MainActor
    @Test func aDisarmedTimeoutDoesNotFire() async {
        let watchdog = ConnectWatchdog()
        var fired = 0
        watchdog.arm(seconds: 0.01) { fired += 1 }
        watchdog.disarm()
        // A second timeout, armed after and due later, fires: the first had its chance.
        await withCheckedContinuation { (later: CheckedContinuation<Void, Never>) in
            watchdog.arm(seconds: 0.05) { later.resume() }
        }
        #expect(fired == 0)
    }
}
