import ATT
import HCI
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// Links where both ends are GATT servers and clients: every ATT PDU belongs to the server its
/// sender and method say (``GATTServer``), and the two databases, subscriptions, discoveries and
/// refusals are never mixed.
@Suite struct BothServersTests {
    static let cccd = BluetoothUUID(UInt16(0x2902))

    /// The server of each ATT PDU of `path`, read straight from the records' directions and
    /// opcodes, independently of the analysis: record index → (server, opcode).
    static func serversByRecord(_ path: String) throws -> [Int: (GATTServer, ATTOpcode)] {
        var result: [Int: (GATTServer, ATTOpcode)] = [:]
        var decoder = TraceDecoder()
        let reader = try CaptureReader(path: path)
        while let record = try reader.next() {
            guard let pdu = decoder.decode(record).att, let direction = record.direction else { continue }
            let sent = direction == .sent
            let server: GATTServer =
                switch pdu.opcode.method {
                case .request, .command, .confirmation: sent ? .peer : .local
                default: sent ? .local : .peer
                }
            result[record.index] = (server, pdu.opcode)
        }
        return result
    }

    @Test(arguments: [
        (GATTServer.peer, ATTOpcode.Method.request, Direction.sent), (.local, .request, .received),
        (.local, .response, .sent), (.peer, .response, .received), (.peer, .command, .sent),
        (.local, .command, .received),
        (.local, .notification, .sent), (.peer, .notification, .received), (.local, .indication, .sent),
        (.peer, .indication, .received), (.peer, .confirmation, .sent), (.local, .confirmation, .received),
    ])
    func eachPDUBelongsToTheServerItsSenderAndMethodSay(
        _ server: GATTServer, _ method: ATTOpcode.Method, _ direction: Direction
    ) {
        #expect(GATTServer(method, direction: direction) == server)
    }

    @Test func aCaptureWithNoDirectionsIsReadAsThePeersServer() {
        #expect(GATTServer(.response, direction: nil) == .peer)
        #expect(GATTServer(.request, direction: nil) == .peer)
    }

    @Test func aPeerThatIsAlsoAClientHasItsOwnDatabaseAndThisHostsApart() throws {
        let path = Fixtures.capture("peer-also-client.btsnoop")
        let entry = try #require(try gatt(path).first)
        let peer = entry.database.services.map(\.uuid)
        let local = entry.localDatabase.services.map(\.uuid)
        #expect(peer.contains(BluetoothUUID(UInt16(0x180D))))
        #expect(!peer.contains(BluetoothUUID(UInt16(0xCCC0))))
        #expect(local.contains(BluetoothUUID(UInt16(0xCCC0))))
        #expect(!local.contains(BluetoothUUID(UInt16(0x180D))))
        // Every value each database holds came from a PDU of that server (independently read).
        let servers = try Self.serversByRecord(path)
        for server in [GATTServer.peer, .local] {
            let values = entry[server].services.flatMap(\.characteristics).flatMap { c in
                [c.lastValue] + c.descriptors.map(\.lastValue)
            }
            .compactMap { $0 }
            #expect(!values.isEmpty)
            for value in values {
                // A read's value is in the response; a write's in the request; a notification's in itself.
                #expect(servers[value.record]?.0 == server, "frame \(value.record + 1)")
            }
        }
        // This host's Service Changed indication is its own server's value, not the peer's.
        let serviceChanged = BluetoothUUID(UInt16(0x2A05))
        let localSC = entry.localDatabase.services.flatMap(\.characteristics).first { $0.uuid == serviceChanged }
        #expect(localSC?.lastValue?.source == .indication)
        let peerSC = entry.database.services.flatMap(\.characteristics).first { $0.uuid == serviceChanged }
        #expect(peerSC?.lastValue == nil)
    }

