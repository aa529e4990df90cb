import ATT
import HCI
import TestSupport
import Testing
import Wire

@testable import Lifecycle

@Suite struct ConnectionDetailTests {
    @Test func recordsParametersDiscoveryAndSubscriptionsOfTheBumbleCapture() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let first = report.connections[0]
        // LE Connection Complete: interval 12 × 1.25 ms, latency 0, timeout 72 × 10 ms.
        #expect(first.interval == 12)
        #expect(first.latency == 0)
        #expect(first.supervisionTimeout == 72)
        // Discovery: from the first Read By Group Type Request (record 34) to the last answer.
        #expect(first.discoveryStart?.microseconds == report.firstTime!.microseconds + 317_047)
        #expect((first.discoveryDuration ?? 0) > 0)
        // Captures/README.md (counted with tshark): 3 Read By Group Type, 8 Read By Type and
        // 3 Find Information requests; one read (0x0013) and two writes (control point, CCCD).
        #expect(first.discoveryProcedures.map(\.kind) == [.services, .characteristics, .descriptors])
        #expect(first.discoveryProcedures.map(\.requests) == [3, 8, 3])
        #expect(first.att.reads == 1)
        #expect(first.att.writes == 2)
        #expect(first.att.bytes > 0)
        let subscription = try #require(first.subscriptions.first)
        #expect(subscription.descriptorHandle == 0x11)
        #expect(subscription.characteristicHandle == 0x10)
        #expect(subscription.uuid == BluetoothUUID(UInt16(0x2A37)))
        #expect(subscription.mode == .notify)
        // The second connection re-subscribes without discovering again: the handles discovered
        // on the first connection to the same peer still name the descriptor.
        #expect(report.connections[1].subscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0x2A37))])
        #expect(report.connections[1].discoveryStart == nil)
    }

    @Test func followsUpdatesDataLengthPHYAndEncryption() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 0x40), at: 0),
            // LE Connection Update Complete: status 0, handle 0x0040, interval 24, latency 4, timeout 600.
            event("3e 0a 03 00 4000 1800 0400 5802", at: 1),
            // LE Data Length Change: handle 0x0040, max TX 251 / 2120 µs, max RX 251 / 2120 µs.
            event("3e 0b 07 4000 fb00 4808 fb00 4808", at: 2),
            // LE PHY Update Complete: status 0, handle 0x0040, TX 2M, RX 2M.
            event("3e 06 0c 00 4000 02 02", at: 3),
            // Encryption Change v1: status 0, handle 0x0040, on.
            event("08 04 00 4000 01", at: 4),
            // Encryption Key Refresh Complete with status 0x06 (PIN or Key Missing).
            event("30 03 06 4000", at: 5),
        ])
        let connection = report.connections[0]
        #expect(
            connection.changes.map(\.kind) == [
                .parameters(interval: 24, latency: 4, supervisionTimeout: 600),
                .dataLength(maxTxOctets: 251, maxRxOctets: 251),
                .phy(tx: 2, rx: 2),
                .encryption(enabled: true, keySize: nil),
                .failed("key refresh", .pinOrKeyMissing),
            ])
        // The completion's parameters stay; those in force at the end are the update's.
        #expect(connection.interval == 40 && connection.supervisionTimeout == 42)
        #expect(connection.parameters().map { $0.interval == 24 && $0.supervisionTimeout == 600 } == true)
    }

    @Test func aDisconnectionWithARequestPendingKeepsTheRequest() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1), at: 0),
            acl(Packets.att(handle: 1, "0a 1300"), .sent, at: 1_000_000),  // Read Request 0x0013
            event(Packets.disconnectionComplete(handle: 1, reason: 0x08), at: 31_000_000),
        ])
        let unanswered = report.connections[0].unansweredRequests
        #expect(unanswered.map(\.opcode) == [.readRequest])
        #expect(unanswered.first?.attributeHandle == 0x13)
        #expect(unanswered.first?.time.microseconds == 1_000_000)
    }

    @Test func anOpenConnectionReportsWhatIsStillUnansweredAtTheEnd() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            acl(Packets.att(handle: 1, "12 1500 01"), .sent),  // Write Request, never answered
        ])
        #expect(report.connections[0].unansweredRequests.map(\.opcode) == [.writeRequest])
    }

    @Test func countsServiceChangedIndicationsOnceDiscoveryHasNamedTheCharacteristic() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            // Characteristic discovery: declaration 0x0007, indicate, value 0x0008, UUID 0x2A05.
            acl(Packets.att(handle: 1, "08 0600 0d00 0328"), .sent),
            acl(Packets.att(handle: 1, "09 07 0700 20 0800 052a"), .received),
            // Service Changed indication: affected range 0x0001-0xFFFF, then its confirmation.
            acl(Packets.att(handle: 1, "1d 0800 0100 ffff"), .received),
            acl(Packets.att(handle: 1, "1e"), .sent),
        ])
        #expect(report.connections[0].serviceChangedIndications == 1)
        #expect(report.connections[0].att.indications == 1)
    }

    @Test func aRefusedSubscriptionIsNotOne() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            acl(Packets.att(handle: 1, "04 1100 1100"), .sent),  // Find Information
            acl(Packets.att(handle: 1, "05 01 1100 0229"), .received),  // 0x0011 is a CCCD
            acl(Packets.att(handle: 1, "12 1100 0100"), .sent),  // subscribe
            acl(Packets.att(handle: 1, "01 12 1100 80"), .received),  // refused: application error
        ])
        #expect(report.connections[0].subscriptions.isEmpty)
    }
}
