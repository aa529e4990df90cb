import Wire

/// One direction of one connection's L2CAP frames, as their fragments go by (ACL packets on HCI,
/// data PDUs over the air): where in the frame the next byte is, and what its first bytes said.
/// Fragments are redacted as they come, never held back: each byte's fate is known from the bytes
/// before it (the channel, the opcode, the handle), all in the frame's earlier fragments.
struct L2CAPStream {
    /// Bytes of the frame seen, its 4-byte header included.
    var position = 0
    /// The payload length and channel, from the header.
    var length = 0
    var channel: UInt16 = 0
    /// SMP frames, and ATT frames when names or values go: the payload as it was (at most
    /// ``kept`` bytes), to count the keys and learn the GATT handles when the frame is whole.
    var original: [UInt8] = []
    var att = ATTWalker()

    static let kept = 600
}

/// Where an ATT PDU's values are, byte by byte (Core 6.0, Vol 3, Part F, §3.4).
struct ATTWalker {
    var opcode: UInt8 = 0
    var handle: UInt16 = 0
    var action = FieldAction.keep
    /// Read By Type Response: the length of each handle-value pair.
    var pairLength = 0
    /// Length-prefixed lists (0x21, 0x23): which part of the entry, and the value bytes left.
    var phase = 0
    var remaining = 0
    var names: AddressMap.NameStream?
    /// The name being replaced, as it was: remembered when it ends, to be found elsewhere.
    var nameBytes: [UInt8] = []
    var last = FieldAction.keep
}

enum FieldAction: Equatable {
    case keep, zero, name
}

/// What GATT discovery has said of one connection's attribute handles, and the request each
/// side has open (a response is read knowing its request).
struct GATTKnowledge {
    var types: [UInt16: BluetoothUUID] = [:]
    /// By the side that sent the request.
    var pending: [UInt64: (opcode: UInt8, handle: UInt16, type: BluetoothUUID?)] = [:]
}

extension RedactorCore {

