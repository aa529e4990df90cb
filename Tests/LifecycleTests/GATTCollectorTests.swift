import ATT
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

func gatt(_ path: String) throws -> [GATTCollector.Entry] {
    var collector = GATTCollector()
    try readThrough(path) { collector.add($0, $1, analyzer: $2) }
    return collector.entries
}

@Suite struct GATTCollectorTests {
    /// Captures/README.md lists the Bumble peripheral's database with its fixed handles.
    @Test func rebuildsTheBumblePeripheralsDatabaseAcrossBothConnections() throws {
        let entries = try gatt(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.peer == BluetoothAddress("F0:F1:F2:F3:F4:05"))
        #expect(entry.connections == [0, 1])
        let services = entry.database.services
        #expect(services.map(\.uuid) == [0x1800, 0x1801, 0x180D, 0xAAA0].map { BluetoothUUID(UInt16($0)) })
        #expect(services.map(\.handle) == [0x01, 0x06, 0x0E, 0x16])
        #expect(services.map(\.endHandle) == [0x05, 0x0D, 0x15, 0x18])
        let heartRate = services[2].characteristics
        #expect(heartRate.map(\.valueHandle) == [0x10, 0x13, 0x15])
        #expect(heartRate[0].name == "Heart Rate Measurement")
        #expect(heartRate[0].properties == .notify)
        #expect(heartRate[0].descriptors.map(\.handle) == [0x11])
        #expect(heartRate[0].descriptors[0].uuid == BluetoothUUID(UInt16(0x2902)))
        // Subscribed (CCCD 0x0001), then notified; the body sensor location read as 0x01.
        #expect(heartRate[0].descriptors[0].lastValue?.bytes == [0x01, 0x00])
        #expect(heartRate[0].lastValue?.source == .notification)
        #expect(
            heartRate[1].lastValue
                == GATTDatabase.Value(bytes: [0x01], source: .read, record: heartRate[1].lastValue?.record ?? -1))
        #expect(heartRate[1].properties == .read)
    }

    @Test func afterServiceChangedTheDatabaseIsWhatTheRediscoveryFound() throws {
        // service-changed.btsnoop: service DDD0 at 0x0019-0x001B is discovered and its value read,
        // then a Service Changed indication names 0x0019-0x001B and the rediscovery finds nothing.
        var collector = GATTCollector()
        var before: GATTDatabase?
        var indicationRecord: Int?
        try readThrough(Fixtures.capture("service-changed.btsnoop")) { record, decoded, analyzer in
            if analyzer.lastServiceChange != nil {
                before = collector.entries.first?.database
                indicationRecord = record.index
            }
            collector.add(record, decoded, analyzer: analyzer)
        }
        #expect(indicationRecord != nil)
        let removed = BluetoothUUID(UInt16(0xDDD0))  // 0000DDD0-0000-1000-8000-00805F9B34FB
        let beforeService = try #require(before?.services.first { $0.uuid == removed })
        #expect(beforeService.handle == 0x19 && beforeService.endHandle == 0x1B)
        #expect(beforeService.characteristics.first?.lastValue?.bytes == Array("old value".utf8))
        let after = try #require(collector.entries.first?.database)
        #expect(!after.services.contains { $0.uuid == removed })
        #expect(!after.services.contains { $0.handle <= 0x1B && $0.endHandle >= 0x19 })
        // What lies outside the range stays: the other five services.
        #expect(after.services.map(\.handle) == [0x01, 0x06, 0x0E, 0x16])
    }

    @Test func aServiceChangedRangeInsideAServiceDropsOnlyTheCharacteristicsInIt() {
        var database = GATTDatabase()
        database.addService(handle: 0x10, end: 0x20, uuid: BluetoothUUID(UInt16(0x180D)), primary: true)
        database.addCharacteristic(
            declaration: 0x11, value: 0x12, uuid: BluetoothUUID(UInt16(0x2A37)), properties: 0x10)
        database.addCharacteristic(
            declaration: 0x14, value: 0x15, uuid: BluetoothUUID(UInt16(0x2A38)), properties: 0x02)
        database.forget(0x14...0x20)
        #expect(database.services.count == 1)
        #expect(database.services[0].characteristics.map(\.valueHandle) == [0x12])
    }

    @Test func aServiceChangedOfTheWholeRangeKeepsOnlyTheServiceChangedCharacteristic() {
        var database = GATTDatabase()
        database.addService(handle: 0x01, end: 0x05, uuid: BluetoothUUID(UInt16(0x1800)), primary: true)
        database.addService(handle: 0x06, end: 0x09, uuid: BluetoothUUID(UInt16(0x1801)), primary: true)
        database.addCharacteristic(
            declaration: 0x07, value: 0x08, uuid: BluetoothUUID(UInt16(0x2A05)), properties: 0x20)
        database.addDescriptor(handle: 0x09, uuid: BluetoothUUID(UInt16(0x2902)))
        database.forget(0x0001...0xFFFF)
        #expect(database.services.map(\.handle) == [0x06])
        #expect(database.services[0].characteristics.map(\.valueHandle) == [0x08])
        #expect(database.services[0].characteristics[0].descriptors.map(\.handle) == [0x09])
    }

    @Test func aWriteThePeerRefusedLeavesNoValue() throws {
        let database = try #require(try gatt(Fixtures.capture("att-errors.btsnoop")).first?.database)
        let errorService = try #require(database.services.first { $0.uuid == BluetoothUUID(UInt16(0xEEE0)) })
        // 0x001D refused with Write Not Permitted, 0x0021 with an application error.
        let refused = errorService.characteristics.filter { [0x1D, 0x21].contains($0.valueHandle) }
        #expect(refused.count == 2)
        #expect(refused.allSatisfy { $0.lastValue == nil })
    }

    @Test(.sharedCaptures) func aCaptureWithNoConnectionEventsStillHasItsDatabaseUnderAnUnnamedPeer() throws {
        // An ACL-only excerpt: discovery on handle 0x0040 with no LE Connection Complete.
        let entries = try gatt(Fixtures.publicCapture("syssi-jkbms-pb2a16s15p.btsnoop"))
        let entry = try #require(entries.first { !$0.database.services.isEmpty })
        #expect(entry.peer == nil)
        let uuids = entry.database.services.map(\.uuid)
        #expect(Array(uuids.prefix(4)) == [0x1800, 0x1801, 0xFFE0, 0x180A].map { BluetoothUUID(UInt16($0)) })
    }
}
