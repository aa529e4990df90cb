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
public struct ScanCollector {
    public private(set) var scans: [Scan] = []
    public private(set) var advertising: [AdvertisingSet] = []
    private var openScan: Int?
    private var deviceIndex: [BluetoothAddress: Int] = [:]
    /// Parameters and data set while no scan or set is running, for the next one.
    private var nextScan = Scan(id: 0)
    private var nextAdvertising: [UInt8?: AdvertisingSet] = [:]
    private var openAdvertising: [UInt8?: Int] = [:]
    /// The last name each device advertised (Complete or Shortened Local Name), over all scans.
    public private(set) var names: [BluetoothAddress: String] = [:]

    public init() {}

    /// The name `address` advertised, if the capture heard one.
    public func name(of address: BluetoothAddress) -> String? { names[address] }

    static let commands: Set<UInt16> = [0x2006, 0x2008, 0x2009, 0x200A, 0x200B, 0x200C, 0x2036, 0x2037, 0x2038, 0x2039, 0x2041, 0x2042]

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
                for report in reports {
                    heard(report.address, report.addressType, report.data, report.rssi, report.eventType.isConnectable, record)
                }
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
                Scan.Device(address: address, addressType: addressType, firstSeen: record.timestamp, lastSeen: record.timestamp))
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
