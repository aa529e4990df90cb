// Formats/porting.md, "A launch is a new process": the shared instance is set by each launch, so
// a second launch in the same process gets a manager of its own.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

final class BluetoothService: NSObject, CBCentralManagerDelegate {
    /// Set at each launch, by the app's launch code.
    nonisolated(unsafe) static var shared: BluetoothService?
    private(set) var central: CBCentralManager!
    override init() {
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
}

@Suite struct StatePerLaunchTests {
    /// What `didFinishLaunching` does.
    func launch() { BluetoothService.shared = BluetoothService() }

    @Test func eachLaunchMakesItsOwnManager() throws {
        launch()
        let first = try #require(BluetoothService.shared?.central)
        launch()
        let second = try #require(BluetoothService.shared?.central)
        #expect(first !== second)
        BluetoothService.shared = nil
    }
}
