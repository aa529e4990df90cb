import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import TestSupport
import Testing

@testable import Replay

/// Errors iOS reports in `CBInternalErrorDomain` reach the app's callbacks in the replay
/// (Formats/error-mapping.md, "CBInternalErrorDomain").
@Suite struct InternalDomainTests {
    /// `mic-failure.btsnoop`: the second connection's encryption with the wrong key ends the link
    /// with Connection Terminated due to MIC Failure (0x3D), frame 105.
    @Test func aMICFailureDisconnectionCarriesTheInternalDomainsMICFailure() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("mic-failure.btsnoop"))
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let errors = flow.events.filter { $0.name == "didDisconnectPeripheral" }.map { $0.argument("error") }
        #expect(errors.contains("CBInternalError.micFailure"))
        #expect(!errors.contains("CBError.unknown"))
    }
}
