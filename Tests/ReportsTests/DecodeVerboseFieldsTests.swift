import ATT
import HCI
import Testing

@testable import Reports
@testable import Wire

/// `decode -v`'s field-by-field writers (DecodeVerboseFields.swift) against ``FieldPrinter``'s
/// reflection, on made-up input of the kinds the bundled and public captures lack or have few
/// of: every AD type, padding and malformed advertising data, every ATT PDU `attFields` writes,
/// and HCI events with their optional fields present and absent. (`DecodeFormattersTests` does the
/// same record by record on every capture.)
@Suite struct DecodeVerboseFieldsTests {
    static let advertisingData: [[UInt8]] = [
        // Flags, complete 16-bit UUIDs (one with a GATT name), complete local name, Tx power.
        [2, 0x01, 0x06, 5, 0x03, 0x0D, 0x18, 0xE7, 0xFE, 5, 0x09, 0x4E, 0x6F, 0x76, 0x61, 2, 0x0A, 0xFC],
        // Incomplete 16-bit, incomplete and complete 32-bit, complete 128-bit UUID lists.
        [3, 0x02, 0x0F, 0x18, 5, 0x04, 1, 2, 3, 4, 9, 0x05, 0xFB, 0x34, 0x9B, 0x5F, 0x0D, 0x18, 0, 0]
            + [17, 0x07] + Array(0x10...0x1F as ClosedRange<UInt8>),
        // Service data for 16-, 32- and 128-bit UUIDs (the last with no data), appearance.
        [5, 0x16, 0x0D, 0x18, 0x41, 0x42, 5, 0x20, 1, 2, 3, 4, 17, 0x21] + Array(0x20...0x2F as ClosedRange<UInt8>)
            + [3, 0x19, 0xC1, 0x03],
        // Manufacturer data with and without data, types kept as they are (one with no data).
        [6, 0xFF, 0x4C, 0x00, 0x02, 0x15, 0x7F, 3, 0xFF, 0xE0, 0x00, 5, 0x12, 0x06, 0x00, 0x0C, 0x00, 1, 0x30],
        // Shortened local names: not printable, too short to show as text, empty; flags above 9.
        [3, 0x08, 0xFF, 0xFE, 3, 0x08, 0x41, 0x42, 1, 0x09, 2, 0x01, 0x1A],
        // Padding after a zero length byte.
        [2, 0x01, 0x06, 0, 0, 0],
        // No data at all.
        [],
        // A structure longer than the data; a Tx power level of the wrong length.
        [5, 0x09, 0x41],
        [2, 0x01, 0x06, 3, 0x0A, 0x01, 0x02],
    ]

