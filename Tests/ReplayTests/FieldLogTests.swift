import BLETraceCoreBluetooth
import Foundation
import Lifecycle
import TestSupport
import Wire
import Testing

@testable import Flow
@testable import Replay

/// Shapes of real logs the replay used to read wrong.
@Suite struct FieldLogTests {
    static func mirror(_ path: String) async throws -> Flow {
        let (cassette, _) = try Cassette.load(path: path)
        return await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
    }

    @Test func aPacketLoggerFileWhoseHeaderNotesAreDaysOlderReplaysAsItsTraffic() async throws {
        // The pklg is the btsnoop behind iOS's header notes, stamped 3 days before the traffic.
        let notes = try await Self.mirror(Fixtures.capture("pklg-header-notes.pklg"))
        let plain = try await Self.mirror(Fixtures.capture("pklg-header-notes.btsnoop"))
        #expect(notes.events.count > 10)
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("pklg-header-notes.pklg"))
        #expect(cassette.clockJump == nil)
        #expect(cassette.end.seconds(since: cassette.start) < 60)
        // One clock: the flow counts from the capture's first record, the header notes' (as
        // `lifecycle` and `errors` do), so the same events come that much later.
        let lead = cassette.start.seconds(since: cassette.origin)
        #expect(lead > 86_400)
        #expect(notes.events.count == plain.events.count)
        for (note, event) in zip(notes.events, plain.events) {
            #expect(note.name == event.name && note.arguments == event.arguments)
            #expect(abs((note.time ?? 0) - (event.time ?? 0) - lead) < 0.000_002)
        }
        let story = try TraceAnalysis(path: Fixtures.capture("pklg-header-notes.pklg")).lifecycle
        let first = try #require(story.firstTime)
        let connected = try #require(story.connections.first?.completion?.time.seconds(since: first))
        #expect(notes.events.first { $0.name == "didConnect" }?.time.map { abs($0 - connected) < 0.000_002 } == true)
    }

    @Test func anOperationACoreBluetoothAppCannotMakeIsNotPlayedAndSaysWhy() async throws {
        // att-errors reads 0x00F0, which no discovery revealed (frame 91 answers Invalid Handle).
        let flow = try await Self.mirror(Fixtures.capture("att-errors.btsnoop"))
        #expect(flow.comments.contains { $0.contains("read of 0x00F0") && $0.contains("is not played") })
        let errors = try TraceAnalysis(path: Fixtures.capture("att-errors.btsnoop")).errors
        let refusal = try #require(errors.first { $0.layer == .att && $0.attributeHandle == 0x00F0 })
        #expect(refusal.coreBluetooth?.callback.hasPrefix("no callback: the attribute is not in the database") == true)
    }

    @Test func theEndOfTheCaptureNamesOnlyPeripheralsTheAppConnected() async throws {
        let flow = try await Self.mirror(Fixtures.capture("scan.btsnoop"))
        #expect(flow.events.contains { $0.name == "didDiscover" })
        #expect(!flow.comments.contains { $0.hasPrefix("at the end of the capture") })
        let connected = try await Self.mirror(Fixtures.capture("peer-disconnect.btsnoop"))
        #expect(connected.comments.contains { $0.hasPrefix("at the end of the capture: F0:F1:F2:F3:F4:05 is") })
    }

    @Test func thePeersClientOnThisHostsServerNeverReachesTheAppsCentralSide() async throws {
        let flow = try await Self.mirror(Fixtures.capture("peer-also-client.btsnoop"))
        // The peer discovered this host's CCC0, read CCC1, subscribed to Service Changed and CCC2,
        // wrote an unknown handle and got this host's indication: none of it is the app's.
        for event in flow.events {
            for argument in event.arguments { #expect(!argument.value.contains("CCC"), "\(event.name)") }
            #expect(event.name != "didModifyServices")
            #expect(event.argument("error")?.hasPrefix("CBATTError") != true)
        }
        #expect(flow.events.contains { $0.name == "didUpdateValueFor" && $0.argument("characteristic") == "2A37" })
    }
}

