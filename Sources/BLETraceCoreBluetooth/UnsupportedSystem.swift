import Dispatch
import Foundation

/// The system of a manager created outside any replay or test: a machine with no Bluetooth.
/// The manager is told `.unsupported` on its queue (main when none was given), as on such a
/// machine; every request is then refused by the manager itself, so none reaches this system.
///
/// A manager whose system ended (``CBManager/detachFromSystem()``: its replay finished, or its app
/// process was terminated) talks to one made with `detached`: when code run by another system
/// uses it (a singleton that kept the manager of an earlier launch), that system is told, as a
/// porting warning (Formats/porting.md, "A launch is a new process").
final class UnsupportedSystem: BluetoothSystem {
    var authorization: CBManagerAuthorization { .allowedAlways }
    private var queue: DispatchQueue
    /// The system of the manager ended: it is a manager of an earlier launch.
    private let detached: Bool
    /// The system that still hears of the manager's released peripherals
    /// (``CBManager/detachFromProcess()``), until it ends.
    private let releasesTo: (any BluetoothSystem)?
    var isForwarding: Bool { releasesTo != nil }

    init(queue: DispatchQueue? = nil, detached: Bool = false, releasesTo: (any BluetoothSystem)? = nil) {
        self.queue = queue ?? .main
        self.detached = detached
        self.releasesTo = releasesTo
    }

    func peripheralReleased(_ peripheral: ReleasedPeripheral, by central: CBCentralManager) {
        releasesTo?.peripheralReleased(peripheral, by: central)
    }

    /// A manager of an earlier launch was asked for `call`: the system running the calling code,
    /// if any, hears of it.
    private func used(_ manager: CBManager?, _ call: String) {
        guard detached, let manager, let running = BluetoothSystemContext.current, running !== self else { return }
        let kind = manager is CBCentralManager ? "central manager" : "peripheral manager"
        running.portingWarning(
            "a \(kind) of an earlier launch was used (\(call)): iOS starts each launch as a new process, in which no object of an earlier one exists; here it talks to no system and nothing it asks for happens. Keep the managers in what the launch creates, not in a static or a shared instance (Formats/porting.md, \"A launch is a new process\")",
            by: manager)
    }

    func managerDidInit(_ manager: CBManager) {
        queue = manager.queue ?? .main
        later { [weak manager] in
            switch manager {
            case let central as CBCentralManager: central.deliver(.stateUpdated(.unsupported))
            case let peripheralManager as CBPeripheralManager: peripheralManager.deliver(.stateUpdated(.unsupported))
            default: break
            }
        }
    }

    func apiMisuse(_ message: String, by manager: CBManager) {}
    func later(_ action: @escaping () -> Void) {
        // The managers, like CoreBluetooth's, belong to their queue; the action runs there only.
        nonisolated(unsafe) let action = action
        queue.async { action() }
    }

    func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {
        used(central, "scanForPeripherals")
    }
    func stopScan(for central: CBCentralManager) {}
    func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager) {
        used(central, "connect")
    }
    func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {
        used(central, "cancelPeripheralConnection")
    }
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral] {
        used(central, "retrievePeripherals")
        return []
    }
    func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral]
    {
        used(central, "retrieveConnectedPeripherals")
        return []
    }
    func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager) {}
    func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {
        used(peripheral.centralManager, request.methodName)
    }
    func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool
    {
        used(peripheral.centralManager, "writeValue")
        return false
    }
    func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error) {}
    func readRSSI(of peripheral: CBPeripheral) {}
    func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) {}
    func add(_ service: CBMutableService, for manager: CBPeripheralManager) { used(manager, "add") }
    func remove(_ service: CBMutableService, for manager: CBPeripheralManager) {}
    func removeAllServices(for manager: CBPeripheralManager) {}
    func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {
        used(manager, "startAdvertising")
    }
    func stopAdvertising(for manager: CBPeripheralManager) {}
    func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager) {}
    func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool {
        used(manager, "updateValue")
        return false
    }
    func setDesiredConnectionLatency(
        _ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager
    ) {}
    func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {}
    func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {}
}
