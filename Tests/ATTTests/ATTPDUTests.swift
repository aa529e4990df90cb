import ATT
import TestSupport
import Testing
import Wire

/// Every PDU of Core 6.0, Vol 3, Part F, §3.4, from the hand-written table in PDUTable.swift.
@Suite struct ATTPDUTests {
    @Test func theTableHasEveryAssignedOpcode() {
        let inTable = Set(PDUs.known.map(\.opcode))
        let assigned = Set((0...255).map(UInt8.init).filter { ATTOpcode(rawValue: $0).name != nil })
        #expect(inTable == assigned)
        #expect(assigned.count == 31)
        for row in PDUs.unknown {
            #expect(ATTOpcode(rawValue: row.opcode).name == nil, "\(row.name)")
        }
    }

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
        #expect(opcode.rawValue == row.opcode)
    }

    @Test(arguments: PDUs.unknown)
    func unassignedOpcodesDecodeToUnknown(_ row: PDUCase) throws {
        guard case .unknown(let opcode, let parameters) = try decodePDU(row.bytes) else {
            Issue.record("not .unknown")
            return
        }
        #expect(opcode == row.opcode)
        #expect(parameters == Array(row.bytes.dropFirst()))
    }

    @Test(arguments: PDUs.all)
    func truncationPrefixesThrowWhereTheLayoutNeedsMoreBytes(_ row: PDUCase) {
        let bytes = row.bytes
        for count in 0..<bytes.count {
            guard case .throwsAt(let offset) = row.outcome(ofPrefix: count) else { continue }
            let error = decodeError(Array(bytes.prefix(count)), "prefix of \(count) bytes")
            #expect(error?.layer == .att, "prefix of \(count) bytes")
            #expect(error?.offset == offset, "prefix of \(count) bytes")
        }
    }

    @Test(arguments: PDUs.all)
    func truncationPrefixesEndingInAVariableTailDecodeToAShorterPDU(_ row: PDUCase) throws {
        let bytes = row.bytes
        for count in 0..<bytes.count where row.outcome(ofPrefix: count) == .decodes {
            let prefix = Array(bytes.prefix(count))
            #expect(throws: Never.self, "prefix of \(count) bytes") {
                #expect(try reencode(prefix, capacity: count) == prefix, "prefix of \(count) bytes")
                let opcode = try prefix.withUnsafeBytes { raw throws in try ATTPDU.decode(raw).opcode }
                #expect(opcode.rawValue == row.opcode)
            }
        }
    }

    /// The field kinds of the table, spelled out for the PDUs whose prefixes are least obvious:
    /// each range of prefix lengths, and the offset its error must point at (nil: it decodes).
    @Test(
        arguments: [
            (
                "Read By Type Request (128-bit type)",
                [
                    (0...0, 0),  // no opcode
                    (1...2, 1),  // Starting Handle
                    (3...4, 3),  // Ending Handle
                    (5...6, 5),  // no type, or 1 byte of one
                    (7...7, nil),  // 2 bytes: a 16-bit type
                    (8...20, 5),  // 3 to 15 bytes: neither a 16-bit nor a 128-bit UUID
                ]
            ),
            (
                "Signed Write Command (the spec's example)",
                [
                    (0...0, 0), (1...2, 1),
                    (3...14, 3),  // fewer than 12 bytes after the handle: no room for the signature
                    (15...16, nil),  // the last 12 bytes are the signature; the value is shorter
                ]
            ),
            (
                "Read Multiple Request (3 handles)",
                [
                    (0...0, 0),
                    (1...2, 1),  // no whole handle
                    (3...4, 3),  // one handle: the second must follow
                    (5...5, nil),  // two handles
                    (6...6, 5),  // half a third handle
                ]
            ),
            (
                "Read By Type Response (6 characteristic declarations, ATT_MTU 247)",
                [
                    (0...0, 0),
                    (1...1, 1),  // Length
                    (2...8, 2),  // no whole pair
                    (9...9, nil), (10...15, 9), (16...16, nil), (17...22, 16), (23...23, nil),
                    (24...29, 23), (30...30, nil), (31...36, 30), (37...37, nil), (38...43, 37),
                ]
            ),
            (
                "Read By Group Type Response (3 services, 16-bit UUIDs)",
                [
                    (0...0, 0), (1...1, 1), (2...7, 2), (8...8, nil), (9...13, 8), (14...14, nil), (15...19, 14),
                ]
            ),
            (
                "Find Information Response (format 2, a 128-bit UUID)",
                [
                    (0...0, 0), (1...1, 1), (2...19, 2),
                ]
            ),
            (
                "Read Multiple Variable Response (the last value cut short by the MTU)",
                [
                    (0...0, 0),
                    (1...4, 1),  // fewer than 4 bytes of tuples
                    (5...5, nil),  // tuple 1 whole
                    (6...6, 5),  // half of tuple 2's Value Length
                    (7...12, nil),  // tuple 2's value cut short, or whole
                    (13...13, 12),  // half of tuple 3's Value Length
                    (14...22, nil),  // tuple 3's value cut shorter still
                ]
            ),
            (
                "Multiple Handle Value Notification (2 tuples)",
                [
                    (0...0, 0),
                    (1...6, 1),  // tuple 1 missing or cut short
                    (7...15, 7),  // tuple 2 missing or cut short
                ]
            ),
            (
                "Multiple Handle Value Notification (3 tuples, one value empty)",
                [
                    (0...0, 0), (1...6, 1), (7...10, 7), (11...11, nil), (12...15, 11),
                ]
            ),
        ] as [(String, [(ClosedRange<Int>, Int?)])])
    func prefixOutcomesSpelledOut(_ name: String, _ ranges: [(ClosedRange<Int>, Int?)]) {
        let row = PDUs.named(name)
        let covered = ranges.flatMap { Array($0.0) }
        #expect(covered == Array(0..<row.bytes.count), "every prefix, once, in order")
        for (lengths, offset) in ranges {
            for length in lengths {
                let expected: PrefixOutcome = offset.map { .throwsAt($0) } ?? .decodes
                #expect(row.outcome(ofPrefix: length) == expected, "prefix of \(length) bytes")
                let prefix = Array(row.bytes.prefix(length))
                if let offset {
                    #expect(decodeError(prefix, "prefix of \(length) bytes")?.offset == offset)
                } else {
                    #expect(throws: Never.self, "prefix of \(length) bytes") { _ = try decodePDU(prefix) }
                }
            }
        }
    }

    /// One byte more is never a whole field or list entry (the smallest entry, a handle, is 2).
    @Test(arguments: PDUs.known.filter(\.endsInWholeFields))
    func aTrailingByteThrowsWhereItBegins(_ row: PDUCase) {
        let bytes = row.bytes
        let error = decodeError(bytes + [0x00])
        #expect(error?.layer == .att)
        #expect(error?.offset == bytes.count)
    }

    /// Nor are two more bytes, after a fixed-size PDU or a list of entries longer than 2 bytes.
    @Test(arguments: PDUs.known.filter(\.allFieldsRequired))
    func twoTrailingBytesThrowWhereTheyBegin(_ row: PDUCase) {
        let bytes = row.bytes
        let error = decodeError(bytes + [0xFF, 0xFF])
        #expect(error?.layer == .att)
        #expect(error?.offset == bytes.count)
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
        let error = decodeError([])
        #expect(error?.layer == .att)
        #expect(error?.offset == 0)
    }

    @Test func everyOpcodeWithoutANameDecodesToUnknownAndEveryOtherDoesNot() throws {
        for raw in UInt8.min...UInt8.max {
            let opcode = ATTOpcode(rawValue: raw)
            // Enough zero bytes for every fixed layout; an assigned opcode may still reject them.
            let bytes = [raw] + [UInt8](repeating: 0, count: 8)
            let pdu = try? decodePDU(bytes)
            if opcode.name == nil {
                #expect(pdu == .unknown(opcode: raw, parameters: [UInt8](repeating: 0, count: 8)), "\(opcode)")
                #expect(try reencode(bytes, capacity: bytes.count) == bytes, "\(opcode)")
            } else if case .unknown = pdu {
                Issue.record("\(opcode) decoded as unknown")
            }
        }
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
        let bytes = packet("22", "2a 00", "01 00", "ff")
        try bytes.withUnsafeBytes { raw throws in
            guard case .unknown(let opcode, let parameters) = try ATTPDU.decode(raw) else {
                Issue.record("not unknown")
                return
            }
            #expect(opcode == ATTOpcode(rawValue: 0x22))
            #expect(parameters.baseAddress == raw.baseAddress! + 1)
            #expect(parameters.count == 5)
        }
    }

    @Test func encodesCasesBuiltByHand() throws {
        #expect(try encode(.exchangeMTURequest(clientMTU: 517), capacity: 3) == packet("02", "05 02"))
        #expect(try encode(.exchangeMTUResponse(serverMTU: 23), capacity: 3) == packet("03", "17 00"))
        #expect(
            try encode(
                .errorResponse(requestOpcode: .writeRequest, handle: 0x0102, error: .writeNotPermitted),
                capacity: 5) == packet("01", "12", "02 01", "03"))
        #expect(
            try encode(.findInformationRequest(start: 0x0001, end: 0xFFFF), capacity: 5)
                == packet("04", "01 00", "ff ff"))
        #expect(try encode(.readRequest(handle: 0xABCD), capacity: 3) == packet("0a", "cd ab"))
        #expect(
            try encode(.readBlobRequest(handle: 0x0003, offset: 0x0116), capacity: 5) == packet("0c", "03 00", "16 01"))
        #expect(try encode(.writeResponse, capacity: 1) == packet("13"))
        #expect(try encode(.executeWriteRequest(flags: 0x01), capacity: 2) == packet("18", "01"))
        #expect(try encode(.executeWriteResponse, capacity: 1) == packet("19"))
        #expect(try encode(.handleValueConfirmation, capacity: 1) == packet("1e"))
        let value: [UInt8] = [0x01, 0x00]
        let signature = [UInt8](0x00...0x0B)
        try value.withUnsafeBytes { value throws in
            #expect(
                try encode(.writeRequest(handle: 0x002B, value: value), capacity: 5) == packet("12", "2b 00", "01 00"))
            #expect(
                try encode(.prepareWriteRequest(handle: 0x002B, offset: 0x0102, value: value), capacity: 7)
                    == packet("16", "2b 00", "02 01", "01 00"))
            #expect(
                try encode(.findByTypeValueRequest(start: 0x0001, end: 0xFFFF, type: 0x2800, value: value), capacity: 9)
                    == packet("06", "01 00", "ff ff", "00 28", "01 00"))
            try signature.withUnsafeBytes { signature throws in
                #expect(
                    try encode(.signedWriteCommand(handle: 0x0012, value: value, signature: signature), capacity: 17)
                        == packet("d2", "12 00", "01 00", "00 01 02 03 04 05 06 07 08 09 0a 0b"))
            }
        }
    }

    @Test func handleIsTheAttributeThePDUNames() throws {
        func handle(_ fields: String...) throws -> UInt16? {
            try packet(fields).withUnsafeBytes { raw throws in try ATTPDU.decode(raw).handle }
        }
        #expect(try handle("01", "0a", "2a 00", "05") == 0x002A)
        #expect(try handle("04", "12 00", "13 00") == 0x0012)
        #expect(try handle("06", "01 00", "ff ff", "00 28", "0f 18") == 0x0001)
        #expect(try handle("08", "16 00", "ff ff", "03 28") == 0x0016)
        #expect(try handle("0a", "03 00") == 0x0003)
        #expect(try handle("0c", "03 00", "16 00") == 0x0003)
        #expect(try handle("10", "01 00", "ff ff", "00 28") == 0x0001)
        #expect(try handle("12", "2b 00", "01 00") == 0x002B)
        #expect(try handle("52", "2d 00") == 0x002D)
        #expect(try handle("d2", "12 00", "13 37", "01 00 00 00 f1 87 1e 93 3c 90 0f f2") == 0x0012)
        #expect(try handle("16", "18 00", "12 00", "61") == 0x0018)
        #expect(try handle("17", "18 00", "12 00") == 0x0018)
        #expect(try handle("1b", "2a 00", "01") == 0x002A)
        #expect(try handle("1d", "2f 00") == 0x002F)
        // Responses with lists, and PDUs without a handle.
        #expect(try handle("02", "05 02") == nil)
        #expect(try handle("0b", "01") == nil)
        #expect(try handle("0e", "05 00", "15 00") == nil)
        #expect(try handle("18", "01") == nil)
        #expect(try handle("1e") == nil)
        #expect(try handle("23", "2a 00", "01 00", "ff", "2d 00", "00 00") == nil)
        #expect(try handle("22", "2a 00") == nil)
    }
}