extension FieldLogTests {
    @Test func aPeripheralHostThatIsAlsoAClientReachesTheCentralsServerThroughItsCentralManager() async throws {
        let flow = try await Self.mirror(Fixtures.capture("peripheral-and-client.btsnoop"))
        // This host's own requests to the central's server (CCC0), as the capture made them ...
        let read = try #require(
            flow.events.first { $0.name == "didUpdateValueFor" && $0.argument("characteristic") == "CCC1" })
        #expect(read.argument("value") == "70686f6e652d6f6b")  // "phone-ok", frame 121
        #expect(
            flow.events.filter { $0.name == "didUpdateValueFor" && $0.argument("characteristic") == "CCC2" }.map {
                $0.argument("value")
            } == ["a1", "a2"])
        // ... beside the central's requests to this host's server, which reach the peripheral manager.
        #expect(flow.events.contains { $0.name == "didReceiveRead" && $0.argument("characteristic") == "2A38" })
        #expect(flow.events.contains { $0.name == "didSubscribeTo" && $0.argument("characteristic") == "2A37" })
    }
}

extension FieldLogTests {
    @Test func aCentralHostsPeerThatIsAlsoAClientReachesTheServicesTheAppPublished() async throws {
        // peer-also-client: this host (the central) serves CCC0; the peripheral reads CCC1
        // (frame 120), subscribes to CCC2 (frame 136) and writes 0x0040, which nothing holds.
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("peer-also-client.btsnoop"))
        let local = try #require(cassette.links.first?.localDatabase)
        let app = TestServerApp(services: local.services.filter { $0.uuid == BluetoothUUID(UInt16(0xCCC0)) })
        app.read = { _ in (CBATTError.Code.success, Data("phone-ok".utf8)) }
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "server")
        let read = try #require(flow.events.first { $0.name == "didReceiveRead" })
        #expect(read.argument("central") == "F0:F1:F2:F3:F4:05")
        #expect(read.argument("characteristic") == "CCC1")
        #expect(flow.events.contains { $0.name == "didSubscribeTo" && $0.argument("characteristic") == "CCC2" })
        // The app answered as the capture's server did: nothing diverges.
        #expect(!flow.events.contains { $0.name == "answerDiffers" })
        // Service Changed, the unknown handle: the system's, silently; nor is the app told it
        // connected while not advertising (it was the central).
        #expect(!flow.comments.contains { $0.contains("divergence") || $0.contains("not advertising") })
        // Without a peripheral manager (the mirror), all of it is the system's.
        let mirror = try await Self.mirror(Fixtures.capture("peer-also-client.btsnoop"))
        #expect(!mirror.events.contains { $0.actor == "peripheralManager" })
        #expect(!mirror.comments.contains { $0.contains("divergence") })
    }
}

extension FieldLogTests {
    @Test(.sharedCaptures) func theStacksOwnRequestsToGenericAccessAndGenericAttributeAreNotTheApps() async throws {
        // syssi-jbdbms-ffaa-auth-h1: the Android stack writes Client Supported Features (0x000B,
        // in 1801) on each connection and reads Device Name (0x0003, in 1800).
        let path = Fixtures.publicCapture("syssi-jbdbms-ffaa-auth-h1.btsnoop")
        let flow = try await Self.mirror(path)
        #expect(
            flow.comments.contains { $0.contains("write of 0x000B") && $0.contains("the stack's own request to 1801") })
        #expect(!flow.events.contains { $0.name == "writeValue" && $0.argument("characteristic") == "2B29" })
        let (cassette, _) = try Cassette.load(path: path)
        let stacks = cassette.links.flatMap(\.operations).filter {
            $0.sender == .host && ($0.handle == 0x000B || $0.handle == 0x0003)
        }
        #expect(!stacks.isEmpty)
    }
}

