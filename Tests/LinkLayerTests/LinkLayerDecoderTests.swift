import ATT
import HCI
import LinkLayer
import TestSupport
import Testing
import TraceFiles
import Wire

@Suite struct LinkLayerDecoderTests {
    static let accessAddress: UInt32 = 0x1234_5678
    static let crcInit: UInt32 = 0xABCDEF

    /// A CONNECT_IND from 11:…:16 (central) to 21:…:26 (peripheral) for ``accessAddress``.
    static let connectInd = airPacket(
        packet(
            "05 22", "16 15 14 13 12 11", "26 25 24 23 22 21", "78 56 34 12", "ef cd ab", "02 05 00 18 00 00 00 c8 00",
            "ff ff ff ff 1f", "25"))

    /// A data PDU on the connection: LLID, SN, NESN, payload.
    static func data(llid: UInt8, sn: UInt8 = 0, nesn: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
        airPacket(
            accessAddress: accessAddress, [llid | nesn << 2 | sn << 3, UInt8(payload.count)] + payload, crcInit: crcInit
        )
    }

    /// Decodes `records` (bytes, µs) with a 251 decoder.
    static func decodeAll(_ records: [([UInt8], Int64)], linkType: Int32 = 251, body: (Int, LinkLayerRecord) -> Void) {
        var decoder = LinkLayerDecoder(linkType: linkType)
        for (index, (bytes, time)) in records.enumerated() {
            let record = decoder.decode(stable(bytes), time: Timestamp(microseconds: time), index: index)
            body(index, record)
        }
    }

    @Test func reassemblesAnATTPDUAcrossTwoDataPDUsAndNamesTheConnection() {
        // A Write Request of 30 bytes of value: L2CAP length 33, split 27 + 10.
        let att = [0x12, 0x2A, 0x00] + (0..<30).map { UInt8($0) }
        let frame = [UInt8(att.count), 0x00, 0x04, 0x00] + att
        let records: [([UInt8], Int64)] = [
            (Self.connectInd, 0),
            (Self.data(llid: 0b10, Array(frame[..<27])), 10_000),
            (Self.data(llid: 0b01, nesn: 1, []), 10_000 + 380),
            (Self.data(llid: 0b01, sn: 1, nesn: 1, Array(frame[27...])), 40_000),
        ]
        var seen: [Int: LinkLayerRecord] = [:]
        var value: [UInt8]?
        Self.decodeAll(records) { index, record in
            seen[index] = record
            // The reassembled frame lives in the decoder's buffer: read it before the next record.
            if case .writeRequest(let handle, let bytes) = record.att, handle == 0x002A { value = Array(bytes) }
        }
        #expect(seen[0]?.connection?.central == BluetoothAddress("11:12:13:14:15:16"))
        #expect(seen[0]?.connection?.peripheral == BluetoothAddress("21:22:23:24:25:26"))
        #expect(seen[1]?.att == nil && seen[1]?.l2cap == nil && seen[1]?.fault == nil)
        #expect(seen[1]?.crcOK == true)
        #expect(value == (0..<30).map { UInt8($0) }, "fault \(String(describing: seen[3]?.fault))")
        #expect(seen[3]?.connection?.index == 0)
    }

    @Test func infersDirectionFromTimingWhereTheHeaderIsSilent() {
        // Central opens an event; the peripheral answers 150 µs after the central's packet ends
        // (80 µs for an Empty PDU); next event, 30 ms later, the central again.
        let records: [([UInt8], Int64)] = [
            (Self.connectInd, 0), (Self.data(llid: 1, []), 5_000), (Self.data(llid: 1, nesn: 1, []), 5_230),
            (Self.data(llid: 1, sn: 1, nesn: 1, []), 35_000),
        ]
        var directions: [LinkLayerDirection?] = []
        Self.decodeAll(records) { index, record in
            if index > 0 {
                directions.append(record.direction)
                #expect(record.directionSource == .timing)
            }
        }
        #expect(directions == [.centralToPeripheral, .peripheralToCentral, .centralToPeripheral])
    }

