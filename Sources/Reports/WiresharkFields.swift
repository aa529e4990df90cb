import ATT
import HCI
import Lifecycle
import LinkLayer
import TraceFiles
import Wire

/// The values of Wireshark 4.0's fields that bletrace's decoding holds differently, for `--filter`
/// (RecordFilter): read from the record's bytes where Wireshark puts them, so that a filter with
/// Wireshark's name selects what `tshark -Y` selects (FilterCrossCheckTests).
///
/// Where each field is was found by giving tshark 4.0 an event of every code, every LE subevent
/// and a Command Complete of every opcode, filled with distinct bytes, and reading the field
/// back; the layouts are the Core specification's (Core 6.0, Vol 4, Part E, §7.7).
enum WiresharkFields {
    // MARK: bthci_evt.status

    /// Events whose first parameter Wireshark shows as bthci_evt.status (besides Command Complete
    /// and LE Meta). Not 0x59 (Encryption Change v2): Wireshark 4.0 does not know that event.
    static let statusEvents: Set<UInt8> = [
        0x01, 0x03, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F, 0x12, 0x14, 0x1C, 0x1D, 0x21,
        0x23, 0x2C, 0x2D, 0x2E, 0x30, 0x36, 0x40, 0x42, 0x45, 0x46, 0x47, 0x49, 0x4A, 0x4C, 0x4D, 0x4F, 0x50, 0x53,
    ]

    /// LE subevents whose first parameter after the subevent code Wireshark shows as the status.
    static let statusSubevents: Set<UInt8> = [
        0x01, 0x03, 0x04, 0x08, 0x09, 0x0A, 0x0C, 0x0E, 0x12, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1F, 0x21, 0x23,
    ]

    /// The commands whose Command Complete Wireshark 4.0 decodes, status first: the commands that
    /// complete with Command Complete, of the Core specification up to 5.3 (OGF, then OCF ranges).
    /// Vendor commands (OGF 0x3F), and Core 5.4's and later commands, are left undecoded.
    static let statusCommands: Set<UInt16> = {
        let ranges: [UInt16: [ClosedRange<UInt16>]] = [
            0x01: [
                2...4, 8...8, 0x0B...0x0E, 0x1A...0x1A, 0x20...0x20, 0x2B...0x30, 0x33...0x34, 0x3B...0x3B,
                0x40...0x42, 0x45...0x45,
            ],
            0x02: [9...9, 0x0C...0x0F, 0x11...0x11],
            0x03: [
                1...1, 3...3, 5...5, 8...0x0B, 0x0D...0x0D, 0x11...0x2F, 0x31...0x31, 0x33...0x33, 0x36...0x3F,
                0x42...0x49, 0x51...0x52, 0x55...0x5B, 0x60...0x6A, 0x6C...0x6F, 0x71...0x81,
            ],
            0x04: [1...5, 7...7, 9...0x0C],
            0x05: [1...3, 5...0x0D],
            0x06: [1...4, 7...0x0A],
            0x08: [
                1...3, 5...0x0C, 0x0E...0x12, 0x14...0x15, 0x17...0x18, 0x1A...0x24, 0x27...0x31, 0x33...0x42,
                0x45...0x5D, 0x5F...0x63, 0x65...0x65, 0x67...0x67, 0x6C...0x6C, 0x6E...0x76, 0x78...0x7A,
                0x7C...0x7D,
            ],
        ]
        return Set(ranges.flatMap { ogf, ocfs in ocfs.flatMap { $0.map { ogf << 10 | $0 } } })
    }()

    /// bthci_evt.status of an event (`bytes`: code, length, parameters), where Wireshark shows one.
    static func status(_ bytes: UnsafeRawBufferPointer) -> UInt8? {
        guard let parameters = parameters(bytes) else { return nil }
        switch bytes[0] {
        case 0x0E:
            // Number of packets, opcode, then the return parameters: status first.
            guard parameters.count >= 4, statusCommands.contains(UInt16(parameters[1]) | UInt16(parameters[2]) << 8)
            else { return nil }
            return parameters[3]
        case 0x3E:
            guard parameters.count >= 2, statusSubevents.contains(parameters[0]) else { return nil }
            return parameters[1]
        case let code:
            guard !parameters.isEmpty, statusEvents.contains(code) else { return nil }
            return parameters[0]
        }
    }

    // MARK: bthci_evt.connection_handle

    /// Events with one connection handle, by the offset of its 2 bytes in the parameters.
    static let handleEvents: [UInt8: Int] = [
        0x03: 1, 0x05: 1, 0x06: 1, 0x08: 1, 0x09: 1, 0x0A: 1, 0x0B: 1, 0x0C: 1, 0x0D: 1, 0x14: 1, 0x1C: 1,
        0x1D: 1, 0x21: 1, 0x23: 1, 0x2C: 1, 0x2D: 1, 0x2E: 1, 0x30: 1, 0x47: 1,
        0x11: 0, 0x1B: 0, 0x1E: 0, 0x38: 0, 0x39: 0, 0x4E: 0, 0x57: 0, 0x58: 0,
    ]

    /// LE subevents with a connection handle, by its offset after the subevent code.
    static let handleSubevents: [UInt8: Int] = [
        0x01: 1, 0x03: 1, 0x04: 1, 0x0A: 1, 0x0C: 1, 0x17: 1, 0x18: 1, 0x1F: 1, 0x21: 1, 0x23: 1,
        0x05: 0, 0x06: 0, 0x07: 0, 0x14: 0, 0x16: 0, 0x1A: 0, 0x20: 0,
        0x12: 2,
    ]

