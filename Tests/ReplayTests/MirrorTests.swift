import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import Lifecycle
import TestSupport
import Testing
import TraceFiles

@testable import Flow
@testable import Replay

/// The mirror replays the captured app's own requests; its flow is what CoreBluetooth would have
/// told that app. Each ATT error the error collector (`bletrace errors`) finds on an attribute the
/// app had discovered must reach the app once, in the delegate method and with the `CBATTError`
/// the collector names, on that characteristic.
@Suite struct MirrorTests {
    static let captures =
        [
            Fixtures.capture("att-errors.btsnoop"), Fixtures.capture("peer-disconnect.btsnoop"),
            Fixtures.capture("reconnect-supervision-timeout.btsnoop"), Fixtures.capture("service-changed.btsnoop"),
        ] + Fixtures.publicCaptures(publicOnes)
    static let publicOnes = ["syssi-jkbms-b5a24s.btsnoop", "joelarula-darkelf-2.btsnoop", "madkaye-revcar.btsnoop"]

    /// The collector's errors as the flow line parts they should become.
    static func expectedErrors(_ path: String) throws -> [String] {
        let reader = try CaptureReader(path: path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = ErrorCollector()
        while let record = try reader.next() {
            let decoded = decoder.decode(record)
            analyzer.add(record, decoded)
            collector.add(record, decoded, analyzer: analyzer)
        }
        return collector.errors.compactMap { error in
            guard error.layer == .att, !error.expected, let attribute = error.attribute, let cb = error.coreBluetooth
            else { return nil }
            let method: String
            switch cb.callback {
            case "peripheral(_:didUpdateValueFor:error:)": method = "didUpdateValueFor"
            case "peripheral(_:didWriteValueFor:error:)": method = "didWriteValueFor"
            case "peripheral(_:didUpdateNotificationStateFor:error:)": method = "didUpdateNotificationStateFor"
            default: return nil
            }
            let uuid = CBUUID(bluetoothUUID: attribute.uuid).uuidString
            let target =
                method == "didUpdateNotificationStateFor" || uuid.count != 4 || !uuid.hasPrefix("29")
                ? "characteristic" : "descriptor"
            return
                "\(method) \(target)=\(target == "characteristic" && method == "didUpdateNotificationStateFor" ? "*" : uuid) error=\(CBATTError(errorCode: cb.code))"
        }
    }

    @Test(arguments: captures)
    func everyATTErrorReachesTheCallbackCoreBluetoothWouldUse(_ path: String) async throws {
        Fixtures.noteSharedSkipped(
            "MirrorTests.everyATTErrorReachesTheCallbackCoreBluetoothWouldUse", count: Self.publicOnes.count)
        let expected = try Self.expectedErrors(path)
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
        let surfaced = flow.events.filter {
            $0.actor == "peripheral" && $0.argument("error") != "nil" && $0.argument("error") != nil
        }
        .map { event -> String in
            let target = event.argument("descriptor") != nil ? "descriptor" : "characteristic"
            let uuid =
                event.name == "didUpdateNotificationStateFor"
                ? "*" : (event.argument(target) ?? "?").split(separator: "@")[0]
            return "\(event.name) \(target)=\(uuid) error=\(event.argument("error")!)"
        }
        #expect(surfaced.sorted() == expected.sorted(), "\(path)")
    }

    @Test func theMirrorIsTheDefaultAndFollowsTheCapturedConnections() async throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(ReferenceApps.all[0].make(for: cassette), name: "mirror")
        #expect(ReferenceApps.all[0].name == "mirror")
        let connects = flow.events.filter { $0.name == "connect" }.compactMap(\.time)
        let attempts = cassette.episodes[cassette.peers[0]]!.compactMap {
            $0.attempt?.time.seconds(since: cassette.start)
        }
        #expect(connects == attempts)
        #expect(
            flow.events.contains {
                $0.name == "didDisconnectPeripheral" && $0.argument("error") == "CBError.connectionTimeout"
            })
    }

    @Test(
        arguments: [
            Fixtures.capture("scan.btsnoop")
        ]
            + Fixtures.publicCaptures([
                "csacca-horizon74.btsnoop", "mchwalisz-lightsapp.btsnoop", "syssi-jkbms-can-rs485.btsnoop",
            ]))
    func theMirrorScansWhenTheCapturedHostScannedAndHearsWhatEachScanHeard(_ path: String) async throws {
        Fixtures.noteSharedSkipped(
            "MirrorTests.theMirrorScansWhenTheCapturedHostScannedAndHearsWhatEachScanHeard", count: 3)
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
        let scans = cassette.scans.filter { $0.startTime != nil || $0.beganBeforeCapture }
        #expect(!scans.isEmpty)
        let starts = flow.events.filter { $0.name == "scanForPeripherals" }
        #expect(
            starts.compactMap(\.time) == scans.map { ($0.startTime ?? cassette.start).seconds(since: cassette.start) })
        #expect(starts.allSatisfy { $0.argument("services") == "nil" })
        #expect(
            flow.events.filter { $0.name == "stopScan" }.compactMap(\.time)
                == scans.compactMap { $0.stopTime?.seconds(since: cassette.start) })
        // Each scan reports the devices the capture's scan heard, each once (CoreBluetooth's
        // default: no duplicates).
        var heard: [[String]] = []
        for event in flow.events {
            if event.name == "scanForPeripherals" { heard.append([]) }
            if event.name == "didDiscover", !heard.isEmpty {
                heard[heard.count - 1].append(event.argument("peripheral") ?? "?")
            }
        }
        #expect(heard == scans.map { $0.devices.map { "\($0.address)" } }, "\(path)")
    }
}

/// The mirror on captures taken on a peripheral host: the captured GATT server is played again,
/// and each of its answers is the one the capture's server gave, so nothing diverges.
@Suite struct MirrorServerTests {
    @Test(arguments: ["peripheral-server.btsnoop", "peripheral-disconnect-mid-notification.btsnoop"])
    func theCapturedServerIsPlayedAgainWithTheCapturesAnswers(_ name: String) async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(name))
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
        #expect(!flow.events.contains { $0.name == "answerDiffers" })
        #expect(!flow.comments.contains { $0.hasPrefix("divergence") })
        // Every request of a remote central that needs an answer got one.
        let requests = flow.events.filter {
            $0.name == "didReceiveRead" || ($0.name == "didReceiveWrite" && $0.argument("type") == "withResponse")
        }
        let responses = flow.events.filter { $0.actor == "app" && $0.name == "respond" }
        #expect(requests.count == responses.count)
        // The capture's notifications went out while subscribed, in order.
        let sent = flow.events.filter { $0.name == "updateValue" }.compactMap { $0.argument("value") }
        let captured = cassette.links.filter { $0.hostRole == .peripheral }.flatMap(\.notifications).filter {
            $0.sender == .host
        }
        .map { FlowRecord.Value.text(of: $0.value) }
        #expect(!sent.isEmpty && captured.starts(with: sent))
        // GAP and GATT are CoreBluetooth's own: never published.
        #expect(!flow.events.contains { $0.name == "add" && ["1800", "1801"].contains($0.argument("service")) })
    }
}
