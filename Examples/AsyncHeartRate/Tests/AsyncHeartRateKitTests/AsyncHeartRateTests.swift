import AsyncHeartRateKit
import AsyncHeartRateReplay
import BLETraceCoreBluetooth
import BLETraceTesting
import Foundation
import Testing

/// The models the replay's processes made, in order (one per launch or relaunch).
@MainActor final class Models {
    var all: [HeartRateModel] = []
}

/// The async layer against the captures bundled with bletrace (Captures/ at the repository's root).
@Suite struct AsyncHeartRateTests {
    static let captures = "../../../../Captures/"
    static let sensor = "F0:F1:F2:F3:F4:05"

    func replay(
        _ capture: String, options: ReplayOptions = .init(), timeout: Duration = .seconds(5)
    ) async throws -> (ReplayResult, [HeartRateModel]) {
        let capture = try ReplayCapture(Self.captures + capture)
        let models = await Models()
        let replay = await capture.replay(name: AsyncHeartRateApp.appName, options: options) {
            AsyncHeartRateApp(connectTimeout: timeout) { models.all.append($0) }
        }
        return (replay, await models.all)
    }

    @Test func readsSubscribesAndReconnectsAfterASupervisionTimeout() async throws {
        let (replay, models) = try await replay("reconnect-supervision-timeout.btsnoop")
        #expect(replay.surfaced(CBError.Code.connectionTimeout))
        #expect(replay.reconnectedAfterUnexpectedDisconnection())
        #expect(replay.finalState.subscribed == ["\(Self.sensor) 2A37"])
        let model = try #require(models.first)
        await MainActor.run {
            #expect(model.heartRates == [72, 73, 74, 80])
            #expect(model.bodyLocation == 1)
            #expect(model.connections == 2)
            #expect(model.status == .connected)
            #expect(model.errors.map { ($0 as? CBError)?.code } == [.connectionTimeout])
        }
        // Every answer the capture holds for these requests reached the app.
        let answers = replay.events(of: .peripheral).map(\.name)
        #expect(answers.filter { $0 == "didUpdateNotificationStateFor" }.count == 2)
        #expect(answers.filter { $0 == "didDiscoverServices" }.count == 2)
    }

    @Test func theSameReplayGivesTheSameFlowEveryTime() async throws {
        var texts: Set<String> = []
        for _ in 0..<4 { texts.insert(try await replay("reconnect-supervision-timeout.btsnoop").0.text) }
        #expect(texts.count == 1)
    }

    @Test func surfacesTheSensorsRefusals() async throws {
        // The capture's app never subscribed: the subscription gets an error (--unmatched
        // error), and the settings read is refused as the capture's peer refused it.
        let (replay, models) = try await replay("att-errors.btsnoop", options: .init(unmatched: .error))
        #expect(replay.surfaced(CBATTError.Code.readNotPermitted))
        let model = try #require(models.first)
        let codes = await MainActor.run { model.errors.compactMap { ($0 as? CBATTError)?.code } }
        #expect(codes.contains(.readNotPermitted))
    }

    @Test func givesUpAConnectionAttemptAfterItsTimeoutOnTheCapturesClock() async throws {
        // The capture's app cancelled its attempt: this app's connect never completes.
        let (replay, models) = try await replay("cancelled-connect.btsnoop", timeout: .seconds(3))
        let connect = try #require(replay.events(.app(.connect)).first?.time)
        let cancel = try #require(replay.events(.app(.cancelPeripheralConnection)).first?.time)
        #expect(((cancel - connect) * 1_000_000).rounded() == 3_000_000)
        let model = try #require(models.first)
        await MainActor.run {
            #expect(model.errors.contains { ($0 as? HeartRateError) == .connectTimedOut })
            #expect(model.status == .failed("connectTimedOut"))
        }
    }

    @Test func takesTheRestoredSensorBackAfterATermination() async throws {
        let (replay, models) = try await replay("restore-notifying.btsnoop", options: .terminate(at: 0.5))
        #expect(models.count == 2)
        #expect(replay.events(.central(.willRestoreState)).count == 1)
        let relaunch = try #require(replay.flow.events.firstIndex { $0.name == "relaunch" })
        // Restored connected and notifying: the relaunched app does not connect, discover nor
        // subscribe again (it only reads the body location it had not got: the capture never
        // answers that read).
        let asked = replay.flow.events[relaunch...].filter { $0.actor == "app" }.map(\.name)
        #expect(asked == ["readValue"])
        let restored = try #require(models.last)
        await MainActor.run {
            #expect(restored.wasRestored)
            #expect(!restored.heartRates.isEmpty)
        }
        #expect(replay.finalState.subscribed == ["\(Self.sensor) 2A37"])
    }

    @Test func keepsAPendingConnectionIOSRestored() async throws {
        let (replay, models) = try await replay("restore-pending-connection.btsnoop", options: .terminate(at: 0.05))
        #expect(models.count == 2)
        let relaunch = try #require(replay.flow.events.firstIndex { $0.name == "relaunch" })
        #expect(!replay.flow.events[relaunch...].contains { $0.actor == "app" && $0.name == "connect" })
        #expect(replay.finalState.subscribed == ["\(Self.sensor) 2A37"])
    }

    @Test func survivesTheLinkDroppingOrStallingAnywhere() async throws {
        // Every moment the link could drop and every request the sensor could leave unanswered:
        // the model connects again and subscribes again.
        let capture = try ReplayCapture(Self.captures + "reconnect-supervision-timeout.btsnoop")
        let sweep = await capture.sweep(AsyncHeartRateApp.self, faults: [.linkLoss, .timeout])
        #expect(!sweep.sweep.runs.isEmpty)
        #expect(sweep.survived, "\(sweep)")
    }

    @Test func survivesEveryKillPointOfTheRestorationCapture() async throws {
        let capture = try ReplayCapture(Self.captures + "restore-notifying.btsnoop")
        let sweep = await capture.sweep(AsyncHeartRateApp.self)
        #expect(!sweep.points.isEmpty)
        #expect(sweep.reference.subscribed == ["\(Self.sensor) 2A37"])
        #expect(
            sweep.survived,
            "\(sweep.text(capture: "restore-notifying.btsnoop", app: "AsyncHeartRate", kind: "terminate"))")
    }
}
