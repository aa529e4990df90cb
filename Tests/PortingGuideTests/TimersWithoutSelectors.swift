// Formats/porting.md, "@objc and #selector": a timer with a closure, not a selector.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

@MainActor
final class ScanController: NSObject {
    private var scanTimer: Timer?
    private(set) var timedOut = false

    func startScan(timeout: TimeInterval) {
        scanTimer?.invalidate()
        // Scheduled on the main run loop, so the block runs on the main thread.
        scanTimer = Timer.scheduledTimer(withTimeInterval: timeout, repeats: false) { [weak self] _ in
            MainActor.assumeIsolated { self?.scanTimedOut() }
        }
    }

    private func scanTimedOut() {
        timedOut = true
    }
}

@Suite struct TimersWithoutSelectorsTests {
    @MainActor
    @Test func theClosureTimerFiresOnTheRunLoop() {
        let controller = ScanController()
        controller.startScan(timeout: 0.01)
        let deadline = Date(timeIntervalSinceNow: 5)
        while !controller.timedOut && Date() < deadline { RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01)) }
        #expect(controller.timedOut)
    }
}
