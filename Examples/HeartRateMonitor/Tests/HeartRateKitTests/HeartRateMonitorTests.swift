import BLETraceCoreBluetooth
import BLETraceTesting
import HeartRateKit
import HeartRateReplay
import Testing

/// The monitor against captures from the field (Fixtures/, copied from bletrace's Captures/).
@Suite struct HeartRateMonitorTests {
    @Test func reconnectsAfterASupervisionTimeout() async throws {
        let capture = try ReplayCapture("Fixtures/reconnect-supervision-timeout.btsnoop")
        var apps: [HeartRateApp] = []
        let replay = await capture.replay(name: HeartRateApp.appName) {
            let app = HeartRateApp()
            apps.append(app)
            return app
        }
        #expect(replay.surfaced(CBError.Code.connectionTimeout))
        #expect(replay.reconnectedAfterUnexpectedDisconnection())
        #expect(replay.finalState.subscribed == ["F0:F1:F2:F3:F4:05 2A37"])
        // The app saw the error, and measured again after reconnecting.
        let monitor = try #require(apps.first?.monitor)
        #expect(monitor.errors.contains { ($0 as? CBError)?.code == .connectionTimeout })
        #expect(!monitor.heartRates.isEmpty)
        try replay.expect(matching: "Fixtures/reconnect-supervision-timeout.flow")
    }

    @Test func aBrokenReconnectFailsWithTheDiff() async throws {
        // The same app with its reconnect decision broken, as a regression would break it.
        final class NoReconnect: HeartRateMonitor {
            override func shouldReconnect(after error: Error?) -> Bool { false }
        }
        let capture = try ReplayCapture("Fixtures/reconnect-supervision-timeout.btsnoop")
        let replay = await capture.replay(name: HeartRateApp.appName) { HeartRateApp(monitor: NoReconnect()) }
        #expect(!replay.reconnectedAfterUnexpectedDisconnection())
        let mismatch = try #require(throws: FlowMismatch.self) {
            try replay.expect(matching: "Fixtures/reconnect-supervision-timeout.flow")
        }
        #expect(mismatch.description.contains("- app connect peripheral=F0:F1:F2:F3:F4:05"))
    }

    @Test func surfacesInsufficientAuthenticationWhenTheSensorRefusesItsSettings() async throws {
        // The capture's app never subscribed: the subscription the monitor asks for first is
        // answered with an error (--unmatched error), so that its settings write goes out.
        let capture = try ReplayCapture("Fixtures/att-errors.btsnoop")
        var apps: [HeartRateApp] = []
        let replay = await capture.replay(name: HeartRateApp.appName, options: .init(unmatched: .error)) {
            let app = HeartRateApp()
            apps.append(app)
            return app
        }
        #expect(replay.surfaced(CBATTError.Code.insufficientAuthentication))
        let monitor = try #require(apps.first?.monitor)
        #expect(monitor.errors.contains { ($0 as? CBATTError)?.code == .insufficientAuthentication })
        try replay.expect(matching: "Fixtures/att-errors.flow")
    }

    @Test func isRestoredAfterATerminationAndMeasuresOn() async throws {
        let capture = try ReplayCapture("Fixtures/restore-notifying.btsnoop")
        var apps: [HeartRateApp] = []
        let replay = await capture.replay(name: HeartRateApp.appName, options: .terminate(at: 0.5)) {
            let app = HeartRateApp()
            apps.append(app)
            return app
        }
        #expect(replay.events(.system(.relaunch)).count == 1)
        #expect(replay.events(.central(.willRestoreState)).count == 1)
        #expect(apps.count == 2)
        // The relaunched process gets the notifications after the termination.
        #expect(apps[1].monitor.heartRates == [0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b])
        try replay.expect(matching: "Fixtures/restore-notifying.terminate.flow")
    }

    @Test func survivesTheLinkDroppingOrStallingAnywhere() async throws {
        // Every moment the link could drop, every request the sensor could leave unanswered, a
        // reset and Bluetooth off and on: the monitor connects again and subscribes again.
        let capture = try ReplayCapture("Fixtures/reconnect-supervision-timeout.btsnoop")
        let sweep = await capture.sweep(HeartRateApp.self, faults: [.linkLoss, .timeout, .reset, .power])
        #expect(!sweep.sweep.runs.isEmpty)
        #expect(sweep.survived, "\(sweep)")
    }

    @Test func survivesBeingKilledAtAnyMoment() async throws {
        let capture = try ReplayCapture("Fixtures/restore-notifying.btsnoop")
        let sweep = await capture.sweep(HeartRateApp.self)
        #expect(
            sweep.survived, "\(sweep.text(capture: "restore-notifying", app: "HeartRateMonitor", kind: "terminate"))")
    }
}
