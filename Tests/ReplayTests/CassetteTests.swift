import ATT
import Foundation
import HCI
import Lifecycle
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Replay

/// Records of a made-up capture, for the rules no bundled capture exercises.
enum CassettePackets {
    /// `value`'s two bytes, least significant first, in hex.
    static func hex(_ value: UInt16) -> String {
        [UInt8(value & 0xFF), UInt8(value >> 8)].withUnsafeBytes { $0.hexString }
    }
    /// LE Connection Complete, handle 1, peer F0:F1:F2:F3:F4:05 (random); role 0 makes this host
    /// the central, 1 the peripheral.
    static func connected(role: UInt8 = 0, at time: Int64 = 0) -> OwnedRecord {
        OwnedRecord(
            kind: .event, direction: .received, hex: "3e 13 01 00 0100 0\(role) 01 05f4f3f2f1f0 2800 0000 2a00 00",
            time: time)
    }
    /// An ATT PDU in one L2CAP frame on handle 1; `.sent` is this host's.
    static func att(_ pdu: String, _ direction: Direction, at time: Int64) -> OwnedRecord {
        frame(pdu, channel: "0400", direction, at: time)
    }
    static func smp(_ pdu: String, _ direction: Direction, at time: Int64) -> OwnedRecord {
        frame(pdu, channel: "0600", direction, at: time)
    }
    static func frame(_ pdu: String, channel: String, _ direction: Direction, at time: Int64) -> OwnedRecord {
        let count = UInt16(Wire.bytes(hex: pdu)!.count)
        return OwnedRecord(
            kind: .acl, direction: direction, hex: "0120 \(hex(count + 4)) \(hex(count)) \(channel) \(pdu)", time: time)
    }
    static func cassette(_ records: [OwnedRecord]) -> Cassette {
        var recorder = CassetteRecorder()
        for (index, record) in records.enumerated() {
            var record = record
            record.index = index
            record.withRecord { recorder.add($0) }
        }
        return recorder.cassette()
    }
}

/// One pass of the analysis alone (decoder, analyzer and its ATT tracker, error collector), to
/// derive what the cassette must hold independently of the cassette's recorder.
struct IndependentPass {
    struct Pair: Hashable {
        var request: Int
        var answer: Int
        var latency: Int64
        var opcode: ATTOpcode
    }
    var pairs: [Pair] = []
    var readValues: [Int: [UInt8]] = [:]
    var errors: [TraceError] = []
    var notifications: [(record: Int, time: Timestamp, handle: UInt16, value: [UInt8])] = []
    var report: LifecycleReport
    var gatt: GATTCollector

    init(path: String) throws {
        let reader = try CaptureReader(path: path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var gatt = GATTCollector()
        var collector = ErrorCollector()
        while let record = try reader.next() {
            let decoded = decoder.decode(record)
            analyzer.add(record, decoded)
            gatt.add(record, decoded, analyzer: analyzer)
            collector.add(record, decoded, analyzer: analyzer)
            if let request = analyzer.lastAnswered, decoded.att != nil {
                pairs.append(
                    Pair(
                        request: request.record, answer: record.index,
                        latency: record.timestamp.microseconds - request.time.microseconds, opcode: request.opcode))
            }
            switch decoded.att {
            case .readResponse(let value)?, .readBlobResponse(let value)?: readValues[record.index] = Array(value)
            case .handleValueNotification(let handle, let value)?:
                notifications.append((record.index, record.timestamp, handle, Array(value)))
            default: break
            }
        }
        report = analyzer.report
        errors = collector.errors
        self.gatt = gatt
    }
}

@Suite struct CassetteTests {
    static let bundled = [
        "att-errors.btsnoop", "reconnect-supervision-timeout.btsnoop", "peer-disconnect.btsnoop", "scan.btsnoop",
        "cancelled-connect.btsnoop", "att-errors.lt187.pcap", "peripheral-server.btsnoop",
        "peripheral-disconnect-mid-notification.btsnoop", "restore-out-of-range.btsnoop",
    ].map(Fixtures.capture)
    static let publicNames = [
        "joelarula-darkelf-2.btsnoop", "mchwalisz-lightsapp.btsnoop", "whoisbe-pongbot-last.btsnoop",
        "syssi-jkbms-b5a24s.btsnoop",
    ]
    static let publicOnes = Fixtures.publicCaptures(publicNames)
    static let peer = BluetoothAddress("F0:F1:F2:F3:F4:05")!

