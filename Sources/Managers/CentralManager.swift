import CoreBluetoothCodes
import Dispatch
import Foundation

/// The central role's manager (`CBCentralManager`).
///
/// The app calls it as it would call CoreBluetooth; the system it was created with answers
/// through ``deliver(_:)``, which updates state and calls the delegate. Callbacks arrive on the
/// thread that runs the system (a replay runs on one thread), whatever `queue` says.
public final class CentralManager {
    /// Something the system tells the app.
    public enum Event {
        case stateUpdated(CBManagerState)
        case connected(Peripheral)
        case failedToConnect(Peripheral, error: CBError?)
        case disconnected(Peripheral, error: CBError?)
    }

    public weak var delegate: (any CentralManagerDelegate)?
    public private(set) var state: CBManagerState = .unknown
    /// The restore identifier the app opted into restoration with, if any
    /// (`CBCentralManagerOptionRestoreIdentifierKey`).
    public let restoreIdentifier: String?
    public let system: any BluetoothSystem

    /// `CBCentralManager(delegate:queue:options:)`, with the system to talk to.
    public init(
        delegate: (any CentralManagerDelegate)?, queue: DispatchQueue? = nil,
        options: [String: Any]? = nil, system: any BluetoothSystem
    ) {
        self.delegate = delegate
        self.restoreIdentifier = options?[CentralManagerOption.restoreIdentifierKey] as? String
        self.system = system
        system.register(self)
    }

    public func connect(_ peripheral: Peripheral, options: [String: Any]? = nil) {
        if peripheral.state == .disconnected { peripheral.state = .connecting }
        system.connect(peripheral, from: self)
    }

    public func cancelPeripheralConnection(_ peripheral: Peripheral) {
        if peripheral.state != .disconnected { peripheral.state = .disconnecting }
        system.cancelPeripheralConnection(peripheral, from: self)
    }

    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [Peripheral] {
        system.retrievePeripherals(withIdentifiers: identifiers, for: self)
    }

    /// Called by the system: applies the event to the manager's and the peripheral's state, then
    /// tells the delegate.
    public func deliver(_ event: Event) {
        switch event {
        case .stateUpdated(let newState):
            state = newState
            delegate?.centralManagerDidUpdateState(self)
        case .connected(let peripheral):
            peripheral.state = .connected
            delegate?.centralManager(self, didConnect: peripheral)
        case .failedToConnect(let peripheral, let error):
            peripheral.state = .disconnected
            delegate?.centralManager(self, didFailToConnect: peripheral, error: error)
        case .disconnected(let peripheral, let error):
            peripheral.state = .disconnected
            delegate?.centralManager(self, didDisconnectPeripheral: peripheral, error: error)
        }
    }
}

/// Keys of the options dictionary of ``CentralManager``'s initialiser, with CoreBluetooth's values.
public enum CentralManagerOption {
    public static let restoreIdentifierKey = "kCBInitOptionRestoreIdentifier"
    public static let showPowerAlertKey = "kCBInitOptionShowPowerAlert"
}
