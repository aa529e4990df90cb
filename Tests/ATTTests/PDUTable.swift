import ATT
import TestSupport
import Testing
import Wire

/// One field of a hand-written PDU, and what a truncation prefix that stops in it (or just before
/// it) must do. The kinds say, field by field, which prefixes the spec's layouts allow.
struct Field: Sendable, ExpressibleByStringLiteral {
    enum Kind: Sendable {
        /// A header or fixed field, or a list entry the list cannot do without: a prefix that
        /// stops before its end throws at its first byte.
        case fixed
        /// A list entry beyond the list's minimum: a prefix may stop just before it (a shorter
        /// list), but a prefix that stops inside it throws at its first byte.
        case entry
        /// A variable-length value (or the last value of a Read Multiple Variable Response,
        /// which the MTU may cut short): a prefix may stop anywhere in it.
        case value
        /// A UUID of 2 or 16 bytes (§3.4.4.1, §3.4.4.9): a prefix may keep 2 bytes of a 16-byte
        /// UUID (it is then a 16-bit UUID), and throws at its first byte anywhere else.
        case uuid
        /// An attribute value and a 12-byte authentication signature (§3.4.5.4): the last 12
        /// bytes are the signature, so a prefix decodes while 12 bytes are left for it, and
        /// throws at the value's first byte otherwise.
        case signed
    }

    var kind: Kind
    /// The field's parts, one a string so that each can carry its own comment.
    var parts: [String]

    init(_ kind: Kind, _ parts: [String]) { (self.kind, self.parts) = (kind, parts) }
    init(stringLiteral hex: String) { self.init(.fixed, [hex]) }

    static func fixed(_ parts: String...) -> Field { Field(.fixed, parts) }
    static func entry(_ parts: String...) -> Field { Field(.entry, parts) }
    static func value(_ hex: String) -> Field { Field(.value, [hex]) }
    static func uuid(_ hex: String) -> Field { Field(.uuid, [hex]) }
    static func signed(value: String, signature: String) -> Field { Field(.signed, [value, signature]) }

    var bytes: [UInt8] { packet(parts) }
}

/// What decoding a truncation prefix of a PDU must give.
enum PrefixOutcome: Equatable, Sendable, CustomStringConvertible {
    /// A `DecodeError` of layer `.att` at this offset.
    case throwsAt(Int)
    /// A valid, shorter PDU of the same opcode.
    case decodes

    var description: String {
        switch self {
        case .throwsAt(let offset): "throws at \(offset)"
        case .decodes: "decodes"
        }
    }
}

/// An ATT PDU written by hand from Core 6.0, Vol 3, Part F, §3.4, one field (or list entry) at a
/// time, with what it must decode to.
struct PDUCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// The opcode, then each parameter field.
    var fields: [Field]
    /// A list that must hold at least `length` bytes, starting at `offset`, whatever its entries
    /// (Read Multiple Variable Response: "4 to (ATT_MTU-1)", §3.4.4.12).
    var minimumList: MinimumList? = nil
    var expected: PDUSummary

    struct MinimumList: Sendable {
        var offset: Int
        var length: Int
    }

    var testDescription: String { name }
    var bytes: [UInt8] { fields.flatMap(\.bytes) }
    var opcode: UInt8 { bytes[0] }
    /// True when every field must be there: a fixed-size PDU, or one whose list holds just the
    /// entries it cannot do without.
    var allFieldsRequired: Bool { fields.allSatisfy { $0.kind == .fixed } }
    /// True when the PDU ends in fixed fields and whole list entries only (no value, no UUID).
    var endsInWholeFields: Bool { fields.allSatisfy { $0.kind == .fixed || $0.kind == .entry } }

    /// What the first `length` bytes must decode to, from the field kinds alone.
    func outcome(ofPrefix length: Int) -> PrefixOutcome {
        if let minimumList, length >= minimumList.offset, length < minimumList.offset + minimumList.length {
            return .throwsAt(minimumList.offset)
        }
        var start = 0
        for field in fields {
            let end = start + field.bytes.count
            guard length < end else {
                start = end
                continue
            }
            // The first field not wholly within the prefix; `present` of its bytes are there.
            let present = length - start
            switch field.kind {
            case .fixed: return .throwsAt(start)
            case .entry: return present == 0 ? .decodes : .throwsAt(start)
            case .value: return .decodes
            case .uuid: return present == 2 ? .decodes : .throwsAt(start)
            case .signed: return present >= 12 ? .decodes : .throwsAt(start)
            }
        }
        return .decodes
    }
}

