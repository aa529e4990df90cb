import BLETraceCoreBluetooth
import Wire

/// The app as iOS runs it (Formats/corebluetooth.md, "The app's life"): the running process with
/// its managers, and what the system keeps for the app across processes. The engine's own part
/// of its state; `ReplayEngine+Lifecycle.swift` is what changes it.
struct AppProcess {
    /// The managers of the app's running process, in creation order.
    var managers: [CBManager] = []
    var centrals: [CBCentralManager] = []
    /// What makes an instance of the app, at launch and at each relaunch.
    var makeApp: (() -> any BluetoothApp)?
    /// The running process's app; nil while the app is not running.
    var app: (any BluetoothApp)? {
        didSet { isRunning = app != nil }
    }
    /// Whether the app has a process now (a flag: the hot path asks for every notification).
    private(set) var isRunning = false
    /// The app's `UserDefaults`, kept across its processes.
    let defaults = AppDefaults()
    /// What the system keeps for a terminated app, by restore identifier (Formats/corebluetooth.md,
    /// "The app's life").
    var preserved: [String: Preserved] = [:]
    var preservedServers: [String: PreservedServer] = [:]
    /// The central manager whose scan plays (a restored scan moves to the new process's manager).
    var scanOwner: CBCentralManager?
    /// The app was ended in a way iOS does not relaunch it after (a force quit; Bluetooth turned
    /// off while it was not running): the system relaunches it for nothing until the user opens it.
    var relaunchBlocked = false
    /// The device restarted and has not been unlocked since: nothing relaunches the app.
    var locked = false
    /// Bluetooth events that would have relaunched the app while the device was locked, in order.
    var heldWakes: [(peripheral: CBPeripheral, waking: String, deliver: (CBCentralManager) -> Void)] = []
    /// The scan in progress, if any: a new scan or a stop ends the old one's discoveries.
    var scanGeneration = 0
    /// When the running process was launched.
    var launchedAt = Timestamp(rawValue: 0)
}
