import ATT
import TestSupport
import Testing
import Wire

@testable import Lifecycle

@Suite struct ATTTrackerTests {
    /// Decodes `hex` as an ATT PDU and shows it to the tracker.
    func observe(
        _ tracker: inout ATTTracker, _ hex: String, _ direction: Direction, connection: UInt16 = 0x40, record: Int = 0
    ) -> ATTRequest? {
        packet(hex).withUnsafeBytes { bytes in
            tracker.observe(
                try! ATTPDU.decode(bytes), connection: connection, direction: direction,
                time: Timestamp(microseconds: 0), record: record)
        }
    }

    @Test func aResponseAnswersTheRequestThatWentTheOtherWay() {
        var tracker = ATTTracker()
        #expect(observe(&tracker, "0a 0300", .sent, record: 1) == nil)  // Read Request 0x0003
        let answered = observe(&tracker, "0b 4142", .received, record: 2)
        #expect(answered?.opcode == .readRequest)
        #expect(answered?.attributeHandle == 3)
        #expect(answered?.record == 1)
        #expect(tracker.unanswered(on: 0x40).isEmpty)
    }

    @Test func eachDirectionHasItsOwnOutstandingRequest() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "0a 0300", .sent)  // we read from the peer
        _ = observe(&tracker, "0a 0900", .received)  // the peer reads from us
        #expect(observe(&tracker, "0b 00", .sent)?.attributeHandle == 9)
        #expect(observe(&tracker, "0b 00", .received)?.attributeHandle == 3)
    }

    @Test func connectionsDoNotShareRequests() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "0a 0300", .sent, connection: 1)
        #expect(observe(&tracker, "0b 00", .received, connection: 2) == nil)
        #expect(tracker.unanswered(on: 1).map(\.opcode) == [.readRequest])
    }

    @Test func anIndicationIsAnsweredByItsConfirmation() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "1d 0800 0100", .received)
        #expect(observe(&tracker, "1e", .sent)?.opcode == .handleValueIndication)
    }

    /// A client's request sent while its own server's indication awaits its confirmation (as an
    /// iPhone's Exchange MTU Request after a Service Changed indication, frames 46228-46242 of
    /// the shared field `cagnulein-Bafang-RideSync-sysdiagnose.pklg`): the confirmation answers
    /// the indication, the response the request, and the MTU is agreed.
    @Test func aRequestAndAnIndicationOfTheSameSideAreAnsweredApart() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "1d 0800 0100ffff", .sent, record: 1)  // this host's server indicates
        _ = observe(&tracker, "02 b900", .sent, record: 2)  // this host's client: Exchange MTU 185
        #expect(observe(&tracker, "1e", .received, record: 3)?.record == 1)
        #expect(observe(&tracker, "03 b900", .received, record: 4)?.record == 2)
        #expect(tracker.mtu(on: 0x40) == 185)
        #expect(tracker.unanswered(on: 0x40).isEmpty)
    }

    @Test func theMTUIsTheSmallerOfTheTwo() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "02 0502", .sent)  // client 517
        _ = observe(&tracker, "03 f700", .received)  // server 247
        #expect(tracker.mtu(on: 0x40) == 247)
    }

    @Test func learnsServicesCharacteristicsAndDescriptorsFromDiscovery() {
        var tracker = ATTTracker()
        // Read By Group Type (primary services) → Heart Rate at 0x000E.
        _ = observe(&tracker, "10 0100 ffff 0028", .sent)
        _ = observe(&tracker, "11 06 0e00 1500 0d18", .received)
        // Read By Type (characteristics) → declaration 0x000F, value 0x0010, UUID 0x2A37, notify.
        _ = observe(&tracker, "08 0e00 1500 0328", .sent)
        _ = observe(&tracker, "09 07 0f00 10 1000 372a", .received)
        // Find Information → CCCD at 0x0011.
        _ = observe(&tracker, "04 1100 1100", .sent)
        _ = observe(&tracker, "05 01 1100 0229", .received)
        #expect(tracker.attribute(0x0E, on: 0x40) == AttributeInfo(uuid: BluetoothUUID(UInt16(0x180D)), role: .service))
        #expect(
            tracker.attribute(0x10, on: 0x40)
                == AttributeInfo(uuid: BluetoothUUID(UInt16(0x2A37)), role: .characteristicValue))
        #expect(tracker.attribute(0x10, on: 0x40)?.name == "Heart Rate Measurement")
        #expect(
            tracker.attribute(0x11, on: 0x40) == AttributeInfo(uuid: BluetoothUUID(UInt16(0x2902)), role: .descriptor))
        #expect(tracker.attribute(0x11, on: 0x41) == nil)
    }

    @Test func resetForgetsEverythingOfAConnection() {
        var tracker = ATTTracker()
        _ = observe(&tracker, "10 0100 ffff 0028", .sent)
        _ = observe(&tracker, "11 06 0e00 1500 0d18", .received)
        _ = observe(&tracker, "0a 0300", .sent)
        tracker.reset(connection: 0x40)
        #expect(tracker.attribute(0x0E, on: 0x40) == nil)
        #expect(tracker.unanswered(on: 0x40).isEmpty)
    }
}
