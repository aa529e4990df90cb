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
}
