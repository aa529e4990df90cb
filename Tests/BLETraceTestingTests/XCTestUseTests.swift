import BLETraceTesting
import TestSupport
import XCTest

/// The library from XCTest: an async test replays, asserts, and a golden mismatch is a thrown
/// error XCTest reports with its diff.
final class XCTestUseTests: XCTestCase {
    func testAReplayIsAssertedFromXCTest() async throws {
        let capture = try ReplayCapture(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let replay = await capture.replay(SensorApp.self)
        XCTAssertTrue(replay.reconnectedAfterUnexpectedDisconnection())
        XCTAssertEqual(replay.events(.central(.didDisconnectPeripheral)).count, 1)
        let golden = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-xctest-\(UUID().uuidString).flow"
        ).path
        defer { try? FileManager.default.removeItem(atPath: golden) }
        try replay.expect(matching: golden, record: true)
        XCTAssertNoThrow(try replay.expect(matching: golden, record: false))
        let broken = await capture.replay(BrokenSensorApp.self)
        XCTAssertThrowsError(try broken.expect(matching: golden, record: false)) { error in
            XCTAssertTrue("\(error)".contains("- app connect peripheral=F0:F1:F2:F3:F4:05"))
        }
    }
}
