import BLETraceCoreBluetooth
import Wire

/// The app's peripherals as the engine plays them: the objects the app was given, its connection
/// attempts, and the capture's connection each connected peripheral is playing.
struct Connections {
    /// Peripheral objects the app was given and still holds (weakly, as iOS: an object the app
    /// lets go of while connected ends its connection), for termination and the end-of-capture
    /// summary.
    var given = GivenPeripherals()
    /// Peripherals the app asked to connect at least once: the end of the capture names their
    /// state, and that of any not disconnected then (restored ones), not that of every advertiser
    /// a scan gave the app.
    var connectRequested: Set<BluetoothAddress> = []
    /// The connection each connected peripheral of the app is playing, with what the app did on it.
    var links: [BluetoothAddress: LinkPlayback] = [:] {
        didSet { linksVersion &+= 1 }
    }
    /// Changes each time a link starts or ends (not when a link's own state changes): a closure
    /// that plays a link's notifications keeps its lookup while this stays the same.
    private(set) var linksVersion = 0
    /// Index of the next unused episode per peer.
    var cursor: [BluetoothAddress: Int] = [:]
    /// Peers with a connection attempt of the app in progress.
    var attempts: Set<BluetoothAddress> = []
    /// Peripherals the app connected with `CBConnectPeripheralOptionEnableAutoReconnect`: after a
    /// disconnection the system connects again by itself (iOS 17), until the app cancels.
    var autoReconnect: Set<BluetoothAddress> = []
    /// Where the search for the connection that completes each attempt started: an attempt
    /// Bluetooth interrupted (``rewindAttempt(_:)``) searches again from there.
    var attemptFrom: [BluetoothAddress: Int] = [:]
}
