import BLETraceCoreBluetooth
import Foundation
import Wire

/// A test double of the system: it writes down every request of the managers, answers nothing by
/// itself, and runs the answers a test scripts (and the managers' own `later` answers) when the
/// test calls ``flush()``, as a system answers after the app's call returns.
final class ScriptedSystem: BluetoothSystem {
    var calls: [String] = []
    var misuses: [String] = []
    /// The rules of the crashes the managers reported, in order.
    var crashes: [String] = []
    var authorization: CBManagerAuthorization = .allowedAlways
    /// The state each new manager is told, with the restoration dictionary if any.
    var initialState: CBManagerState = .poweredOn
    var restoredState: [String: Any]?
    /// How many more Write Commands (and notifications) fit before the queue is full.
    var writeRoom = Int.max
    var updateRoom = Int.max
    /// Peers the system knows, by address.
    var known: [BluetoothAddress] = []
    /// GATT requests the managers passed on, in order, with their peripheral.
    private(set) var requests: [(GATTRequest, CBPeripheral)] = []
    private var pending: [() -> Void] = []
    /// The managers created with this system, and the services added to it.
    private(set) var centrals: [CBCentralManager] = []
    private(set) var peripheralManagers: [CBPeripheralManager] = []
    private(set) var added: [CBMutableService] = []

    func managerDidInit(_ manager: CBManager) {
        calls.append("init \(type(of: manager))")
        if let central = manager as? CBCentralManager { centrals.append(central) }
        if let peripheralManager = manager as? CBPeripheralManager { peripheralManagers.append(peripheralManager) }
        let state = initialState
        let restored = restoredState
        later {
            switch manager {
            case let central as CBCentralManager: central.deliver(.stateUpdated(state, restoredState: restored))
            case let peripheralManager as CBPeripheralManager:
                peripheralManager.deliver(.stateUpdated(state, restoredState: restored))
            default: break
            }
        }
    }

    func apiMisuse(_ message: String, by manager: CBManager) { misuses.append(message) }
    /// Porting warnings the managers gave, in order.
    var warnings: [String] = []
    func portingWarning(_ message: String, by manager: CBManager) { warnings.append(message) }
    func appCrashed(_ rule: String, _ message: String, by manager: CBManager?) { crashes.append(rule) }
    func later(_ action: @escaping () -> Void) { pending.append(action) }

    /// Runs every answer waiting, including those the answers schedule.
    func flush() {
        while !pending.isEmpty { pending.removeFirst()() }
    }

    /// Schedules `event` for `central` (delivered at the next ``flush()``).
    func send(_ event: CBCentralManager.Event, to central: CBCentralManager) { later { central.deliver(event) } }
    func send(_ event: CBPeripheral.Event, to peripheral: CBPeripheral) { later { peripheral.deliver(event) } }
    func send(_ event: CBPeripheralManager.Event, to manager: CBPeripheralManager) { later { manager.deliver(event) } }

    /// Answers the oldest request still with the system.
    func answer(_ response: GATTResponse) {
        let (_, peripheral) = requests.removeFirst()
        send(.completed(response), to: peripheral)
    }

    var requestNames: [String] { requests.map { $0.0.methodName } }

