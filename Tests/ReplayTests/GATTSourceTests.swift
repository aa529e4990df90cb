import Foundation
import Lifecycle
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// Connections that never discover (a phone reusing its cached handles): the peer's database
/// comes from another connection that did, from the user (`--gatt`), or from the traffic.
@Suite struct GATTSourceTests {
    typealias P = CassettePackets

    /// Heart Rate's handles as `reconnect-supervision-timeout.btsnoop` discovered them, used
    /// without discovery: a read of Body Sensor Location (0x0013), a write of the Control Point
    /// (0x0015), a subscription to Heart Rate Measurement (CCCD 0x0011) and three of its
    /// notifications (0x0010), a Write Command to 0x0018 and a Write Request of 01 00 to 0x0021,
    /// whose 0x0020 never notifies.
    static var cachedHandles: [OwnedRecord] {
        [
            P.connected(at: 100_000),
            P.att("0a 1300", .sent, at: 200_000), P.att("0b 01", .received, at: 210_000),
            P.att("12 1500 01", .sent, at: 300_000), P.att("13", .received, at: 310_000),
            P.att("12 1100 0100", .sent, at: 400_000), P.att("13", .received, at: 410_000),
            P.att("1b 1000 0050", .received, at: 500_000), P.att("1b 1000 0051", .received, at: 600_000),
            P.att("1b 1000 0052", .received, at: 700_000),
            P.att("52 1800 aabb", .sent, at: 800_000),
            P.att("12 2100 0100", .sent, at: 900_000), P.att("13", .received, at: 910_000),
        ]
    }

    static func mirror(_ cassette: Cassette) async -> Flow {
        await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
    }

    static func count(_ flow: Flow, _ name: String, _ key: String? = nil, _ value: String? = nil) -> Int {
        flow.events.filter { $0.name == name && (key == nil || $0.argument(key!) == value) }.count
    }

    @Test func aDatabaseIsInferredFromTheTrafficWhenNothingDiscoveredIt() async throws {
        let cassette = P.cassette(Self.cachedHandles)
        let address = try #require(cassette.peers.first)
        #expect(cassette.peer(address)?.databaseSource == .inferred)
        let service = try #require(cassette.services(of: address).first)
        #expect(service.uuid == GATTDatabase.inferredUUID(handle: 0))
        #expect("\(service.uuid)" == "B1E70000-0000-0000-0000-000000000000")
        let characteristics = Dictionary(uniqueKeysWithValues: service.characteristics.map { ($0.valueHandle, $0) })
        #expect(characteristics.keys.sorted() == [0x0010, 0x0013, 0x0015, 0x0018, 0x0020])
        #expect("\(characteristics[0x0010]!.uuid)" == "B1E70000-0000-0000-0000-000000000010")
        #expect(characteristics[0x0010]?.properties == .notify)
        #expect(characteristics[0x0010]?.descriptors.map(\.handle) == [0x0011])
        #expect(characteristics[0x0013]?.properties == .read)
        #expect(characteristics[0x0015]?.properties == .write)
        #expect(characteristics[0x0018]?.properties == .writeWithoutResponse)
        // Written 01 00 by a Write Request, never read nor notified itself: a CCCD.
        #expect(characteristics[0x0020]?.properties == .notify)
        #expect(characteristics[0x0020]?.descriptors.map(\.uuid) == [BluetoothUUID(UInt16(0x2902))])

        let flow = await Self.mirror(cassette)
        #expect(flow.comments.filter { $0.contains("inferred from the traffic") }.count == 1)
        #expect(!flow.comments.contains { $0.hasPrefix("divergence") })
        #expect(Self.count(flow, "didUpdateValueFor", "characteristic", "B1E70000-0000-0000-0000-000000000010") == 3)
        #expect(Self.count(flow, "didUpdateValueFor", "characteristic", "B1E70000-0000-0000-0000-000000000013") == 1)
        #expect(Self.count(flow, "writeValue") == 2)
        #expect(Self.count(flow, "setNotifyValue") == 2)
    }

    @Test func anotherConnectionOfThePeerThatDiscoveredGivesTheDatabase() async throws {
        // Connection 1 discovers Heart Rate and ends; connection 2 reads with the cached handle.
        let discovered = [
            P.connected(at: 0),
            P.att("10 0100 ffff 0028", .sent, at: 10_000), P.att("11 06 0e00 1500 0d18", .received, at: 20_000),
            P.att("08 0e00 1500 0328", .sent, at: 30_000), P.att("09 07 1200 02 1300 382a", .received, at: 40_000),
            OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 0100 13", time: 50_000),
        ]
        let create = OwnedRecord(
            kind: .command, direction: .sent,
            hex: "0d20 19 6000 3000 00 01 05f4f3f2f1f0 00 2800 3800 0000 2a00 0000 0000", time: 900_000)
        let cassette = P.cassette(
            discovered + [
                create, P.connected(at: 1_000_000), P.att("0a 1300", .sent, at: 1_100_000),
                P.att("0b 02", .received, at: 1_110_000),
            ])
        let address = try #require(cassette.peers.first)
        #expect(cassette.peer(address)?.databaseSource == .discovered)
        let flow = await Self.mirror(cassette)
        #expect(Self.count(flow, "didUpdateValueFor", "characteristic", "2A38") == 1, "\(flow.text)")
        #expect(!flow.comments.contains { $0.contains("never discovered") })
    }

