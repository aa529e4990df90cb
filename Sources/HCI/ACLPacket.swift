import Wire

/// An HCI ACL data packet. Core 6.0, Vol 4, Part E, §5.4.2.
public struct ACLPacket {
    /// The connection handle (12 bits).
    public var handle: UInt16
    /// Packet boundary flag: 0b00/0b10 start a new L2CAP frame, 0b01 continues one.
    public var packetBoundary: UInt8
    public var broadcast: UInt8
    public var data: UnsafeRawBufferPointer

    /// A packet made in code: the link-layer decoder hands each LL data PDU's payload to the
    /// ``ACLReassembler`` as one of these (LLID 10 as a start, LLID 01 as a continuation).
    public init(handle: UInt16, packetBoundary: UInt8, broadcast: UInt8 = 0, data: UnsafeRawBufferPointer) {
        self.handle = handle
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast
        self.data = data
    }

    /// True for a continuing fragment of a higher-layer frame.
    public var isContinuation: Bool { packetBoundary == 0b01 }

    /// Android writes its own debug and vendor records as ACL on this handle; it is not a link.
    public static let androidDebugHandle: UInt16 = 0x0EDC

    /// Decodes an ACL packet without its H4 indicator byte.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> ACLPacket {
        var reader = ByteReader(bytes, layer: .acl)
        let word = try reader.u16le("handle and flags (2 bytes)")
        let length = Int(try reader.u16le("data total length (2 bytes)"))
        // The message is built only on failure: no allocation per packet.
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of ACL data, not \(reader.remaining)")
        }
        let data = try reader.bytes(length, "ACL data")
        return ACLPacket(
            handle: word & 0x0FFF, packetBoundary: UInt8(word >> 12 & 0x3),
            broadcast: UInt8(word >> 14), data: data)
    }
}
