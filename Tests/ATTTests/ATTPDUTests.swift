import ATT
import TestSupport
import Testing
import Wire

/// ATT PDUs written by hand from Core 6.0, Vol 3, Part F, §3.4, one field a string.
struct PDUCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// The opcode, then each parameter field.
    var fields: [String]
    /// True when the PDU has no variable-length part, so its size is fixed.
    var fixedSize: Bool
    var expected: PDUSummary

    var testDescription: String { name }
    var bytes: [UInt8] { packet(fields) }
    var fieldSizes: [Int] { fields.map { packet($0).count } }
    /// Every field but a variable-length value at the end must be present; of an unknown PDU,
    /// only the opcode.
    var minimumLength: Int {
        if case .unknown = expected { return 1 }
        return fixedSize ? bytes.count : fieldSizes.dropLast().reduce(0, +)
    }

    /// Offset of the first field not wholly within `length` bytes.
    func firstMissingField(within length: Int) -> Int {
        var start = 0
        for size in fieldSizes {
            if start + size > length { return start }
            start += size
        }
        return start
    }
}

enum PDUs {
    static let known: [PDUCase] = [
        PDUCase(
            name: "Error Response",         // §3.4.1.1
            fields: [
                "01",       // opcode: Error Response
                "0a",       // Request Opcode In Error: Read Request
                "2a 00",    // Attribute Handle In Error: 0x002A
                "05",       // Error Code: Insufficient Authentication
            ],
            fixedSize: true,
            expected: .errorResponse(requestOpcode: 0x0A, handle: 0x002A, error: 0x05)),
        PDUCase(
            name: "Exchange MTU Request",   // §3.4.2.1
            fields: [
                "02",       // opcode: Exchange MTU Request
                "05 02",    // Client Rx MTU: 517
            ],
            fixedSize: true,
            expected: .exchangeMTURequest(clientMTU: 517)),
        PDUCase(
            name: "Exchange MTU Response",  // §3.4.2.2
            fields: [
                "03",       // opcode: Exchange MTU Response
                "f7 00",    // Server Rx MTU: 247
            ],
            fixedSize: true,
            expected: .exchangeMTUResponse(serverMTU: 247)),
        PDUCase(
            name: "Read Request",           // §3.4.4.3
            fields: [
                "0a",       // opcode: Read Request
                "03 00",    // Attribute Handle: 0x0003
            ],
            fixedSize: true,
            expected: .readRequest(handle: 0x0003)),
        PDUCase(
            name: "Read Response",          // §3.4.4.4
            fields: [
                "0b",                   // opcode: Read Response
                "48 65 6c 6c 6f",       // Attribute Value: "Hello"
            ],
            fixedSize: false,
            expected: .readResponse(value: Array("Hello".utf8))),
        PDUCase(
            name: "Read Response (empty value)",
            fields: [
                "0b",       // opcode: Read Response
                "",         // Attribute Value: none
            ],
            fixedSize: false,
            expected: .readResponse(value: [])),
        PDUCase(
            name: "Write Request",          // §3.4.5.1
            fields: [
                "12",       // opcode: Write Request
                "2b 00",    // Attribute Handle: 0x002B (a CCCD)
                "01 00",    // Attribute Value: notifications on
            ],
            fixedSize: false,
            expected: .writeRequest(handle: 0x002B, value: [0x01, 0x00])),
        PDUCase(
            name: "Write Response",         // §3.4.5.2
            fields: [
                "13",       // opcode: Write Response
            ],
            fixedSize: true,
            expected: .writeResponse),
        PDUCase(
            name: "Write Command",          // §3.4.5.3
            fields: [
                "52",           // opcode: Write Command (command flag set)
                "2d 00",        // Attribute Handle: 0x002D
                "de ad be ef",  // Attribute Value
            ],
            fixedSize: false,
            expected: .writeCommand(handle: 0x002D, value: [0xDE, 0xAD, 0xBE, 0xEF])),
        PDUCase(
            name: "Handle Value Notification",  // §3.4.7.1
            fields: [
                "1b",       // opcode: Handle Value Notification
                "2a 00",    // Attribute Handle: 0x002A
                "00 48",    // Attribute Value: heart rate flags 0x00, 72 bpm
            ],
            fixedSize: false,
            expected: .handleValueNotification(handle: 0x002A, value: [0x00, 0x48])),
        PDUCase(
            name: "Handle Value Notification (empty value)",
            fields: [
                "1b",       // opcode: Handle Value Notification
                "2a 00",    // Attribute Handle: 0x002A
                "",         // Attribute Value: none
            ],
            fixedSize: false,
            expected: .handleValueNotification(handle: 0x002A, value: [])),
        PDUCase(
            name: "Handle Value Indication",    // §3.4.7.2
            fields: [
                "1d",       // opcode: Handle Value Indication
                "2f 00",    // Attribute Handle: 0x002F
                "01 02",    // Attribute Value
            ],
            fixedSize: false,
            expected: .handleValueIndication(handle: 0x002F, value: [0x01, 0x02])),
        PDUCase(
            name: "Handle Value Confirmation",  // §3.4.7.3
            fields: [
                "1e",       // opcode: Handle Value Confirmation
            ],
            fixedSize: true,
            expected: .handleValueConfirmation),
    ]

