import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// What iOS decides on its own (issue 41 item 11, review §4.7, §4.9, §4.11, §4.12): services it
/// hides beyond 1800/1801, the CCCD value it writes, Control Center's long "off", and
/// `supports(.extendedScanAndConnect)` from the capture's controller.
@Suite struct IOSOnItsOwnTests {
    typealias P = CassettePackets

    /// A peer whose database holds HID (1812, handles 1-5) and Heart Rate (180D, 6-9), with
    /// Heart Rate Measurement (value 0x0008) able to notify and indicate; the capture's host
    /// (an Android phone, say) asks for indications (0x0002 to the CCCD at 0x0009) and gets one.
    static var hidAndHeartRate: [OwnedRecord] {
        [
            P.connected(at: 100_000),
            P.att("10 0100 ffff 0028", .sent, at: 200_000),
            P.att("11 06 0100 0500 1218 0600 0900 0d18", .received, at: 210_000),
            P.att("10 0a00 ffff 0028", .sent, at: 220_000), P.att("01 10 0a00 0a", .received, at: 230_000),
            P.att("08 0600 0900 0328", .sent, at: 300_000), P.att("09 07 0700 30 0800 372a", .received, at: 310_000),
            P.att("08 0800 0900 0328", .sent, at: 320_000), P.att("01 08 0800 0a", .received, at: 330_000),
            P.att("04 0900 0900", .sent, at: 400_000), P.att("05 01 0900 0229", .received, at: 410_000),
            P.att("12 0900 0200", .sent, at: 500_000), P.att("13", .received, at: 510_000),
            P.att("1d 0800 0050", .received, at: 600_000), P.att("1e", .sent, at: 610_000),
        ]
    }

    /// Connects to the known peer, discovers every service, then Heart Rate's characteristics,
    /// and subscribes to the first.
    final class Subscriber: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager?
        var peripheral: CBPeripheral?
        var known: [UUID] = []
        var services: [String] = []
        var extended: Bool?
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            extended = CBCentralManager.supports(.extendedScanAndConnect)
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn, let known = central.retrievePeripherals(withIdentifiers: known).first
            else { return }
            peripheral = known
            known.delegate = self
            central.connect(known)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
            services = (peripheral.services ?? []).map(\.uuid.uuidString)
            if let heartRate = peripheral.services?.first(where: { $0.uuid == CBUUID(string: "180D") }) {
                peripheral.discoverCharacteristics(nil, for: heartRate)
            }
        }
        func peripheral(
            _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
        ) {
            if let first = service.characteristics?.first { peripheral.setNotifyValue(true, for: first) }
        }
    }

    func replay(_ records: [OwnedRecord]) async -> (Subscriber, Flow) {
        let cassette = P.cassette(records)
        let app = Subscriber()
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "subscriber")
        return (app, flow)
    }

    @Test func discoveryHidesHIDAsIOSDoes() async throws {
        let (app, flow) = await replay(Self.hidAndHeartRate)
        #expect(app.services == ["180D"], "\(flow.events.map(\.signature))")
    }

    @Test func enablingACharacteristicThatCanBothNotifyAndIndicateAsksForNotifications() async throws {
        let (_, flow) = await replay(Self.hidAndHeartRate)
        #expect(
            flow.events.contains { $0.name == "didUpdateNotificationStateFor" && $0.argument("isNotifying") == "true" })
        #expect(
            flow.comments.contains {
                $0.contains("iOS writes 0x0001 to the CCCD at 0x0009") && $0.contains("wrote 0x0002")
            }, "\(flow.comments)")
    }

    @Test func theCCCDValueIsNotificationsWheneverTheCharacteristicCanNotify() {
        func value(_ properties: CBCharacteristicProperties, _ enabled: Bool = true) -> Data? {
            GATTRequest.setNotifyValue(
                enabled,
                CBMutableCharacteristic(
                    type: CBUUID(string: "2A37"), properties: properties, value: nil, permissions: [])
            ).cccdValue
        }
        #expect(value([.notify, .indicate]) == Data([0x01, 0x00]))
        #expect(value(.notify) == Data([0x01, 0x00]))
        #expect(value(.indicate) == Data([0x02, 0x00]))
        #expect(value([.notify, .indicate], false) == Data([0x00, 0x00]))
    }

    /// LE Set Extended Scan Enable (0x2042), sent by the capture's host.
    static var extendedScanEnable: OwnedRecord {
        OwnedRecord(kind: .command, direction: .sent, hex: "42 20 06 01 00 0000 0000", time: 50_000)
    }
    /// LE Read Local Supported Features' Command Complete, with `features` (8 bytes, hex).
    static func localFeatures(_ features: String) -> OwnedRecord {
        OwnedRecord(kind: .event, direction: .received, hex: "0e 0c 01 03 20 00 \(features)", time: 40_000)
    }

    @Test func extendedScanAndConnectIsTheCapturedControllers() async throws {
        let (legacy, _) = await replay([P.connected(at: 100_000)])
        #expect(legacy.extended == false)
        let (scanning, _) = await replay([Self.extendedScanEnable, P.connected(at: 100_000)])
        #expect(scanning.extended == true)
        // Bit 12 of the LE features: LE Extended Advertising.
        let (reading, _) = await replay([Self.localFeatures("00 10 00 00 00 00 00 00"), P.connected(at: 100_000)])
        #expect(reading.extended == true)
        let (without, _) = await replay([Self.localFeatures("ff 0f 00 00 00 00 00 00"), P.connected(at: 100_000)])
        #expect(without.extended == false)
        #expect(!CBCentralManager.supports(.extendedScanAndConnect), "outside a replay: no controller")
    }

    @Test func controlCentersOffLastsUntilFiveInTheMorning() {
        // 2024-01-01T00:00:00Z.
        let midnight: Int64 = 1_704_067_200_000_000
        let hour: Int64 = 3_600_000_000
        #expect(
            KillPointSweep.controlCenterReturn(after: Timestamp(rawValue: midnight + 12 * hour))
                == Timestamp(rawValue: midnight + 29 * hour))
        #expect(
            KillPointSweep.controlCenterReturn(after: Timestamp(rawValue: midnight + 4 * hour))
                == Timestamp(rawValue: midnight + 5 * hour))
        #expect(
            KillPointSweep.controlCenterReturn(after: Timestamp(rawValue: midnight + 5 * hour))
                == Timestamp(rawValue: midnight + 29 * hour))
        let origin = Timestamp(rawValue: midnight + 12 * hour)
        let events = KillPointSweep.kill(.controlCenter, at: 2, origin: origin)
        #expect(events.map(\.kind) == [.terminate, .controlCenter, .powerOn])
        #expect(abs((events.last?.seconds ?? 0) - 17 * 3600) < 0.000001, "off from 12:00:02 to 05:00 the next day")
        #expect(
            KillPointSweep.kill(.powerOff, at: 2, origin: origin).last?.seconds == 3,
            "Settings: the user turns it on a second later")
    }
}