    @Test(arguments: advertisingData)
    func writesAdvertisingDataAsFieldPrinterDoes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            let data = AdvertisingData(raw, offset: 4)
            var buffer = LineBuffer()
            DecodeVerboseFormatter.advertising(data, indent: 16, to: &buffer)
            expectSame(buffer, FieldPrinter.lines(data, label: "data", indent: 16))
        }
    }

    static let attPDUs: [[UInt8]] = [
        [0x01, 0x10, 0x5D, 0x00, 0x0A],  // Error Response
        [0x01, 0x12, 0x14, 0x00, 0x80],  // Error Response, an application error
        [0x02, 0x05, 0x02], [0x03, 0x17, 0x00],  // Exchange MTU
        [0x04, 0x01, 0x00, 0xFF, 0xFF],  // Find Information Request
        [0x05, 0x01, 0x0C, 0x00, 0xF1, 0xFF, 0x0D, 0x00, 0x02, 0x29],  // 16-bit UUIDs
        [0x05, 0x02, 0x10, 0x00] + Array(0x30...0x3F as ClosedRange<UInt8>),  // 128-bit UUIDs
        [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18],  // Find By Type Value Request
        [0x07, 0x01, 0x00, 0x05, 0x00, 0x10, 0x00, 0xFF, 0xFF],  // Find By Type Value Response
        [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],  // Read By Type Request
        [0x08, 0x0A, 0x00, 0x20, 0x00] + Array(0x40...0x4F as ClosedRange<UInt8>),
        [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A],
        [0x0A, 0x0D, 0x00],  // Read Request
        [0x0B, 0x41, 0x42, 0x43], [0x0B],  // Read Response: text, empty
        [0x0C, 0x03, 0x00, 0x16, 0x00], [0x0D, 0x01, 0x02],  // Read Blob
        [0x0F, 0x01, 0x02, 0x03],  // Read Multiple Response
        [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],  // Read By Group Type Request
        [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18],
        [0x13],  // Write Response
        [0x16, 0x03, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03], [0x17, 0x03, 0x00, 0x12, 0x00],  // Prepare Write
        [0x18, 0x01], [0x18, 0x00], [0x19],  // Execute Write
        [0x1E],  // Handle Value Confirmation
    ]

    @Test(arguments: attPDUs)
    func writesATTFieldsAsFieldPrinterDoes(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            let pdu = try ATTPDU.decode(raw)
            var buffer = LineBuffer()
            let taken = DecodeVerboseFormatter.attFields(pdu, to: &buffer)
            #expect(taken, "attFields takes \(pdu.opcode)")
            expectSame(buffer, FieldPrinter.lines(pdu, label: "ATT"))
        }
    }

    /// Whole HCI event packets (code, length, parameters).
    static let events: [[UInt8]] = [
        // LE Enhanced Connection Complete [v2]: resolvable private addresses, advertising and sync
        // handles.
        [0x3E, 34, 0x29, 0x00, 0x40, 0x00, 0x01, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
            + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x05, 0x02, 0x34, 0x12],
        // LE Connection Complete: none of them.
        [0x3E, 19, 0x01, 0x02, 0x40, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00],
        // Encryption Change [v1] (no key size) and [v2].
        [0x08, 4, 0x00, 0x40, 0x00, 0x01],
        [0x59, 5, 0x00, 0x40, 0x00, 0x01, 0x10],
        // LE Advertising Report: two reports, the second with RSSI 127 (not available).
        [0x3E, 25, 0x02, 2, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 3, 0x02, 0x01, 0x06, 0xC4]
            + [0x04, 0x00, 6, 5, 4, 3, 2, 1, 0, 0x7F],
        // LE Data Length Change, Channel Selection Algorithm, Read Remote Features Complete.
        [0x3E, 11, 0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0x1B, 0x00, 0x48, 0x01],
        [0x3E, 4, 0x14, 0x40, 0x00, 0x01],
        [0x3E, 12, 0x04, 0x00, 0x40, 0x00, 0xFF, 0x01, 0, 0, 0, 0, 0, 0],
        // Disconnection Complete, Read Remote Version Information Complete.
        [0x05, 4, 0x00, 0x40, 0x00, 0x13],
        [0x0C, 8, 0x00, 0x40, 0x00, 0x0D, 0x0F, 0x00, 0x13, 0x81],
    ]

    @Test(arguments: events)
    func writesEventsAsFieldPrinterDoes(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            let parameters = try HCIEventParameters.decode(raw)
            var buffer = LineBuffer()
            let taken = DecodeVerboseFormatter.event(parameters, to: &buffer)
            #expect(taken, "event takes \(parameters.code)")
            expectSame(buffer, FieldPrinter.lines(parameters, label: "HCI event"))
        }
    }

    /// Whole HCI command packets (opcode, length, parameters).
    static let commands: [[UInt8]] = [
        [0x1B, 0x20, 2, 0x40, 0x00],  // LE Long Term Key Request Negative Reply
        [0x06, 0x04, 3, 0x40, 0x00, 0x13],  // Disconnect
        [0x03, 0x0C, 0],  // Reset
        [0x01, 0x0C, 8, 0xFF, 0xFF, 0xFB, 0xFF, 0x07, 0xF8, 0xBF, 0x3D],  // Set Event Mask
        [0x0C, 0x20, 2, 0x01, 0x00],  // LE Set Scan Enable
        // LE Add Device To Resolving List, LE Start Encryption: 128-bit keys.
        [0x27, 0x20, 39, 0x00, 1, 2, 3, 4, 5, 6] + Array(0x50...0x6F as ClosedRange<UInt8>),
        [0x19, 0x20, 28, 0x40, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x34, 0x12] + Array(0x70...0x7F as ClosedRange<UInt8>),
        // LE Set Extended Scan Parameters and LE Extended Create Connection on LE 1M and LE Coded.
        [0x41, 0x20, 13, 0x01, 0x00, 0x05, 0x01, 0x12, 0x00, 0x12, 0x00, 0x00, 0x60, 0x00, 0x30, 0x00],
        [0x43, 0x20, 42, 0x00, 0x01, 0x01, 1, 2, 3, 4, 5, 6, 0x05]
            + [0x60, 0x00, 0x30, 0x00, 0x09, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00]
            + [0x20, 0x01, 0x90, 0x00, 0x18, 0x00, 0x30, 0x00, 0x04, 0x00, 0xC8, 0x00, 0x02, 0x00, 0x04, 0x00],
    ]

    @Test(arguments: commands)
    func writesCommandsAsFieldPrinterDoes(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            let parameters = try HCICommandParameters.decode(raw)
            var buffer = LineBuffer()
            let taken = DecodeVerboseFormatter.command(parameters, to: &buffer)
            #expect(taken, "command takes \(parameters.opcode)")
            expectSame(buffer, FieldPrinter.lines(parameters, label: "HCI command"))
        }
    }

    /// What the formatter wrote into `buffer`, against `reference`'s lines.
    private func expectSame(_ buffer: borrowing LineBuffer, _ reference: [String]) {
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == reference.map { $0 + "\n" }.joined())
    }
}
