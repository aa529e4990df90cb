import ATT
import TestSupport
import Testing
import Wire

/// The lists and values inside decoded PDUs are lazy views into the input: the right entries,
/// the right count, and the very bytes of the input (no copy).
@Suite struct ATTListTests {
    /// Decodes the table's PDU `name` and hands its bytes and the PDU to `body`.
    func decoded(_ name: String, _ body: (UnsafeRawBufferPointer, ATTPDU) throws -> Void) throws {
        try PDUs.named(name).bytes.withUnsafeBytes { raw throws in try body(raw, try ATTPDU.decode(raw)) }
    }

    func unexpected(_ pdu: ATTPDU, sourceLocation: SourceLocation = #_sourceLocation) {
        Issue.record("unexpected \(pdu.opcode)", sourceLocation: sourceLocation)
    }

    @Test func informationListWith16BitUUIDs() throws {
        try decoded("Find Information Response (format 1, 16-bit UUIDs)") { raw, pdu in
            guard case .findInformationResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.format == 1)
            #expect(list.count == 2)
            #expect(list.entries.entryLength == 4)
            #expect(list.entries.bytes.baseAddress == raw.baseAddress! + 2)
            #expect(list.entries.bytes.count == 8)
            #expect(list.map { $0.handle } == [0x0012, 0x0013])
            #expect(list.map { $0.type } == [BluetoothUUID(UInt16(0x2A37)), BluetoothUUID(UInt16(0x2902))])
            #expect(list[1].handle == 0x0013)
            for (index, entry) in list.entries.enumerated() {
                #expect(entry.baseAddress == raw.baseAddress! + 2 + 4 * index)
                #expect(entry.count == 4)
            }
        }
    }

    @Test func informationListWithA128BitUUID() throws {
        try decoded("Find Information Response (format 2, a 128-bit UUID)") { raw, pdu in
            guard case .findInformationResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.format == 2)
            #expect(list.count == 1)
            #expect(list.entries.entryLength == 18)
            #expect(list.entries[0].baseAddress == raw.baseAddress! + 2)
            #expect(list[0].handle == 0x0018)
            #expect(list[0].type == nordicUART(2))
            #expect(list[0].type.description == "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
        }
    }

    @Test func handleRangeList() throws {
        try decoded("Find By Type Value Response (2 ranges)") { raw, pdu in
            guard case .findByTypeValueResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.count == 2)
            #expect(list.entries.bytes.baseAddress == raw.baseAddress! + 1)
            #expect(list.map { $0.found } == [0x001C, 0x0020])
            #expect(list.map { $0.groupEnd } == [0x001F, 0xFFFF])
            #expect(list.last?.found == 0x0020)
        }
    }

    @Test func handleValueListOfSixDeclarations() throws {
        try decoded("Read By Type Response (6 characteristic declarations, ATT_MTU 247)") { raw, pdu in
            guard case .readByTypeResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.count == 6)
            #expect(list.indices == 0..<6)
            #expect(Array(list).count == 6)
            #expect(list.entries.entryLength == 7)
            #expect(list.entries.bytes.baseAddress == raw.baseAddress! + 2)
            #expect(list.map { $0.handle } == [0x0002, 0x0004, 0x0006, 0x0009, 0x000C, 0x000E])
            for (index, pair) in list.enumerated() {
                // Opcode, Length, then 7 bytes a pair; the value follows the pair's handle.
                #expect(pair.value.baseAddress == raw.baseAddress! + 2 + 7 * index + 2, "pair \(index)")
                #expect(pair.value.count == 5, "pair \(index)")
            }
            #expect(Array(list[3].value) == declaration(properties: 0x20, valueHandle: 0x000A, uuid: 0x2A05))
            #expect(list.reversed().first?.handle == 0x000E)
        }
    }

    @Test func groupListOfThreeServices() throws {
        try decoded("Read By Group Type Response (3 services, 16-bit UUIDs)") { raw, pdu in
            guard case .readByGroupTypeResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.count == 3)
            #expect(list.entries.entryLength == 6)
            #expect(list.map { $0.handle } == [0x0001, 0x0008, 0x0010])
            #expect(list.map { $0.groupEnd } == [0x0007, 0x000F, 0x0015])
            for (index, group) in list.enumerated() {
                #expect(group.value.baseAddress == raw.baseAddress! + 2 + 6 * index + 4, "group \(index)")
                #expect(BluetoothUUID(littleEndian: group.value) == BluetoothUUID(UInt16(0x1800 + [0, 1, 0xD][index])))
            }
        }
    }

    @Test func groupListWithA128BitUUID() throws {
        try decoded("Read By Group Type Response (a 128-bit UUID)") { raw, pdu in
            guard case .readByGroupTypeResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.count == 1)
            #expect(list[0].handle == 0x0016)
            #expect(list[0].groupEnd == 0x001B)
            #expect(list[0].value.baseAddress == raw.baseAddress! + 6)
            #expect(list[0].value.count == 16)
            #expect(BluetoothUUID(littleEndian: list[0].value) == nordicUART(1))
        }
    }

    @Test(arguments: ["Read Multiple Request (3 handles)", "Read Multiple Variable Request (3 handles)"])
    func handleList(_ name: String) throws {
        try decoded(name) { raw, pdu in
            let list: ATTHandleList
            switch pdu {
            case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles): list = handles
            default: return unexpected(pdu)
            }
            #expect(list.count == 3)
            #expect(list.entries.bytes.baseAddress == raw.baseAddress! + 1)
            #expect(list.entries.bytes.count == 6)
            #expect(list[0] == 0x0005)
            #expect(list[2] == 0x0003)
        }
    }

    @Test func lengthPrefixedListWithTheLastValueCutShort() throws {
        try decoded("Read Multiple Variable Response (the last value cut short by the MTU)") { raw, pdu in
            guard case .readMultipleVariableResponse(let list) = pdu else { return unexpected(pdu) }
            #expect(list.bytes.baseAddress == raw.baseAddress! + 1)
            #expect(list.bytes.count == 22)
            let entries = Array(list)
            #expect(entries.count == 3)
            #expect(entries.allSatisfy { $0.handle == nil })
            // Values at 3 (after opcode, length), 7 and 14; the last has 9 of its 29 bytes.
            #expect(entries.map { $0.value.baseAddress } == [3, 7, 14].map { raw.baseAddress! + $0 })
            #expect(entries.map { $0.value.count } == [2, 5, 9])
            #expect(String(decoding: entries[2].value, as: UTF8.self) == "bletrace ")
            // A sequence that can be walked again, with the same result.
            #expect(list.reduce(0) { count, _ in count + 1 } == 3)
            #expect(list.map { $0.value.baseAddress } == entries.map { $0.value.baseAddress })
        }
    }

    @Test func lengthPrefixedListWithHandles() throws {
        try decoded("Multiple Handle Value Notification (3 tuples, one value empty)") { raw, pdu in
            guard case .multipleHandleValueNotification(let list) = pdu else { return unexpected(pdu) }
            let entries = Array(list)
            #expect(entries.count == 3)
            #expect(entries.map { $0.handle } == [0x0012, 0x001A, 0x0015])
            // Tuples at 1, 7 and 11; each value 4 bytes in.
            #expect(entries.map { $0.value.baseAddress } == [5, 11, 15].map { raw.baseAddress! + $0 })
            #expect(entries.map { $0.value.count } == [2, 0, 1])
        }
    }

    @Test func listsReadTheInputWhenWalkedNotWhenDecoded() throws {
        let bytes = PDUs.named("Read By Type Response (6 characteristic declarations, ATT_MTU 247)").bytes
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        guard case .readByTypeResponse(let list) = try ATTPDU.decode(UnsafeRawBufferPointer(buffer)) else {
            Issue.record("not a Read By Type Response")
            return
        }
        #expect(list[5].handle == 0x000E)
        // Change the last pair's handle in the input: the list shows it, so it holds no copy.
        buffer[2 + 7 * 5] = 0x42
        #expect(list[5].handle == 0x0042)
        #expect(list[5].value.baseAddress == UnsafeRawPointer(buffer.baseAddress! + 2 + 7 * 5 + 2))
    }

    @Test func tupleListsReadTheInputWhenWalked() throws {
        let bytes = PDUs.named("Multiple Handle Value Notification (2 tuples)").bytes
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        guard case .multipleHandleValueNotification(let list) = try ATTPDU.decode(UnsafeRawBufferPointer(buffer)) else {
            Issue.record("not a Multiple Handle Value Notification")
            return
        }
        buffer[6] = 0x50  // tuple 1's value, second byte: 80 bpm
        #expect(list.map { Array($0.value) } == [[0x00, 0x50], Array("hello".utf8)])
    }

    @Test func valuesAreViewsIntoTheInput() throws {
        try decoded("Find By Type Value Request") { raw, pdu in
            guard case .findByTypeValueRequest(_, _, _, let value) = pdu else { return unexpected(pdu) }
            #expect(value.baseAddress == raw.baseAddress! + 7)
            #expect(value.count == 2)
        }
        try decoded("Read By Type Request (128-bit type)") { raw, pdu in
            guard case .readByTypeRequest(_, _, let type) = pdu else { return unexpected(pdu) }
            #expect(type.bytes.baseAddress == raw.baseAddress! + 5)
            #expect(type.bytes.count == 16)
            #expect(type.uuid == nordicUART(3))
        }
        try decoded("Read By Group Type Request (a 16-bit type in its 128-bit form)") { raw, pdu in
            guard case .readByGroupTypeRequest(_, _, let type) = pdu else { return unexpected(pdu) }
            // Kept as sent, 16 bytes, though it means the 16-bit UUID 0x2800.
            #expect(type.bytes.count == 16)
            #expect(type.uuid == BluetoothUUID(UInt16(0x2800)))
            #expect(type.uuid.shortValue == 0x2800)
        }
        try decoded("Read Blob Response") { raw, pdu in
            guard case .readBlobResponse(let value) = pdu else { return unexpected(pdu) }
            #expect(value.baseAddress == raw.baseAddress! + 1)
            #expect(value.count == 7)
        }
        try decoded("Read Multiple Response (the last value cut at ATT_MTU-1)") { raw, pdu in
            guard case .readMultipleResponse(let values) = pdu else { return unexpected(pdu) }
            #expect(values.baseAddress == raw.baseAddress! + 1)
            #expect(values.count == 22)
        }
        try decoded("Signed Write Command (the spec's example)") { raw, pdu in
            guard case .signedWriteCommand(_, let value, let signature) = pdu else { return unexpected(pdu) }
            #expect(value.baseAddress == raw.baseAddress! + 3)
            #expect(value.count == 2)
            // The signature is the last 12 bytes of the PDU.
            #expect(signature.baseAddress == raw.baseAddress! + 5)
            #expect(signature.count == 12)
            #expect(signature.baseAddress! + 12 == raw.baseAddress! + raw.count)
        }
        for name in ["Prepare Write Request", "Prepare Write Response"] {
            try decoded(name) { raw, pdu in
                switch pdu {
                case .prepareWriteRequest(_, _, let value), .prepareWriteResponse(_, _, let value):
                    #expect(value.baseAddress == raw.baseAddress! + 5)
                    #expect(value.count == 4)
                default: unexpected(pdu)
                }
            }
        }
    }
}
