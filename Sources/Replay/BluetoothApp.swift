import BLETraceCoreBluetooth
import Foundation

/// An app under test, written as for CoreBluetooth: it creates its managers at launch
/// (`CBCentralManager(delegate:queue:options:)`, with no system argument: the replay running the
/// app is found from context) and reacts in their delegates.
public protocol BluetoothApp: AnyObject {
    /// `application(_:didFinishLaunchingWithOptions:)`: create the managers here.
    func didFinishLaunching(_ launch: Launch)
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

    let replayClock: ReplayClock

    public init(
        knownPeripherals: [UUID], asyncAfter: @escaping (_ seconds: Double, _ action: @escaping () -> Void) -> Void,
        clock: ReplayClock
    ) {
        self.knownPeripherals = knownPeripherals
        self.asyncAfter = asyncAfter
        self.replayClock = clock
    }
}
