import HCI
import TestSupport
import Testing
import Wire

/// Core 6.0, Vol 3, Part A, §7.2: L2CAP frames split over ACL fragments, per handle and direction.
@Suite struct ACLReassemblerTests {
    struct Pushed {
        var frame: [UInt8]?
        var fault: DecodeError?
    }

    /// Decodes `bytes` as an ACL packet, pushes it, and copies out what came back.
    func push(_ reassembler: inout ACLReassembler, _ bytes: [UInt8], _ direction: Direction = .received)
        throws -> Pushed
    {
        try bytes.withUnsafeBytes { raw throws in
            let outcome = reassembler.push(try ACLPacket.decode(raw), direction: direction)
            return Pushed(frame: outcome.frame.map { Array($0) }, fault: outcome.fault)
        }
    }

    // A 14-byte L2CAP frame: ATT Handle Value Notification, handle 0x002A, value 01...07.
    static let notificationFrame = packet(
        "0a 00",  // L2CAP Length: 10
        "04 00",  // CID: ATT
        "1b 2a 00",  // Handle Value Notification, handle 0x002A
        "01 02 03 04 05 06 07"  // value
    )
    // ...in three ACL fragments on handle 0x040.
    static let notificationStart = packet(
        "40 20",  // handle 0x040, PB 0b10 (start)
        "05 00",  // 5 data bytes
        "0a 00 04 00 1b"
    )
    static let notificationMiddle = packet(
        "40 10",  // handle 0x040, PB 0b01 (continuation)
        "05 00",
        "2a 00 01 02 03"
    )
    static let notificationEnd = packet(
        "40 10",  // continuation
        "04 00",
        "04 05 06 07"
    )

    // A frame in a single start fragment: ATT Read Request for handle 0x0003.
    static let readRequestFrame = packet("03 00", "04 00", "0a 03 00")
    static let readRequest = packet(
        "40 20",  // handle 0x040, start
        "07 00",  // 7 data bytes: the whole frame
        "03 00 04 00 0a 03 00"
    )

    @Test func frameInOneStartFragmentIsReturnedWithoutCopying() throws {
        var reassembler = ACLReassembler()
        try Self.readRequest.withUnsafeBytes { raw throws in
            let acl = try ACLPacket.decode(raw)
            let outcome = reassembler.push(acl, direction: .sent)
            let frame = try #require(outcome.frame)
            #expect(frame.baseAddress == acl.data.baseAddress)
            #expect(frame.baseAddress == raw.baseAddress! + 4)
            #expect(Array(frame) == Self.readRequestFrame)
            #expect(outcome.fault == nil)
        }
    }

    @Test func nonFlushableStartFragmentAlsoStartsAFrame() throws {
        var reassembler = ACLReassembler()
        let bytes = packet("40 00", "07 00", "03 00 04 00 0a 03 00")  // PB 0b00
        let pushed = try push(&reassembler, bytes)
        #expect(pushed.frame == Self.readRequestFrame)
        #expect(pushed.fault == nil)
    }

    @Test func frameSplitOverThreeFragmentsIsReassembledExactly() throws {
        var reassembler = ACLReassembler()
        let first = try push(&reassembler, Self.notificationStart)
        #expect(first.frame == nil)
        #expect(first.fault == nil)
        let second = try push(&reassembler, Self.notificationMiddle)
        #expect(second.frame == nil)
        #expect(second.fault == nil)
        let third = try push(&reassembler, Self.notificationEnd)
        #expect(third.frame == Self.notificationFrame)
        #expect(third.fault == nil)
    }

    @Test func reassemblesTheSameWayTwiceInARow() throws {
        var reassembler = ACLReassembler()
        for _ in 0..<2 {
            _ = try push(&reassembler, Self.notificationStart)
            _ = try push(&reassembler, Self.notificationMiddle)
            let last = try push(&reassembler, Self.notificationEnd)
            #expect(last.frame == Self.notificationFrame)
            #expect(last.fault == nil)
        }
    }

    @Test func continuationWithNoStartIsAFaultAndNoFrame() throws {
        var reassembler = ACLReassembler()
        let pushed = try push(&reassembler, Self.notificationMiddle)
        #expect(pushed.frame == nil)
        let fault = try #require(pushed.fault)
        #expect(fault.layer == .acl)
        #expect(fault.offset == 4)
    }

    @Test func continuationAfterACompleteFrameIsAFault() throws {
        var reassembler = ACLReassembler()
        _ = try push(&reassembler, Self.readRequest)
        let pushed = try push(&reassembler, Self.notificationEnd)
        #expect(pushed.frame == nil)
        #expect(pushed.fault?.layer == .acl)
    }