    @Test func takesTheDirectionFromTheNRFHeaderWhenItGivesOne() {
        // Both packets 5 ms apart: timing alone would call both the central's.
        let first = nordicRecord(version: 3, flags: 0x01, packetID: 0x06, air: Self.data(llid: 1, []))
        let second = nordicRecord(
            version: 3, flags: 0x03, time: 5000, packetID: 0x06, air: Self.data(llid: 1, sn: 1, []))
        var directions: [LinkLayerDirection?] = []
        Self.decodeAll([(first, 0), (second, 5000)], linkType: 272) { _, record in
            directions.append(record.direction)
            #expect(record.directionSource == .header)
            #expect(record.crcCheckedBySniffer)
        }
        #expect(directions == [.peripheralToCentral, .centralToPeripheral])
    }

    /// The peripheral's client asks while its server's indication awaits the central's
    /// confirmation: the confirmation answers the indication and the response the request
    /// (``ATTTransactions``), whichever comes first.
    @Test func anIndicationAndARequestOfOneSideAreAnsweredApart() {
        let (fromPeripheral, fromCentral): (UInt8, UInt8) = (0x01, 0x03)  // the nRF header's flags
        let pdus: [(flags: UInt8, sn: UInt8, att: [UInt8])] = [
            (fromPeripheral, 0, [0x1D, 0x08, 0x00, 0x01]),  // Handle Value Indication of 0x0008
            (fromPeripheral, 1, [0x0A, 0x03, 0x00]),  // Read Request of 0x0003
            (fromCentral, 0, [0x1E]),  // Handle Value Confirmation
            (fromCentral, 1, [0x0B, 0x41]),  // Read Response
            (fromPeripheral, 0, [0x0A, 0x04, 0x00]),  // Read Request of 0x0004
            (fromPeripheral, 1, [0x1D, 0x09, 0x00, 0x02]),  // Handle Value Indication of 0x0009
            (fromCentral, 0, [0x0B, 0x42]),  // Read Response
            (fromCentral, 1, [0x1E]),  // Handle Value Confirmation
        ]
        let records =
            [(nordicRecord(version: 3, flags: 0x01, air: Self.connectInd), Int64(0))]
            + pdus.enumerated().map { index, pdu in
                let time = Int64(index + 1) * 5_000
                let frame = [UInt8(pdu.att.count), 0x00, 0x04, 0x00] + pdu.att
                let air = Self.data(llid: 0b10, sn: pdu.sn, frame)
                return (nordicRecord(version: 3, flags: pdu.flags, time: UInt32(time), air: air), time)
            }
        var answering: [Int: (opcode: ATTOpcode, handle: UInt16?)] = [:]
        var faults: [DecodeError] = []
        Self.decodeAll(records, linkType: 272) { index, record in
            if let request = record.answering { answering[index] = (request.opcode, request.handle) }
            if let fault = record.fault { faults.append(fault) }
            #expect(index == 0 || record.att != nil, "record \(index) carries no ATT PDU")
        }
        #expect(faults.isEmpty)
        #expect(answering.keys.sorted() == [3, 4, 7, 8])
        #expect(answering[3]?.opcode == .handleValueIndication && answering[3]?.handle == 8)
        #expect(answering[4]?.opcode == .readRequest && answering[4]?.handle == 3)
        #expect(answering[7]?.opcode == .readRequest && answering[7]?.handle == 4)
        #expect(answering[8]?.opcode == .handleValueIndication && answering[8]?.handle == 9)
    }

    @Test func aRetransmissionIsMarkedAndNotReassembledTwice() {
        let att = [UInt8(0x0A), 0x03, 0x00]  // Read Request, handle 3
        let frame = [UInt8(att.count), 0x00, 0x04, 0x00] + att
        let records: [([UInt8], Int64)] = [
            (Self.connectInd, 0), (Self.data(llid: 0b10, frame), 10_000), (Self.data(llid: 0b10, frame), 40_000),
        ]
        var seen: [LinkLayerRecord] = []
        Self.decodeAll(records) { seen.append($1) }
        #expect(seen[1].att != nil && !seen[1].isRetransmission)
        #expect(seen[2].isRetransmission && seen[2].repeats == 1 && seen[2].att == nil)
    }