    @Test func aCaptureThatDiscoveredTheDatabaseGivesIt() async throws {
        var cassette = P.cassette(Self.cachedHandles)
        let given = try GivenGATT.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        cassette.completeDatabases(given: given)
        try await Self.expectHeartRate(cassette, from: "reconnect-supervision-timeout.btsnoop")
    }

    @Test func theJSONOfBletraceGATTGivesIt() async throws {
        let json = """
            {"version": 1, "peers": [{"peer": "F0:F1:F2:F3:F4:05", "connections": [1], "local_services": [], "services": [
              {"start": 14, "end": 21, "uuid": "180D", "primary": true, "characteristics": [
                {"declaration_handle": 15, "handle": 16, "uuid": "2A37", "properties": ["notify"],
                 "descriptors": [{"handle": 17, "uuid": "2902"}]},
                {"declaration_handle": 18, "handle": 19, "uuid": "2A38", "properties": ["read"], "descriptors": []},
                {"declaration_handle": 20, "handle": 21, "uuid": "2A39", "properties": ["write"], "descriptors": []}]}]}]}
            """
        let given = try GivenGATT(name: "hr.json", json: Data(json.utf8))
        var cassette = P.cassette(Self.cachedHandles)
        cassette.completeDatabases(given: given)
        try await Self.expectHeartRate(cassette, from: "hr.json")
        // A file that names another peer, with several databases, gives this one nothing.
        let other = try GivenGATT(
            name: "x.json",
            json: Data(
                json.replacingOccurrences(
                    of: "[{\"peer\"",
                    with:
                        "[{\"peer\": \"00:11:22:33:44:55\", \"services\": [{\"start\": 1, \"end\": 2, \"uuid\": \"1234\"}]}, {\"peer\""
                ).replacingOccurrences(of: "F0:F1:F2:F3:F4:05", with: "00:11:22:33:44:66").utf8))
        #expect(other.databases.count == 2)
        #expect(other.database(for: BluetoothAddress("F0:F1:F2:F3:F4:05")!) == nil)
        #expect(throws: GivenGATTError.self) { try GivenGATT(name: "bad.json", json: Data("{\"peers\": 3}".utf8)) }
    }

    /// The mirror's flow of ``cachedHandles`` with Heart Rate given: real UUIDs, the reads,
    /// writes and subscription made, the notifications delivered.
    static func expectHeartRate(_ cassette: Cassette, from name: String) async throws {
        let address = try #require(cassette.peers.first)
        #expect(cassette.peer(address)?.databaseSource == .given(name))
        let flow = await Self.mirror(cassette)
        #expect(flow.comments.contains { $0.contains("--gatt \(name)") })
        #expect(Self.count(flow, "didUpdateValueFor", "characteristic", "2A37") == 3)
        #expect(Self.count(flow, "didUpdateValueFor", "characteristic", "2A38") == 1, "\(flow.text)")
        #expect(Self.count(flow, "writeValue", "characteristic", "2A39") == 1)
        #expect(Self.count(flow, "didUpdateNotificationStateFor", "characteristic", "2A37") == 1)
        // What the given database does not hold is not played: one comment per kind.
        #expect(
            flow.comments.contains { $0.contains("writeWithoutResponse of 0x0018") || $0.contains("write of 0x0021") })
    }

    @Test func operationsThatCannotBePlayedAreCountedInOneCommentPerKind() async throws {
        // Five Write Commands to a handle that a given database lacks.
        var records = [P.connected(at: 0)]
        for index in 0..<5 { records.append(P.att("52 4000 0\(index)", .sent, at: Int64(100_000 * (index + 1)))) }
        records += [P.att("0a 1300", .sent, at: 700_000), P.att("0b 01", .received, at: 710_000)]
        var cassette = P.cassette(records)
        cassette.completeDatabases(
            given: try GivenGATT.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop")))
        let flow = await Self.mirror(cassette)
        let skipped = flow.comments.filter { $0.contains("writeWithoutResponse") && $0.contains("not played") }
        #expect(skipped.count == 1)
        #expect(skipped.first?.contains("5 of the captured app's writeWithoutResponse operations (on 0x0040") == true)
    }

    @Test(.sharedCaptures) func anIPhoneThatNeverDiscoveredGetsItsNotificationsAndMakesItsWrites() async throws {
        // havvk: two links up before the capture, 416 notifications, writes and CCCD writes,
        // and no discovery of services.
        let path = try #require(
            Fixtures.sharedCaptures("field").first { $0.hasSuffix("havvk-even-g2-smart-classroom-bt3.pklg") })
        let (cassette, _) = try Cassette.load(path: path)
        let notifications = cassette.links.flatMap(\.notifications).filter { $0.sender != .host }.count
        #expect(notifications == 416)
        let flow = await Self.mirror(cassette)
        #expect(!flow.comments.contains { $0.contains("never discovered this peripheral's services") })
        #expect(flow.comments.filter { $0.contains("inferred from the traffic") }.count == 2)
        // Before: none of them (the mirror stopped at its discovery); now every one.
        #expect(Self.count(flow, "didUpdateValueFor") == notifications)
        let commands = cassette.links.flatMap(\.operations).filter {
            $0.sender == .host && $0.kind == .writeWithoutResponse
        }
        #expect(commands.count == 163)
        #expect(Self.count(flow, "writeValue", "type", "withoutResponse") == commands.count)
        #expect(Self.count(flow, "setNotifyValue") > 0)
        // The links began before the capture: their MTU is at least their largest PDU's.
        #expect(!flow.comments.contains { $0.contains("more than maximumWriteValueLength") })
    }
}
