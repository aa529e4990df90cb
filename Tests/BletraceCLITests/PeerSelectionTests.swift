import TestSupport
import Testing

/// `--peer` that names no device of the capture: a warning, and a failure under `--fail-on`, so
/// that a typo in CI does not pass as "no errors".
@Suite struct PeerSelectionTests {
    @Test func aPeerThatNamesNobodyIsAWarningAndFailsUnderFailOn() throws {
        let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let warned = try bletrace("errors", "--peer", "nobody", capture)
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("warning: --peer nobody names no device of"))
        let failed = try bletrace("errors", "--peer", "nobody", "--fail-on", "unexpected", capture)
        #expect(failed.status == 1)
        // The peer's address is somebody; so is the name a scan heard it advertise.
        #expect(!(try bletrace("errors", "--peer", "F0:F1:F2:F3:F4:05", capture)).stderr.contains("warning"))
        #expect(
            !(try bletrace("errors", "--peer", "bletrace-hr", Fixtures.capture("scan.btsnoop"))).stderr.contains(
                "warning"))
    }
}