    func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {
        calls.append("scan \(services.map { $0.map(\.uuidString).joined(separator: ",") } ?? "all")")
    }
    func stopScan(for central: CBCentralManager) { calls.append("stopScan") }
    func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager) {
        calls.append("connect \(peripheral.address!)")
    }
    func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {
        calls.append("cancel \(peripheral.address!)")
    }
    func connectRefused(
        _ peripheral: CBPeripheral, options: [String: Any]?, error: any Error, for central: CBCentralManager
    ) {
        calls.append("connectRefused \(peripheral.address!)")
    }
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral] {
        identifiers.compactMap { identifier in
            known.first { CBPeer.identifier(for: $0) == identifier }
                .map { central.peripheral(identifier: identifier, address: $0) }
        }
    }
    func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral]
    {
        calls.append("retrieveConnected \(services.map(\.uuidString).joined(separator: ","))")
        return []
    }
    func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager) {
        calls.append("registerForConnectionEvents")
    }
    func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {
        calls.append("perform \(request.methodName)")
        requests.append((request, peripheral))
    }
    func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool
    {
        calls.append("writeWithoutResponse \(characteristic.uuid.uuidString) \(value.count)")
        writeRoom -= 1
        return writeRoom > 0
    }
    func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error) {
        calls.append("failed \(request.methodName) \(error)")
    }
    func readRSSI(of peripheral: CBPeripheral) { calls.append("readRSSI") }
    func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) { calls.append("openL2CAPChannel \(psm)") }
    func add(_ service: CBMutableService, for manager: CBPeripheralManager) {
        calls.append("add \(service.uuid.uuidString)")
        added.append(service)
    }
    func remove(_ service: CBMutableService, for manager: CBPeripheralManager) {
        calls.append("remove \(service.uuid.uuidString)")
    }
    func removeAllServices(for manager: CBPeripheralManager) { calls.append("removeAllServices") }
    func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {
        calls.append("startAdvertising \((advertisementData ?? [:]).keys.sorted().joined(separator: ","))")
    }
    func stopAdvertising(for manager: CBPeripheralManager) { calls.append("stopAdvertising") }
    func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager) {
        calls.append("respond \(result) \(request.value.map { [UInt8]($0) } ?? [])")
    }
    func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool {
        guard updateRoom > 0 else { return false }
        updateRoom -= 1
        calls.append("updateValue \(characteristic.uuid.uuidString) \([UInt8](value))")
        return true
    }
    func setDesiredConnectionLatency(
        _ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager
    ) {
        calls.append("latency \(latency.rawValue)")
    }
    func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {
        calls.append("publishL2CAPChannel \(encryptionRequired)")
    }
    func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {
        calls.append("unpublishL2CAPChannel \(psm)")
    }
}

extension BluetoothAddress {
    static let peerA = BluetoothAddress("F0:F1:F2:F3:F4:05")!
    static let peerB = BluetoothAddress("C0:C1:C2:C3:C4:C5")!
}

/// A central manager created in `system`'s context, powered on and flushed.
func poweredOnCentral(_ system: ScriptedSystem, delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue? = nil)
    -> CBCentralManager
{
    let central = BluetoothSystemContext.with(system) { CBCentralManager(delegate: delegate, queue: queue) }
    system.flush()
    return central
}

/// A connected peripheral of `central`, with `delegate`.
func connectedPeripheral(
    _ system: ScriptedSystem, _ central: CBCentralManager, delegate: (any CBPeripheralDelegate)?,
    address: BluetoothAddress = .peerA
) -> CBPeripheral {
    let peripheral = central.peripheral(identifier: CBPeer.identifier(for: address), address: address)
    peripheral.delegate = delegate
    central.connect(peripheral)
    system.send(.connected(peripheral), to: central)
    system.flush()
    return peripheral
}

/// Heart Rate service 0x000C-0x0012: Measurement (notify) at 0x000E with its CCCD at 0x000F, Body
/// Sensor Location (read) at 0x0011; Battery service 0x0013-0x0015 with Battery Level (read, notify).
let heartRate = ServiceDefinition(uuid: CBUUID(string: "180D"), handles: 0x000C...0x0012)
let battery = ServiceDefinition(uuid: CBUUID(string: "180F"), handles: 0x0013...0x0015)
let measurement = CharacteristicDefinition(
    uuid: CBUUID(string: "2A37"), properties: [.notify], declarationHandle: 0x000D, valueHandle: 0x000E)
let location = CharacteristicDefinition(
    uuid: CBUUID(string: "2A38"), properties: [.read, .writeWithoutResponse, .write], declarationHandle: 0x0010,
    valueHandle: 0x0011)
let cccd = DescriptorDefinition(uuid: CBUUID(string: "2902"), handle: 0x000F)