    /// Opcodes without a case of their own: they survive as `.unknown`.
    static let unknown: [PDUCase] = [
        PDUCase(
            name: "Multiple Handle Value Notification (0x23)",  // §3.4.7.4
            fields: [
                "23",       // opcode: Multiple Handle Value Notification
                "2a 00",    // Handle 1: 0x002A
                "02 00",    // Length 1: 2
                "01 02",    // Value 1
                "2d 00",    // Handle 2: 0x002D
                "01 00",    // Length 2: 1
                "ff",       // Value 2
            ],
            fixedSize: false,
            expected: .unknown(
                opcode: 0x23,
                parameters: [0x2A, 0x00, 0x02, 0x00, 0x01, 0x02, 0x2D, 0x00, 0x01, 0x00, 0xFF])),
        PDUCase(
            name: "Prepare Write Request (0x16)",  // §3.4.6.1
            fields: [
                "16",           // opcode: Prepare Write Request
                "2b 00",        // Attribute Handle: 0x002B
                "00 00",        // Value Offset: 0
                "01 02 03",     // Part Attribute Value
            ],
            fixedSize: false,
            expected: .unknown(opcode: 0x16, parameters: [0x2B, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03])),
        PDUCase(
            name: "Signed Write Command (0xD2)",  // §3.4.5.4
            fields: [
                "d2",           // opcode: Signed Write Command (command and signature flags)
                "2d 00",        // Attribute Handle
                "07",           // Attribute Value
                "00 01 02 03 04 05 06 07 08 09 0a 0b",  // Authentication Signature (12 bytes)
            ],
            fixedSize: false,
            expected: .unknown(opcode: 0xD2, parameters: [0x2D, 0x00, 0x07] + Array(0x00...0x0B))),
        PDUCase(
            name: "Find Information Request (0x04)",  // §3.4.3.1
            fields: [
                "04",       // opcode: Find Information Request
                "01 00",    // Starting Handle
                "ff ff",    // Ending Handle
            ],
            fixedSize: false,
            expected: .unknown(opcode: 0x04, parameters: [0x01, 0x00, 0xFF, 0xFF])),
        PDUCase(
            name: "Unassigned opcode 0x9C, no parameters",
            fields: ["9c"],
            fixedSize: false,
            expected: .unknown(opcode: 0x9C, parameters: [])),
    ]

    static let all = known + unknown
}

@Suite struct ATTPDUTests {
    @Test(arguments: PDUs.all)
    func decodesEachField(_ row: PDUCase) throws {
        #expect(try decodePDU(row.bytes) == row.expected)
    }

    @Test(arguments: PDUs.all)
    func reencodesToTheSameBytes(_ row: PDUCase) throws {
        let bytes = row.bytes
        #expect(try reencode(bytes, capacity: bytes.count) == bytes)
        // Room to spare changes nothing.
        #expect(try reencode(bytes, capacity: bytes.count + 8) == bytes)
    }

    @Test(arguments: PDUs.all)
    func opcodeIsTheFirstByte(_ row: PDUCase) throws {
        let opcode = try row.bytes.withUnsafeBytes { raw throws in try ATTPDU.decode(raw).opcode }
        #expect(opcode.rawValue == row.bytes[0])
    }

