import Foundation
import InlineSnapshotTesting
import TestSupport
import Testing

/// Each text report whole, on a small bundled capture: a change to any line (wording, order,
/// alignment, a count) shows here as a diff to review. (`diagnose` has its snapshots in
/// DiagnoseCommandTests.) Paths are shown relative to the package, as a user in the clone
/// would type them.
@Suite struct TextReportSnapshotTests {
    static let reconnect = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
    static let attErrors = Fixtures.capture("att-errors.btsnoop")

    /// Standard output of a successful run, with the package's path left out.
    func output(_ arguments: String...) throws -> String {
        let result = try bletrace(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout.replacingOccurrences(of: Fixtures.packageRoot.path + "/", with: "")
    }

    @Test func info() throws {
        assertInlineSnapshot(of: try output("info", Self.reconnect), as: .lines) {
            """
            file:     Captures/reconnect-supervision-timeout.btsnoop
            format:   btsnoop, datalink 1002 (HCI UART (H4))
            records:  102 (17 command, 44 acl, 41 event)
            first:    2026-11-22T03:12:38.923459Z
            last:     2026-11-22T03:12:40.823403Z
            duration: 1.899944 s

            """
        }
    }

    @Test func lifecycle() throws {
        assertInlineSnapshot(of: try output("lifecycle", Self.reconnect), as: .lines) {
            """
            102 records over 1.9 s from 2026-11-22T03:12:38.923459Z; times are seconds from the first record, frames as Wireshark numbers them

            summary
              findings: 1 error, 0 warnings, 4 info (bletrace diagnose)
              LE: 2 connections and attempts: 2 connected
                  ended: 1 × Connection Timeout (0x08) by the peer or link, 1 × Remote User Terminated Connection (0x13) by this host
              peers: 1: F0:F1:F2:F3:F4:05 (2 connected)
              errors: 1 unexpected, 5 expected (bletrace errors lists them)

            connection 1: LE, local central, peer F0:F1:F2:F3:F4:05 (random), handle 0x0001
              +0.103478  attempt (frame 29)
              +0.264946  connected (frame 31)
                          interval 15 ms, latency 0, supervision timeout 720 ms
              +0.317047  discovery: 0.009 s; services 0.002 s (3 requests), characteristics 0.005 s (8 requests), descriptors 0.002 s (3 requests)
              +0.326826  subscribed to 2A37 Heart Rate Measurement (notify)
                          MTU 247; ATT: 18 requests (1 read, 2 writes), 0 writes without response, 5 errors, 3 notifications, 0 indications, 299 bytes
              +0.680858  disconnected by the peer or the link: Connection Timeout (0x08), after 0.416 s
                          CoreBluetooth: didDisconnectPeripheral, error CBError.connectionTimeout (6) [reported]
                          Android: onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]

            connection 2: LE, local central, peer F0:F1:F2:F3:F4:05 (random), handle 0x0001
              +1.433757  attempt (frame 90)
              +1.595136  connected (frame 92)
                          interval 15 ms, latency 0, supervision timeout 720 ms
              +1.647537  subscribed to 2A37 Heart Rate Measurement (notify)
                          MTU 247; ATT: 2 requests (0 reads, 1 write), 0 writes without response, 0 errors, 1 notification, 0 indications, 17 bytes
              +1.899944  disconnected by this host: Remote User Terminated Connection (0x13), after 0.305 s
                          CoreBluetooth: didDisconnectPeripheral, error nil [documented]
                          Android: onConnectionStateChange, status 0 GATT_SUCCESS [documented]

            """
        }
    }

    @Test func lifecycleBrief() throws {
        assertInlineSnapshot(of: try output("lifecycle", Self.attErrors, "--brief"), as: .lines) {
            """
            100 records over 0.686 s from 2026-11-22T03:12:40.929399Z; times are seconds from the first record, frames as Wireshark numbers them

            summary
              findings: 3 errors, 2 warnings, 2 info (bletrace diagnose)
              LE: 1 connection and attempts: 1 connected
                  ended: 1 × Remote User Terminated Connection (0x13) by this host
              peers: 1: F0:F1:F2:F3:F4:05 (1 connected)
              errors: 5 unexpected, 6 expected (bletrace errors lists them)

            connection 1   LE      F0:F1:F2:F3:F4:05  +0.265218 → +0.685537 (0.42 s)  disconnected by this host: Remote User Terminated Connection (0x13)

            """
        }
    }

    @Test func errors() throws {
        assertInlineSnapshot(of: try output("errors", Self.attErrors), as: .lines) {
            """
            +0.327049  frame 82  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Read Not Permitted (0x02) answering Read Request on attribute 0x001b (characteristic value EEE1)
              CoreBluetooth: CBATTError.readNotPermitted (2) in peripheral(_:didUpdateValueFor:error:) [documented]
              Android: onCharacteristicRead, status 2 GATT_READ_NOT_PERMITTED [documented]
            +0.378563  frame 85  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Write Not Permitted (0x03) answering Write Request on attribute 0x001d (characteristic value EEE2)
              CoreBluetooth: CBATTError.writeNotPermitted (3) in peripheral(_:didWriteValueFor:error:) [documented]
              Android: onCharacteristicWrite, status 3 GATT_WRITE_NOT_PERMITTED [documented]
            +0.430013  frame 88  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Insufficient Authentication (0x05) answering Write Request on attribute 0x001f (characteristic value EEE3)
              CoreBluetooth: CBATTError.insufficientAuthentication (5) in peripheral(_:didWriteValueFor:error:) [documented]
              Android: onCharacteristicWrite, status 5 GATT_INSUFFICIENT_AUTHENTICATION [documented]
            +0.481339  frame 91  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Invalid Handle (0x01) answering Read Request on attribute 0x00f0
              CoreBluetooth: CBATTError.invalidHandle (1), no callback: the attribute is not in the database discovery revealed, and a CoreBluetooth app cannot address it (the captured stack used the handle directly) [documented]
              Android: onCharacteristicRead, status 1 GATT_INVALID_HANDLE [documented]
            +0.533006  frame 94  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Application Error (0x80) answering Write Request on attribute 0x0021 (characteristic value EEE4)
              CoreBluetooth: CBATTErrorDomain code 128, no named case in peripheral(_:didWriteValueFor:error:) [reported]
              Android: onCharacteristicWrite, status 128 GATT_NO_RESOURCES [documented]

            summary: 11 errors, 5 unexpected (6 expected, not shown: --all)
                   1  ATT 0x01 Invalid Handle
                   1  ATT 0x02 Read Not Permitted
                   1  ATT 0x03 Write Not Permitted
                   1  ATT 0x05 Insufficient Authentication
                   1  ATT 0x80 Application Error

            """
        }
    }

    @Test func errorsWithTheExpectedOnes() throws {
        assertInlineSnapshot(of: try output("errors", Self.attErrors, "--all"), as: .lines) {
            """
            +0.319590  frame 43  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Group Type Request, ending a service discovery from 0x0022 [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverServices:) [documented]
            +0.320789  frame 49  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Type Request, ending a characteristic discovery from 0x0005 [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverCharacteristicsFor:error:) [documented]
            +0.322017  frame 55  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Type Request, ending a characteristic discovery from 0x000d [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverCharacteristicsFor:error:) [documented]
            +0.323231  frame 61  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Type Request, ending a characteristic discovery from 0x0015 [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverCharacteristicsFor:error:) [documented]
            +0.324224  frame 67  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Type Request, ending a characteristic discovery from 0x0018 [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverCharacteristicsFor:error:) [documented]
            +0.325694  frame 73  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Attribute Not Found (0x0a) answering Read By Type Request, ending a characteristic discovery from 0x0021 [expected]
              CoreBluetooth: CBATTError.attributeNotFound (10) in peripheral(_:didDiscoverCharacteristicsFor:error:) [documented]
            +0.327049  frame 82  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Read Not Permitted (0x02) answering Read Request on attribute 0x001b (characteristic value EEE1)
              CoreBluetooth: CBATTError.readNotPermitted (2) in peripheral(_:didUpdateValueFor:error:) [documented]
              Android: onCharacteristicRead, status 2 GATT_READ_NOT_PERMITTED [documented]
            +0.378563  frame 85  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Write Not Permitted (0x03) answering Write Request on attribute 0x001d (characteristic value EEE2)
              CoreBluetooth: CBATTError.writeNotPermitted (3) in peripheral(_:didWriteValueFor:error:) [documented]
              Android: onCharacteristicWrite, status 3 GATT_WRITE_NOT_PERMITTED [documented]
            +0.430013  frame 88  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Insufficient Authentication (0x05) answering Write Request on attribute 0x001f (characteristic value EEE3)
              CoreBluetooth: CBATTError.insufficientAuthentication (5) in peripheral(_:didWriteValueFor:error:) [documented]
              Android: onCharacteristicWrite, status 5 GATT_INSUFFICIENT_AUTHENTICATION [documented]
            +0.481339  frame 91  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Invalid Handle (0x01) answering Read Request on attribute 0x00f0
              CoreBluetooth: CBATTError.invalidHandle (1), no callback: the attribute is not in the database discovery revealed, and a CoreBluetooth app cannot address it (the captured stack used the handle directly) [documented]
              Android: onCharacteristicRead, status 1 GATT_INVALID_HANDLE [documented]
            +0.533006  frame 94  handle 0x0001  F0:F1:F2:F3:F4:05
              ATT Application Error (0x80) answering Write Request on attribute 0x0021 (characteristic value EEE4)
              CoreBluetooth: CBATTErrorDomain code 128, no named case in peripheral(_:didWriteValueFor:error:) [reported]
              Android: onCharacteristicWrite, status 128 GATT_NO_RESOURCES [documented]

            summary: 11 errors, 5 unexpected
                   6  ATT 0x0a Attribute Not Found
                   1  ATT 0x01 Invalid Handle
                   1  ATT 0x02 Read Not Permitted
                   1  ATT 0x03 Write Not Permitted
                   1  ATT 0x05 Insufficient Authentication
                   1  ATT 0x80 Application Error

            """
        }
    }

    @Test func gatt() throws {
        assertInlineSnapshot(of: try output("gatt", Self.attErrors), as: .lines) {
            """
            peer F0:F1:F2:F3:F4:05 — connection 1
              its server, as this host's client discovered it:
              service 0x0001-0x0005 1800 Generic Access
                characteristic 0x0003 2A00 Device Name [read]
                characteristic 0x0005 2A01 Appearance [read]
              service 0x0006-0x000d 1801 Generic Attribute
                characteristic 0x0008 2A05 Service Changed [indicate]
                  descriptor 0x0009 2902 Client Characteristic Configuration
                characteristic 0x000b 2B29 Client Supported Features [read, write]
                characteristic 0x000d 2B2A Database Hash [read]
              service 0x000e-0x0015 180D Heart Rate
                characteristic 0x0010 2A37 Heart Rate Measurement [notify]
                  descriptor 0x0011 2902 Client Characteristic Configuration
                characteristic 0x0013 2A38 Body Sensor Location [read]
                characteristic 0x0015 2A39 Heart Rate Control Point [write]
              service 0x0016-0x0018 AAA0
                characteristic 0x0018 AAA1 [read, write]  = 626c657472616365 "bletrace" (read, frame 97)
              service 0x0019-0x0021 EEE0
                characteristic 0x001b EEE1 [read]
                characteristic 0x001d EEE2 [write]
                characteristic 0x001f EEE3 [write]
                characteristic 0x0021 EEE4 [write]


            """
        }
    }

    @Test func stats() throws {
        assertInlineSnapshot(of: try output("stats", Self.attErrors), as: .lines) {
            """
            Captures/att-errors.btsnoop: btsnoop, datalink 1002 (HCI UART (H4))
            100 records, 1287 bytes of packets; 1 connection
              16 command, 44 acl, 40 event

            HCI commands
                     1  0x0406  Disconnect
                     1  0x0c01  Set Event Mask
                     1  0x0c03  Reset
                     1  0x0c63  Set Event Mask Page 2
                     1  0x1001  Read Local Version Information
                     1  0x1002  Read Local Supported Commands
                     1  0x1003  Read Local Supported Features
                     1  0x1005  Read Buffer Size
                     1  0x1009  Read BD_ADDR
                     1  0x2001  LE Set Event Mask
                     1  0x2003  LE Read Local Supported Features
                     1  0x2005  LE Set Random Address
                     1  0x200d  LE Create Connection
                     1  0x2023  LE Read Suggested Default Data Length
                     1  0x2024  LE Write Suggested Default Data Length
                     1  0x2060  LE Read Buffer Size v2

            HCI events
                    22  0x13  Number Of Completed Packets
                    14  0x0e  Command Complete
                     2  0x0f  Command Status
                     1  0x05  Disconnection Complete
                     1  0x3e  LE Meta

            LE meta subevents
                     1  0x01  LE Connection Complete

            ATT PDUs
                    11  0x01  Error Response
                    10  0x08  Read By Type Request
                     5  0x09  Read By Type Response
                     3  0x0a  Read Request
                     3  0x10  Read By Group Type Request
                     3  0x12  Write Request
                     2  0x04  Find Information Request
                     2  0x05  Find Information Response
                     2  0x11  Read By Group Type Response
                     1  0x02  Exchange MTU Request
                     1  0x03  Exchange MTU Response
                     1  0x0b  Read Response

            errors (bletrace errors lists them)
                     6  ATT 0x0a  Attribute Not Found (6 expected)
                     1  ATT 0x01  Invalid Handle
                     1  ATT 0x02  Read Not Permitted
                     1  ATT 0x03  Write Not Permitted
                     1  ATT 0x05  Insufficient Authentication
                     1  ATT 0x80  Application Error

            """
        }
    }

    @Test func diagnoseBrief() throws {
        assertInlineSnapshot(of: try output("diagnose", Self.reconnect, "--brief"), as: .lines) {
            """
            error   +0.680858  frame 89  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  link-ended-supervision-timeout  The link to F0:F1:F2:F3:F4:05 was lost (Connection Timeout, 0x08): the last packet from the peer was 0.101 s before (frame 88), with a supervision timeout of 720 ms.
            info    +0.264946  frame 31  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  connection-traffic  Traffic: 18 requests answered in min 0.297 ms, median 0.402 ms, p95 0.769 ms, max 0.769 ms; 3 notifications (7.213 per second).
            info    +0.264946  frame 31  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  link-parameters-outside-apple-guidelines  The link ran with interval 15 ms, latency 0, supervision timeout 720 ms, outside Apple's guidelines for accessories: supervision timeout 0.72 s is not between 2 s and 6 s.
            info    +1.595136  frame 92  connection 2 (handle 0x0001, F0:F1:F2:F3:F4:05)  connection-traffic  Traffic: 2 requests answered in min 0.496 ms, median 0.651 ms, p95 0.651 ms, max 0.651 ms; 1 notification (3.281 per second).
            info    +1.595136  frame 92  connection 2 (handle 0x0001, F0:F1:F2:F3:F4:05)  link-parameters-outside-apple-guidelines  The link ran with interval 15 ms, latency 0, supervision timeout 720 ms, outside Apple's guidelines for accessories: supervision timeout 0.72 s is not between 2 s and 6 s.

            summary: 5 findings: 1 error, 0 warnings, 4 info
                   1  error   link-ended-supervision-timeout
                   2  info    connection-traffic
                   2  info    link-parameters-outside-apple-guidelines

            """
        }
    }
}