    /// Commands whose Command Complete return parameters hold a connection handle after the
    /// status (Read RSSI, LE Read Channel Map, LE Set Data Length, …).
    static let handleCommands: Set<UInt16> = [
        0x0420, 0x0809, 0x080C, 0x080D, 0x0811, 0x0C08, 0x0C27, 0x0C28, 0x0C2D, 0x0C36, 0x0C37, 0x0C68, 0x0C7B,
        0x0C7C, 0x1401, 0x1402, 0x1403, 0x1405, 0x1406, 0x1407, 0x1408, 0x180A, 0x2015, 0x201A, 0x201B, 0x2020,
        0x2021, 0x2022, 0x2030, 0x2054, 0x2055, 0x2056, 0x2057, 0x205A, 0x205B, 0x205C, 0x2076, 0x2078, 0x2079,
        0x207A,
    ]

    /// Every bthci_evt.connection_handle of an event, as its 16 bits: Wireshark keeps the
    /// reserved top 4 bits (0x2040 is not 0x0040). Number of Completed Packets (0x13) and Number
    /// of Completed Data Blocks (0x48) hold one per entry, as far as the event's bytes go.
    static func connectionHandles(_ bytes: UnsafeRawBufferPointer) -> [UInt16] {
        guard let parameters = parameters(bytes) else { return [] }
        func handle(at offset: Int) -> UInt16? {
            offset + 2 <= parameters.count ? UInt16(parameters[offset]) | UInt16(parameters[offset + 1]) << 8 : nil
        }
        func list(count: Int?, first: Int, stride: Int) -> [UInt16] {
            guard let count else { return [] }
            return (0..<count).lazy.map { first + $0 * stride }.prefix { $0 + 2 <= parameters.count }.compactMap(
                handle(at:))
        }
        switch bytes[0] {
        case 0x0E:
            guard parameters.count >= 3, handleCommands.contains(UInt16(parameters[1]) | UInt16(parameters[2]) << 8)
            else { return [] }
            return handle(at: 4).map { [$0] } ?? []
        case 0x3E:
            guard let subevent = parameters.first, let offset = handleSubevents[subevent] else { return [] }
            return handle(at: 1 + offset).map { [$0] } ?? []
        case 0x13:
            return list(count: parameters.first.map(Int.init), first: 1, stride: 4)
        case 0x48:
            return list(count: parameters.count > 2 ? Int(parameters[2]) : nil, first: 3, stride: 6)
        case let code:
            guard let offset = handleEvents[code] else { return [] }
            return handle(at: offset).map { [$0] } ?? []
        }
    }

    /// The parameters of an event packet, as far as both its length and the record go.
    private static func parameters(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard bytes.count >= 2 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[2..<min(bytes.count, 2 + Int(bytes[1]))])
    }

    // MARK: btatt.handle

    /// Every btatt.handle of an ATT PDU: Wireshark lists each handle of a list (Find Information,
    /// Read By Type, Read By Group Type and Find By Type Value Responses, Read Multiple Requests),
    /// and in a characteristic discovery (Read By Type of 0x2803) also each characteristic's value
    /// handle; a response to a read or write, and a confirmation, have the handle of the request.
    static func attributeHandles(_ pdu: ATTPDU, answering request: ATTRequest?) -> [UInt16] {
        switch pdu {
        case .findInformationResponse(let list): return list.map(\.handle)
        case .findByTypeValueResponse(let list): return list.map(\.found)
        case .readByGroupTypeResponse(let list): return list.map(\.handle)
        case .readMultipleRequest(let list), .readMultipleVariableRequest(let list): return Array(list)
        case .readByTypeResponse(let list):
            let declarations = request?.opcode == .readByTypeRequest && request?.type == .characteristicDeclaration
            return list.flatMap { entry in
                declarations && entry.value.count >= 3
                    ? [entry.handle, UInt16(entry.value[1]) | UInt16(entry.value[2]) << 8] : [entry.handle]
            }
        default:
            return attributeHandle(pdu, answering: request).map { [$0] } ?? []
        }
    }
}

extension WiresharkFields {
    /// The L2CAP frame, ATT PDU and SMP command Wireshark finds in a record: bletrace's own, and
    /// on Android's debug handle 0x0EDC (records bletrace keeps out of every link) the frame the
    /// packet holds, which Wireshark dissects as on any handle. (Android writes each debug record
    /// whole, in one start packet; a fragmented one is not gathered here.)
    static func layers(_ decoded: DecodedRecord) -> (l2cap: L2CAPFrame?, att: ATTPDU?, smp: SMPPDU?) {
        guard case .acl(let acl) = decoded.packet, acl.handle == ACLPacket.androidDebugHandle, !acl.isContinuation,
            let frame = try? L2CAPFrame.decode(acl.data)
        else { return (decoded.l2cap, decoded.att, decoded.smp) }
        // Wireshark reads the fields a debug record's bytes hold and marks the rest as extra: the
        // longest beginning of the payload that decodes.
        func lenient<PDU>(_ decode: (UnsafeRawBufferPointer) throws(DecodeError) -> PDU) -> PDU? {
            for count in stride(from: frame.payload.count, through: 1, by: -1) {
                if let pdu = try? decode(UnsafeRawBufferPointer(rebasing: frame.payload[..<count])) { return pdu }
            }
            return nil
        }
        let att = frame.channel == .att ? lenient(ATTPDU.decode) : nil
        let smp = frame.channel == .smp ? lenient(SMPPDU.decode) : nil
        return (frame, att, smp)
    }
}