/// The 128-bit form of `uuid` as ATT carries it: little-endian, least significant byte first.
func littleEndianBytes(_ uuid: BluetoothUUID) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: uuid.low >> (8 * $0)) }
        + (0..<8).map { UInt8(truncatingIfNeeded: uuid.high >> (8 * $0)) }
}

// The examples describe one small GATT server:
//   0x0001-0x0007 GAP (0x1800): Device Name 0x0003 ("bletrace heart rate sensor 01", 29 bytes),
//                 Appearance 0x0005 (0x0341, heart rate belt), PPCP 0x0007
//   0x0008-0x000F GATT (0x1801): Service Changed 0x000A (CCCD 0x000B), Client Supported
//                 Features 0x000D, Database Hash 0x000F
//   0x0010-0x0015 Heart Rate (0x180D): Measurement 0x0012 (CCCD 0x0013), Body Sensor Location 0x0015
//   0x0016-0x001B Nordic UART (6E400001-B5A3-F393-E0A9-E50E24DCCA9E): RX 0x0018, TX 0x001A
//   0x001C-0x001F, 0x0020-0xFFFF two Battery Services (0x180F)
// ATT_MTU is 23 unless a case says otherwise.
enum PDUs {
    static let known: [PDUCase] = [
        PDUCase(
            name: "Error Response",  // §3.4.1.1
            fields: [
                "01",  // opcode: Error Response
                "0a",  // Request Opcode In Error: Read Request
                "15 00",  // Attribute Handle In Error: 0x0015 (Body Sensor Location)
                "05",  // Error Code: Insufficient Authentication
            ],
            expected: .errorResponse(requestOpcode: 0x0A, handle: 0x0015, error: 0x05)),
        PDUCase(
            name: "Exchange MTU Request",  // §3.4.2.1
            fields: [
                "02",  // opcode: Exchange MTU Request
                "05 02",  // Client Rx MTU: 517
            ],
            expected: .exchangeMTURequest(clientMTU: 517)),
        PDUCase(
            name: "Exchange MTU Response",  // §3.4.2.2
            fields: [
                "03",  // opcode: Exchange MTU Response
                "f7 00",  // Server Rx MTU: 247
            ],
            expected: .exchangeMTUResponse(serverMTU: 247)),
        PDUCase(
            name: "Find Information Request",  // §3.4.3.1
            fields: [
                "04",  // opcode: Find Information Request
                "12 00",  // Starting Handle: 0x0012 (after the Heart Rate Measurement value)
                "13 00",  // Ending Handle: 0x0013
            ],
            expected: .findInformationRequest(start: 0x0012, end: 0x0013)),
        PDUCase(
            name: "Find Information Response (format 1, 16-bit UUIDs)",  // §3.4.3.2
            fields: [
                "05",  // opcode: Find Information Response
                "01",  // Format: 0x01, handles and 16-bit UUIDs
                .fixed("12 00", "37 2a"),  // Handle 0x0012, UUID 0x2A37 (Heart Rate Measurement)
                .entry("13 00", "02 29"),  // Handle 0x0013, UUID 0x2902 (CCCD)
            ],
            expected: .findInformationResponse(
                format: 1,
                [
                    .init(0x0012, BluetoothUUID(UInt16(0x2A37))),
                    .init(0x0013, BluetoothUUID(UInt16(0x2902))),
                ])),
        PDUCase(
            name: "Find Information Response (format 2, a 128-bit UUID)",
            fields: [
                "05",  // opcode: Find Information Response
                "02",  // Format: 0x02, handles and 128-bit UUIDs
                .fixed(
                    "18 00",  // Handle 0x0018
                    "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 02 00 40 6e"),  // UUID 6E400002-B5A3-F393-E0A9-E50E24DCCA9E
            ],
            expected: .findInformationResponse(format: 2, [.init(0x0018, nordicUART(2))])),
        PDUCase(
            name: "Find By Type Value Request",  // §3.4.3.3
            fields: [
                "06",  // opcode: Find By Type Value Request
                "01 00",  // Starting Handle: 0x0001
                "ff ff",  // Ending Handle: 0xFFFF
                "00 28",  // Attribute Type: 0x2800 (Primary Service)
                .value("0f 18"),  // Attribute Value: 0x180F (Battery Service)
            ],
            expected: .findByTypeValueRequest(start: 0x0001, end: 0xFFFF, type: 0x2800, value: [0x0F, 0x18])),
        PDUCase(
            name: "Find By Type Value Response (2 ranges)",  // §3.4.3.4
            fields: [
                "07",  // opcode: Find By Type Value Response
                .fixed("1c 00", "1f 00"),  // Found Attribute Handle 0x001C, Group End Handle 0x001F
                .entry("20 00", "ff ff"),  // Found Attribute Handle 0x0020, Group End Handle 0xFFFF (the last service)
            ],
            expected: .findByTypeValueResponse([.init(0x001C, 0x001F), .init(0x0020, 0xFFFF)])),
        PDUCase(
            name: "Read By Type Request (16-bit type)",  // §3.4.4.1
            fields: [
                "08",  // opcode: Read By Type Request
                "01 00",  // Starting Handle: 0x0001
                "ff ff",  // Ending Handle: 0xFFFF
                .uuid("03 28"),  // Attribute Type: 0x2803 (Characteristic)
            ],
            expected: .readByTypeRequest(start: 0x0001, end: 0xFFFF, type: .short(0x2803))),
        PDUCase(
            name: "Read By Type Request (128-bit type)",
            fields: [
                "08",  // opcode: Read By Type Request
                "16 00",  // Starting Handle: 0x0016
                "ff ff",  // Ending Handle: 0xFFFF
                .uuid("9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 03 00 40 6e"),  // Attribute Type: 6E400003-... (UART TX)
            ],
            expected: .readByTypeRequest(start: 0x0016, end: 0xFFFF, type: .long(nordicUART(3)))),
        PDUCase(
            name: "Read By Type Response (6 characteristic declarations, ATT_MTU 247)",  // §3.4.4.2
            fields: [
                "09",  // opcode: Read By Type Response
                "07",  // Length: 7 (handle 2 + declaration 5)
                // Attribute Data: handle; then the declaration: properties, value handle, UUID
                .fixed("02 00", "02", "03 00", "00 2a"),  // 0x0002: read; 0x0003; Device Name (0x2A00)
                .entry("04 00", "02", "05 00", "01 2a"),  // 0x0004: read; 0x0005; Appearance (0x2A01)
                .entry("06 00", "02", "07 00", "04 2a"),  // 0x0006: read; 0x0007; PPCP (0x2A04)
                .entry("09 00", "20", "0a 00", "05 2a"),  // 0x0009: indicate; 0x000A; Service Changed (0x2A05)
                // 0x000C: read, write; 0x000D; Client Supported Features (0x2B29)
                .entry("0c 00", "0a", "0d 00", "29 2b"),
                .entry("0e 00", "02", "0f 00", "2a 2b"),  // 0x000E: read; 0x000F; Database Hash (0x2B2A)
            ],
            expected: .readByTypeResponse(
                length: 7,
                [
                    .init(0x0002, declaration(properties: 0x02, valueHandle: 0x0003, uuid: 0x2A00)),
                    .init(0x0004, declaration(properties: 0x02, valueHandle: 0x0005, uuid: 0x2A01)),
                    .init(0x0006, declaration(properties: 0x02, valueHandle: 0x0007, uuid: 0x2A04)),
                    .init(0x0009, declaration(properties: 0x20, valueHandle: 0x000A, uuid: 0x2A05)),
                    .init(0x000C, declaration(properties: 0x0A, valueHandle: 0x000D, uuid: 0x2B29)),
                    .init(0x000E, declaration(properties: 0x02, valueHandle: 0x000F, uuid: 0x2B2A)),
                ])),
        PDUCase(
            name: "Read Request",  // §3.4.4.3
            fields: [
                "0a",  // opcode: Read Request
                "03 00",  // Attribute Handle: 0x0003
            ],
            expected: .readRequest(handle: 0x0003)),
        PDUCase(
            name: "Read Response",  // §3.4.4.4
            fields: [
                "0b",  // opcode: Read Response
                .value("48 65 6c 6c 6f"),  // Attribute Value: "Hello"
            ],
            expected: .readResponse(value: Array("Hello".utf8))),
        PDUCase(
            name: "Read Response (empty value)",
            fields: [
                "0b",  // opcode: Read Response
                .value(""),  // Attribute Value: none
            ],
            expected: .readResponse(value: [])),
        PDUCase(
            name: "Read Blob Request",  // §3.4.4.5
            fields: [
                "0c",  // opcode: Read Blob Request
                "03 00",  // Attribute Handle: 0x0003 (Device Name)
                "16 00",  // Value Offset: 22 (a Read Response brought the first 22 bytes)
            ],
            expected: .readBlobRequest(handle: 0x0003, offset: 22)),
        PDUCase(
            name: "Read Blob Response",  // §3.4.4.6
            fields: [
                "0d",  // opcode: Read Blob Response
                .value("6e 73 6f 72 20 30 31"),  // Part Attribute Value: "nsor 01" (bytes 22-28)
            ],
            expected: .readBlobResponse(value: Array("nsor 01".utf8))),
        PDUCase(
            name: "Read Multiple Request (3 handles)",  // §3.4.4.7
            fields: [
                "0e",  // opcode: Read Multiple Request
                .fixed("05 00"),  // Handle 1: 0x0005 (Appearance)
                .fixed("15 00"),  // Handle 2: 0x0015 (Body Sensor Location); two or more handles
                .entry("03 00"),  // Handle 3: 0x0003 (Device Name)
            ],
            expected: .readMultipleRequest(handles: [0x0005, 0x0015, 0x0003])),
        PDUCase(
            name: "Read Multiple Response (the last value cut at ATT_MTU-1)",  // §3.4.4.8
            fields: [
                "0f",  // opcode: Read Multiple Response
                .value("41 03"),  // Appearance: 0x0341 (heart rate belt)
                .value("01"),  // Body Sensor Location: 0x01 (chest)
                // Device Name, first 19 bytes: "bletrace heart rate"
                .value("62 6c 65 74 72 61 63 65 20 68 65 61 72 74 20 72 61 74 65"),
            ],
            expected: .readMultipleResponse(values: [0x41, 0x03, 0x01] + Array("bletrace heart rate".utf8))),
        PDUCase(
            name: "Read By Group Type Request",  // §3.4.4.9
            fields: [
                "10",  // opcode: Read By Group Type Request
                "01 00",  // Starting Handle: 0x0001
                "ff ff",  // Ending Handle: 0xFFFF
                .uuid("00 28"),  // Attribute Group Type: 0x2800 (Primary Service)
            ],
            expected: .readByGroupTypeRequest(start: 0x0001, end: 0xFFFF, type: .short(0x2800))),
        PDUCase(
            name: "Read By Group Type Request (a 16-bit type in its 128-bit form)",
            fields: [
                "10",  // opcode: Read By Group Type Request
                "16 00",  // Starting Handle: 0x0016 (after the last group found)
                "ff ff",  // Ending Handle: 0xFFFF
                .uuid("fb 34 9b 5f 80 00 00 80 00 10 00 00 00 28 00 00"),  // 00002800-0000-1000-8000-00805F9B34FB
            ],
            expected: .readByGroupTypeRequest(
                start: 0x0016, end: 0xFFFF, type: .init(size: 16, uuid: BluetoothUUID(UInt16(0x2800))))),
        PDUCase(
            name: "Read By Group Type Response (3 services, 16-bit UUIDs)",  // §3.4.4.10
            fields: [
                "11",  // opcode: Read By Group Type Response
                "06",  // Length: 6 (handle 2 + end group handle 2 + UUID 2)
                .fixed("01 00", "07 00", "00 18"),  // 0x0001-0x0007: GAP (0x1800)
                .entry("08 00", "0f 00", "01 18"),  // 0x0008-0x000F: GATT (0x1801)
                .entry("10 00", "15 00", "0d 18"),  // 0x0010-0x0015: Heart Rate (0x180D)
            ],
            expected: .readByGroupTypeResponse(
                length: 6,
                [
                    .init(0x0001, 0x0007, [0x00, 0x18]),
                    .init(0x0008, 0x000F, [0x01, 0x18]),
                    .init(0x0010, 0x0015, [0x0D, 0x18]),
                ])),
        PDUCase(
            name: "Read By Group Type Response (a 128-bit UUID)",
            fields: [
                "11",  // opcode: Read By Group Type Response
                "14",  // Length: 20 (handle 2 + end group handle 2 + UUID 16)
                .fixed(
                    "16 00",  // Attribute Handle: 0x0016
                    "1b 00",  // End Group Handle: 0x001B
                    "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e"),  // 6E400001-B5A3-F393-E0A9-E50E24DCCA9E
            ],
            expected: .readByGroupTypeResponse(
                length: 20,
                [
                    .init(0x0016, 0x001B, littleEndianBytes(nordicUART(1)))
                ])),
        PDUCase(
            name: "Read Multiple Variable Request (3 handles)",  // §3.4.4.11
            fields: [
                "20",  // opcode: Read Multiple Variable Request
                .fixed("05 00"),  // Handle 1: 0x0005 (Appearance)
                .fixed("1a 00"),  // Handle 2: 0x001A (UART TX); two or more handles
                .entry("03 00"),  // Handle 3: 0x0003 (Device Name)
            ],
            expected: .readMultipleVariableRequest(handles: [0x0005, 0x001A, 0x0003])),
        PDUCase(
            name: "Read Multiple Variable Response (the last value cut short by the MTU)",  // §3.4.4.12
            fields: [
                "21",  // opcode: Read Multiple Variable Response
                .entry("02 00"),  // Value Length 1: 2
                .value("41 03"),  // Value 1: Appearance 0x0341
                .entry("05 00"),  // Value Length 2: 5
                .value("68 65 6c 6c 6f"),  // Value 2: UART TX "hello"
                .entry("1d 00"),  // Value Length 3: 29
                .value("62 6c 65 74 72 61 63 65 20"),  // Value 3: Device Name, 9 of 29 bytes: "bletrace " (ATT_MTU 23)
            ],
            minimumList: .init(offset: 1, length: 4),  // "4 to (ATT_MTU-1)" bytes of tuples
            expected: .readMultipleVariableResponse(values: [
                [0x41, 0x03], Array("hello".utf8), Array("bletrace ".utf8),
            ])),
        PDUCase(
            name: "Write Request",  // §3.4.5.1
            fields: [
                "12",  // opcode: Write Request
                "13 00",  // Attribute Handle: 0x0013 (a CCCD)
                .value("01 00"),  // Attribute Value: notifications on
            ],
            expected: .writeRequest(handle: 0x0013, value: [0x01, 0x00])),
        PDUCase(
            name: "Write Response",  // §3.4.5.2
            fields: [
                "13"  // opcode: Write Response
            ],
            expected: .writeResponse),
        PDUCase(
            name: "Write Command",  // §3.4.5.3
            fields: [
                "52",  // opcode: Write Command (command flag set)
                "18 00",  // Attribute Handle: 0x0018 (UART RX)
                .value("de ad be ef"),  // Attribute Value
            ],
            expected: .writeCommand(handle: 0x0018, value: [0xDE, 0xAD, 0xBE, 0xEF])),
        PDUCase(
            name: "Signed Write Command (the spec's example)",  // §3.4.5.4
            fields: [
                "d2",  // opcode: Signed Write Command (command and signature flags set)
                "12 00",  // Attribute Handle: 0x0012
                .signed(
                    value: "13 37",  // Attribute Value
                    // Authentication Signature: SignCounter 1, then the MAC
                    signature: "01 00 00 00 f1 87 1e 93 3c 90 0f f2"),
            ],
            expected: .signedWriteCommand(
                handle: 0x0012, value: [0x13, 0x37],
                signature: [0x01, 0x00, 0x00, 0x00, 0xF1, 0x87, 0x1E, 0x93, 0x3C, 0x90, 0x0F, 0xF2])),
        PDUCase(
            name: "Prepare Write Request",  // §3.4.6.1
            fields: [
                "16",  // opcode: Prepare Write Request
                "18 00",  // Attribute Handle: 0x0018 (UART RX)
                "12 00",  // Value Offset: 18
                .value("61 62 63 64"),  // Part Attribute Value: "abcd"
            ],
            expected: .prepareWriteRequest(handle: 0x0018, offset: 18, value: Array("abcd".utf8))),
        PDUCase(
            name: "Prepare Write Response",  // §3.4.6.2
            fields: [
                "17",  // opcode: Prepare Write Response
                "18 00",  // Attribute Handle: 0x0018, as requested
                "12 00",  // Value Offset: 18, as requested
                .value("61 62 63 64"),  // Part Attribute Value: "abcd", as requested
            ],
            expected: .prepareWriteResponse(handle: 0x0018, offset: 18, value: Array("abcd".utf8))),
        PDUCase(
            name: "Execute Write Request (write)",  // §3.4.6.3
            fields: [
                "18",  // opcode: Execute Write Request
                "01",  // Flags: 0x01, write all pending prepared values
            ],
            expected: .executeWriteRequest(flags: 0x01)),
        PDUCase(
            name: "Execute Write Request (cancel)",
            fields: [
                "18",  // opcode: Execute Write Request
                "00",  // Flags: 0x00, cancel all prepared writes
            ],
            expected: .executeWriteRequest(flags: 0x00)),
        PDUCase(
            name: "Execute Write Response",  // §3.4.6.4
            fields: [
                "19"  // opcode: Execute Write Response
            ],
            expected: .executeWriteResponse),
        PDUCase(
            name: "Handle Value Notification",  // §3.4.7.1
            fields: [
                "1b",  // opcode: Handle Value Notification
                "12 00",  // Attribute Handle: 0x0012 (Heart Rate Measurement)
                .value("00 48"),  // Attribute Value: flags 0x00, 72 bpm
            ],
            expected: .handleValueNotification(handle: 0x0012, value: [0x00, 0x48])),
        PDUCase(
            name: "Handle Value Notification (empty value)",
            fields: [
                "1b",  // opcode: Handle Value Notification
                "12 00",  // Attribute Handle: 0x0012
                .value(""),  // Attribute Value: none
            ],
            expected: .handleValueNotification(handle: 0x0012, value: [])),
        PDUCase(
            name: "Handle Value Indication",  // §3.4.7.2
            fields: [
                "1d",  // opcode: Handle Value Indication
                "0a 00",  // Attribute Handle: 0x000A (Service Changed)
                .value("01 00 ff ff"),  // Attribute Value: affected range 0x0001-0xFFFF
            ],
            expected: .handleValueIndication(handle: 0x000A, value: [0x01, 0x00, 0xFF, 0xFF])),
        PDUCase(
            name: "Handle Value Confirmation",  // §3.4.7.3
            fields: [
                "1e"  // opcode: Handle Value Confirmation
            ],
            expected: .handleValueConfirmation),
        PDUCase(
            name: "Multiple Handle Value Notification (2 tuples)",  // §3.4.7.4
            fields: [
                "23",  // opcode: Multiple Handle Value Notification
                .fixed(  // tuple 1 (two or more tuples, none truncated)
                    "12 00",  // Attribute Handle: 0x0012 (Heart Rate Measurement)
                    "02 00",  // Value Length: 2
                    "00 48"),  // Attribute Value: flags 0x00, 72 bpm
                .fixed(  // tuple 2
                    "1a 00",  // Attribute Handle: 0x001A (UART TX)
                    "05 00",  // Value Length: 5
                    "68 65 6c 6c 6f"),  // Attribute Value: "hello"
            ],
            expected: .multipleHandleValueNotification([
                .init(0x0012, [0x00, 0x48]), .init(0x001A, Array("hello".utf8)),
            ])),
        PDUCase(
            name: "Multiple Handle Value Notification (3 tuples, one value empty)",
            fields: [
                "23",  // opcode: Multiple Handle Value Notification
                .fixed("12 00", "02 00", "00 49"),  // 0x0012, length 2: flags 0x00, 73 bpm
                .fixed("1a 00", "00 00", ""),  // 0x001A, length 0: empty value
                .entry("15 00", "01 00", "01"),  // 0x0015, length 1: chest
            ],
            expected: .multipleHandleValueNotification([
                .init(0x0012, [0x00, 0x49]), .init(0x001A, []), .init(0x0015, [0x01]),
            ])),
    ]

