import Wire

/// Rebuilds L2CAP frames from ACL fragments, per connection handle and direction (a capture that
/// records no direction, such as pcap link type 187, gets one slot per handle of its own).
///
/// Core 6.0, Vol 3, Part A, §7.2. A frame that fits in one start fragment is returned as a view
/// into that packet, with no copy. A fragmented frame is gathered in a buffer kept for its handle
/// and direction (allocated the first time that pair fragments, then reused), and returned as a
/// view into that buffer, valid until the next ``push(_:direction:)``.
public struct ACLReassembler {
    /// What one ACL packet completed, and what was lost on the way.
    public struct Outcome {
        /// A complete L2CAP frame (basic header included), if this packet completed one.
        public var frame: UnsafeRawBufferPointer?
        /// Set when fragments were lost: a continuation with nothing to continue, or a new start
        /// while an earlier frame was still incomplete (that earlier frame is dropped).
        public var fault: DecodeError?
    }

    /// The largest L2CAP frame: a 4-byte basic header and 65,535 bytes of payload.
    static let maximumFrame = 4 + 0xFFFF

    private final class Slot {
        let storage = UnsafeMutableRawBufferPointer.allocate(
            byteCount: ACLReassembler.maximumFrame, alignment: 8)
        var count = 0
        deinit { storage.deallocate() }

        /// The frame's full length, once its 2-byte length field has arrived.
        var expected: Int? {
            count >= 2 ? 4 + (Int(storage[0]) | Int(storage[1]) << 8) : nil
        }

        func append(_ data: UnsafeRawBufferPointer) {
            let room = ACLReassembler.maximumFrame - count
            let taken = min(room, data.count)
            guard taken > 0 else { return }
            UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + taken])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: data[0..<taken]))
            count += taken
        }
    }

    private var slots: [UInt32: Slot] = [:]

    public init() {}

    public mutating func push(_ packet: ACLPacket, direction: Direction?) -> Outcome {
        let key = Self.key(packet.handle, direction)
        let data = packet.data
        if packet.isContinuation {
            guard let slot = slots[key], slot.count > 0 else {
                return Outcome(
                    frame: nil,
                    fault: DecodeError(
                        layer: .acl, offset: 4,
                        expected: "a start fragment before this continuation on handle \(packet.handle) (the start was lost, or came before the capture began)"
                    ))
            }
            slot.append(data)
            return complete(slot)
        }

        var fault: DecodeError?
        if let slot = slots[key], slot.count > 0 {
            fault = DecodeError(
                layer: .acl, offset: 4,
                expected: "the rest of the frame started earlier on handle \(packet.handle) (\(slot.count) of \(slot.expected.map(String.init) ?? "?") bytes arrived; the rest was lost)"
            )
            slot.count = 0
        }
        if data.count >= 2, data.count >= 4 + (Int(data[0]) | Int(data[1]) << 8) {
            return Outcome(frame: data, fault: fault)
        }
        let slot: Slot
        if let existing = slots[key] {
            slot = existing
        } else {
            slot = Slot()
            slots[key] = slot
        }
        slot.append(data)
        var outcome = complete(slot)
        outcome.fault = fault
        return outcome
    }

    /// Forgets any partial frame on `handle`, as when its connection ends.
    public mutating func reset(handle: UInt16) {
        for direction in [Direction.sent, .received, nil] {
            slots[Self.key(handle, direction)]?.count = 0
        }
    }

    private static func key(_ handle: UInt16, _ direction: Direction?) -> UInt32 {
        UInt32(handle) << 2 | UInt32(direction?.rawValue ?? 2)
    }

    private func complete(_ slot: Slot) -> Outcome {
        guard let expected = slot.expected, slot.count >= expected else {
            return Outcome(frame: nil, fault: nil)
        }
        slot.count = 0
        return Outcome(
            frame: UnsafeRawBufferPointer(rebasing: slot.storage[0..<expected]), fault: nil)
    }
}
