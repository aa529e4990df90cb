import HCI
import LinkLayer
import TestSupport
import Testing
import Wire

/// Calls `body` with `bytes` in memory that stays allocated for the rest of the test run, so that
/// the views a decoded value holds may be read after the call. (A test's few bytes are never freed.)
func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try body(stable(bytes))
}

func stable(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
    let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
    memory.copyBytes(from: bytes)
    return UnsafeRawBufferPointer(rebasing: memory[..<bytes.count])
}

@Suite struct LLControlPDUTests {
    @Test func decodesAConnectionUpdateWithEveryField() throws {
        let bytes = packet(
            "00",  // LL_CONNECTION_UPDATE_IND
            "02",  // WinSize 2 (2.5 ms)
            "05 00",  // WinOffset 5
            "18 00",  // Interval 24 (30 ms)
            "04 00",  // Latency 4
            "c8 00",  // Timeout 200 (2 s)
            "34 12")  // Instant 0x1234
        let pdu = try withBytes(bytes) { try LLControlPDU.decode($0) }
        guard case .connectionUpdate(let size, let offset, let interval, let latency, let timeout, let instant) = pdu
        else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(
            [Int(size), Int(offset), Int(interval), Int(latency), Int(timeout), Int(instant)] == [
                2, 5, 24, 4, 200, 0x1234,
            ])
        #expect(pdu.opcode == .connectionUpdateInd)
        #expect(pdu.opcode.name == "LL_CONNECTION_UPDATE_IND")
    }

    @Test func decodesATerminateWithItsReason() throws {
        let pdu = try withBytes(packet("02", "13")) { try LLControlPDU.decode($0) }
        guard case .terminate(let reason) = pdu else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(reason == .remoteUserTerminatedConnection)
        #expect(pdu.errorCode?.rawValue == 0x13)
    }

    @Test func decodesAChannelMapOfThirtySevenBits() throws {
        let pdu = try withBytes(packet("01", "ff 00 ff 00 1f", "0a 00")) { try LLControlPDU.decode($0) }
        guard case .channelMap(let map, let instant) = pdu else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(map == 0x1F_00FF_00FF)
        #expect(map.nonzeroBitCount == 21)
        #expect(instant == 10)
    }

    @Test func decodesVersionLengthAndPHYUpdate() throws {
        let version = try withBytes(packet("0c", "0d", "59 00", "34 12")) { try LLControlPDU.decode($0) }
        guard case .version(let number, let company, let subversion) = version else {
            Issue.record("decoded as \(version)")
            return
        }
        #expect((number, company, subversion) == (0x0D, 0x0059, 0x1234))
        let length = try withBytes(packet("14", "fb 00", "48 08", "1b 00", "48 01")) { try LLControlPDU.decode($0) }
        guard case .lengthRequest(let rxOctets, let rxTime, let txOctets, let txTime) = length else {
            Issue.record("decoded as \(length)")
            return
        }
        #expect((rxOctets, rxTime, txOctets, txTime) == (251, 2120, 27, 328))
        let phy = try withBytes(packet("18", "02", "01", "20 00")) { try LLControlPDU.decode($0) }
        guard case .phyUpdate(let toPeripheral, let toCentral, let instant) = phy else {
            Issue.record("decoded as \(phy)")
            return
        }
        #expect((toPeripheral, toCentral, instant) == (2, 1, 32))
    }

    @Test func decodesACISRequestWithItsPackedFields() throws {
        let bytes = packet(
            "1f", "01", "02",  // CIG 1, CIS 2
            "02", "01",  // PHYs
            "64 80",  // Max SDU C->P 100, framed
            "50 00",  // Max SDU P->C 80
            "10 27 00", "10 27 00",  // SDU intervals 10,000 µs
            "64 00", "50 00",  // Max PDU
            "03",  // NSE
            "e8 03 00",  // Sub interval 1000 µs
            "21",  // BN C->P 1, P->C 2
            "04", "05",  // FT
            "08 00",  // ISO interval
            "00 01 00", "00 02 00",  // CIS offsets
            "07 00")  // connEventCount
        let pdu = try withBytes(bytes) { try LLControlPDU.decode($0) }
        guard case .cisRequest(let request) = pdu else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(request.cigID == 1 && request.cisID == 2)
        #expect(request.maxSDUCentralToPeripheral == 100 && request.framed)
        #expect(request.burstNumberCentralToPeripheral == 1 && request.burstNumberPeripheralToCentral == 2)
        #expect(request.sduIntervalCentralToPeripheral == 10_000 && request.subInterval == 1000)
        #expect(request.offsetMin == 0x100 && request.offsetMax == 0x200 && request.eventCount == 7)
    }

    /// Every assigned opcode: parameters of its length decode, and every shorter prefix throws a
    /// ``DecodeError`` naming the link layer.
    @Test(arguments: 0..<0x2A)
    func everyOpcodeDecodesAndEveryTruncationThrows(_ opcode: Int) throws {
        let code = LLControlOpcode(rawValue: UInt8(opcode))
        let length = try #require(code.parameterLength)
        let bytes = [UInt8(opcode)] + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
        let pdu = try withBytes(bytes) { try LLControlPDU.decode($0) }
        #expect(pdu.opcode == code)
        #expect(code.name?.hasPrefix("LL_") == true)
        for cut in 0..<bytes.count {
            #expect(throws: DecodeError.self, "\(code) cut to \(cut) bytes") {
                try withBytes(Array(bytes[..<cut])) { try LLControlPDU.decode($0) }
            }
        }
    }

    @Test func anUnassignedOpcodeSurvivesWithItsBytes() throws {
        let pdu = try withBytes(packet("7f", "01 02 03")) { try LLControlPDU.decode($0) }
        guard case .unknown(let opcode, let parameters) = pdu else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(opcode.rawValue == 0x7F)
        #expect(Array(parameters) == [1, 2, 3])
        #expect("\(opcode)" == "LLControlOpcode(0x7f)")
    }
}