    @Test func subscriptionsDiscoveriesAndRefusalsGoToTheirServer() throws {
        let path = Fixtures.capture("peer-also-client.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)
        #expect(connection.subscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0x2A37))])
        #expect(
            connection.peerSubscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0x2A05)), BluetoothUUID(UInt16(0xCCC2))])
        #expect(connection.serviceChangedIndications == 0)  // this host's own indication tells the peer
        // Discovery counts this host's client only: as many requests as it sent.
        let servers = try Self.serversByRecord(path)
        let discoveryOpcodes: Set<ATTOpcode> = [
            .readByGroupTypeRequest, .readByTypeRequest, .findInformationRequest, .findByTypeValueRequest,
        ]
        let sent = servers.values.filter { $0.0 == .peer && discoveryOpcodes.contains($0.1) }.count
        let received = servers.values.filter { $0.0 == .local && discoveryOpcodes.contains($0.1) }.count
        #expect(received > 0)
        #expect(connection.discoveryProcedures.map(\.requests).reduce(0, +) == sent)

        let errors = try collectErrors(path)
        let refusal = try #require(errors.first { $0.layer == .att && $0.code == 0x01 })
        #expect(refusal.server == .local)
        #expect(refusal.sentBy == .host)
        #expect(refusal.coreBluetooth?.callback.hasPrefix("no callback: this host's server") == true)
        // The peer's server refused nothing but discovery ends.
        #expect(errors.filter { $0.server == .peer }.allSatisfy { $0.expected })
    }

    @Test func aPeripheralHostThatIsAlsoAClientKeepsItsOwnSubscriptionsAsTheApps() throws {
        let path = Fixtures.capture("peripheral-and-client.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)
        #expect(connection.role == .peripheral)
        #expect(connection.subscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0xCCC2))])
        #expect(connection.peerSubscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0x2A37))])
        let entry = try #require(try gatt(path).first)
        #expect(entry.database.services.map(\.uuid).contains(BluetoothUUID(UInt16(0xCCC0))))
        #expect(entry.localDatabase.services.map(\.uuid).contains(BluetoothUUID(UInt16(0x180D))))
    }

    @Test func pairingIsFollowedFromTheRefusalThatLedToItToTheRetry() throws {
        let path = Fixtures.capture("pairing-retry.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let pairing = try #require(report.connections.first?.pairings.first)
        let errors = try collectErrors(path)
        let refusal = try #require(errors.first { $0.layer == .att && $0.code == 0x05 })
        #expect(pairing.startedBy == .host)
        #expect(pairing.causeRecord == refusal.record)
        #expect(pairing.outcome == .encrypted)
        #expect(pairing.secureConnections == true)
        #expect(pairing.method == .justWorks)
        #expect(pairing.pairedBeforeOn == nil)
        // iOS pairs and sends the write again: the app gets the retry's answer, not the refusal.
        let retry = try #require(refusal.retryRecord)
        let (records, _) = try Fixtures.readAll(path)
        var decoder = TraceDecoder()
        let answer = records[retry].withRecord { decoder.decode($0).att?.opcode }
        #expect(answer == .writeResponse)
        #expect(refusal.expected)
        #expect(refusal.coreBluetooth?.callback.hasPrefix("no callback") == true)
    }

    @Test(arguments: [
        // Just Works: no MITM asked.
        ("03 00 01 10 07 07", "03 00 01 10 07 07", Pairing.Method.justWorks),
        // Passkey: a keyboard on one side, a display on the other, MITM asked.
        ("02 00 05 10 07 07", "00 00 05 10 07 07", .passkeyEntry),
        // Numeric comparison: DisplayYesNo both, LE Secure Connections.
        ("01 00 0d 10 07 07", "01 00 0d 10 07 07", .numericComparison),
        // The same without Secure Connections is Just Works (legacy has no numeric comparison).
        ("01 00 05 10 07 07", "01 00 05 10 07 07", .justWorks),
        // KeyboardDisplay both: numeric comparison with SC, passkey without.
        ("04 00 0d 10 07 07", "04 00 0d 10 07 07", .numericComparison),
        ("04 00 05 10 07 07", "04 00 05 10 07 07", .passkeyEntry),
        // NoInputNoOutput on one side: Just Works though MITM is asked.
        ("04 00 0d 10 07 07", "03 00 0d 10 07 07", .justWorks),
        // OOB data on both sides (legacy) or one (SC).
        ("04 01 05 10 07 07", "04 01 05 10 07 07", .outOfBand),
        ("04 01 0d 10 07 07", "04 00 0d 10 07 07", .outOfBand),
    ])
    func thePairingMethodIsTheSpecificationsTable(_ request: String, _ response: String, _ method: Pairing.Method)
        throws
    {
        func features(_ code: String, _ hex: String) throws -> SMPPairingFeatures {
            try packet(code + " " + hex).withUnsafeBytes { bytes in
                switch try SMPPDU.decode(bytes).command {
                case .pairingRequest(let f), .pairingResponse(let f): return f
                default: throw DecodeError(layer: .smp, offset: 0, expected: "pairing features")
                }
            }
        }
        #expect(
            Pairing.method(initiator: try features("01", request), responder: try features("02", response)) == method)
    }

    @Test func aPairingFailedNamesWhoSentItAndEndsThePairing() {
        let report = analyze(
            numbered([
                command(Packets.createConnection, at: 100),
                event(Packets.commandStatus(0), at: 110),
                event(Packets.connectionComplete(0, handle: 0x40), at: 200),
                acl(Packets.att(handle: 0x40, "120f00 0100"), .sent, at: 300),  // Write Request of 0x000F
                acl(Packets.att(handle: 0x40, "01 12 0f00 05"), .received, at: 310),  // Insufficient Authentication
                // Pairing Request, KeyboardDisplay, MITM, SC
                acl(Self.smp(handle: 0x40, "01 04 00 0d 10 07 07"), .sent, at: 320),
                acl(Self.smp(handle: 0x40, "02 04 00 0d 10 07 07"), .received, at: 330),  // Pairing Response
                acl(Self.smp(handle: 0x40, "05 0c"), .received, at: 400),  // Pairing Failed: Numeric Comparison Failed
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 500),
                // The peer's next connection pairs again: its bond was not kept.
                command(Packets.createConnection, at: 600),
                event(Packets.commandStatus(0), at: 610),
                event(Packets.connectionComplete(0, handle: 0x41), at: 700),
                acl(Self.smp(handle: 0x41, "0b 0d"), .received, at: 710),  // Security Request
                acl(Self.smp(handle: 0x41, "01 04 00 0d 10 07 07"), .sent, at: 720),
            ]))
        let first = report.connections[0].pairings
        #expect(first.count == 1)
        #expect(first.first?.method == .numericComparison)
        #expect(first.first?.outcome == .failed)
        #expect(first.first?.failedBy == .peer)
        #expect(first.first?.failureReason == 0x0C)
        #expect(first.first?.causeRecord == 4)
        let second = report.connections[1].pairings
        #expect(second.count == 1)
        #expect(second.first?.startedBy == .peer)
        #expect(second.first?.securityRequested == true)
        #expect(second.first?.outcome == .unfinished)
        #expect(second.first?.pairedBeforeOn == 0)
    }

    /// `records` with their indices in order, as a capture numbers them.
    func numbered(_ records: [OwnedRecord]) -> [OwnedRecord] {
        records.enumerated().map { index, record in
            var record = record
            record.index = index
            return record
        }
    }

    static func smp(handle: UInt16, _ pdu: String) -> String {
        let bytes = Wire.bytes(hex: pdu)!
        return
            "\(Packets.le16(handle)) \(Packets.le16(UInt16(bytes.count + 4))) \(Packets.le16(UInt16(bytes.count))) 0600 \(pdu)"
    }

    @Test func aCancelOfAnAttemptThatBeganBeforeTheCaptureIsNoFailure() throws {
        let records = [
            command(Packets.createConnectionCancel, at: 100),
            event("0e 04 01 0e20 00", at: 110),  // Command Complete, success
            event(Packets.connectionComplete(0x02, handle: 0), at: 120),  // Unknown Connection Identifier
        ]
        let report = analyze(records)
        #expect(report.connections.count == 1)
        #expect(report.connections[0].outcome == .cancelled)
        #expect(report.connections[0].cbError == nil)
    }

    @Test func aSecondDiscoveryOfAllServicesIsANewProcedureAndNotPartOfTheFirst() {
        let report = analyze([
            command(Packets.createConnection, at: 0),
            event(Packets.commandStatus(0), at: 10),
            event(Packets.connectionComplete(0, handle: 0x40), at: 1_000),
            acl(Packets.att(handle: 0x40, "10 0100 ffff 0028"), .sent, at: 2_000),  // Read By Group Type from 0x0001
            acl(Packets.att(handle: 0x40, "11 06 0100 0500 0018"), .received, at: 3_000),
            acl(Packets.att(handle: 0x40, "10 0600 ffff 0028"), .sent, at: 4_000),  // continues from 0x0006
            acl(Packets.att(handle: 0x40, "01 10 0600 0a"), .received, at: 5_000),
            acl(Packets.att(handle: 0x40, "08 0100 0500 0328"), .sent, at: 6_000),  // characteristics
            acl(Packets.att(handle: 0x40, "01 08 0100 0a"), .received, at: 7_000),
            // 29 s later (after pairing, say), the stack discovers again from the start.
            acl(Packets.att(handle: 0x40, "10 0100 ffff 0028"), .sent, at: 29_000_000),
            acl(Packets.att(handle: 0x40, "11 06 0100 0500 0018"), .received, at: 29_001_000),
        ])
        let connection = report.connections[0]
        #expect(connection.discoveryProcedures.map(\.kind) == [.services, .characteristics, .services])
        #expect(connection.discoveryProcedures.map(\.requests) == [2, 1, 1])
        // The first discovery took 5 ms, not 29 s.
        #expect(connection.discoveryDuration == 0.005)
    }
}

