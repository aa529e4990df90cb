// Formats/porting.md, "UIKit lifecycle notifications": the observer behind `canImport(UIKit)`,
// the reaction a plain method that tests (and the Linux replay) call.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
#if canImport(UIKit)
import UIKit
#endif
import Testing

final class BackgroundPolicy {
    private var observers: [NSObjectProtocol] = []
    private(set) var scanningInForeground = true

    init() {
        #if canImport(UIKit)
        let center = NotificationCenter.default
        observers.append(
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) {
                [weak self] _ in
                self?.appDidEnterBackground()
            })
        observers.append(
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) {
                [weak self] _ in
                self?.appWillEnterForeground()
            })
        #endif
    }

    func appDidEnterBackground() { scanningInForeground = false }
    func appWillEnterForeground() { scanningInForeground = true }
}

@Suite struct AppLifecycleWithoutUIKitTests {
    @Test func theReactionsAreCalledDirectlyWhereUIKitIsMissing() {
        let policy = BackgroundPolicy()
        policy.appDidEnterBackground()
        #expect(!policy.scanningInForeground)
        policy.appWillEnterForeground()
        #expect(policy.scanningInForeground)
    }
}
