import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// What a bonded reconnect should bring back (issue 43 §5), on the Bumble capture made for it
/// (Captures/README.md, `notifications-not-restored`). The records the finding must name are
/// found from the raw bytes, as in ``DiagnoseCaptureTests``.
@Suite struct ReconnectCaptureTests {
    typealias Bytes = DiagnoseCaptureTests

    /// ATT PDUs (CID 4) of ACL records sent by this host with this opcode, and their handles.
    static func att(_ records: [OwnedRecord], opcode: UInt8, direction: Direction) -> [OwnedRecord] {
        records.filter {
            $0.kind == .acl && $0.direction == direction && $0.bytes.count >= 9 && $0.bytes[6] == 0x04
                && $0.bytes[7] == 0x00 && $0.bytes[8] == opcode
        }
    }

    @Test func aBondedReconnectThatRestoredNoSubscriptionIsSaid() throws {
        let name = "notifications-not-restored.btsnoop"
        let records = try Bytes.records(name)
        // Encryption Change (0x08) with status 0 and encryption on: once per connection.
        let encrypted = records.filter {
            $0.kind == .event && $0.bytes.count >= 6 && $0.bytes[0] == 0x08 && $0.bytes[2] == 0 && $0.bytes[5] != 0
        }
        #expect(encrypted.count == 2)
        // The one CCCD write (Write Request 0x12 of 0x0011 with 01 00), before the first
        // disconnection; notifications (0x1B) only on the first connection.
        let writes = Self.att(records, opcode: 0x12, direction: .sent)
        #expect(writes.count == 1)
        let write = try #require(writes.first)
        #expect(Array(write.bytes[9...]) == [0x11, 0x00, 0x01, 0x00])
        let disconnections = records.filter { $0.kind == .event && $0.bytes.first == 0x05 }
        #expect(disconnections.count == 2)
        let notifications = Self.att(records, opcode: 0x1B, direction: .received)
        #expect(notifications.count == 3)
        #expect(notifications.allSatisfy { $0.index < disconnections[0].index })
        // A pairing (SMP Pairing Request, CID 6, code 0x01) on the first connection only.
        let pairing = records.filter {
            $0.kind == .acl && $0.bytes.count >= 9 && $0.bytes[6] == 0x06 && $0.bytes[8] == 0x01
        }
        #expect(pairing.count == 1 && pairing[0].index < disconnections[0].index)

        let findings = try diagnose(path: Fixtures.capture(name)).of(.notificationsNotRestored)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.record == encrypted[1].index)
        #expect(finding.evidence == [write.index, encrypted[1].index, disconnections[1].index])
        #expect(finding.connection == 1)
        let waited = disconnections[1].timestamp.seconds(since: encrypted[1].timestamp)
        #expect(
            finding.summary.contains(
                "was encrypted with the bond (frame \(encrypted[1].index + 1)), but no subscription came back: connection 1 subscribed to 2A37 (frame \(write.index + 1))"
            ))
        #expect(finding.summary.hasSuffix("in the \(Wording.duration(waited)) that followed."))
        #expect(finding.coreBluetooth?.contains("the app discovers again and calls setNotifyValue(true, for:)") == true)
    }

    /// The captures of ours with a bonded reconnect that subscribed again, or with a first
    /// connection that did not subscribe, are none.
    @Test func noOtherCaptureOfOursIsOne() throws {
        for path in CaptureFitnessTests.ours where !path.hasSuffix("/notifications-not-restored.btsnoop") {
            #expect(try diagnose(path: path).of(.notificationsNotRestored).isEmpty, "\(path)")
        }
    }
}
