import BLETraceCoreBluetooth
import Foundation

/// An app under test, written as for CoreBluetooth: it creates its managers at launch
/// (`CBCentralManager(delegate:queue:options:)`, with no system argument: the replay running the
/// app is found from context) and reacts in their delegates.
///
/// A replay runs the app as iOS runs a process: it makes an instance at launch and a new one at
/// each relaunch after a termination (``ReplayEngine/run(name:launching:)``); nothing of the old
/// instance survives but what it kept in ``Launch/defaults``.
public protocol BluetoothApp: AnyObject {
    /// `application(_:didFinishLaunchingWithOptions:)`: create the managers here (again, with
    /// their restore identifiers, when ``Launch/options`` names them).
    func didFinishLaunching(_ launch: Launch)
}

/// An app type a replay can launch by itself: it has an initialiser without arguments
/// (`BLETraceTesting`'s `ReplayCapture.replay(_:)`, `BletraceCommand.main(apps:)`).
public protocol Launchable: AnyObject, SendableMetatype {
    init()
    /// The name `system launch app=` and `bletrace replay --app` give it (default: the type's name).
    static var appName: String { get }
    /// One line on what it does, for `bletrace replay --list-apps` (default: none).
    static var summary: String { get }
}

extension Launchable {
    public static var appName: String { String(describing: self) }
    public static var summary: String { "" }
}

/// What an app is given at launch.
public struct Launch {
    /// Identifiers of peripherals the app knew before this run (as apps keep them from a
    /// previous session): the peers the capture's central connected to, in order.
    public let knownPeripherals: [UUID]
    /// Runs `action` after `seconds` of capture time, as `DispatchQueue.main.asyncAfter` would:
    /// for the app's own timers (a connection watchdog, a retry delay, a request timeout).
    public let asyncAfter: (_ seconds: Double, _ action: @escaping () -> Void) -> Void
    /// The capture's clock, for code that takes an injected `Clock<Duration>`: sleeps on it end
    /// at capture time (at once in wall time, in a virtual replay).
    public var clock: any Clock<Duration> { replayClock.handOut() }
    /// `launchOptions`: nil when the user launched the app; when the system relaunched it for a
    /// Bluetooth event, the restore identifiers of the managers to create again
    /// (``OptionsKey/bluetoothCentrals``, ``OptionsKey/bluetoothPeripherals``).
    public let options: [OptionsKey: Any]?
    /// The app's `UserDefaults`: what it keeps there survives a termination (nothing else does).
    public let defaults: AppDefaults

    /// `UIApplication.LaunchOptionsKey`'s Bluetooth keys.
    public struct OptionsKey: Hashable, Sendable, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `[String]`: restore identifiers of the central managers the system kept state for.
        public static let bluetoothCentrals = OptionsKey(rawValue: "UIApplicationLaunchOptionsBluetoothCentralsKey")
        /// `[String]`: restore identifiers of the peripheral managers the system kept state for.
        public static let bluetoothPeripherals = OptionsKey(
            rawValue: "UIApplicationLaunchOptionsBluetoothPeripheralsKey")
    }

    let replayClock: ReplayClock

    package init(
        knownPeripherals: [UUID], asyncAfter: @escaping (_ seconds: Double, _ action: @escaping () -> Void) -> Void,
        clock: ReplayClock, options: [OptionsKey: Any]? = nil, defaults: AppDefaults = AppDefaults()
    ) {
        self.knownPeripherals = knownPeripherals
        self.asyncAfter = asyncAfter
        self.replayClock = clock
        self.options = options
        self.defaults = defaults
    }
}

/// A small `UserDefaults`: property-list values by key, kept by the replay across the app's
/// terminations and relaunches (as iOS keeps an app's defaults on disk).
public final class AppDefaults {
    private var values: [String: Any] = [:]

    public init() {}

    public func set(_ value: Any?, forKey key: String) { values[key] = value }
    public func removeObject(forKey key: String) { values[key] = nil }
    public func object(forKey key: String) -> Any? { values[key] }
    public func string(forKey key: String) -> String? { values[key] as? String }
    public func stringArray(forKey key: String) -> [String]? { values[key] as? [String] }
    public func data(forKey key: String) -> Data? { values[key] as? Data }
    public func bool(forKey key: String) -> Bool { values[key] as? Bool ?? false }
    public func integer(forKey key: String) -> Int { values[key] as? Int ?? 0 }
    public func double(forKey key: String) -> Double { values[key] as? Double ?? 0 }
    /// The keys set, sorted.
    public var keys: [String] { values.keys.sorted() }
}