    @Test func newStartWhileAFrameIsIncompleteIsAFaultAndTheNewFrameStillWorks() throws {
        var reassembler = ACLReassembler()
        _ = try push(&reassembler, Self.notificationStart)
        // A whole frame starts before the notification's continuations arrive.
        let pushed = try push(&reassembler, Self.readRequest)
        #expect(pushed.frame == Self.readRequestFrame)
        #expect(pushed.fault?.layer == .acl)
        // The dropped frame's continuation now has nothing to continue.
        let orphan = try push(&reassembler, Self.notificationMiddle)
        #expect(orphan.frame == nil)
        #expect(orphan.fault != nil)
    }

    @Test func newFragmentedStartWhileAFrameIsIncompleteStillReassembles() throws {
        var reassembler = ACLReassembler()
        _ = try push(&reassembler, Self.notificationStart)
        _ = try push(&reassembler, Self.notificationMiddle)
        let restart = try push(&reassembler, Self.notificationStart)
        #expect(restart.frame == nil)
        #expect(restart.fault != nil)
        let middle = try push(&reassembler, Self.notificationMiddle)
        #expect(middle.fault == nil)
        let end = try push(&reassembler, Self.notificationEnd)
        #expect(end.frame == Self.notificationFrame)
        #expect(end.fault == nil)
    }

    @Test func sentAndReceivedOnTheSameHandleReassembleIndependently() throws {
        // Sent: ATT Write Request, handle 0x002B, value 01 00 (9-byte frame).
        let sentFrame = packet("05 00", "04 00", "12 2b 00 01 00")
        let sentStart = packet("40 20", "06 00", "05 00 04 00 12 2b")
        let sentEnd = packet("40 10", "03 00", "00 01 00")
        // Received: Handle Value Notification, handle 0x002A, value AA BB CC (10-byte frame).
        let receivedFrame = packet("06 00", "04 00", "1b 2a 00 aa bb cc")
        let receivedStart = packet("40 20", "04 00", "06 00 04 00")
        let receivedEnd = packet("40 10", "06 00", "1b 2a 00 aa bb cc")

        var reassembler = ACLReassembler()
        let a = try push(&reassembler, sentStart, .sent)
        let b = try push(&reassembler, receivedStart, .received)
        let c = try push(&reassembler, receivedEnd, .received)
        let d = try push(&reassembler, sentEnd, .sent)
        #expect([a, b, c, d].allSatisfy { $0.fault == nil })
        #expect(a.frame == nil)
        #expect(b.frame == nil)
        #expect(c.frame == receivedFrame)
        #expect(d.frame == sentFrame)
    }

    @Test func differentHandlesReassembleIndependently() throws {
        var reassembler = ACLReassembler()
        let otherStart = packet("41 20", "04 00", "03 00 04 00")  // handle 0x041
        let otherEnd = packet("41 10", "03 00", "0a 03 00")
        _ = try push(&reassembler, Self.notificationStart)
        #expect(try push(&reassembler, otherStart).fault == nil)
        #expect(try push(&reassembler, Self.notificationMiddle).fault == nil)
        #expect(try push(&reassembler, otherEnd).frame == Self.readRequestFrame)
        #expect(try push(&reassembler, Self.notificationEnd).frame == Self.notificationFrame)
    }

    @Test func resetDropsAPartialFrame() throws {
        var reassembler = ACLReassembler()
        _ = try push(&reassembler, Self.notificationStart)
        _ = try push(&reassembler, Self.notificationMiddle)
        reassembler.reset(handle: 0x040)
        let after = try push(&reassembler, Self.notificationEnd)
        #expect(after.frame == nil)
        #expect(after.fault != nil)
        // A new start after the reset is no fault: nothing was pending.
        let fresh = try push(&reassembler, Self.notificationStart)
        #expect(fresh.fault == nil)
    }

    @Test func resetOfAnotherHandleKeepsThePartialFrame() throws {
        var reassembler = ACLReassembler()
        _ = try push(&reassembler, Self.notificationStart)
        reassembler.reset(handle: 0x041)
        _ = try push(&reassembler, Self.notificationMiddle)
        #expect(try push(&reassembler, Self.notificationEnd).frame == Self.notificationFrame)
    }

    @Test func startShorterThanTheLengthFieldStillReassembles() throws {
        var reassembler = ACLReassembler()
        let oneByte = try push(&reassembler, packet("40 20", "01 00", "0a"))  // half the length
        #expect(oneByte.frame == nil)
        #expect(oneByte.fault == nil)
        let secondByte = try push(&reassembler, packet("40 10", "01 00", "00"))  // length now 10
        #expect(secondByte.frame == nil)
        #expect(secondByte.fault == nil)
        let rest = try push(
            &reassembler, packet("40 10", "0c 00", "04 00 1b 2a 00 01 02 03 04 05 06 07"))
        #expect(rest.frame == Self.notificationFrame)
        #expect(rest.fault == nil)
    }
}