    /// One fragment of an L2CAP frame: `start` when it begins one. `stream` names the connection
    /// and direction, `connection` the connection, `side` the direction (0, 1, or 2 unknown).
    mutating func l2capFragment(
        _ fragment: UnsafeMutableRawBufferPointer, start: Bool, stream key: UInt64, connection: UInt64, side: UInt64
    )
        -> String?
    {
        // The stream is out of the dictionary while its fragment is read, and goes back only if
        // its frame goes on: a frame whole in one fragment, the most common, is never put in.
        var stream: L2CAPStream
        if start {
            // A frame still under way on this stream ends here, cut.
            if !streams.isEmpty { streams.removeValue(forKey: key) }
            stream = L2CAPStream()
        } else {
            guard !fragment.isEmpty else { return nil }
            guard let going = streams.removeValue(forKey: key) else {
                return "an L2CAP continuation fragment whose frame's start the capture does not have"
            }
            stream = going
        }
        let count = fragment.count
        var index = 0
        while index < count {
            if stream.position < 4 {
                let byte = fragment[index]
                switch stream.position {
                case 0: stream.length = Int(byte)
                case 1: stream.length |= Int(byte) << 8
                case 2: stream.channel = UInt16(byte)
                default: stream.channel |= UInt16(byte) << 8
                }
                stream.position += 1
                index += 1
                if stream.position == 4, stream.length == 0 {
                    finish(&stream, connection: connection, side: side)
                    zero(fragment, from: index, to: count)
                    return nil
                }
                continue
            }
            let at = stream.position - 4
            let take = min(count - index, stream.length - at)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: fragment[index..<index + take])
            let keeping =
                stream.channel == 6 || stream.channel == 7 || (stream.channel == 4 && (options.names || options.values))
            if keeping, stream.original.count < L2CAPStream.kept {
                stream.original.append(contentsOf: chunk.prefix(L2CAPStream.kept - stream.original.count))
            }
            switch stream.channel {
            case 6, 7: smp(chunk, at: at, stream: &stream)
            case 4:
                if options.names || options.values {
                    att(chunk, at: at, stream: &stream, connection: connection, side: side)
                } else {
                    searchKnown(chunk)
                }
            case 1, 5:
                break  // signalling: identifiers, CIDs, parameters
            case 0x40...:
                if options.values { zeroValue(chunk, from: 0, to: chunk.count) } else { searchKnown(chunk) }
            default:
                // A channel of no known layout (connectionless, reserved, a vendor's diagnostics
                // on a fixed channel): the known addresses and names are looked for.
                searchKnown(chunk)
            }
            stream.position += take
            index += take
            if stream.position == 4 + stream.length {
                finish(&stream, connection: connection, side: side)
                // Bytes after the frame's end belong to none: zeroed.
                zero(fragment, from: index, to: count)
                return nil
            }
        }
        streams[key] = stream
        return nil
    }

    /// A frame is whole: count its keys, learn what it says of the GATT handles.
    mutating func finish(_ stream: inout L2CAPStream, connection: UInt64, side: UInt64) {
        let payload = stream.original
        switch stream.channel {
        case 6, 7:
            guard let opcode = payload.first, let kind = Self.smpSecret(opcode), payload.count > 1 else {
                if payload.first == 0x09, payload.count >= 8 {
                    var identity: UInt64 = 0
                    for index in 0..<6 { identity |= UInt64(payload[2 + index]) << (8 * UInt64(index)) }
                    tally.identities.insert(identity)
                }
                return
            }
            var copy = Array(payload[1...])
            copy.withUnsafeMutableBytes { tally.secret(kind, $0) }
        case 4:
            if stream.att.last == .name { rememberName(stream.att.nameBytes) }
            if !payload.isEmpty { learn(payload, connection: connection, side: side) }
        default:
            break
        }
    }

    /// The kind of secret an SMP command of `opcode` is made of, after its opcode.
    static func smpSecret(_ opcode: UInt8) -> SecretKind? {
        switch opcode {
        case 0x03, 0x04, 0x0D: .pairingValue  // Pairing Confirm, Pairing Random, DHKey Check
        case 0x06: .longTermKey  // Encryption Information
        case 0x07: .centralIdentification  // Central Identification: EDIV, Rand
        case 0x08: .identityResolvingKey  // Identity Information
        case 0x0A: .signatureKey  // Signing Information
        case 0x0C: .publicKey  // Pairing Public Key
        default: nil
        }
    }

    /// SMP (Core 6.0, Vol 3, Part H, §3): the keys and pairing values zeroed, the identity
    /// address replaced. `at`: where `chunk` starts in the frame's payload.
    mutating func smp(_ chunk: UnsafeMutableRawBufferPointer, at: Int, stream: inout L2CAPStream) {
        guard let opcode = stream.original.first else { return }
        if Self.smpSecret(opcode) != nil {
            zero(chunk, from: at == 0 ? 1 : 0, to: chunk.count)
        } else if opcode == 0x09 {
            // Identity Address Information: AddrType, BD_ADDR at 2..<8.
            let from = max(2, at) - at
            let to = min(8, at + chunk.count) - at
            guard from < to else { return }
            if at <= 2, at + chunk.count >= 8 {
                address(chunk, 2 - at)
            } else {
                zero(chunk, from: from, to: to)
                if at <= 2 { tally.addressesZeroed += 1 }
            }
        }
    }

    /// ATT with names or values: each byte of a value zeroed or replaced as its attribute's
    /// type and the options say.
    mutating func att(
        _ chunk: UnsafeMutableRawBufferPointer, at: Int, stream: inout L2CAPStream, connection: UInt64, side: UInt64
    ) {
        var walker = stream.att
        for offset in 0..<chunk.count {
            let k = at + offset
            let byte = chunk[offset]
            let action = attStep(&walker, k: k, byte: byte, length: stream.length, connection: connection, side: side)
            if walker.last == .name, action != .name {
                rememberName(walker.nameBytes)
                walker.nameBytes = []
            }
            switch action {
            case .keep: break
            case .zero:
                if walker.last != .zero { tally.valuesZeroed += 1 }
                chunk[offset] = 0
            case .name:
                if walker.last != .name {
                    tally.namesReplaced += 1
                    walker.names = addresses.nameStream()
                }
                walker.nameBytes.append(byte)
                chunk[offset] = walker.names!.next(byte)
            }
            walker.last = action
        }
        stream.att = walker
    }

    /// What to do with byte `k` of an ATT PDU's payload of `length` bytes.
    func attStep(_ w: inout ATTWalker, k: Int, byte: UInt8, length: Int, connection: UInt64, side: UInt64)
        -> FieldAction
    {
        if k == 0 {
            w = ATTWalker()
            w.opcode = byte
            return .keep
        }
        switch w.opcode {
        case 0x0B, 0x0D:  // Read Response, Read Blob Response: the value of the request's handle
            if k == 1 {
                let request = gatt[connection]?.pending[Self.otherSide(side)]
                w.action = valueAction(request.flatMap { gatt[connection]?.types[$0.handle] })
            }
            return w.action
        case 0x0F:  // Read Multiple Response: values run together
            return options.values ? .zero : .keep
        case 0x1B, 0x1D, 0x12, 0x52, 0xD2, 0x16, 0x17:
            // Notification, Indication, Write Request and Command, Signed Write (its signature
            // last, kept), Prepare Write Request and Response (a value offset first).
            if k == 1 { w.handle = UInt16(byte) }
            if k == 2 {
                w.handle |= UInt16(byte) << 8
                w.action = valueAction(gatt[connection]?.types[w.handle])
            }
            let first = w.opcode == 0x16 || w.opcode == 0x17 ? 5 : 3
            if k < first || (w.opcode == 0xD2 && k >= length - 12) { return .keep }
            return w.action
        case 0x09:  // Read By Type Response: Length, then handle-value pairs
            if k == 1 {
                w.pairLength = Int(byte)
                let type = gatt[connection]?.pending[Self.otherSide(side)]?.type
                w.action = type?.isDeclaration == true ? .keep : valueAction(type)
                return .keep
            }
            guard w.pairLength > 2 else { return .keep }
            return (k - 2) % w.pairLength < 2 ? .keep : w.action
        case 0x21:  // Read Multiple Variable Response: Length (2), Value
            switch w.phase {
            case 0:
                w.remaining = Int(byte)
                w.phase = 1
                return .keep
            case 1:
                w.remaining |= Int(byte) << 8
                w.phase = w.remaining == 0 ? 0 : 2
                return .keep
            default:
                w.remaining -= 1
                if w.remaining == 0 { w.phase = 0 }
                return options.values ? .zero : .keep
            }
        case 0x23:  // Multiple Handle Value Notification: Handle (2), Length (2), Value
            switch w.phase {
            case 0:
                w.handle = UInt16(byte)
                w.phase = 1
            case 1:
                w.handle |= UInt16(byte) << 8
                w.action = valueAction(gatt[connection]?.types[w.handle])
                w.phase = 2
            case 2:
                w.remaining = Int(byte)
                w.phase = 3
            case 3:
                w.remaining |= Int(byte) << 8
                w.phase = w.remaining == 0 ? 0 : 4
            default:
                w.remaining -= 1
                if w.remaining == 0 { w.phase = 0 }
                return w.action
            }
            return .keep
        case 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x11, 0x13, 0x18, 0x19, 0x1E, 0x20:
            // Errors, MTU, discovery requests and responses, reads' requests, write and
            // execute responses, confirmations: handles and types, no values.
            return .keep
        default:
            // An opcode of unknown layout: nothing in it can be told safe.
            return options.values || options.names ? .zero : .keep
        }
    }

    /// What a value of an attribute of `type` (nil: not known) becomes.
    func valueAction(_ type: BluetoothUUID?) -> FieldAction {
        if type == .deviceName, options.names { return .name }
        if options.values, !options.keeps(type) { return .zero }
        return .keep
    }

    static func otherSide(_ side: UInt64) -> UInt64 { side == 2 ? 2 : 1 - side }

    /// Learns from a whole ATT PDU as it was: a request's handle or type, discovery's handles.
    mutating func learn(_ pdu: [UInt8], connection: UInt64, side: UInt64) {
        var knowledge = gatt[connection] ?? GATTKnowledge()
        defer { gatt[connection] = knowledge }
        let opcode = pdu[0]
        func u16(_ at: Int) -> UInt16 { UInt16(pdu[at]) | UInt16(pdu[at + 1]) << 8 }
        func uuid(_ range: Range<Int>) -> BluetoothUUID? {
            pdu[range].withUnsafeBytes { BluetoothUUID(littleEndian: $0) }
        }
        switch opcode {
        case 0x0A, 0x0C:  // Read Request, Read Blob Request
            guard pdu.count >= 3 else { return }
            knowledge.pending[side] = (opcode, u16(1), nil)
        case 0x08:  // Read By Type Request: Starting Handle, Ending Handle, Type
            guard pdu.count == 7 || pdu.count == 21 else { return }
            knowledge.pending[side] = (opcode, u16(1), uuid(5..<pdu.count))
        case 0x09:  // Read By Type Response
            let request = knowledge.pending.removeValue(forKey: Self.otherSide(side))
            guard pdu.count >= 2, let type = request?.type else { return }
            let length = Int(pdu[1])
            guard length >= 2 else { return }
            var at = 2
            while at + length <= pdu.count {
                if type == .characteristicDeclaration {
                    // Properties, Value Handle, UUID.
                    if length == 7 || length == 21, let declared = uuid(at + 5..<at + length) {
                        knowledge.types[u16(at + 3)] = declared
                    }
                } else if !type.isDeclaration {
                    knowledge.types[u16(at)] = type
                }
                at += length
            }
        case 0x05:  // Find Information Response: Format, then Handle, UUID pairs
            knowledge.pending[Self.otherSide(side)] = nil
            guard pdu.count >= 2 else { return }
            let length = pdu[1] == 0x01 ? 4 : 18
            var at = 2
            while at + length <= pdu.count {
                if let type = uuid(at + 2..<at + length) { knowledge.types[u16(at)] = type }
                at += length
            }
        case 0x01, 0x0B, 0x0D, 0x0F, 0x21:
            knowledge.pending[Self.otherSide(side)] = nil
        default:
            break
        }
    }

    /// A connection ended (Disconnection Complete): its frames under way and its handles go.
    mutating func forget(handle: UInt16) {
        for side: UInt64 in 0...2 { streams[UInt64(handle) | side << 16] = nil }
        gatt[UInt64(handle)] = nil
    }
}
