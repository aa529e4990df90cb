import BLETrace
import HeartRateKit

/// The heart-rate monitor as an app a replay launches: at launch (and at each relaunch) it
/// starts the monitor, as the app's `application(_:didFinishLaunchingWithOptions:)` does.
public final class HeartRateApp: BluetoothApp, Launchable {
    public static var appName: String { "HeartRateMonitor" }
    public static var summary: String { "the example app's heart-rate monitor (Examples/HeartRateMonitor)" }

    /// The monitor of this process; a test reads what it measured and the errors it got.
    public let monitor: HeartRateMonitor

    public init() { monitor = HeartRateMonitor() }
    public init(monitor: HeartRateMonitor) { self.monitor = monitor }

    public func didFinishLaunching(_ launch: Launch) {
        monitor.start(knownSensor: launch.knownPeripherals.first)
    }
}