    @Test func aContinuationWithNoStartIsReportedAsLostFragments() {
        var seen: [LinkLayerRecord] = []
        Self.decodeAll([(Self.connectInd, 0), (Self.data(llid: 0b01, [1, 2, 3]), 10_000)]) { seen.append($1) }
        let lost = seen[1].lostFragments
        #expect(lost?.layer == .linkLayer && lost?.recordIndex == 1)
        #expect(lost?.expected.contains("on connection 0") == true)
    }

    @Test func aBadCRCIsFoundAndChangesNoState() {
        var corrupt = Self.data(llid: 0b10, [3, 0, 4, 0, 0x0A, 0x03, 0x00])
        corrupt[corrupt.count - 1] ^= 0x40
        var seen: [LinkLayerRecord] = []
        Self.decodeAll([(Self.connectInd, 0), (corrupt, 10_000)]) { seen.append($1) }
        #expect(seen[1].crcOK == false && !seen[1].crcCheckedBySniffer)
        #expect(seen[1].att == nil)
        #expect(seen[1].packet != nil)
    }

    @Test func aLengthFieldBeyondTheRecordIsAFaultWithItsOffset() {
        // An nRF v2 record whose LL length byte claims 40 bytes of payload.
        var air = Self.data(llid: 0b10, [1, 2, 3])
        air[5] = 40
        let record = nordicRecord(version: 2, flags: 0x03, air: air)
        var seen: [LinkLayerRecord] = []
        Self.decodeAll([(record, 0)], linkType: 272) { seen.append($1) }
        let fault = seen[0].fault
        #expect(fault?.layer == .linkLayer && fault?.recordIndex == 0)
        #expect(fault?.offset == 17 + 5)  // pseudo-header, access address, header byte
        #expect(fault?.expected.contains("40 bytes of PDU payload") == true)
        #expect(seen[0].packet == nil)
    }

    @Test func decodesAnLLControlPDUOnTheConnection() {
        var seen: [LinkLayerRecord] = []
        Self.decodeAll([(Self.connectInd, 0), (Self.data(llid: 0b11, [0x02, 0x13]), 10_000)]) { seen.append($1) }
        guard case .terminate(let reason) = seen[1].control else {
            Issue.record("no LL_TERMINATE_IND")
            return
        }
        #expect(reason == .remoteUserTerminatedConnection)
    }

    @Test func payloadsAfterLLStartEncReqAreCiphertextNotDecoded() {
        let records: [([UInt8], Int64)] = [
            (Self.connectInd, 0),
            (Self.data(llid: 0b11, [0x05]), 10_000),  // LL_START_ENC_REQ, in the clear
            // looks like a terminate, is not
            (Self.data(llid: 0b11, sn: 1, [0x02, 0x13, 0xAA, 0xBB, 0xCC, 0xDD]), 40_000),
            (Self.data(llid: 0b01, nesn: 1, []), 40_230),  // an Empty PDU is never encrypted
        ]
        var seen: [LinkLayerRecord] = []
        Self.decodeAll(records) { seen.append($1) }
        guard case .startEncryptionRequest = seen[1].control else {
            Issue.record("no LL_START_ENC_REQ")
            return
        }
        #expect(!seen[1].isEncrypted)
        #expect(seen[2].isEncrypted && seen[2].control == nil)
        #expect(!seen[3].isEncrypted)
    }

