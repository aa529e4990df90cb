import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether a delegate's type implements an optional method, asked before the method would ever
/// be called: where iOS decides something from `respondsToSelector:` at the time of a request
/// (auto-reconnect needs the iOS 17 disconnection method at `connect`).
///
/// Swift on Linux has no Objective-C runtime, a protocol extension's default is a witness like
/// any other, and a conformance's witness table does not say which entries are defaults. So the
/// probe calls the method, but in a child process (`fork`): there the call reaches either the
/// default, which only notes that it ran (``CBManager/defaultReached``), or the app's own code,
/// whose effects stay in the child. Only the default's note, passed back as the child's exit
/// status, says "not implemented"; anything else (the app's code returning, crashing, or still
/// running after a second) says "implemented". The answer is kept per delegate type (its
/// witnesses are fixed by its conformance), so each type is probed once per process.
///
/// Where `fork` is not available (Apple's systems, in a build against bletrace) the answer is
/// "implemented", as it is if the child cannot be made (Formats/corebluetooth.md).
enum DelegateProbe {
    private struct Key: Hashable {
        var type: ObjectIdentifier
        var method: String
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var known: [Key: Bool] = [:]

    /// Whether `delegate`'s type implements `method`; `call` calls that method on `delegate`
    /// (its default notes on `manager`).
    static func implements(_ method: String, of delegate: AnyObject, manager: CBManager, _ call: () -> Void) -> Bool {
        let key = Key(type: ObjectIdentifier(type(of: delegate)), method: method)
        if let answer = lock.withLock({ known[key] }) { return answer }
        let answer = probe(manager, call)
        lock.withLock { known[key] = answer }
        return answer
    }

    private static let defaultReachedStatus: Int32 = 86
    private static let implementedStatus: Int32 = 87

    private static func probe(_ manager: CBManager, _ call: () -> Void) -> Bool {
        #if canImport(Glibc)
        let child = fork()
        if child == 0 {
            // The child: nothing it writes reaches the replay's output, and it never returns.
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 {
                dup2(null, 1)
                dup2(null, 2)
            }
            manager.defaultReached = false
            call()
            _exit(manager.defaultReached ? defaultReachedStatus : implementedStatus)
        }
        guard child > 0 else { return true }
        var status: Int32 = 0
        for _ in 0..<1000 {
            let done = waitpid(child, &status, WNOHANG)
            if done == child { return !(status & 0x7F == 0 && (status >> 8) & 0xFF == defaultReachedStatus) }
            if done < 0 { return true }
            usleep(1000)
        }
        // Still running: the app's own code is (a default returns at once).
        kill(child, SIGKILL)
        waitpid(child, &status, 0)
        return true
        #else
        return true
        #endif
    }
}