extension FieldLogTests {
    @Test func discoveryGivesTheAppNeitherGenericAccessNorGenericAttribute() async throws {
        // Every bundled capture's peer serves 1800 and 1801; iOS keeps both to itself.
        let flow = try await Self.mirror(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(cassette.services(of: cassette.peers[0]).map(\.uuid).contains(BluetoothUUID(UInt16(0x1800))))
        let found = try #require(flow.events.first { $0.name == "didDiscoverServices" })
        #expect(found.argument("services") == "180D,AAA0")
        #expect(!flow.events.contains { $0.argument("service") == "1800" || $0.argument("service") == "1801" })
    }

    @Test func subscribingToTheStateACharacteristicHasIsAnsweredAtOnceWithNothingOnTheAir() async throws {
        // restore-notifying: the capture subscribes once to 2A37; the app asks twice.
        let app = ProbeApp { peripheral, launch in
            let measurement = characteristic("2A37", of: peripheral)
            peripheral.setNotifyValue(true, for: measurement)
            launch.asyncAfter(0.05) { peripheral.setNotifyValue(true, for: measurement) }
        }
        let (flow, _, _) = try await replay("restore-notifying.btsnoop", app)
        let states = flow.events.filter { $0.name == "didUpdateNotificationStateFor" }
        try #require(states.count == 2)
        #expect(states.allSatisfy { $0.argument("isNotifying") == "true" && $0.argument("error") == "nil" })
        // The second answer came at once, not after the capture's latency.
        let asks = flow.events.filter { $0.name == "setNotifyValue" }
        #expect(states[1].time == asks[1].time)
    }
}

extension FieldLogTests {
    @Test func aMisuseThatCrashesAnIOSAppEndsTheReplayWithTheRule() async throws {
        // Writing the CCCD directly raises an exception on iOS: the flow ends there.
        let app = ProbeApp { peripheral, launch in
            let measurement = characteristic("2A37", of: peripheral)
            let cccd = try! #require(measurement.descriptors?.first { $0.uuid == CBUUID(string: "2902") })
            peripheral.writeValue(Data([0x01, 0x00]), for: cccd)
            launch.asyncAfter(0.01) { peripheral.readValue(for: characteristic("2A38", of: peripheral)) }
        }
        let (flow, _, engine) = try await replay("restore-notifying.btsnoop", app)
        #expect(engine.failed)
        #expect(engine.crashReason == "cccdWrittenDirectly")
        let last = try #require(flow.events.last)
        #expect(last.actor == "system" && last.name == "crash" && last.argument("reason") == "cccdWrittenDirectly")
        #expect(!flow.events.contains { $0.name == "readValue" })
    }
}

extension FieldLogTests {
    @Test func aRequestOnALinkAlreadyEncryptedGetsTheAnswerFromAfterTheEncryption() async throws {
        // pairing-retry: the write of EEE3 is refused (0x05) at +0.368, pairing follows, the link
        // is encrypted at +0.442 and the retry succeeds. An app that writes only at +0.6, on the
        // encrypted link, meets no refusal and no pairing: it gets the answer from after.
        let app = ProbeApp { peripheral, launch in
            launch.asyncAfter(0.6) {
                peripheral.writeValue(
                    Data([0x01]), for: characteristic("0000EEE3-0000-1000-8000-00805F9B34FB", of: peripheral),
                    type: .withResponse)
            }
        }
        let (flow, cassette, _) = try await replay("pairing-retry.btsnoop", app)
        let encrypted = try #require(
            cassette.links.first?.security.first {
                if case .encryptionChanged(true, _) = $0.kind { true } else { false }
            })
        let write = try #require(flow.events.first { $0.name == "writeValue" })
        #expect((write.time ?? 0) > encrypted.time.seconds(since: cassette.start))
        let answer = try #require(flow.events.first { $0.name == "didWriteValueFor" })
        #expect(answer.argument("error") == "nil")
        #expect(!flow.comments.contains { $0.contains("the peer asked for security") })
    }
}

