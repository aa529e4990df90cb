import BLETraceCoreBluetooth
import Flow
import Foundation
import Wire

// Scanning: the capture's advertising reports, at their times, to a scanning central.
extension ReplayEngine {
    public func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {
        record(.app(.scanForPeripherals), [.init(.services, services.map { list($0.map(\.uuidString)) } ?? "nil")])
        process.scanOwner = central
        playScan(services, options)
    }

    /// Plays the capture's advertising reports from now to the scan (a new one, or one the system
    /// keeps for a terminated app starting again when Bluetooth is back).
    func playScan(_ services: [CBUUID]?, _ options: [String: Any]?) {
        process.scanGeneration += 1
        let generation = process.scanGeneration
        let allowDuplicates = (options?[CBCentralManagerScanOptionAllowDuplicatesKey] as? Bool) ?? false
        let reports = cassette.discoveries(services: services?.map(\.bluetoothUUID), allowDuplicates: allowDuplicates, from: now)
        if reports.isEmpty {
            comments.append("divergence: scanForPeripherals: the capture has no advertising report after +\(formatSeconds(now.seconds(since: cassette.start))) for this scan")
        }
        scheduleDiscovery(0, of: reports, generation)
    }

    public func stopScan(for central: CBCentralManager) {
        record(.app(.stopScan))
        process.scanGeneration += 1
    }

    /// Plays the scan's reports one after the other (one scheduled at a time), until the scan ends.
    /// A scan the system keeps for a terminated app goes on, and a report it matches relaunches
    /// the app; the report then reaches the restored manager.
    private func scheduleDiscovery(
        _ index: Int, of reports: [(peer: BluetoothAddress, report: Cassette.AdvertisingReport)], _ generation: Int
    ) {
        guard index < reports.count else { return }
        let (address, report) = reports[index]
        scheduleSystem(at: report.time) { [unowned self] in
            guard generation == process.scanGeneration else { return }
            let data = advertisementData(of: address, report)
            if !process.isRunning {
                guard process.wakesForDiscovery(data, address) else { return scheduleDiscovery(index + 1, of: reports, generation) }
                return schedule(at: now) { [unowned self] in discover(address, report, data, generation, index, reports) }
            }
            discover(address, report, data, generation, index, reports)
        }
    }

    private func discover(
        _ address: BluetoothAddress, _ report: Cassette.AdvertisingReport, _ data: [String: Any], _ generation: Int, _ index: Int,
        _ reports: [(peer: BluetoothAddress, report: Cassette.AdvertisingReport)]
    ) {
        guard generation == process.scanGeneration else { return }
        defer { scheduleDiscovery(index + 1, of: reports, generation) }
        guard let central = process.scanOwner, process.centrals.contains(where: { $0 === central }) else { return }
        let peripheral = peripheral(for: address, central)
        // Written down before the delegate hears of it, so that its reactions follow in the flow.
        guard central.reports(peripheral, data) else { return }
        var arguments: [FlowRecord.Argument] = [.init(.peripheral, "\(address)"), .init(.rssi, "\(report.rssi.map { Int($0) } ?? 127)")]
        if let name = data[CBAdvertisementDataLocalNameKey] as? String {
            arguments.append(.init(.name, flowText(name)))
        }
        record(.central(.didDiscover, manager: number(central)), arguments)
        central.deliver(.discovered(peripheral, advertisementData: data, rssi: Int(report.rssi ?? 127)))
    }

    /// The advertisement data dictionary CoreBluetooth gives for a report.
    private func advertisementData(of address: BluetoothAddress, _ report: Cassette.AdvertisingReport) -> [String: Any] {
        guard let advertisement = cassette.peer(address)?.advertisement(of: report) else { return [:] }
        var data: [String: Any] = [CBAdvertisementDataIsConnectable: NSNumber(value: report.isConnectable)]
        if let name = advertisement.localName { data[CBAdvertisementDataLocalNameKey] = name }
        if !advertisement.serviceUUIDs.isEmpty { data[CBAdvertisementDataServiceUUIDsKey] = advertisement.serviceUUIDs.map(CBUUID.init(bluetoothUUID:)) }
        if let manufacturer = advertisement.manufacturerData { data[CBAdvertisementDataManufacturerDataKey] = Data(manufacturer) }
        if !advertisement.serviceData.isEmpty {
            var serviceData: [CBUUID: Data] = [:]
            for entry in advertisement.serviceData { serviceData[CBUUID(bluetoothUUID: entry.uuid)] = Data(entry.data) }
            data[CBAdvertisementDataServiceDataKey] = serviceData
        }
        if let power = advertisement.txPowerLevel { data[CBAdvertisementDataTxPowerLevelKey] = NSNumber(value: power) }
        return data
    }
}

extension ReplayEngine {
    /// A name as a flow argument: `%` and spaces escaped (Formats/flow.md).
    func flowText(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
    }
}