/// Malformed PDUs that are not truncations: a field out of range, or a list of the wrong size.
@Suite struct ATTPDUValidationTests {
    @Test(arguments: [0x00, 0x03, 0x80, 0xFF] as [UInt8])
    func findInformationFormatMustBeOneOrTwo(_ format: UInt8) {
        let error = decodeError(packet("05") + [format] + packet("12 00", "37 2a"))
        #expect(error?.layer == .att)
        #expect(error?.offset == 1)
    }

    @Test func findInformationEntriesMustMatchTheFormat() {
        // Format 2 with a 4-byte entry: not one whole 18-byte entry.
        #expect(decodeError(packet("05", "02", "12 00", "37 2a"))?.offset == 2)
        // Format 1 with an 18-byte entry: four whole 4-byte entries, then 2 bytes left over.
        #expect(
            decodeError(packet("05", "01", "18 00", "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 02 00 40 6e"))?.offset == 18)
    }

    @Test(arguments: [0, 1] as [UInt8])
    func readByTypeResponseLengthBelowTwoThrows(_ length: UInt8) {
        let error = decodeError(packet("09") + [length] + packet("03 00", "05 00"))
        #expect(error?.layer == .att)
        #expect(error?.offset == 1)
    }

    @Test func readByTypeResponseLengthTwoIsHandlesWithEmptyValues() throws {
        #expect(
            try decodePDU(packet("09", "02", "03 00", "05 00"))
                == .readByTypeResponse(length: 2, [.init(3, []), .init(5, [])]))
    }

    @Test(arguments: [0, 1, 2, 3] as [UInt8])
    func readByGroupTypeResponseLengthBelowFourThrows(_ length: UInt8) {
        let error = decodeError(packet("11") + [length] + packet("01 00", "07 00"))
        #expect(error?.layer == .att)
        #expect(error?.offset == 1)
    }

    @Test func readByGroupTypeResponseLengthFourIsGroupsWithEmptyValues() throws {
        #expect(
            try decodePDU(packet("11", "04", "01 00", "07 00"))
                == .readByGroupTypeResponse(length: 4, [.init(1, 7, [])]))
    }

    @Test func aListThatIsNotWholeEntriesThrowsAtTheLeftover() {
        // Read By Type Response, length 7: one pair, then 3 bytes of a second.
        #expect(decodeError(packet("09", "07", "02 00 02 03 00 00 2a", "04 00 02"))?.offset == 9)
        // Read By Group Type Response, length 6: two groups, then 1 byte.
        #expect(decodeError(packet("11", "06", "01 00 07 00 00 18", "08 00 0f 00 01 18", "10"))?.offset == 14)
        // Find By Type Value Response: one range, then 2 bytes.
        #expect(decodeError(packet("07", "20 00 23 00", "24 00"))?.offset == 5)
        // Read Multiple Variable Request: two handles, then 1 byte.
        #expect(decodeError(packet("20", "05 00", "1a 00", "03"))?.offset == 5)
    }

    @Test(arguments: [0x0E, 0x20] as [UInt8])
    func readMultipleRequestsNeedTwoHandles(_ opcode: UInt8) throws {
        #expect(decodeError([opcode])?.offset == 1)
        #expect(decodeError([opcode] + packet("05 00"))?.offset == 3)
        #expect(throws: Never.self) { _ = try decodePDU([opcode] + packet("05 00", "15 00")) }
    }

    @Test(arguments: [0x08, 0x10] as [UInt8])
    func typeUUIDsOtherThan2Or16BytesThrowAtTheType(_ opcode: UInt8) throws {
        for size in [0, 1, 3, 4, 15, 17] {
            let bytes = [opcode] + packet("01 00", "ff ff") + [UInt8](repeating: 0x28, count: size)
            let error = decodeError(bytes, "\(size)-byte type")
            #expect(error?.layer == .att)
            #expect(error?.offset == 5, "\(size)-byte type")
        }
    }

    @Test func readMultipleVariableResponseHasAtLeastFourBytesOfTuples() throws {
        #expect(decodeError(packet("21"))?.offset == 1)
        #expect(decodeError(packet("21", "00 00"))?.offset == 1)
        #expect(decodeError(packet("21", "00 00", "00"))?.offset == 1)
        #expect(decodeError(packet("21", "05 00", "61"))?.offset == 1)
        // Two empty values: the shortest whole response.
        #expect(try decodePDU(packet("21", "00 00", "00 00")) == .readMultipleVariableResponse(values: [[], []]))
        // One value, cut short by the MTU.
        #expect(try decodePDU(packet("21", "05 00", "61 62")) == .readMultipleVariableResponse(values: [[0x61, 0x62]]))
        // A Value Length cut in half: the response is truncated at the start of a tuple, never
        // inside its Value Length (§3.4.4.12).
        #expect(decodeError(packet("21", "01 00", "61", "00"))?.offset == 4)
    }

    @Test func multipleHandleValueNotificationNeedsTwoWholeTuples() throws {
        #expect(decodeError(packet("23"))?.offset == 1)
        // One tuple: the second must follow it.
        #expect(decodeError(packet("23", "12 00 01 00 07"))?.offset == 6)
        // A tuple whose value is shorter than its length says: tuples are never truncated.
        #expect(decodeError(packet("23", "12 00 01 00 07", "1a 00 05 00 68 65"))?.offset == 6)
        // Half a tuple header.
        #expect(decodeError(packet("23", "12 00 01 00 07", "1a 00 05"))?.offset == 6)
        // Two empty values: 8 bytes of tuples, the spec's minimum.
        #expect(
            try decodePDU(packet("23", "12 00 00 00", "1a 00 00 00"))
                == .multipleHandleValueNotification([.init(0x12, []), .init(0x1A, [])]))
    }

    @Test func signatureShorterThanTwelveBytesThrowsAfterTheHandle() throws {
        for count in 0..<12 {
            let error = decodeError(packet("d2", "12 00") + [UInt8](repeating: 0xAA, count: count), "\(count) bytes")
            #expect(error?.layer == .att)
            #expect(error?.offset == 3, "\(count) bytes")
        }
        let signature = [UInt8](repeating: 0xAA, count: 12)
        #expect(
            try decodePDU(packet("d2", "12 00") + signature)
                == .signedWriteCommand(handle: 0x12, value: [], signature: signature))
    }

    @Test func reservedExecuteWriteFlagsSurvive() throws {
        // Only 0x00 and 0x01 are defined (§3.4.6.3); the decoder keeps the byte for the server to reject.
        #expect(try decodePDU(packet("18", "02")) == .executeWriteRequest(flags: 0x02))
        #expect(try reencode(packet("18", "02"), capacity: 2) == packet("18", "02"))
    }
}