extension FieldLogTests {
    /// A capture's records, each given its position as its index.
    static func numbered(_ records: [OwnedRecord]) -> [OwnedRecord] {
        records.enumerated().map { index, record in
            var record = record
            record.index = index
            return record
        }
    }

    @Test func anAttemptTheAppCancelledLeavesTheNextConnectionToTheNextAttempt() async throws {
        // As 8none1-bj_led-full: connect, cancel (the completion says 0x02), connect again, and
        // that attempt connects and writes. Peer F0:F1:F2:F3:F4:05 (random).
        let create = "0d20 19 6000 3000 00 01 05f4f3f2f1f0 00 1800 2800 0000 2a00 0000 0000"
        let records = Self.numbered([
            OwnedRecord(kind: .command, direction: .sent, hex: create, time: 1_000_000),
            OwnedRecord(kind: .event, direction: .received, hex: "0f 04 00 01 0d20", time: 1_000_100),
            OwnedRecord(kind: .command, direction: .sent, hex: "0e20 00", time: 5_000_000),
            // LE Connection Complete with Unknown Connection Identifier (0x02): the cancel done.
            OwnedRecord(
                kind: .event, direction: .received, hex: "3e 13 01 02 0000 00 00 000000000000 0000 0000 0000 00",
                time: 5_000_100),
            OwnedRecord(kind: .command, direction: .sent, hex: create, time: 6_000_000),
            OwnedRecord(kind: .event, direction: .received, hex: "0f 04 00 01 0d20", time: 6_000_100),
            CassettePackets.connected(at: 6_500_000),
            CassettePackets.att("520300 01", .sent, at: 7_000_000),  // Write Command to 0x0003
        ])
        let cassette = CassettePackets.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let names = flow.events.filter { $0.actor != "system" }.map(\.name)
        #expect(names.filter { $0 == "connect" }.count == 2)
        let connected = try #require(flow.events.first { $0.name == "didConnect" })
        #expect(connected.time.map { abs($0 - 5.5) < 0.001 } == true, "\(connected)")
        #expect(!flow.comments.contains { $0.contains("API MISUSE") })
    }
}

extension FieldLogTests {
    @Test func aLinkUpBeforeTheCaptureWhoseFirstRecordIsDiscoveryIsDiscoveredOnceConnected() async throws {
        // As madkaye-revcar: the capture starts with this host's discovery on a link already up.
        let records = Self.numbered([
            CassettePackets.att("10 0100 ffff 0028", .sent, at: 0),  // Read By Group Type: primary services
            CassettePackets.att("11 06 0100 0500 0d18", .received, at: 10_000),  // 0x0001-0x0005: 180D
            CassettePackets.att("10 0600 ffff 0028", .sent, at: 20_000),
            CassettePackets.att("01 10 0600 0a", .received, at: 30_000),
            CassettePackets.att("08 0100 0500 0328", .sent, at: 40_000),  // characteristics
            CassettePackets.att("09 07 0200 02 0300 382a", .received, at: 50_000),  // 0x0003: 2A38, read
            CassettePackets.att("08 0300 0500 0328", .sent, at: 60_000),
            CassettePackets.att("01 08 0300 0a", .received, at: 70_000),
            CassettePackets.att("0a 0300", .sent, at: 100_000),  // Read Request
            CassettePackets.att("0b 01", .received, at: 110_000),
        ])
        let cassette = CassettePackets.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        #expect(!flow.comments.contains { $0.contains("API MISUSE") }, "\(flow.comments)")
        let names = flow.events.map(\.name)
        let connected = try #require(names.firstIndex(of: "didConnect"))
        let discovery = try #require(names.firstIndex(of: "discoverServices"))
        #expect(connected < discovery)
        let read = try #require(flow.events.first { $0.name == "didUpdateValueFor" })
        #expect(read.argument("characteristic") == "2A38" && read.argument("value") == "01")
    }
}
