// Formats/porting.md, "@objc and #selector": NotificationCenter with a closure and a token.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

extension Notification.Name {
    static let sensorDidConnect = Notification.Name("SensorDidConnect")
}

@MainActor
final class ConnectionBanner {
    private let center: NotificationCenter
    private var observer: NSObjectProtocol?
    private(set) var shown: [String] = []

    init(center: NotificationCenter = .default) {
        self.center = center
        // With no queue the block runs on the posting thread: the app posts on the main actor.
        observer = center.addObserver(forName: .sensorDidConnect, object: nil, queue: nil) { [weak self] note in
            let name = note.userInfo?["name"] as? String ?? "sensor"
            MainActor.assumeIsolated { self?.show(name) }
        }
    }

    func stop() {
        if let observer { center.removeObserver(observer) }
        observer = nil
    }

    private func show(_ name: String) { shown.append(name) }
}

@Suite struct NotificationsWithoutSelectorsTests {
    @MainActor
    @Test func theClosureObserverGetsThePostedNotification() {
        let center = NotificationCenter()
        let banner = ConnectionBanner(center: center)
        center.post(name: .sensorDidConnect, object: nil, userInfo: ["name": "Strap"])
        banner.stop()
        center.post(name: .sensorDidConnect, object: nil, userInfo: ["name": "Other"])
        #expect(banner.shown == ["Strap"])
    }
}
