import Wire

/// Rebuilds L2CAP frames from ACL fragments, per connection handle and direction (a capture that
/// records no direction, such as pcap link type 187, gets one slot per handle of its own).
///
/// Core 6.0, Vol 3, Part A, §7.2. A frame that fits in one start fragment is returned as a view
/// into that packet, with no copy. A fragmented frame is gathered in a buffer kept for its handle
/// and direction (allocated the first time that pair fragments, then reused), and returned as a
/// view into that buffer, valid until the next ``push(_:direction:)``.
/// Copies of a reassembler share those buffers: keep one copy per capture.
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

    /// The frame being gathered on one handle and direction. A plain value, so that looking one
    /// up for every ACL packet costs no reference counting; its buffer belongs to ``Buffers``.
    @usableFromInline
    struct Slot {
        var storage: UnsafeMutableRawPointer?
        @usableFromInline var count = 0

        init() {}

        /// The frame's full length, once its 2-byte length field has arrived.
        var expected: Int? {
            guard let storage, count >= 2 else { return nil }
            return 4 + Int(storage.loadUnaligned(as: UInt16.self).littleEndian)
        }

        mutating func append(_ data: UnsafeRawBufferPointer, into storage: UnsafeMutableRawPointer) {
            let taken = min(ACLReassembler.maximumFrame - count, data.count)
            guard taken > 0, let source = data.baseAddress else { return }
            (storage + count).copyMemory(from: source, byteCount: taken)
            count += taken
        }

        /// The gathered frame, once all of it has arrived; the slot is then empty again.
        mutating func takeFrame() -> UnsafeRawBufferPointer? {
            guard let storage, let expected, count >= expected else { return nil }
            count = 0
            return UnsafeRawBufferPointer(start: storage, count: expected)
        }
    }

    /// Owns the slots' buffers, one of ``maximumFrame`` bytes for each handle and direction that
    /// ever fragmented, freed with the last copy of the reassembler.
    private final class Buffers {
        private var all: [UnsafeMutableRawPointer] = []

        func allocate() -> UnsafeMutableRawPointer {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: ACLReassembler.maximumFrame, alignment: 8)
            all.append(buffer)
            return buffer
        }

        deinit { for buffer in all { buffer.deallocate() } }
    }

    private let buffers = Buffers()
    /// The slots of each direction (sent, received, and none for captures without directions),
    /// one table: the slot of a handle (12 bits) in direction `side` is at `side << 12 | handle`.
    /// It grows only to the largest index used, and an empty slot is a plain value, so that the
    /// lookup made for every ACL packet is one index, with no optional and no nested array.
    @usableFromInline var slots: [Slot] = []

    @inlinable @inline(__always)
    static func index(_ handle: UInt16, side: Int) -> Int { side << 12 | Int(handle & 0x0FFF) }

    /// True while a frame is being gathered on `handle` in `direction`: a start fragment has come
    /// and the rest of its frame has not. (When it is not, a start fragment that holds its whole
    /// frame is returned in place by ``push(_:direction:)``, and changes nothing here.)
    @inlinable @inline(__always)
    public func isGathering(handle: UInt16, direction: Direction?) -> Bool {
        let index = Self.index(handle, side: Int(direction?.rawValue ?? 2))
        return index < slots.count && slots[index].count > 0
    }

    @inline(__always)
    private func slot(_ index: Int) -> Slot { index < slots.count ? slots[index] : Slot() }

    /// (Inlined: every fragment stores its slot, and the call cost more than the store.)
    @inline(__always)
    private mutating func store(_ slot: Slot, at index: Int) {
        if index >= slots.count { grow(to: index) }
        slots[index] = slot
    }

    @inline(never)
    private mutating func grow(to index: Int) {
        slots.append(contentsOf: repeatElement(Slot(), count: index + 1 - slots.count))
    }

    public init() {}

    public mutating func push(_ packet: ACLPacket, direction: Direction?) -> Outcome {
        let index = Self.index(packet.handle, side: Int(direction?.rawValue ?? 2))
        let data = packet.data
        var slot = slot(index)
        var fault: DecodeError?
        if packet.isContinuation {
            guard slot.count > 0 else {
                return Outcome(frame: nil, fault: Self.lostStart(handle: packet.handle))
            }
        } else {
            if slot.count > 0 {
                fault = Self.lostRest(of: slot, handle: packet.handle)
                slot.count = 0
                store(slot, at: index)
            }
            // A whole frame in one packet: returned in place.
            if data.count >= 2,
                data.count >= 4 + Int(UInt16(littleEndian: data.loadUnaligned(as: UInt16.self)))
            {
                return Outcome(frame: data, fault: fault)
            }
        }
        let storage = slot.storage ?? buffers.allocate()
        slot.storage = storage
        slot.append(data, into: storage)
        let frame = slot.takeFrame()
        store(slot, at: index)
        return Outcome(frame: frame, fault: fault)
    }

    /// Forgets any partial frame on `handle`, as when its connection ends.
    public mutating func reset(handle: UInt16) {
        for side in 0..<3 {
            let index = Self.index(handle, side: side)
            if index < slots.count { slots[index].count = 0 }
        }
    }

    // (The messages are built out of line, and only when fragments were lost.)
    @inline(never)
    private static func lostStart(handle: UInt16) -> DecodeError {
        DecodeError(
            layer: .acl, offset: 4,
            expected:
                "a start fragment before this continuation on handle \(handle) (the start was lost, or came before the capture began)"
        )
    }

    @inline(never)
    private static func lostRest(of slot: Slot, handle: UInt16) -> DecodeError {
        DecodeError(
            layer: .acl, offset: 4,
            expected:
                "the rest of the frame started earlier on handle \(handle) (\(slot.count) of \(slot.expected.map(String.init) ?? "?") bytes arrived; the rest was lost)"
        )
    }
}
