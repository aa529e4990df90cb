import Wire

/// One HCI packet of any kind, decoded as far as its kind allows.
public enum HCIPacket {
    case command(HCICommand)
    case event(HCIEvent)
    case acl(ACLPacket)
    /// SCO and ISO data, and non-HCI records, are carried raw.
    case sco(UnsafeRawBufferPointer)
    case iso(UnsafeRawBufferPointer)
    case other(UnsafeRawBufferPointer)

    /// Decodes `bytes` (no H4 indicator byte) as a packet of `kind`.
    public static func decode(kind: PacketKind, _ bytes: UnsafeRawBufferPointer) throws(DecodeError)
        -> HCIPacket
    {
        switch kind {
        case .command: .command(try HCICommand.decode(bytes))
        case .event: .event(try HCIEvent.decode(bytes))
        case .acl: .acl(try ACLPacket.decode(bytes))
        case .sco: .sco(bytes)
        case .iso: .iso(bytes)
        case .other: .other(bytes)
        }
    }
}
