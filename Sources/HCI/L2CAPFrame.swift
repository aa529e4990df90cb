import Wire

/// An L2CAP channel identifier. Core 6.0, Vol 3, Part A, §2.1. Open.
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static var signaling: Self { .init(rawValue: 0x0001) }
    /// The Attribute Protocol's fixed channel on LE.
    public static var att: Self { .init(rawValue: 0x0004) }
    public static var leSignaling: Self { .init(rawValue: 0x0005) }
    public static var smp: Self { .init(rawValue: 0x0006) }

    public var description: String {
        switch rawValue {
        case 0x0001: "signaling"
        case 0x0004: "ATT"
        case 0x0005: "LE signaling"
        case 0x0006: "SMP"
        default: "CID " + hex(rawValue, digits: 1)
        }
    }
}

/// An L2CAP basic frame (B-frame). Core 6.0, Vol 3, Part A, §3.1.
public struct L2CAPFrame {
    public var channel: L2CAPChannelID
    public var payload: UnsafeRawBufferPointer

    /// Decodes a complete (reassembled) frame; bytes past the declared length are ignored.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> L2CAPFrame {
        var reader = ByteReader(bytes, layer: .l2cap)
        let length = Int(try reader.u16le("basic header length (2 bytes)"))
        let channel = L2CAPChannelID(rawValue: try reader.u16le("channel ID (2 bytes)"))
        // The message is built only on failure: no allocation per packet.
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of L2CAP payload, not \(reader.remaining)")
        }
        let payload = try reader.bytes(length, "L2CAP payload")
        return L2CAPFrame(channel: channel, payload: payload)
    }
}