    @Test func aMissedCentralPacketIsToldFromTheSequenceNumbers() {
        // The central's NESN 0 asks for the peripheral's SN 0, the peripheral's NESN 1 for the
        // central's SN 1. A packet opening the next event with SN 1 is what the peripheral asked
        // for: the central's, as the timing says.
        let records: [([UInt8], Int64)] = [
            (Self.connectInd, 0), (Self.data(llid: 1, []), 10_000), (Self.data(llid: 1, nesn: 1, []), 10_230),
            (Self.data(llid: 1, sn: 1, nesn: 1, []), 40_000),
        ]
        var directions: [LinkLayerDirection?] = []
        Self.decodeAll(records) { index, record in if index > 0 { directions.append(record.direction) } }
        #expect(directions == [.centralToPeripheral, .peripheralToCentral, .centralToPeripheral])
        // Here the central asked for SN 1 and the peripheral for SN 0: a packet with SN 1 opening
        // the next event matches only what the central asked for, so it is the peripheral's (the
        // sniffer missed the central's packet of that event).
        let missed: [([UInt8], Int64)] = [
            (Self.connectInd, 0), (Self.data(llid: 1, nesn: 1, []), 10_000), (Self.data(llid: 1, []), 10_230),
            (Self.data(llid: 1, sn: 1, []), 40_000),
        ]
        var second: [LinkLayerDirection?] = []
        Self.decodeAll(missed) { index, record in if index > 0 { second.append(record.direction) } }
        #expect(second == [.centralToPeripheral, .peripheralToCentral, .peripheralToCentral])
    }

    @Test func connectionsJoinedLateAreBoundedAndThePDUsPastTheLimitStillDecoded() {
        // 70 unknown access addresses, each with an L2CAP start that would hold a buffer.
        let records: [([UInt8], Int64)] =
            (0..<70).map { index in
                let pdu = [UInt8(0b10), 5, 40, 0, 4, 0, 0x0A]
                return (airPacket(accessAddress: 0x1000_0000 + UInt32(index), pdu, crcInit: 0), Int64(index) * 10_000)
            } + [(airPacket(accessAddress: 0x2000_0000, [0b11, 2, 0x02, 0x13], crcInit: 0), 800_000)]
        var seen: [LinkLayerRecord] = []
        var decoder = LinkLayerDecoder(linkType: 251)
        for (index, (bytes, time)) in records.enumerated() {
            seen.append(decoder.decode(stable(bytes), time: Timestamp(microseconds: time), index: index))
        }
        #expect(decoder.knownConnections.count == LinkLayerDecoder.maximumLateConnections)
        #expect(seen[63].connection?.index == 63 && seen[64].connection == nil)
        #expect(seen.allSatisfy { $0.fault == nil && $0.packet != nil })
        guard case .terminate = seen[70].control else {
            Issue.record("the control PDU past the limit was not decoded")
            return
        }
    }

    /// The public Ubertooth capture, against the facts the shared folder's captures/public/SOURCES.md records for it
    /// (counted with tshark): 9 SMP PDUs, 12 Attribute Not Found errors, one connection.
    @Test(.sharedCaptures) func readsThePublicSnifferCapture() throws {
        let reader = try CaptureReader(path: Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng"), linkLayer: true)
        #expect(reader.format.linkLayerType == 256)
        var decoder = LinkLayerDecoder(linkType: 256)
        var (records, advertising, smp, notFound, faults) = (0, 0, 0, 0, 0)
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            records += 1
            if case .advertising = decoded.packet?.pdu { advertising += 1 }
            if decoded.smp != nil { smp += 1 }
            if case .errorResponse(_, _, let error) = decoded.att, error == .attributeNotFound { notFound += 1 }
            if decoded.fault != nil { faults += 1 }
        }
        #expect(records == 303 && advertising == 44)
        #expect(smp == 9 && notFound == 12 && faults == 0)
        #expect(decoder.knownConnections.count == 1)
        #expect(decoder.knownConnections.first?.accessAddress == 0x5065_4A27)
    }

    @Test(.sharedCaptures) func anHCIReaderStillRefusesASnifferCaptureByName() {
        #expect(throws: CaptureError.self) {
            try CaptureReader(path: Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng"))
        }
    }
}
