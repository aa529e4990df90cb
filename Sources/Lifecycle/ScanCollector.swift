import ATT
import HCI
import TraceFiles
import Wire

/// One scan: from LE Set (Extended) Scan Enable on to off, with every device it heard.
public struct Scan: Hashable, Sendable, Codable {
    public var id: Int
    public var startTime: Timestamp?
    public var stopTime: Timestamp?
    /// The scan was on before the capture began (reports with no enable in the capture).
    public var beganBeforeCapture = false
    public var extended = false
    /// Active scanning asks for scan responses.
    public var active: Bool?
    /// In units of 0.625 ms.
    public var interval: UInt16?
    public var window: UInt16?
    public var filterDuplicates: Bool?
    public var reports = 0
    /// Devices heard, in order of first report.
    public var devices: [Device] = []

    /// A device heard while scanning: its address, name, services and whether it was connectable.
    public struct Device: Hashable, Sendable, Codable {
        public var address: BluetoothAddress
        public var addressType: UInt8
        public var name: String?
        public var serviceUUIDs: [BluetoothUUID] = []
        public var connectable = false
        public var rssiMin: Int8?
        public var rssiMax: Int8?
        public var reports = 0
        public var firstSeen: Timestamp
        public var lastSeen: Timestamp
        /// The record of its first report in this scan (a finding's evidence).
        public var firstRecord: Int? = nil
    }
}

/// One advertising set of this host: from LE Set (Extended) Advertising Enable on to off.
public struct AdvertisingSet: Hashable, Sendable, Codable {
    public var id: Int
    /// The extended advertising handle; nil for legacy advertising.
    public var handle: UInt8?
    public var startTime: Timestamp?
    public var stopTime: Timestamp?
    /// Interval bounds in units of 0.625 ms, and the advertising type (legacy) or properties.
    public var intervalMin: UInt32?
    public var intervalMax: UInt32?
    /// The last advertising data and scan response data set before or during it.
    public var data: [UInt8] = []
    public var scanResponse: [UInt8] = []
    public var name: String? { Self.name(in: data) ?? Self.name(in: scanResponse) }

    static func name(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { (try? AdvertisingData($0).structures())?.localName }
    }
}