    @Test(arguments: bundled + publicOnes)
    func everyAnswerTheTrackerPairsIsInTheCassetteWithItsLatency(path: String) throws {
        Fixtures.noteSharedSkipped(
            "CassetteTests.everyAnswerTheTrackerPairsIsInTheCassetteWithItsLatency", count: Self.publicNames.count)
        let expected = try IndependentPass(path: path)
        let (cassette, fault) = try Cassette.load(path: path)
        #expect(fault == nil)
        var actual: [IndependentPass.Pair] = []
        for link in cassette.links {
            for exchange in link.exchanges {
                guard let answer = exchange.answer else { continue }
                actual.append(
                    IndependentPass.Pair(
                        request: exchange.record, answer: answer.record,
                        latency: answer.time.microseconds - exchange.time.microseconds, opcode: exchange.opcode))
                #expect(answer.latency == answer.time.seconds(since: exchange.time))
                if let value = expected.readValues[answer.record] { #expect(answer.value == value) }
            }
        }
        #expect(actual.sorted { $0.answer < $1.answer } == expected.pairs)
    }

    @Test(arguments: bundled + publicOnes)
    func everyATTErrorOfTheCaptureIsTheAnswerToItsRequest(path: String) throws {
        Fixtures.noteSharedSkipped(
            "CassetteTests.everyATTErrorOfTheCaptureIsTheAnswerToItsRequest", count: Self.publicNames.count)
        // What `bletrace errors --format json` lists (the same ErrorCollector), ATT layer.
        let expected = try IndependentPass(path: path)
        let paired = Set(expected.pairs.map(\.answer))
        let attErrors = expected.errors.filter { $0.layer == .att && paired.contains($0.record) }
        let (cassette, _) = try Cassette.load(path: path)
        let answered = cassette.links.flatMap { link in link.exchanges.filter { $0.answer?.error != nil } }
        #expect(answered.count == attErrors.count)
        for error in attErrors {
            let exchange = answered.first { $0.answer?.record == error.record }
            #expect(exchange?.answer?.error?.rawValue == error.code, "record \(error.record)")
            #expect(exchange.map { UInt16($0.opcode.rawValue) } == error.requestOpcode)
            #expect(exchange?.answer?.errorHandle == error.attributeHandle)
        }
        // The operation of each failure carries its error (a long read ended by "not long" and
        // the ends of discovery are not failures).
        for link in cassette.links {
            for operation in link.operations where operation.kind != .discovery {
                let codes = link.exchanges(of: operation).compactMap { $0.answer?.error }
                if codes.isEmpty || (operation.kind == .read && operation.exchanges.count > 1) { continue }
                #expect(operation.error == codes.first, "operation at \(operation.time)")
            }
        }
    }

    @Test(arguments: ["att-errors.btsnoop", "att-errors.lt187.pcap"])
    func theAttErrorsCaptureAnswersEachFailingRequestOnItsAttribute(name: String) throws {
        // (The pcap of link type 187 records no direction: its requests match either side.)
        let path = Fixtures.capture(name)
        let expected = try IndependentPass(path: path).errors.filter { $0.layer == .att && !$0.expected }
        let (cassette, _) = try Cassette.load(path: path)
        #expect(!expected.isEmpty)
        for error in expected {
            let kind: Cassette.Operation.Kind = error.requestOpcode == 0x0A ? .read : .write
            let answers = cassette.answers(for: kind, handle: error.attributeHandle!, on: Self.peer)
            #expect(answers.count == 1)
            #expect(answers.first?.error?.rawValue == error.code)
            #expect(answers.first?.answered == true)
        }
        // The one successful read gets the value the capture read.
        let value = cassette.peer(Self.peer)?.database?.services.flatMap(\.characteristics)
            .first { $0.valueHandle == 0x0018 }?.lastValue?.bytes
        #expect(cassette.answer(for: .read, handle: 0x0018, on: Self.peer, occurrence: 0)?.value == value)
    }

    @Test func theNthRequestGetsTheNthAnswerThenTheLast() throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let (cassette, _) = try Cassette.load(path: path)
        let report = try IndependentPass(path: path).report
        let cccdWrites = report.connections.flatMap(\.subscriptions).filter { $0.descriptorHandle == 0x0011 }
        let answers = cassette.answers(for: .write, handle: 0x0011, on: Self.peer)
        #expect(answers.count == cccdWrites.count)
        #expect(answers.count >= 2)
        #expect(
            answers.map(\.time)
                == cccdWrites.map { r in cassette.links.flatMap(\.exchanges).first { $0.record == r.record }!.time })
        for (n, answer) in answers.enumerated() {
            #expect(cassette.answer(for: .write, handle: 0x0011, on: Self.peer, occurrence: n) == answer)
        }
        #expect(
            cassette.answer(for: .write, handle: 0x0011, on: Self.peer, occurrence: answers.count + 3) == answers.last)
        #expect(cassette.answer(for: .write, handle: 0x0099, on: Self.peer, occurrence: 0) == nil)
        // The peer's server answered the app's client: no requests the other way.
        #expect(cassette.answers(for: .write, handle: 0x0011, on: Self.peer, from: .peer).isEmpty)
    }

    @Test func notificationsComeInTimeOrderPerConnectionWithTheirValues() throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let expected = try IndependentPass(path: path)
        let (cassette, _) = try Cassette.load(path: path)
        let all = cassette.notifications(of: Self.peer)
        #expect(all.map(\.record) == expected.notifications.map(\.record))
        #expect(all.map(\.value) == expected.notifications.map(\.value))
        #expect(all.map(\.time) == expected.notifications.map(\.time))
        #expect(all.allSatisfy { !$0.isIndication && $0.sender == .peer })
        for link in cassette.links {
            #expect(link.notifications.count == expected.report.connections[link.connection].att.notifications)
            #expect(link.notifications.map(\.time) == link.notifications.map(\.time).sorted())
        }
        #expect(cassette.notifications(of: Self.peer, handle: 0x0099).isEmpty)
    }

    @Test func discoveryIsAnsweredFromTheRevealedDatabaseFilteredByUUID() throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let expected = try IndependentPass(path: path).gatt.entries.first { $0.peer == Self.peer }!.database
        let (cassette, _) = try Cassette.load(path: path)
        #expect(cassette.services(of: Self.peer) == expected.services)
        let heartRate = BluetoothUUID(UInt16(0x180D))
        let filtered = cassette.services(of: Self.peer, matching: [heartRate])
        #expect(filtered.map(\.uuid) == expected.services.filter { $0.uuid == heartRate }.map(\.uuid))
        #expect(filtered.count == 1)
        let measurement = cassette.characteristics(
            of: Self.peer, service: filtered[0].handle, matching: [BluetoothUUID(UInt16(0x2A37))])
        #expect(measurement.count == 1)
        let descriptors = cassette.descriptors(of: Self.peer, characteristic: measurement[0].valueHandle)
        #expect(descriptors.map(\.uuid).contains(BluetoothUUID(UInt16(0x2902))))
        #expect(cassette.services(of: Self.peer, matching: [BluetoothUUID(UInt16(0x180F))]).isEmpty)
        // Each link shares its peer's database.
        #expect(cassette.links.allSatisfy { $0.database == expected })
    }

    @Test(arguments: ["scan.btsnoop"].map(Fixtures.capture) + Fixtures.publicCaptures(["mchwalisz-lightsapp.btsnoop"]))
    func advertisingReportsKeepEveryReportWithItsDecodedData(path: String) throws {
        Fixtures.noteSharedSkipped("CassetteTests.advertisingReportsKeepEveryReportWithItsDecodedData", count: 1)
        let scans = try IndependentPass(path: path).report.scans
        let (cassette, _) = try Cassette.load(path: path)
        var devices: [BluetoothAddress: (reports: Int, name: String?, uuids: [BluetoothUUID], min: Int8?, max: Int8?)] =
            [:]
        for device in scans.flatMap(\.devices) {
            var known = devices[device.address] ?? (0, nil, [], nil, nil)
            known.reports += device.reports
            known.name = device.name ?? known.name
            for uuid in device.serviceUUIDs where !known.uuids.contains(uuid) { known.uuids.append(uuid) }
            known.min = [known.min, device.rssiMin].compactMap { $0 }.min()
            known.max = [known.max, device.rssiMax].compactMap { $0 }.max()
            devices[device.address] = known
        }
        #expect(!devices.isEmpty)
        for (address, device) in devices {
            let peer = try #require(cassette.peer(address))
            #expect(peer.reports.count == device.reports)
            let names = Set(peer.advertisements.compactMap(\.localName))
            if let name = device.name { #expect(names.contains(name)) } else { #expect(names.isEmpty) }
            var uuids: [BluetoothUUID] = []
            for uuid in peer.advertisements.flatMap(\.serviceUUIDs) where !uuids.contains(uuid) { uuids.append(uuid) }
            #expect(uuids == device.uuids)
            #expect(peer.reports.compactMap(\.rssi).min() == device.min)
            #expect(peer.reports.compactMap(\.rssi).max() == device.max)
            #expect(peer.reports.map(\.time) == peer.reports.map(\.time).sorted())
        }
        let total = devices.values.map(\.reports).reduce(0, +)
        #expect(cassette.discoveries(allowDuplicates: true).count == total)
        #expect(cassette.discoveries().count == cassette.allPeers.map(\.advertisements.count).reduce(0, +))
        #expect(cassette.discoveries().count < total)
    }

    @Test func aScanFilteredByServiceSeesOnlyPeersAdvertisingIt() throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("scan.btsnoop"))
        let peer = try #require(cassette.peer(Self.peer))
        let advertisement = peer.advertisement(of: peer.reports[0])
        #expect(advertisement.localName == "bletrace-hr")
        #expect(advertisement.serviceUUIDs == [BluetoothUUID(UInt16(0x180D))])
        #expect(advertisement.flags == 0x06)
        #expect(peer.reports[0].isConnectable)
        #expect(peer.reports.contains { $0.isScanResponse })
        #expect(!cassette.discoveries(services: [BluetoothUUID(UInt16(0x180D))]).isEmpty)
        #expect(cassette.discoveries(services: [BluetoothUUID(UInt16(0x180F))]).isEmpty)
    }

    @Test func advertisementDataFieldsAreDecodedAsCoreBluetoothGivesThem() {
        // Flags, shortened name "ab", TX power -4, manufacturer 0x004C + 0102, service data
        // 0x180F = 64, 16-bit UUIDs 180D 180A.
        let bytes = Wire.bytes(hex: "020106 03086162 020afc 05ff4c000102 04160f1864 05030d180a18")!
        let advertisement = Cassette.Advertisement(bytes: bytes)
        #expect(advertisement.localName == "ab")
        #expect(advertisement.txPowerLevel == -4)
        #expect(advertisement.manufacturerData == [0x4C, 0x00, 0x01, 0x02])
        #expect(advertisement.serviceData == [.init(uuid: BluetoothUUID(UInt16(0x180F)), data: [0x64])])
        #expect(advertisement.serviceUUIDs == [BluetoothUUID(UInt16(0x180D)), BluetoothUUID(UInt16(0x180A))])
        #expect(advertisement.advertises(anyOf: [BluetoothUUID(UInt16(0x180A))]))
        #expect(!advertisement.malformed)
        #expect(Cassette.Advertisement(bytes: [0x05, 0x09, 0x41]).malformed)
    }

    @Test func aLongReadIsOneOperationWithTheWholeValue() {
        let first = (0..<22).map { UInt8($0) }.withUnsafeBytes { $0.hexString }
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            CassettePackets.att("0a 0300", .sent, at: 1_000),
            CassettePackets.att("0b \(first)", .received, at: 31_000),
            CassettePackets.att("0c 0300 1600", .sent, at: 40_000),
            CassettePackets.att("0d 1617181920", .received, at: 70_000),
            CassettePackets.att("0a 0300", .sent, at: 100_000),
            CassettePackets.att("01 0a 0300 02", .received, at: 110_000),
        ])
        let reads = cassette.answers(for: .read, handle: 3, on: Self.peer)
        #expect(reads.count == 2)
        #expect(reads[0].value == Array(0..<22) + [0x16, 0x17, 0x18, 0x19, 0x20])
        #expect(reads[0].exchanges.count == 2)
        #expect(reads[0].latency == 0.069)
        #expect(reads[0].error == nil)
        #expect(reads[1].error == .readNotPermitted)
        #expect(reads[1].latency == 0.01)
    }

    @Test func aLongReadEndedByAttributeNotLongSucceeds() {
        let full = String(repeating: "aa", count: 22)
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            CassettePackets.att("0a 0300", .sent, at: 1_000),
            CassettePackets.att("0b \(full)", .received, at: 2_000),
            CassettePackets.att("0c 0300 1600", .sent, at: 3_000),
            CassettePackets.att("01 0c 0300 0b", .received, at: 4_000),
        ])
        let read = cassette.answer(for: .read, handle: 3, on: Self.peer, occurrence: 0)
        #expect(read?.error == nil)
        #expect(read?.value.count == 22)
    }

    @Test func preparedWritesAndTheirExecuteAreOneWrite() {
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            CassettePackets.att("16 0500 0000 010203", .sent, at: 1_000),
            CassettePackets.att("17 0500 0000 010203", .received, at: 2_000),
            CassettePackets.att("1d 0900 0100", .received, at: 2_500),  // an indication meanwhile
            CassettePackets.att("16 0500 0300 0405", .sent, at: 3_000),
            CassettePackets.att("17 0500 0300 0405", .received, at: 4_000),
            CassettePackets.att("18 01", .sent, at: 5_000),
            CassettePackets.att("19", .received, at: 6_000),
            CassettePackets.att("1e", .sent, at: 6_500),
            // A refused prepared write, then the client's cancel.
            CassettePackets.att("16 0500 0000 09", .sent, at: 7_000),
            CassettePackets.att("01 16 0500 80", .received, at: 8_000),
            CassettePackets.att("18 00", .sent, at: 9_000),
            CassettePackets.att("19", .received, at: 10_000),
        ])
        let writes = cassette.answers(for: .longWrite, handle: 5, on: Self.peer)
        #expect(writes.count == 2)
        #expect(writes[0].value == [1, 2, 3, 4, 5])
        #expect(writes[0].error == nil)
        #expect(writes[0].answerTime == Timestamp(microseconds: 6_000))
        let link = cassette.links[0]
        #expect(
            link.exchanges(of: writes[0]).map(\.opcode) == [
                .prepareWriteRequest, .prepareWriteRequest, .executeWriteRequest,
            ])
        #expect(writes[1].error == ATTErrorCode(rawValue: 0x80))
        #expect(writes[1].answerTime == Timestamp(microseconds: 10_000))
        // The indication has its confirmation.
        #expect(link.notifications.map(\.confirmed) == [Timestamp(microseconds: 6_500)])
    }

    /// This host's client writes while its own server's indication awaits the peer's
    /// confirmation: two transactions (``ATTTransactions``), each kept with its own answer.
    @Test func anIndicationAndARequestOfThisHostAreAnsweredApart() {
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            CassettePackets.att("1d 0800 0100ffff", .sent, at: 1_000),
            CassettePackets.att("12 0300 01", .sent, at: 2_000),
            CassettePackets.att("1e", .received, at: 3_000),
            CassettePackets.att("13", .received, at: 5_000),
        ])
        let exchanges = cassette.links.first?.exchanges ?? []
        #expect(exchanges.map(\.opcode) == [.handleValueIndication, .writeRequest])
        #expect(exchanges.map { $0.answer?.opcode } == [.handleValueConfirmation, .writeResponse])
        #expect(exchanges.map { $0.answer?.record } == [3, 4])
        let writes = cassette.answers(for: .write, handle: 3, on: Self.peer)
        #expect(writes.count == 1 && writes.first?.error == nil)
        #expect(writes.first?.answerTime == Timestamp(microseconds: 5_000))
    }

    @Test func aPeripheralHostsCaptureKeepsTheRemoteCentralsRequestsAndOurAnswers() {
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(role: 1),
            CassettePackets.att("02 f700", .received, at: 1_000),
            CassettePackets.att("03 2000", .sent, at: 2_000),
            CassettePackets.att("12 1100 0100", .received, at: 3_000),
            CassettePackets.att("13", .sent, at: 3_500),
            CassettePackets.att("1b 1000 4142", .sent, at: 4_000),
            CassettePackets.att("52 1500 07", .received, at: 5_000),
            CassettePackets.att("12 1500 08", .received, at: 6_000),
            CassettePackets.att("01 12 1500 80", .sent, at: 6_200),
        ])
        #expect(cassette.hostRole == .peripheral)
        #expect(cassette.centrals == [Self.peer])
        #expect(cassette.peers.isEmpty)
        #expect(cassette.centralEpisodes[Self.peer]?.count == 1)
        let link = cassette.links[0]
        #expect(link.hostRole == .peripheral)
        #expect(link.mtu == 32)
        #expect(cassette.answers(for: .write, handle: 0x11, on: Self.peer).isEmpty)
        let subscribe = cassette.answers(for: .write, handle: 0x11, on: Self.peer, from: .peer)
        #expect(subscribe.map(\.value) == [[1, 0]])
        #expect(subscribe.first?.latency == 0.0005)
        #expect(
            cassette.answers(for: .writeWithoutResponse, handle: 0x15, on: Self.peer, from: .peer).map(\.answered) == [
                false
            ])
        #expect(
            cassette.answers(for: .write, handle: 0x15, on: Self.peer, from: .peer).first?.error
                == ATTErrorCode(rawValue: 0x80))
        #expect(link.notifications.map(\.sender) == [.host])
    }

    static let central = BluetoothAddress("C0:00:00:00:00:01")!

    @Test func aPeripheralSideCaptureHoldsTheRemoteCentralsRequestsAndThisHostsAnswers() throws {
        let path = Fixtures.capture("peripheral-server.btsnoop")
        let expected = try IndependentPass(path: path)
        let (cassette, fault) = try Cassette.load(path: path)
        #expect(fault == nil)
        #expect(cassette.hostRole == .peripheral)
        #expect(cassette.peers.isEmpty)
        #expect(cassette.centrals == [Self.central])
        #expect(cassette.centralEpisodes[Self.central]?.count == 1)
        #expect(!cassette.advertising.isEmpty)
        let link = try #require(cassette.links(of: Self.central).first)
        #expect(link.hostRole == .peripheral)
        #expect(link.exchanges.filter { $0.opcode.method == .request }.allSatisfy { $0.sender == .peer })
        // Subscribing and unsubscribing: the CCCD writes the analysis confirmed, in order (the
        // remote central's, to this host's server).
        #expect(expected.report.connections.flatMap(\.subscriptions).isEmpty)
        let subscriptions = expected.report.connections.flatMap(\.peerSubscriptions)
        let cccd = try #require(subscriptions.first?.descriptorHandle)
        let writes = cassette.answers(for: .write, handle: cccd, on: Self.central, from: .peer)
        #expect(writes.count == subscriptions.count)
        #expect(writes.map { $0.value.first ?? 0xFF } == subscriptions.map { $0.mode == .notify ? 1 : 0 })
        // The refused write: the server's answer is the error `bletrace errors` lists.
        let refused = try #require(expected.errors.first { $0.layer == .att && !$0.expected })
        let answer = cassette.answer(
            for: .write, handle: refused.attributeHandle!, on: Self.central, occurrence: 0, from: .peer)
        #expect(answer?.error?.rawValue == refused.code)
        // The read got the value this host's server gave.
        let reads = cassette.answers(for: .read, handle: nil, on: Self.central, from: .peer)
        #expect(reads.count == expected.readValues.count)
        #expect(reads.map(\.value) == expected.readValues.sorted { $0.key < $1.key }.map(\.value))
        // The write without response has no answer.
        let commands = cassette.answers(for: .writeWithoutResponse, handle: nil, on: Self.central, from: .peer)
        #expect(commands.count == 1)
        #expect(commands.allSatisfy { !$0.answered })
        // This host's notifications.
        #expect(link.notifications.count == expected.notifications.count)
        #expect(link.notifications.allSatisfy { $0.sender == .host })
        // The database this host's server revealed to the central is this host's, not the peer's.
        #expect(link.localDatabase?.services.map(\.uuid).contains(BluetoothUUID(UInt16(0x180D))) == true)
        #expect(link.database?.services.isEmpty != false)
    }

    @Test func aCentralThatHangsUpMidStreamEndsTheNotificationsBeforeItsDisconnection() throws {
        let path = Fixtures.capture("peripheral-disconnect-mid-notification.btsnoop")
        let expected = try IndependentPass(path: path)
        let (cassette, _) = try Cassette.load(path: path)
        let episode = try #require(cassette.centralEpisodes[Self.central]?.first)
        let link = try #require(cassette.link(connection: episode.id))
        #expect(episode.disconnection?.initiator == .remote)
        #expect(episode.disconnection?.reason == expected.report.connections[episode.id].disconnection?.reason)
        #expect(link.notifications.map(\.record) == expected.notifications.map(\.record))
        #expect(link.notifications.count > 1)
        #expect(link.notifications.allSatisfy { $0.time < episode.disconnection!.time })
    }

    @Test(
        arguments: [
            "restore-scanning.btsnoop", "restore-pending-connection.btsnoop", "restore-connected.btsnoop",
            "restore-out-of-range.btsnoop", "restore-notifying.btsnoop",
        ].map(Fixtures.capture))
    func theRestorationCapturesAreCentralSide(path: String) throws {
        let (cassette, fault) = try Cassette.load(path: path)
        #expect(fault == nil)
        #expect(cassette.hostRole == .central)
        #expect(cassette.centrals.isEmpty)
        #expect(cassette.links.allSatisfy { $0.hostRole == .central })
    }

    @Test func includedServicesFoundByDiscoveryAreKept() {
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            // Find Included Services in 0x0010-0x0020: an include at 0x0011 of the service
            // 0x0030-0x0035 (UUID 0x180F), and one at 0x0012 of a 128-bit service (no UUID given).
            CassettePackets.att("08 1000 2000 0228", .sent, at: 1_000),
            CassettePackets.att("09 08 1100 3000 3500 0f18", .received, at: 2_000),
            CassettePackets.att("08 1200 2000 0228", .sent, at: 3_000),
            CassettePackets.att("09 06 1200 4000 4800", .received, at: 4_000),
        ])
        let link = cassette.links[0]
        #expect(
            link.includedServices == [
                .init(handle: 0x11, start: 0x30, end: 0x35, uuid: BluetoothUUID(UInt16(0x180F))),
                .init(handle: 0x12, start: 0x40, end: 0x48, uuid: nil),
            ])
        #expect(link.operations.map(\.kind) == [.discovery, .discovery])
    }

    @Test func pairingFailuresAndServiceChangedAreKeptPerLink() {
        let cassette = CassettePackets.cassette([
            CassettePackets.connected(),
            CassettePackets.smp("01 03 00 01 10 07 07", .sent, at: 1_000),
            CassettePackets.smp("05 05", .received, at: 2_000),
            // Discovery shows Service Changed's value at 0x0008, then it is indicated.
            CassettePackets.att("08 0600 0900 0328", .sent, at: 3_000),
            CassettePackets.att("09 07 0700 20 0800 052a", .received, at: 4_000),
            CassettePackets.att("1d 0800 0100 ffff", .received, at: 5_000),
        ])
        let link = cassette.links[0]
        #expect(link.security.map(\.kind) == [.pairingRequested, .pairingFailed(reason: 0x05)])
        #expect(link.security.map(\.sender) == [.host, .peer])
        #expect(link.serviceChanges.map { [$0.start, $0.end] } == [[1, 0xFFFF]])
    }

    @Test(
        .sharedCaptures,
        arguments: ["whoisbe-pongbot-last.btsnoop", "syssi-jkbms-can-rs485.btsnoop"].map(Fixtures.publicCapture))
    func encryptionChangesAndServiceChangedFollowTheAnalysis(path: String) throws {
        let report = try IndependentPass(path: path).report
        let (cassette, _) = try Cassette.load(path: path)
        for connection in report.connections {
            let encryptions = connection.changes.filter {
                if case .encryption = $0.kind { return true } else { return false }
            }
            let link = cassette.link(connection: connection.id)
            let changed =
                link?.security.filter {
                    if case .encryptionChanged = $0.kind { return true } else { return false }
                } ?? []
            #expect(changed.map(\.record) == encryptions.map(\.record))
            #expect((link?.serviceChanges.count ?? 0) >= connection.serviceChangedIndications)
            #expect(link?.mtu == connection.mtu)
        }
    }

    @Test(arguments: bundled + publicOnes)
    func theEpisodesAreTheLifecycleConnectionsOfEachPeer(path: String) throws {
        Fixtures.noteSharedSkipped(
            "CassetteTests.theEpisodesAreTheLifecycleConnectionsOfEachPeer", count: Self.publicNames.count)
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let (cassette, _) = try Cassette.load(path: path)
        // Connections that began before the capture with no peer address play under a stand-in peer.
        var connections = report.connections
        for index in connections.indices where connections[index].peer == nil && connections[index].beganBeforeCapture {
            connections[index].peer = Cassette.standInAddress(handle: connections[index].handle ?? 0)
        }
        var named = report
        named.connections = connections
        let old = Cassette(report: named)
        #expect(cassette.peers == old.peers)
        #expect(cassette.start == old.start && cassette.end == old.end)
        for peer in cassette.peers {
            #expect(cassette.episodes[peer].map(Array.init) == old.episodes[peer].map(Array.init))
        }
        #expect(cassette.connections == connections)
    }

    @Test func aDamagedCaptureGivesTheCassetteOfItsGoodRecordsAndTheFault() throws {
        let bytes = try Fixtures.contents(Fixtures.capture("att-errors.btsnoop"))
        let whole = try Cassette.load(path: Fixtures.capture("att-errors.btsnoop")).0
        // Cut inside the record after the last error's answer (indices are 0-based).
        let lastError = whole.links[0].exchanges.last { $0.answer?.error != nil }!.answer!.record
        let cut = try Fixtures.temporaryFile(Array(bytes.prefix(offset(ofRecord: lastError + 1, in: bytes) + 10)))
        let (cassette, fault) = try Cassette.load(path: cut)
        #expect(fault != nil)
        #expect(
            cassette.links[0].exchanges.filter { $0.answer?.error != nil }.count
                == whole.links[0].exchanges.filter { $0.answer?.error != nil }.count)
        #expect(cassette.records == lastError + 1)
    }

    /// `bytes` with the timestamp of every record from `n` (0-based) on moved by `seconds`.
    func shiftingTime(of bytes: [UInt8], fromRecord n: Int, by seconds: Int64) -> [UInt8] {
        var bytes = bytes
        var offset = offset(ofRecord: n, in: bytes)
        while offset + 24 <= bytes.count {
            let field = offset + 16..<offset + 24
            let time = bytes[field].reduce(Int64(0)) { $0 << 8 | Int64($1) } + seconds * 1_000_000
            for (i, position) in field.enumerated() {
                bytes[position] = UInt8(truncatingIfNeeded: time >> (56 - 8 * i))
            }
            let length =
                Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8
                | Int(bytes[offset + 7])
            offset += 24 + length
        }
        return bytes
    }

    @Test func aClockThatJumpsByMoreThanADayEndsTheCassetteAtTheRecordBefore() async throws {
        let bytes = try Fixtures.contents(Fixtures.capture("att-errors.btsnoop"))
        let whole = try Cassette.load(path: Fixtures.capture("att-errors.btsnoop")).0
        #expect(whole.clockJump == nil)
        let n = whole.records / 2
        // Forwards by centuries (a damaged timestamp field), or backwards by two days: the cassette
        // stops before the jump, and the replay says so.
        for seconds: Int64 in [5_000_000_000_000, -172_800] {
            let (cassette, fault) = try Cassette.load(
                path: try Fixtures.temporaryFile(shiftingTime(of: bytes, fromRecord: n, by: seconds)))
            #expect(fault == nil)
            let jump = try #require(cassette.clockJump)
            #expect(jump.record == n && cassette.records == n)
            #expect(jump.to.seconds(since: jump.from) > 86_400 || jump.to.seconds(since: jump.from) < -86_400)
            #expect(cassette.end == jump.from && cassette.end < whole.end)
            let flow = await ReplayEngine(cassette: cassette).run(
                ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
            #expect(flow.comments.contains { $0.hasPrefix("the capture's clock jumps at frame \(n + 1), from +") })
        }
        // Half a day later is a pause, not damage: every record is kept.
        let paused = try Cassette.load(
            path: try Fixtures.temporaryFile(shiftingTime(of: bytes, fromRecord: n, by: 43_200))
        ).0
        #expect(paused.clockJump == nil && paused.records == whole.records)
        #expect(paused.end.seconds(since: whole.end) == 43_200)
    }

    /// The byte offset of record `n` (0-based) of a btsnoop file.
    func offset(ofRecord n: Int, in bytes: [UInt8]) -> Int {
        var offset = 16
        for _ in 0..<n {
            let length =
                Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8
                | Int(bytes[offset + 7])
            offset += 24 + length
        }
        return offset
    }
}
