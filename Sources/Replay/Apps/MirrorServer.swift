import ATT
import BLETraceCoreBluetooth
import Foundation
import Lifecycle
import Wire

/// The mirror's peripheral side, for a capture taken on a peripheral host: the captured app's
/// GATT server played again through `CBPeripheralManager`. It publishes the services the remote
/// centrals found in the capture (but Generic Access and Generic Attribute, which CoreBluetooth
/// keeps to itself), advertises them, answers each read and write as the capture's server
/// answered the same central's same request on the same characteristic (the n-th such request
/// gets the n-th answer, then the last), and sends the capture's notifications and indications
/// at their times to the centrals subscribed then. Its flow is what CoreBluetooth would have
/// told the captured peripheral app.
final class MirrorServer: NSObject, CBPeripheralManagerDelegate {
    private let cassette: Cassette
    private let launch: Launch
    private var manager: CBPeripheralManager?
    /// The capture's server requests by central, kind and value handle, in capture order.
    private var answers: [Key: [Cassette.Exchange]] = [:]
    private var used: [Key: Int] = [:]
    /// Published characteristics by value handle (once the system has given them their handles).
    private var characteristics: [UInt16: CBMutableCharacteristic] = [:]

    private struct Key: Hashable {
        var central: BluetoothAddress
        var write: Bool
        var handle: UInt16
    }

    private static let reads: Set<ATTOpcode> = [.readRequest, .readBlobRequest]
    private static let writes: Set<ATTOpcode> = [
        .writeRequest, .writeCommand, .signedWriteCommand, .prepareWriteRequest,
    ]

    init(cassette: Cassette, launch: Launch) {
        self.cassette = cassette
        self.launch = launch
        super.init()
        for link in cassette.links where link.hostRole == .peripheral {
            guard let central = link.peer ?? cassette.connections[link.connection].peer else { continue }
            for exchange in link.exchanges where exchange.sender != .host {
                guard let handle = exchange.handle,
                    Self.reads.contains(exchange.opcode) || Self.writes.contains(exchange.opcode)
                else { continue }
                answers[
                    Key(central: central, write: Self.writes.contains(exchange.opcode), handle: handle), default: []
                ].append(exchange)
            }
        }
        manager = CBPeripheralManager(delegate: self, queue: nil)
    }

    /// Whether `cassette` was taken on a peripheral host (remote centrals used its server).
    static func isNeeded(for cassette: Cassette) -> Bool {
        cassette.links.contains { $0.hostRole == .peripheral }
    }

    /// The services the capture's remote centrals discovered, by start handle.
    private var capturedServices: [GATTDatabase.Service] {
        var services: [UInt16: GATTDatabase.Service] = [:]
        for link in cassette.links where link.hostRole == .peripheral {
            let central = link.peer ?? cassette.connections[link.connection].peer
            for service in (link.localDatabase ?? central.flatMap { cassette.peer($0)?.localDatabase })?.services ?? []
            where services[service.handle] == nil {
                services[service.handle] = service
            }
        }
        return services.values.sorted { $0.handle < $1.handle }
            .filter { !$0.uuid.isStackService }
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let services = capturedServices.map { captured in
            let service = CBMutableService(type: CBUUID(bluetoothUUID: captured.uuid), primary: captured.isPrimary)
            service.characteristics = captured.characteristics.map {
                CBMutableCharacteristic(
                    type: CBUUID(bluetoothUUID: $0.uuid),
                    properties: CBCharacteristicProperties(rawValue: UInt($0.properties.rawValue)),
                    value: nil, permissions: [.readable, .writeable])
            }
            return service
        }
        for service in services { peripheral.add(service) }
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: services.map(\.uuid)])
        scheduleNotifications()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        for case let characteristic as CBMutableCharacteristic in service.characteristics ?? [] {
            characteristics[characteristic.valueHandle] = characteristic
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard let exchange = next(for: request, write: false) else {
            return peripheral.respond(to: request, withResult: .unlikelyError)
        }
        if let error = exchange.answer?.error {
            return peripheral.respond(
                to: request, withResult: CBATTError.Code(rawValue: Int(error.rawValue)) ?? .unlikelyError)
        }
        request.value = Data(exchange.answer?.value ?? [])
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        // One answer for the whole group, through its first request (CoreBluetooth's rule).
        let exchanges = requests.map { next(for: $0, write: true) }
        guard let first = requests.first, let exchange = exchanges.first ?? nil else {
            return requests.first.map { peripheral.respond(to: $0, withResult: .unlikelyError) } ?? ()
        }
        // no answer to give
        guard exchange.opcode != .writeCommand, exchange.opcode != .signedWriteCommand else { return }
        let result = exchanges.lazy.compactMap { $0?.answer?.error }.first
        peripheral.respond(
            to: first,
            withResult: result.map { CBATTError.Code(rawValue: Int($0.rawValue)) ?? .unlikelyError } ?? .success)
    }

    /// The capture's answer to the same central's next request of this kind on this characteristic.
    private func next(for request: CBATTRequest, write: Bool) -> Cassette.Exchange? {
        guard let central = request.central.address else { return nil }
        let key = Key(central: central, write: write, handle: request.characteristic.valueHandle)
        guard let all = answers[key], !all.isEmpty else { return nil }
        let index = used[key, default: 0]
        used[key] = index + 1
        return all[min(index, all.count - 1)]
    }

    /// The capture's own notifications and indications, at their times, to the centrals that are
    /// subscribed then.
    private func scheduleNotifications() {
        for link in cassette.links where link.hostRole == .peripheral {
            guard let central = link.peer ?? cassette.connections[link.connection].peer else { continue }
            for event in link.notifications where event.sender == .host {
                launch.asyncAfter(max(0, event.time.seconds(since: cassette.start))) { [weak self] in
                    self?.send(event, to: central)
                }
            }
        }
    }

    private func send(_ event: Cassette.ValueEvent, to address: BluetoothAddress) {
        guard let manager, let characteristic = characteristics[event.handle],
            let central = characteristic.subscribedCentrals?.first(where: { $0.address == address })
        else { return }
        _ = manager.updateValue(Data(event.value), for: characteristic, onSubscribedCentrals: [central])
    }
}
