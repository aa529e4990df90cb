import Foundation
import TestSupport
import Testing

/// `bletrace replay`'s choices where the evidence of what iOS does is split
/// (Formats/corebluetooth.md, "What iOS does on its own").
@Suite struct IOSReadingsTests {
    @Test func aCancelledPairingFailsTheRequestUnderTheOtherReading() throws {
        let capture = Fixtures.capture("pairing-cancelled.btsnoop")
        let byDefault = try bletrace("replay", capture)
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(
            byDefault.stdout.contains(
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBInternalError.pairingCancelled"))
        let other = try bletrace(
            "replay", capture, "--pairing-cancel", "fails-request", "--establishment-failure", "fail")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.contains("--establishment-failure fail --pairing-cancel fails-request"))
        #expect(
            other.stdout.contains(
                "peripheral didWriteValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=EEE3 error=CBInternalError.pairingCancelled"
            ))
        #expect(
            !other.stdout.contains(
                "didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBInternalError.pairingCancelled"))
    }

    @Test func aReadingTheToolDoesNotKnowIsRefused() throws {
        let result = try bletrace(
            "replay", Fixtures.capture("pairing-cancelled.btsnoop"), "--establishment-failure", "timeout")
        #expect(result.status != 0)
        #expect(result.stderr.contains("retry"))
    }
}
