import Dispatch
import Foundation

/// The system of a manager created outside any replay or test: a machine with no Bluetooth.
/// The manager is told `.unsupported` on its queue (main when none was given), as on such a
/// machine; every request is then refused by the manager itself, so none reaches this system.
final class UnsupportedSystem: BluetoothSystem {
    var authorization: CBManagerAuthorization { .allowedAlways }
    private var queue: DispatchQueue

    init(queue: DispatchQueue? = nil) { self.queue = queue ?? .main }

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

    func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {}
    func stopScan(for central: CBCentralManager) {}
    func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager) {}
    func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {}
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral] { [] }
    func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral] { [] }
    func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager) {}
    func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {}
    func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool { false }
    func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error) {}
    func readRSSI(of peripheral: CBPeripheral) {}
    func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) {}
    func add(_ service: CBMutableService, for manager: CBPeripheralManager) {}
    func remove(_ service: CBMutableService, for manager: CBPeripheralManager) {}
    func removeAllServices(for manager: CBPeripheralManager) {}
    func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {}
    func stopAdvertising(for manager: CBPeripheralManager) {}
    func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager) {}
    func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool { false }
    func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager) {}
    func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {}
    func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {}
}