/// Follows scans and advertising sets, next to the lifecycle analyzer.
///
/// Only scan and advertising commands and advertising reports are decoded here, with the full
/// HCI decoders.
package struct ScanCollector {
    package private(set) var scans: [Scan] = []
    package private(set) var advertising: [AdvertisingSet] = []
    private var openScan: Int?
    private var deviceIndex: [BluetoothAddress: Int] = [:]
    /// Parameters and data set while no scan or set is running, for the next one.
    private var nextScan = Scan(id: 0)
    private var nextAdvertising: [UInt8?: AdvertisingSet] = [:]
    private var openAdvertising: [UInt8?: Int] = [:]
    /// Extended reports' data that continues in the next report (Data_Status "incomplete, more
    /// data to come"), per advertiser, set and kind (advertisement or scan response).
    private var fragments: [FragmentKey: [UInt8]] = [:]
    private struct FragmentKey: Hashable {
        var address: BluetoothAddress
        var setID: UInt8
        var scanResponse: Bool
    }
    /// Core 6.0, Vol 4, Part E, §7.8.54: the most advertising data a set holds; a fragment
    /// collection grows no further.
    static let maximumData = 1650
    /// The last name each device advertised (Complete or Shortened Local Name), over all scans.
    package private(set) var names: [BluetoothAddress: String] = [:]

    package init() {}

    /// The name `address` advertised, if the capture heard one.
    package func name(of address: BluetoothAddress) -> String? { names[address] }

    static let commands: Set<UInt16> = [
        0x2006, 0x2008, 0x2009, 0x200A, 0x200B, 0x200C, 0x2036, 0x2037, 0x2038, 0x2039, 0x2041, 0x2042,
    ]

    mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        switch decoded.packet {
        case .command(let command) where Self.commands.contains(command.opcode.rawValue):
            guard let parameters = try? HCICommandParameters.decode(record.bytes) else { return }
            handle(parameters, record)
        case .event(.le(.unknown(let subevent, _))) where subevent.rawValue == 0x02 || subevent.rawValue == 0x0D:
            guard case .le(let meta)? = try? HCIEventParameters.decode(record.bytes) else { return }
            switch meta {
            case .advertisingReport(let reports):
                for report in reports {
                    heard(report.address, report.addressType, report.data, report.rssi, report.isConnectable, record)
                }
            case .extendedAdvertisingReport(let reports):
                for report in reports { heardExtended(report, record) }
            default:
                break
            }
        default:
            break
        }
    }

    private mutating func handle(_ command: HCICommandParameters, _ record: CaptureRecord) {
        switch command {
        case .leSetScanParameters(let parameters):
            nextScan.extended = false
            nextScan.active = parameters.isActive
            nextScan.interval = parameters.scanInterval
            nextScan.window = parameters.scanWindow
        case .leSetExtendedScanParameters:
            nextScan.extended = true
        case .leSetScanEnable(let enable, let filterDuplicates):
            setScan(on: enable != 0, filterDuplicates: filterDuplicates != 0, record)
        case .leSetExtendedScanEnable(let enable):
            nextScan.extended = true
            setScan(on: enable.enable != 0, filterDuplicates: enable.filterDuplicates != 0, record)
        case .leSetAdvertisingParameters(let parameters):
            nextAdvertising[nil, default: AdvertisingSet(id: 0)].intervalMin = UInt32(parameters.advertisingIntervalMin)
            nextAdvertising[nil, default: AdvertisingSet(id: 0)].intervalMax = UInt32(parameters.advertisingIntervalMax)
        case .leSetAdvertisingData(let data):
            setData(Array(data.bytes), scanResponse: false, handle: nil)
        case .leSetScanResponseData(let data):
            setData(Array(data.bytes), scanResponse: true, handle: nil)
        case .leSetExtendedAdvertisingData(let data):
            setData(Array(data.data.bytes), scanResponse: false, handle: data.advertisingHandle)
        case .leSetExtendedScanResponseData(let data):
            setData(Array(data.data.bytes), scanResponse: true, handle: data.advertisingHandle)
        case .leSetAdvertisingEnable(let enable):
            setAdvertising(on: enable != 0, handle: nil, record)
        case .leSetExtendedAdvertisingEnable(let enable):
            if enable.sets.isEmpty, enable.enable == 0 {
                for handle in openAdvertising.keys { setAdvertising(on: false, handle: handle, record) }
            }
            for set in enable.sets { setAdvertising(on: enable.enable != 0, handle: set.advertisingHandle, record) }
        default:
            break
        }
    }

    private mutating func setScan(on: Bool, filterDuplicates: Bool, _ record: CaptureRecord) {
        if on {
            guard openScan == nil else { return }
            var scan = nextScan
            scan.id = scans.count
            scan.startTime = record.timestamp
            scan.filterDuplicates = filterDuplicates
            openScan = scans.count
            scans.append(scan)
            deviceIndex = [:]
        } else if let id = openScan {
            scans[id].stopTime = record.timestamp
            openScan = nil
        }
    }

    private mutating func setData(_ bytes: [UInt8], scanResponse: Bool, handle: UInt8?) {
        if let id = openAdvertising[handle] {
            if scanResponse { advertising[id].scanResponse = bytes } else { advertising[id].data = bytes }
        }
        var next = nextAdvertising[handle] ?? AdvertisingSet(id: 0, handle: handle)
        if scanResponse { next.scanResponse = bytes } else { next.data = bytes }
        nextAdvertising[handle] = next
    }

    private mutating func setAdvertising(on: Bool, handle: UInt8?, _ record: CaptureRecord) {
        if on {
            guard openAdvertising[handle] == nil else { return }
            var set = nextAdvertising[handle] ?? AdvertisingSet(id: 0, handle: handle)
            set.id = advertising.count
            set.handle = handle
            set.startTime = record.timestamp
            openAdvertising[handle] = advertising.count
            advertising.append(set)
        } else if let id = openAdvertising.removeValue(forKey: handle) {
            advertising[id].stopTime = record.timestamp
        }
    }

    /// An extended report: a controller cuts an advertiser's data (a chain of PDUs, or more than
    /// one report holds) into reports with Data_Status "more data to come" on all but the last
    /// (Core 6.0, Vol 4, Part E, §7.7.65.13). The pieces are joined, and the data is read once
    /// complete; when truncated (status 2), its whole AD structures.
    private mutating func heardExtended(_ report: LEExtendedAdvertisingReport, _ record: CaptureRecord) {
        let key = FragmentKey(
            address: report.address, setID: report.advertisingSID, scanResponse: report.eventType.isScanResponse)
        let status = report.eventType.dataStatus
        guard status != 0 || fragments[key] != nil else {
            heard(report.address, report.addressType, report.data, report.rssi, report.eventType.isConnectable, record)
            return
        }
        var joined = fragments.removeValue(forKey: key) ?? []
        joined.append(contentsOf: report.data.bytes.prefix(Self.maximumData - joined.count))
        if status == 1 {
            fragments[key] = joined
            heard(
                report.address, report.addressType, AdvertisingData(UnsafeRawBufferPointer(start: nil, count: 0)),
                report.rssi,
                report.eventType.isConnectable, record)
            return
        }
        if status != 0 { joined.removeSubrange(Self.wholeStructures(joined)...) }
        joined.withUnsafeBytes {
            heard(
                report.address, report.addressType, AdvertisingData($0), report.rssi, report.eventType.isConnectable,
                record)
        }
    }

    /// How many leading bytes of `bytes` are whole AD structures (length byte, then that many).
    static func wholeStructures(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let next = offset + 1 + Int(bytes[offset])
            if bytes[offset] == 0 || next > bytes.count { break }
            offset = next
        }
        return offset
    }

    private mutating func heard(
        _ address: BluetoothAddress, _ addressType: UInt8, _ data: AdvertisingData, _ rssi: Int8?,
        _ connectable: Bool, _ record: CaptureRecord
    ) {
        if openScan == nil {
            var scan = nextScan
            scan.id = scans.count
            scan.beganBeforeCapture = true
            openScan = scans.count
            scans.append(scan)
            deviceIndex = [:]
        }
        let scan = openScan!
        scans[scan].reports += 1
        let index: Int
        if let known = deviceIndex[address] {
            index = known
        } else {
            index = scans[scan].devices.count
            deviceIndex[address] = index
            scans[scan].devices.append(
                Scan.Device(
                    address: address, addressType: addressType, firstSeen: record.timestamp, lastSeen: record.timestamp,
                    firstRecord: record.index))
        }
        var device = scans[scan].devices[index]
        device.reports += 1
        device.lastSeen = record.timestamp
        device.connectable = device.connectable || connectable
        if let rssi, rssi != 127 {
            device.rssiMin = Swift.min(device.rssiMin ?? rssi, rssi)
            device.rssiMax = Swift.max(device.rssiMax ?? rssi, rssi)
        }
        if let structures = try? data.structures() {
            if device.name == nil || structures.localName != nil { device.name = structures.localName ?? device.name }
            if let name = structures.localName, names[address] != name { names[address] = name }
            for structure in structures {
                if case .serviceUUIDs(let uuids, _) = structure.value {
                    for uuid in uuids where !device.serviceUUIDs.contains(uuid) { device.serviceUUIDs.append(uuid) }
                }
            }
        }
        scans[scan].devices[index] = device
    }
}
