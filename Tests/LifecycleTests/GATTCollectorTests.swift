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
        #expect(heartRate[1].lastValue == GATTDatabase.Value(bytes: [0x01], source: .read, record: heartRate[1].lastValue?.record ?? -1))
        #expect(heartRate[1].properties == .read)
    }

    @Test func aWriteThePeerRefusedLeavesNoValue() throws {
        let database = try #require(try gatt(Fixtures.capture("att-errors.btsnoop")).first?.database)
        let errorService = try #require(database.services.first { $0.uuid == BluetoothUUID(UInt16(0xEEE0)) })
        // 0x001D refused with Write Not Permitted, 0x0021 with an application error.
        let refused = errorService.characteristics.filter { [0x1D, 0x21].contains($0.valueHandle) }
        #expect(refused.count == 2)
        #expect(refused.allSatisfy { $0.lastValue == nil })
    }

    @Test func aCaptureWithNoConnectionEventsStillHasItsDatabaseUnderAnUnnamedPeer() throws {
        // An ACL-only excerpt: discovery on handle 0x0040 with no LE Connection Complete.
        let entries = try gatt(Fixtures.publicCapture("syssi-jkbms-pb2a16s15p.btsnoop"))
        let entry = try #require(entries.first { !$0.database.services.isEmpty })
        #expect(entry.peer == nil)
        let uuids = entry.database.services.map(\.uuid)
        #expect(Array(uuids.prefix(4)) == [0x1800, 0x1801, 0xFFE0, 0x180A].map { BluetoothUUID(UInt16($0)) })
    }
}