    /// Unassigned opcodes (Core 6.0, Vol 3, Part F, §3.4.8, Table 3.43): they survive as
    /// `.unknown`, whatever follows them.
    static let unknown: [PDUCase] = [
        PDUCase(
            name: "Unassigned opcode 0x22",
            fields: [
                "22",  // between Read Multiple Variable Response and Multiple Handle Value Notification
                .value("01 02 03"),  // parameters, kept as they are
            ],
            expected: .unknown(opcode: 0x22, parameters: [0x01, 0x02, 0x03])),
        PDUCase(
            name: "Unassigned opcode 0x14",
            fields: [
                "14",  // between Write Response and Prepare Write Request
                .value("2a 00"),
            ],
            expected: .unknown(opcode: 0x14, parameters: [0x2A, 0x00])),
        PDUCase(
            name: "Unassigned opcode 0x1F, no parameters",
            fields: ["1f", .value("")],
            expected: .unknown(opcode: 0x1F, parameters: [])),
        PDUCase(
            name: "Unassigned opcode 0x9C, no parameters",
            fields: ["9c", .value("")],
            expected: .unknown(opcode: 0x9C, parameters: [])),
        PDUCase(
            name: "Unassigned opcode 0x7F",
            fields: [
                "7f",  // every method bit and the command flag
                .value("ff"),
            ],
            expected: .unknown(opcode: 0x7F, parameters: [0xFF])),
        PDUCase(
            name: "Unassigned opcode 0x00",
            fields: ["00", .value("00 00")],
            expected: .unknown(opcode: 0x00, parameters: [0x00, 0x00])),
        PDUCase(
            name: "Unassigned opcode 0x92 (signature flag on a Write Request)",
            fields: ["92", .value("18 00 01 00 00 00 00 00 00 00 00 00 00 00")],
            expected: .unknown(opcode: 0x92, parameters: [0x18, 0x00, 0x01] + [UInt8](repeating: 0, count: 11))),
    ]

    static let all = known + unknown

    static func named(_ name: String) -> PDUCase {
        guard let row = all.first(where: { $0.name == name }) else { preconditionFailure("no PDU case \(name)") }
        return row
    }
}
