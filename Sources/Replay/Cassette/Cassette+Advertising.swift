import HCI
import Wire

extension Cassette {
    /// What one advertising payload says, decoded into the fields CoreBluetooth puts in
    /// `didDiscover`'s `advertisementData` (Core Specification Supplement, Part A, §1).
    ///
    /// A peer's reports that carry the same bytes share one ``Advertisement``
    /// (``Peer/advertisements``), so a long scan costs a few bytes a report.
    public struct Advertisement: Hashable, Sendable {
        /// The bytes as the controller reported them.
        public var bytes: [UInt8]
        /// Complete or shortened local name (`CBAdvertisementDataLocalNameKey`).
        public var localName: String?
        /// Every 16-, 32- and 128-bit service UUID listed, in order (`CBAdvertisementDataServiceUUIDsKey`).
        public var serviceUUIDs: [BluetoothUUID] = []
        /// The company identifier (little-endian, as on the air) followed by the data, as
        /// `CBAdvertisementDataManufacturerDataKey` holds it.
        public var manufacturerData: [UInt8]?
        /// Service data, in order (`CBAdvertisementDataServiceDataKey`).
        public var serviceData: [ServiceData] = []
        /// `CBAdvertisementDataTxPowerLevelKey`, in dBm.
        public var txPowerLevel: Int8?
        /// The Flags AD structure's first byte, when present.
        public var flags: UInt8?
        public var appearance: UInt16?
        /// The bytes could not all be read as AD structures (the fields above hold what came
        /// before the fault).
        public var malformed = false

        /// A Service Data AD structure: the service's UUID and its data.
        public struct ServiceData: Hashable, Sendable {
            public var uuid: BluetoothUUID
            public var data: [UInt8]
        }

        /// Decodes `bytes`; never fails (a malformed tail is flagged).
        public init(bytes: [UInt8]) {
            self.bytes = bytes
            bytes.withUnsafeBytes { buffer in
                let list: ADStructureList
                do { list = try AdvertisingData(buffer).structures() } catch {
                    malformed = true
                    return
                }
                for structure in list {
                    switch structure.value {
                    case .flags(let flags): self.flags = flags.rawValue
                    case .serviceUUIDs(let uuids, _): serviceUUIDs.append(contentsOf: uuids)
                    case .localName: localName = localName ?? list.localName
                    case .txPowerLevel(let level): txPowerLevel = level
                    case .serviceData(let uuid, let data):
                        serviceData.append(ServiceData(uuid: uuid, data: Array(data)))
                    case .appearance(let value): appearance = value
                    case .manufacturerSpecificData:
                        manufacturerData = (manufacturerData ?? []) + Array(structure.data)
                    case .unknown: break
                    }
                }
            }
        }

        /// Whether it lists any of `services` (CoreBluetooth's scan filter); true when `services`
        /// is empty.
        public func advertises(anyOf services: [BluetoothUUID]) -> Bool {
            services.isEmpty || services.contains { serviceUUIDs.contains($0) }
        }
    }

    /// One LE (Extended) Advertising Report of a peer.
    public struct AdvertisingReport: Hashable, Sendable {
        public var time: Timestamp
        /// The capture record that carried it.
        public var record: Int
        /// Legacy event type (0x00 ADV_IND … 0x04 SCAN_RSP) or the extended report's event type
        /// bits (Core 6.0, Vol 4, Part E, §7.7.65.2 and §7.7.65.13).
        public var eventType: UInt16
        public var extended: Bool
        public var addressType: UInt8
        /// In dBm; nil when the controller could not measure it (127).
        public var rssi: Int8?
        /// Index of its payload in the peer's ``Peer/advertisements``.
        public var advertisement: Int

        public var isConnectable: Bool {
            extended ? eventType & 0x0001 != 0 : eventType == 0x00 || eventType == 0x01
        }
        public var isScanResponse: Bool { extended ? eventType & 0x0008 != 0 : eventType == 0x04 }
    }
}
