@_exported import BLETrace

/// Hand-built HCI packets (without the H4 indicator byte, as ``CaptureRecord/bytes`` holds them),
/// laid out field by field from Core 6.0, Vol 4, Part E (HCI) and Vol 3, Part A (L2CAP) and
/// Part F (ATT). Used by the capture generator and as benchmark inputs; built once, never on a
/// measured path.
public enum Packets {
    // MARK: HCI framing (Vol 4, Part E, §5.4)

    /// §5.4.1 command packet: opcode (OGF << 10 | OCF) le16, parameter length, parameters.
    public static func command(_ opcode: UInt16, _ parameters: [UInt8]) -> [UInt8] {
        le16(opcode) + [UInt8(parameters.count)] + parameters
    }

    /// §5.4.4 event packet: event code, parameter length, parameters.
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [code, UInt8(parameters.count)] + parameters
    }

    /// §5.4.2 ACL data packet: handle (12 bits) | PB flag << 12 | BC flag << 14, length le16, data.
    /// `boundary` 0b00 first non-flushable (host to controller), 0b10 first flushable
    /// (controller to host), 0b01 continuation.
    public static func acl(handle: UInt16, boundary: UInt8, _ data: ArraySlice<UInt8>) -> [UInt8] {
        le16(handle & 0x0FFF | UInt16(boundary) << 12) + le16(UInt16(data.count)) + Array(data)
    }

    /// Vol 3, Part A, §3.1 basic L2CAP frame: length le16, channel ID le16, payload.
    public static func l2cap(cid: UInt16, _ payload: [UInt8]) -> [UInt8] {
        le16(UInt16(payload.count)) + le16(cid) + payload
    }

    /// An L2CAP frame on the ATT channel (CID 0x0004), cut into ACL packets of at most
    /// `maxData` bytes of data each: the first with the start flag, the rest continuations.
    public static func aclFragments(
        handle: UInt16, received: Bool, att: [UInt8], maxData: Int
    ) -> [[UInt8]] {
        let frame = l2cap(cid: 0x0004, att)
        var packets: [[UInt8]] = []
        var start = 0
        while start < frame.count {
            let end = min(frame.count, start + maxData)
            let boundary: UInt8 = start == 0 ? (received ? 0b10 : 0b00) : 0b01
            packets.append(acl(handle: handle, boundary: boundary, frame[start..<end]))
            start = end
        }
        return packets
    }

    // MARK: HCI commands (Vol 4, Part E, §7)

    /// §7.8.12 LE Create Connection (0x08|0x000D = 0x200D), 25 bytes of parameters.
    public static func leCreateConnection(peer: [UInt8], peerType: UInt8 = 0) -> [UInt8] {
        command(
            0x200D,
            le16(0x0060) + le16(0x0030)  // scan interval, scan window
                + [0x00, peerType] + peer  // initiator filter policy, peer address type, address
                + [0x00]  // own address type
                + le16(0x0018) + le16(0x0028)  // connection interval min, max
                + le16(0x0000) + le16(0x01F4)  // max latency, supervision timeout (5 s)
                + le16(0x0000) + le16(0x0000))  // min, max CE length
    }

    /// §7.1.6 Disconnect (0x01|0x0006 = 0x0406): handle, reason.
    public static func disconnect(handle: UInt16, reason: UInt8) -> [UInt8] {
        command(0x0406, le16(handle) + [reason])
    }

    /// §7.8.33 LE Set Data Length (0x08|0x0022 = 0x2022): handle, TX octets, TX time.
    public static func leSetDataLength(handle: UInt16, octets: UInt16, time: UInt16) -> [UInt8] {
        command(0x2022, le16(handle) + le16(octets) + le16(time))
    }

    /// §7.8.49 LE Set PHY (0x08|0x0032 = 0x2032): handle, all PHYs, TX PHYs, RX PHYs, options.
    public static func leSetPHY(handle: UInt16, phys: UInt8) -> [UInt8] {
        command(0x2032, le16(handle) + [0x00, phys, phys] + le16(0x0000))
    }

    // MARK: HCI events (Vol 4, Part E, §7.7)

    /// §7.7.14 Command Complete: num HCI command packets, opcode, return parameters.
    public static func commandComplete(opcode: UInt16, _ returnParameters: [UInt8]) -> [UInt8] {
        event(0x0E, [0x01] + le16(opcode) + returnParameters)
    }

    /// §7.7.65.7 LE Data Length Change (subevent 0x07): handle, max TX octets and time, max RX
    /// octets and time.
    public static func leDataLengthChange(handle: UInt16, octets: UInt16, time: UInt16) -> [UInt8] {
        event(0x3E, [0x07] + le16(handle) + le16(octets) + le16(time) + le16(octets) + le16(time))
    }

    /// §7.7.65.12 LE PHY Update Complete (subevent 0x0C): status, handle, TX PHY, RX PHY.
    public static func lePHYUpdateComplete(handle: UInt16, phy: UInt8) -> [UInt8] {
        event(0x3E, [0x0C, 0x00] + le16(handle) + [phy, phy])
    }

    /// §7.7.15 Command Status: status, num HCI command packets, command opcode.
    public static func commandStatus(opcode: UInt16, status: UInt8 = 0) -> [UInt8] {
        event(0x0F, [status, 0x01] + le16(opcode))
    }

    /// §7.7.65.1 LE Connection Complete (LE Meta 0x3E, subevent 0x01), 19 bytes of parameters.
    public static func leConnectionComplete(
        handle: UInt16, peer: [UInt8], status: UInt8 = 0, peerType: UInt8 = 0
    ) -> [UInt8] {
        event(
            0x3E,
            [0x01, status] + le16(handle) + [0x00, peerType] + peer  // subevent, status, handle, role central
                + le16(0x0024) + le16(0x0000) + le16(0x01F4)  // interval, latency, supervision timeout
                + [0x00])  // central clock accuracy
    }

    /// §7.7.5 Disconnection Complete: status, handle, reason.
    public static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        event(0x05, [0x00] + le16(handle) + [reason])
    }

    /// §7.7.19 Number Of Completed Packets: count of handles, then (handle, count) pairs.
    public static func numberOfCompletedPackets(_ pairs: [(handle: UInt16, count: UInt16)]) -> [UInt8] {
        event(0x13, [UInt8(pairs.count)] + pairs.flatMap { le16($0.handle) + le16($0.count) })
    }

    // MARK: ATT PDUs (Vol 3, Part F, §3.4)

    public static func attErrorResponse(request: UInt8, handle: UInt16, error: UInt8) -> [UInt8] {
        [0x01, request] + le16(handle) + [error]
    }
    public static func attExchangeMTURequest(_ mtu: UInt16) -> [UInt8] { [0x02] + le16(mtu) }
    public static func attExchangeMTUResponse(_ mtu: UInt16) -> [UInt8] { [0x03] + le16(mtu) }
    public static func attFindInformationRequest(start: UInt16, end: UInt16) -> [UInt8] {
        [0x04] + le16(start) + le16(end)
    }
    /// Format 0x01: (handle, 16-bit UUID) pairs.
    public static func attFindInformationResponse(_ pairs: [(UInt16, UInt16)]) -> [UInt8] {
        [0x05, 0x01] + pairs.flatMap { le16($0.0) + le16($0.1) }
    }
    public static func attReadByTypeRequest(start: UInt16, end: UInt16, type: UInt16) -> [UInt8] {
        [0x08] + le16(start) + le16(end) + le16(type)
    }
    /// Pairs of (handle, value), every value `valueLength` bytes.
    public static func attReadByTypeResponse(valueLength: Int, _ pairs: [(UInt16, [UInt8])]) -> [UInt8] {
        [0x09, UInt8(2 + valueLength)] + pairs.flatMap { le16($0.0) + $0.1 }
    }
    public static func attReadRequest(_ handle: UInt16) -> [UInt8] { [0x0A] + le16(handle) }
    public static func attReadResponse(_ value: [UInt8]) -> [UInt8] { [0x0B] + value }
    public static func attReadByGroupTypeRequest(start: UInt16, end: UInt16, type: UInt16) -> [UInt8] {
        [0x10] + le16(start) + le16(end) + le16(type)
    }
    /// (start, end, 16-bit UUID) groups.
    public static func attReadByGroupTypeResponse(_ groups: [(UInt16, UInt16, UInt16)]) -> [UInt8] {
        [0x11, 6] + groups.flatMap { le16($0.0) + le16($0.1) + le16($0.2) }
    }
    public static func attWriteRequest(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] {
        [0x12] + le16(handle) + value
    }
    public static let attWriteResponse: [UInt8] = [0x13]
    public static func attNotification(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] {
        [0x1B] + le16(handle) + value
    }
    public static func attWriteCommand(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] {
        [0x52] + le16(handle) + value
    }

    // MARK: Benchmark inputs: the typical PDUs of the issue

    public static let notification20 = attNotification(0x002A, (0..<20).map { UInt8($0) })
    public static let notification244 = attNotification(0x002A, (0..<244).map { UInt8($0 & 0xFF) })
    /// Characteristic declarations: 6 pairs of (handle, properties + value handle + UUID16).
    public static let readByTypeResponse6 = attReadByTypeResponse(
        valueLength: 5,
        (0..<6).map { i in
            let handle = UInt16(0x0010 + 3 * i)
            return (handle, [0x12] + le16(handle + 1) + le16(UInt16(0x2A37 + i)))
        })
    public static let readByGroupTypeResponse = attReadByGroupTypeResponse([
        (0x0001, 0x0007, 0x1800), (0x0008, 0x000B, 0x1801), (0x000C, 0x0020, 0x180D),
    ])
    public static let findInformationResponse = attFindInformationResponse([
        (0x0012, 0x2902), (0x0013, 0x2901), (0x0014, 0x2904), (0x0015, 0x2902),
    ])
    public static let errorResponse = attErrorResponse(request: 0x08, handle: 0x0021, error: 0x0A)
    public static let writeRequest = attWriteRequest(0x0013, [0x01, 0x00])

    public static let leConnectionCompleteEvent = leConnectionComplete(
        handle: 0x0040, peer: [0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    public static let numberOfCompletedPacketsEvent = numberOfCompletedPackets([(0x0040, 3)])

    // MARK: helpers

    public static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}

/// A byte buffer allocated once and kept for a benchmark's life, so that the measured loop only
/// borrows it.
public final class PinnedBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    private let count: Int
    /// The bytes, borrowed.
    public var view: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    public init(_ contents: [UInt8]) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 16)
        contents.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.storage = storage
        self.count = contents.count
    }
    deinit { storage.deallocate() }
}

/// SplitMix64: a small deterministic generator, so that the same seed gives the same capture.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The reference the codec benchmarks' times are divided by (Benchmarks/README.md, "The gate"):
/// FNV-1a over `bytes`, started from `seed` so that no iteration can reuse another's result. A
/// fixed loop over the same bytes the codecs read, which no change to bletrace moves: on a faster
/// or slower machine it moves with them.
public func referenceHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}