/// The two servers' service declarations against Wireshark's: every Read By Group Type Response
/// and Find By Type Value Response tshark shows, by its direction (received: the peer's server
/// answered this host's client; sent: this host's server answered the peer's), is in that
/// server's database of its connection's entry, and the databases hold nothing else.
@Suite struct BothServersCrossCheckTests {
    /// The btsnoop captures (tshark gives their records' direction as `frame.p2p_dir`: 0 sent,
    /// 1 received; not for the Linux monitor datalink 2001, whose direction it keeps elsewhere),
    /// but the one whose Service Changed drops a discovered service by design.
    static let captures: [String] = ((try? Fixtures.allReadableCaptures()) ?? []).filter { path in
        path.hasSuffix(".btsnoop") && !path.contains(".dl2001") && !path.contains("service-changed")
    }

    @Test(arguments: captures)
    func eachServersServicesAreThoseWiresharkSeesAnsweredInItsDirection(_ path: String) throws {
        Fixtures.noteSharedSkipped(
            "BothServersCrossCheckTests.eachServersServicesAreThoseWiresharkSeesAnsweredInItsDirection", count: 20)
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        let output = try run(
            tshark,
            [
                "-r", path, "-Y", "btatt.opcode == 0x11 || btatt.opcode == 0x07", "-T", "fields", "-E", "separator=|",
                "-e", "frame.number", "-e", "frame.p2p_dir", "-e", "btatt.opcode", "-e", "btatt.handle", "-e",
                "btatt.group_end_handle",
            ]
        ).stdout
        // Frame → (server, ranges) as Wireshark reads them.
        var theirs: [Int: (GATTServer, [ClosedRange<UInt16>])] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let frame = Int(fields[0]), !fields[1].isEmpty else { continue }
            func numbers(_ text: String) -> [UInt16] {
                text.split(separator: ",").compactMap { UInt16($0.dropFirst(2), radix: 16) }
            }
            let starts = numbers(fields[3]), ends = numbers(fields[4])
            guard starts.count == ends.count, !starts.isEmpty else { continue }
            theirs[frame] = (fields[1] == "1" ? .peer : .local, zip(starts, ends).map { $0...$1 })
        }
        // Ours: the connection each of those frames was on, then each entry's two databases.
        var connectionOfFrame: [Int: Int] = [:]
        var gatt = GATTCollector()
        try readThrough(path) { record, decoded, analyzer in
            gatt.add(record, decoded, analyzer: analyzer)
            if theirs[record.index + 1] != nil, case .acl(let acl)? = decoded.packet {
                connectionOfFrame[record.index + 1] = analyzer.openConnection(on: acl.handle)?.id
            }
        }
        var expected: [String: Set<ClosedRange<UInt16>>] = [:]
        for (frame, (server, ranges)) in theirs {
            let connection = try #require(connectionOfFrame[frame], "frame \(frame)")
            let entry = try #require(gatt.entries.firstIndex { $0.connections.contains(connection) }, "frame \(frame)")
            expected["\(entry) \(server)", default: []].formUnion(ranges)
        }
        var ours: [String: Set<ClosedRange<UInt16>>] = [:]
        for (index, entry) in gatt.entries.enumerated() {
            for server in [GATTServer.peer, .local] where !entry[server].services.isEmpty {
                ours["\(index) \(server)"] = Set(
                    entry[server].services.filter(\.isPrimary).map { $0.handle...$0.endHandle })
            }
        }
        #expect(ours == expected)
    }

    @Test func theCrossCheckCoversBothServers() {
        #expect(Self.captures.contains { $0.hasSuffix("peer-also-client.btsnoop") })
        if Fixtures.shared != nil {
            #expect(Self.captures.contains { $0.hasSuffix("whoisbe-pongbot-last.btsnoop") })
        } else {
            print(
                "BothServersCrossCheckTests.theCrossCheckCoversBothServers: whoisbe-pongbot-last.btsnoop not checked: \(Fixtures.sharedMissing)"
            )
        }
    }
}
