import Foundation
import TestSupport
import Testing

/// Small wrongs the architecture review found (issue 45, step 8), each held where a user sees it.
@Suite struct ReviewFixesTests {
    /// A MIC failure reaches the app as `CBInternalError.micFailure` (`CBInternalErrorDomain` 31):
    /// the error table names that type, not `CBATTError`, as the replay's flow and `diagnose` do.
    @Test func anInternalErrorIsNamedAsOne() throws {
        let errors = try bletrace("errors", Fixtures.capture("mic-failure.btsnoop"))
        #expect(errors.stdout.contains("CoreBluetooth: CBInternalError.micFailure (31)"), "\(errors.stdout)")
        #expect(!errors.stdout.contains("CBATTError.micFailure"))
    }

    /// `--ltk` reads its hex with Wire's parser, which refuses a sign where a digit should be
    /// (`UInt8("+f", radix: 16)` alone is 15, and `UInt8("-0", radix: 16)` is 0).
    @Test(arguments: ["+f112233445566778899aabbccddeeff", "0x-0112233445566778899aabbccddeeff"])
    func aKeyWithASignIsRefused(_ key: String) throws {
        let result = try bletrace("lifecycle", Fixtures.capture("att-errors.btsnoop"), "--ltk", key)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("bletrace: --ltk \(key): '"), "\(result.stderr)")
        #expect(result.stderr.contains("is not a hex digit"), "\(result.stderr)")
    }

    @Test func aGoodKeyIsStillTaken() throws {
        let result = try bletrace(
            "lifecycle", Fixtures.capture("att-errors.btsnoop"), "--ltk", "00112233445566778899AABBCCDDEEFF", "--brief")
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The replay's note on notifications the app had not subscribed to says "1 notification", in
    /// the singular, and keeps the plural for more.
    @Test func oneNotificationIsSingular() throws {
        let flow = try bletrace(
            "replay", Fixtures.capture("reconnect-supervision-timeout.btsnoop"), "--app", "reconnecting"
        ).stdout
        #expect(
            flow.contains(
                "# F0:F1:F2:F3:F4:05: 1 notification or indication of the capture went to a characteristic the app had not subscribed to; not delivered"
            ), "\(flow)")
        #expect(
            flow.contains(
                "# F0:F1:F2:F3:F4:05: 3 notifications or indications of the capture went to characteristics the app had not subscribed to; not delivered"
            ))
        #expect(!flow.contains(" 1 notifications"))
    }
}
