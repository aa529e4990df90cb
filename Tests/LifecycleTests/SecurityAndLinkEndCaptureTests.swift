import ATT
import HCI
import TestSupport
import Testing
import Wire

@testable import Lifecycle

/// The Bumble captures of Captures/README.md, "Security and link-end captures": a pairing in the
/// middle of a connection, a pairing the user cancels, Bluetooth powering off with a read
/// pending, and an indication nobody confirms. Records here are 0-based: frame N in the README
/// (tshark's numbering) is record N - 1.
@Suite struct SecurityAndLinkEndCaptureTests {
    @Test func pairingMidwayAnswersBothRefusalsAfterTheLinkIsEncrypted() throws {
        let path = Fixtures.capture("pairing-midway.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)
        #expect(report.connections.count == 1)

        // SMP from the Pairing Request (frame 95) to the Encryption Change (frame 114): the phone
        // (KeyboardDisplay) and a peripheral with no IO give Just Works, with Secure Connections.
        let pairing = try #require(connection.pairings.first)
        #expect(connection.pairings.count == 1)
        #expect(pairing.record == 94)
        #expect(pairing.startedBy == .host)
        #expect(pairing.method == .justWorks)
        #expect(pairing.secureConnections == true)
        #expect(pairing.bonding == true)
        #expect(pairing.outcome == .encrypted)
        #expect(pairing.endRecord == 113)
        #expect(pairing.failureReason == nil)
        let encryption = connection.changes.filter {
            if case .encryption = $0.kind { return true } else { return false }
        }
        #expect(encryption.map(\.record) == [113])
        #expect(encryption.first?.kind == .encryption(enabled: true, keySize: nil))

        // Read 0x0024 refused with Insufficient Encryption (frame 91), answered after pairing in
        // frame 123; write 0x001F refused with Insufficient Authentication (frame 94), answered in
        // frame 126. The pairing follows the later refusal.
        let errors = try collectErrors(path).filter { $0.layer == .att && $0.code != 0x0A }
        #expect(errors.map(\.code) == [0x0F, 0x05])
        #expect(errors.map(\.record) == [90, 93])
        #expect(errors.map(\.attributeHandle) == [0x0024, 0x001F])
        #expect(errors.map(\.retryRecord) == [122, 125])
        #expect(errors.map(\.expected) == [true, true])
        #expect(pairing.causeRecord == 93)

        // Four reads (0x0013, the refused 0x0024, its retry, one more on the encrypted link) and
        // two writes; every request answered; the host hangs up with 0x13.
        #expect(connection.att.reads == 4)
        #expect(connection.att.writes == 2)
        #expect(connection.unansweredRequests.isEmpty)
        #expect(connection.disconnection?.reason.rawValue == 0x13)
        #expect(connection.disconnection?.initiator == .local)
        #expect(connection.disconnection?.record == 131)
    }

    @Test func aCancelledPasskeyEntryFailsThePairingAndThisHostEndsTheLink() throws {
        let path = Fixtures.capture("pairing-cancelled.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)

        // KeyboardDisplay (phone) against DisplayOnly with MITM: Passkey Entry. The phone's user
        // cancels, and the phone sends Pairing Failed, Passkey Entry Failed (frame 93).
        let pairing = try #require(connection.pairings.first)
        #expect(pairing.record == 82)
        #expect(pairing.startedBy == .host)
        #expect(pairing.method == .passkeyEntry)
        #expect(pairing.secureConnections == true)
        #expect(pairing.outcome == .failed)
        #expect(pairing.failedBy == .host)
        #expect(pairing.failureReason == 0x01)
        #expect(pairing.endRecord == 92)
        #expect(pairing.causeRecord == 81)
        #expect(
            !connection.changes.contains {
                if case .encryption = $0.kind { return true } else { return false }
            })

        // The write refused with 0x05 (frame 82) is never sent again: the pairing failed.
        let refusal = try #require(try collectErrors(path).first { $0.layer == .att && $0.code == 0x05 })
        #expect(refusal.record == 81)
        #expect(refusal.retryRecord == nil)
        #expect(refusal.pairingFailedRecord == 92)

        // Then this host ends the link (HCI Disconnect 0x13 in frame 95, completed in frame 97).
        #expect(connection.disconnection?.reason.rawValue == 0x13)
        #expect(connection.disconnection?.initiator == .local)
        #expect(connection.disconnection?.record == 96)
        #expect(try #require(connection.disconnection?.time).seconds(since: try #require(pairing.endTime)) < 1)
    }

    @Test func poweringOffLeavesTheReadUnansweredThenResetsTheController() throws {
        let path = Fixtures.capture("power-off-pending.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)

        // Subscribed to 2A37 and notified three times, the last while the read is pending.
        #expect(connection.subscriptions.map(\.uuid) == [BluetoothUUID(UInt16(0x2A37))])
        #expect(connection.att.notifications == 3)

        // The Read Request of 0x0013 (frame 82) has no answer when this host disconnects with
        // Remote Device Terminated Connection due to Power Off (frame 87).
        #expect(connection.unansweredRequests.map(\.opcode) == [.readRequest])
        #expect(connection.unansweredRequests.first?.attributeHandle == 0x0013)
        #expect(connection.unansweredRequests.first?.record == 81)
        #expect(connection.disconnection?.reason.rawValue == 0x15)
        #expect(connection.disconnection?.initiator == .local)
        #expect(connection.disconnection?.record == 86)

        // Last, HCI Reset (frame 88) and its Command Complete, status 0x00 (frame 89).
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        #expect(records.count == 89)
        #expect(records[87].kind == .command)
        #expect(records[87].bytes == [0x03, 0x0C, 0x00])
        #expect(records[88].kind == .event)
        #expect(records[88].bytes == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test func anUnconfirmedIndicationOutlastsTheATTTimeoutAndThisPeripheralEndsTheLink() throws {
        let path = Fixtures.capture("unconfirmed-indication.btsnoop")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let connection = try #require(report.connections.first)
        #expect(connection.role == .peripheral)

        // The central subscribes to indications of this host's A1A1 (CCCD 0x001C, frame 94).
        let subscription = try #require(connection.peerSubscriptions.first)
        #expect(subscription.uuid == BluetoothUUID(UInt16(0xA1A1)))
        #expect(subscription.descriptorHandle == 0x001C)
        #expect(subscription.mode == .indicate)

        // This host indicates 0x001B (frame 97); no Handle Value Confirmation ever comes.
        #expect(connection.att.indications == 1)
        let indication = try #require(connection.unansweredRequests.first)
        #expect(connection.unansweredRequests.count == 1)
        #expect(indication.opcode == .handleValueIndication)
        #expect(indication.attributeHandle == 0x001B)
        #expect(indication.record == 96)

        // More than ATT's 30 s transaction timeout later, this host hangs up (frame 101).
        #expect(connection.disconnection?.reason.rawValue == 0x13)
        #expect(connection.disconnection?.initiator == .local)
        #expect(connection.disconnection?.record == 100)
        let waited = try #require(connection.disconnection?.time).seconds(since: indication.time)
        #expect(waited > 30 && waited < 31)
    }
}
