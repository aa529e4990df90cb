import BLETraceCoreBluetooth
import Flow
import Foundation
import Wire

/// Scanning: the capture's advertising reports, at their times, to a scanning central. A part of
/// the engine (``ReplayEngine``): the engine's `BluetoothSystem` methods for scans forward to it.
/// Which scan plays, and for which manager, is the app's process's to say (`AppProcess`): its
/// life ends scans, keeps one for a terminated app and starts it again.
final class ScanPlayback {
    let cassette: Cassette
    /// The engine running the replay: what this part uses of it (`ReplayContext`). Unowned: the
    /// engine owns its parts and outlives them; set once, as the engine finishes its own
    /// initialization.
    unowned var replay: (any ReplayContext)!
    /// The app's process: its scan, and whether a report wakes it.
    unowned let process: AppProcess
    /// The links, which give the app the peripheral objects it discovers.
    unowned let links: Links

    init(cassette: Cassette, process: AppProcess, links: Links) {
        self.cassette = cassette
        self.process = process
        self.links = links
    }

    private var now: Timestamp { replay.now }

    func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {
        replay.record(
            .app(.scanForPeripherals), [.init(.services, services.map { list($0.map(\.uuidString)) } ?? "nil")])
        play(services, options, for: central)
    }

    /// Plays the capture's advertising reports from now to the scan: a new one of `central`, or,
    /// with none, the one the system keeps for a terminated app starting again when Bluetooth is
    /// back.
    func play(_ services: [CBUUID]?, _ options: [String: Any]?, for central: CBCentralManager? = nil) {
        let generation = process.startScan(of: central)
        let allowDuplicates = (options?[CBCentralManagerScanOptionAllowDuplicatesKey] as? Bool) ?? false
        let reports = cassette.discoveries(
            services: services?.map(\.bluetoothUUID), allowDuplicates: allowDuplicates, from: now)
        if reports.isEmpty {
            replay.comment(
                "divergence: scanForPeripherals: the capture has no advertising report after \(Wording.sinceStart(seconds: now.seconds(since: cassette.origin))) for this scan"
            )
        }
        scheduleDiscovery(0, of: reports, generation)
    }

    func stopScan(for central: CBCentralManager) {
        replay.record(.app(.stopScan), [])
        process.endScan()
    }

    /// Plays the scan's reports one after the other (one scheduled at a time), until the scan ends.
    /// A scan the system keeps for a terminated app goes on, and a report it matches relaunches
    /// the app; the report then reaches the restored manager.
    private func scheduleDiscovery(
        _ index: Int, of reports: [(peer: BluetoothAddress, report: Cassette.AdvertisingReport)], _ generation: Int
    ) {
        guard index < reports.count else { return }
        let (address, report) = reports[index]
        replay.scheduleSystem(at: report.time) { [unowned self] in
            guard process.isScanning(generation) else { return }
            let data = advertisementData(of: address, report)
            if !process.isRunning {
                guard process.wakesForDiscovery(data, address) else {
                    return scheduleDiscovery(index + 1, of: reports, generation)
                }
                return replay.schedule(at: now) { [unowned self] in
                    discover(address, report, data, generation, index, reports)
                }
            }
            discover(address, report, data, generation, index, reports)
        }
    }

    private func discover(
        _ address: BluetoothAddress, _ report: Cassette.AdvertisingReport, _ data: [String: Any], _ generation: Int,
        _ index: Int,
        _ reports: [(peer: BluetoothAddress, report: Cassette.AdvertisingReport)]
    ) {
        guard process.isScanning(generation) else { return }
        defer { scheduleDiscovery(index + 1, of: reports, generation) }
        guard let central = process.scanningCentral, process.discovers(address, by: central) else { return }
        let peripheral = links.peripheral(for: address, central)
        // Written down before the delegate hears of it, so that its reactions follow in the flow.
        guard central.reports(peripheral, data) else { return }
        var arguments: [FlowRecord.Argument] = [
            .init(.peripheral, "\(address)"), .init(.rssi, "\(report.rssi.map { Int($0) } ?? 127)"),
        ]
        if let name = data[CBAdvertisementDataLocalNameKey] as? String {
            arguments.append(.init(.name, flowText(name)))
        }
        replay.record(.central(.didDiscover, manager: replay.number(central)), arguments)
        central.deliver(.discovered(peripheral, advertisementData: data, rssi: Int(report.rssi ?? 127)))
    }

    /// The advertisement data dictionary CoreBluetooth gives for a report.
    private func advertisementData(of address: BluetoothAddress, _ report: Cassette.AdvertisingReport) -> [String: Any]
    {
        guard let advertisement = cassette.peer(address)?.advertisement(of: report) else { return [:] }
        var data: [String: Any] = [CBAdvertisementDataIsConnectable: NSNumber(value: report.isConnectable)]
        if let name = advertisement.localName { data[CBAdvertisementDataLocalNameKey] = name }
        if !advertisement.serviceUUIDs.isEmpty {
            data[CBAdvertisementDataServiceUUIDsKey] = advertisement.serviceUUIDs.map(CBUUID.init(bluetoothUUID:))
        }
        if let manufacturer = advertisement.manufacturerData {
            data[CBAdvertisementDataManufacturerDataKey] = Data(manufacturer)
        }
        if !advertisement.serviceData.isEmpty {
            var serviceData: [CBUUID: Data] = [:]
            for entry in advertisement.serviceData { serviceData[CBUUID(bluetoothUUID: entry.uuid)] = Data(entry.data) }
            data[CBAdvertisementDataServiceDataKey] = serviceData
        }
        if let power = advertisement.txPowerLevel { data[CBAdvertisementDataTxPowerLevelKey] = NSNumber(value: power) }
        return data
    }
}

/// A name as a flow argument: `%` and spaces escaped (Formats/flow.md).
func flowText(_ text: String) -> String {
    text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
}