    @Test(arguments: PDUs.all)
    func everyTruncationPrefixOfTheFixedFieldsThrows(_ row: PDUCase) {
        let bytes = row.bytes
        for count in 0..<row.minimumLength {
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try decodePDU(Array(bytes.prefix(count)))
            }
            #expect(error?.layer == .att)
            #expect(error?.offset == row.firstMissingField(within: count), "prefix of \(count) bytes")
        }
    }

    @Test(arguments: PDUs.known.filter { !$0.fixedSize })
    func shorterValuesStillDecode(_ row: PDUCase) {
        let bytes = row.bytes
        for count in row.minimumLength..<bytes.count {
            #expect(throws: Never.self, "prefix of \(count) bytes") {
                _ = try decodePDU(Array(bytes.prefix(count)))
            }
        }
    }

    @Test(arguments: PDUs.known.filter(\.fixedSize))
    func trailingBytesAfterAFixedSizePDUThrow(_ row: PDUCase) {
        let bytes = row.bytes
        for extra in [[0x00], [0xFF, 0xFF]] as [[UInt8]] {
            let error = #expect(throws: DecodeError.self) { try decodePDU(bytes + extra) }
            #expect(error?.layer == .att)
            #expect(error?.offset == bytes.count)
        }
    }

    @Test(arguments: PDUs.all)
    func encodingIntoATooSmallBufferThrowsOverflow(_ row: PDUCase) {
        let bytes = row.bytes
        let error = #expect(throws: ByteWriter.Overflow.self) {
            _ = try reencode(bytes, capacity: bytes.count - 1)
        }
        #expect(error?.needed == bytes.count)
        #expect(error?.capacity == bytes.count - 1)
    }

    @Test func emptyInputThrowsAtTheOpcode() {
        let error = #expect(throws: DecodeError.self) { try decodePDU([]) }
        #expect(error?.layer == .att)
        #expect(error?.offset == 0)
    }

    @Test func notificationValueIsAViewIntoTheInput() throws {
        let bytes = packet("1b", "2a 00", "00 48")
        try bytes.withUnsafeBytes { raw throws in
            guard case .handleValueNotification(let handle, let value) = try ATTPDU.decode(raw) else {
                Issue.record("not a notification")
                return
            }
            #expect(handle == 0x002A)
            // Opcode and handle come first: the value begins 3 bytes into the input.
            #expect(value.baseAddress == raw.baseAddress! + 3)
            #expect(value.count == 2)
        }
    }

    @Test func unknownParametersAreAViewIntoTheInput() throws {
        let bytes = packet("23", "2a 00", "01 00", "ff")
        try bytes.withUnsafeBytes { raw throws in
            guard case .unknown(let opcode, let parameters) = try ATTPDU.decode(raw) else {
                Issue.record("not unknown")
                return
            }
            #expect(opcode == .multipleHandleValueNotification)
            #expect(parameters.baseAddress == raw.baseAddress! + 1)
        }
    }

    @Test func encodesCasesBuiltByHand() throws {
        #expect(try encode(.exchangeMTURequest(clientMTU: 517), capacity: 3) == packet("02", "05 02"))
        #expect(try encode(.exchangeMTUResponse(serverMTU: 23), capacity: 3) == packet("03", "17 00"))
        #expect(
            try encode(
                .errorResponse(requestOpcode: .writeRequest, handle: 0x0102, error: .writeNotPermitted),
                capacity: 5) == packet("01", "12", "02 01", "03"))
        #expect(try encode(.readRequest(handle: 0xABCD), capacity: 3) == packet("0a", "cd ab"))
        #expect(try encode(.writeResponse, capacity: 1) == packet("13"))
        #expect(try encode(.handleValueConfirmation, capacity: 1) == packet("1e"))
        let value: [UInt8] = [0x01, 0x00]
        let written = try value.withUnsafeBytes { raw throws in
            try encode(.writeRequest(handle: 0x002B, value: raw), capacity: 5)
        }
        #expect(written == packet("12", "2b 00", "01 00"))
    }

    @Test func handleIsTheAttributeThePDUNames() throws {
        func handle(_ fields: String...) throws -> UInt16? {
            try packet(fields).withUnsafeBytes { raw throws in try ATTPDU.decode(raw).handle }
        }
        #expect(try handle("01", "0a", "2a 00", "05") == 0x002A)
        #expect(try handle("0a", "03 00") == 0x0003)
        #expect(try handle("12", "2b 00", "01 00") == 0x002B)
        #expect(try handle("52", "2d 00") == 0x002D)
        #expect(try handle("1b", "2a 00", "01") == 0x002A)
        #expect(try handle("1d", "2f 00") == 0x002F)
        #expect(try handle("02", "05 02") == nil)
        #expect(try handle("0b", "01") == nil)
        #expect(try handle("1e") == nil)
        #expect(try handle("23", "2a 00", "01 00", "ff") == nil)
    }
}
