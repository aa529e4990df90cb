import HCI
import TestSupport
import Testing
import Wire

@testable import Lifecycle

@Suite struct ScanCollectorTests {
    /// Captures/README.md: active scan 60/60 ms from 0.103 s to 1.104 s; 12 reports from
    /// F0:F1:F2:F3:F4:05 "bletrace-hr" advertising 0x180D at -50 dBm.
    @Test func followsTheBumbleScan() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.capture("scan.btsnoop"))
        let scan = try #require(report.scans.first)
        #expect(report.scans.count == 1)
        #expect(scan.active == true)
        #expect(scan.interval == 96)  // 60 ms in 0.625 ms units
        #expect(scan.window == 96)
        #expect(scan.startTime != nil && scan.stopTime != nil)
        #expect(scan.reports == 12)
        let device = try #require(scan.devices.first)
        #expect(scan.devices.count == 1)
        #expect(device.address == BluetoothAddress("F0:F1:F2:F3:F4:05"))
        #expect(device.name == "bletrace-hr")
        #expect(device.serviceUUIDs == [BluetoothUUID(UInt16(0x180D))])
        #expect(device.rssiMin == -50 && device.rssiMax == -50)
        #expect(device.connectable)
    }

    @Test func theBumblePeripheralsAdvertisingIsNotThisHostsAdvertising() throws {
        // Only the central is snooped: it never advertises.
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.capture("scan.btsnoop"))
        #expect(report.advertising.isEmpty)
    }

    @Test func reportsBeforeAnyEnableMeanTheScanBeganBeforeTheCapture() {
        // LE Advertising Report: 1 report, ADV_IND, random, F0:F1:F2:F3:F4:05, 3 bytes of data
        // (flags 0x06), RSSI -60.
        let report = analyze([event("3e 0f 02 01 00 01 05f4f3f2f1f0 03 020106 c4")])
        #expect(report.scans.count == 1)
        #expect(report.scans[0].beganBeforeCapture)
        #expect(report.scans[0].devices.first?.rssiMax == -60)
    }

    @Test func followsThisHostsLegacyAdvertising() {
        let report = analyze([
            // LE Set Advertising Data: significant length 4, then one AD structure: length 3,
            // Complete Local Name (0x09), "bt"; zero padding to 31 bytes.
            command("0820 20 04 03 09 6274" + String(repeating: "00", count: 27), at: 0),
            command("0a20 01 01", at: 10),  // LE Set Advertising Enable: on
            command("0a20 01 00", at: 20),  // off
        ])
        #expect(report.advertising.count == 1)
        #expect(report.advertising[0].name == "bt")
        #expect(report.advertising[0].startTime?.microseconds == 10)
        #expect(report.advertising[0].stopTime?.microseconds == 20)
    }
}
