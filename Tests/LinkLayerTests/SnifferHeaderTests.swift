import LinkLayer
import TestSupport
import Testing
import Wire

/// An nRF Sniffer record of header version `version` around `air` (a link-layer packet).
func nordicRecord(
    version: UInt8, flags: UInt8, channel: UInt8 = 37, rssi: UInt8 = 60, eventCounter: UInt16 = 0, time: UInt32 = 0,
    packetID: UInt8 = 0x06, air: [UInt8]
) -> [UInt8] {
    let event =
        [10, flags, channel, rssi, UInt8(eventCounter & 0xFF), UInt8(eventCounter >> 8)]
        + (0..<4).map { UInt8(truncatingIfNeeded: time >> (8 * UInt32($0))) } + air
    switch version {
    case 0:
        // Legacy: marker, packet ID, counter, 2 unused, payload length, then no length byte.
        let legacyEvent = Array(event.dropFirst())
        return [0xBE, 0xEF, packetID, 0x07, 0x00, 0, 0, UInt8(legacyEvent.count)] + legacyEvent
    case 1:
        return [0x03, 6, UInt8(event.count), 1, 0x07, 0x00, packetID] + event
    default:
        return [0x03, UInt8(event.count & 0xFF), UInt8(event.count >> 8), version, 0x07, 0x00, packetID] + event
    }
}

@Suite struct SnifferHeaderTests {
    static let advInd = airPacket(packet("40 06", "16 23 42 82 43 7d"))

    @Test(arguments: [UInt8(0), 1, 2, 3])
    func readsEveryNordicHeaderVersion(_ version: UInt8) throws {
        let record = nordicRecord(
            version: version, flags: 0x11, channel: 38, rssi: 67, eventCounter: 0x0102, time: 0xA0B0C0D0,
            packetID: version >= 3 ? 0x02 : 0x06, air: Self.advInd)
        let split = try withBytes(record) { try SnifferHeader.decode($0, linkType: 272) }
        guard case .nordic(let header) = split.header else {
            Issue.record("no nRF header")
            return
        }
        #expect(header.protocolVersion == version)
        #expect(header.boardID == (version == 0 ? nil : 3))
        #expect(header.packetCounter == 7)
        #expect(
            header.channel == 38 && header.rssi == -67 && header.eventCounter == 0x0102 && header.time == 0xA0B0C0D0)
        #expect(header.crcOK && header.phy == .le2M)
        #expect(!header.isData && header.direction == nil)
        #expect(split.packetOffset == record.count - Self.advInd.count)
        #expect(split.header?.saysAdvertising == (version >= 3 ? true : nil))
    }

    @Test func readsTheDataFlagsOfAnNRFHeader() throws {
        let air = airPacket(accessAddress: 0x5065_4A27, packet("0e 00"))
        // CRC ok, central to peripheral, encrypted, MIC bad, LE Coded.
        let record = nordicRecord(version: 3, flags: 0x27, air: air)
        let split = try withBytes(record) { try SnifferHeader.decode($0, linkType: 272) }
        guard case .nordic(let header) = split.header else { return }
        #expect(header.isData && header.direction == .centralToPeripheral)
        #expect(header.encrypted && header.micOK == false && header.phy == .leCoded)
        let back = nordicRecord(version: 3, flags: 0x09, air: air)
        let other = try withBytes(back) { try SnifferHeader.decode($0, linkType: 272) }
        #expect(other.header?.direction == .peripheralToCentral)
    }

    @Test func readsTheLERFHeader() throws {
        let record =
            packet(
                "0c",  // RF channel 12: advertising channel 38
                "c4",  // signal -60 dBm
                "a5",  // noise -91 dBm
                "02",  // 2 offenses
                "d6 be 89 8e",  // reference access address
                "37 0d")  // dewhitened, signal, noise, reference, offenses valid; PDU type 2; CRC checked and valid
            + Self.advInd
        let split = try withBytes(record) { try SnifferHeader.decode($0, linkType: 256) }
        guard case .rf(let header) = split.header else {
            Issue.record("no LE RF header")
            return
        }
        #expect(header.channelIndex == 38 && header.signalPower == -60 && header.noisePower == -91)
        #expect(header.accessAddressOffenses == 2 && header.referenceAccessAddress == 0x8E89_BED6)
        #expect(
            header.dewhitened && header.signalPowerValid && header.noisePowerValid && header.referenceAccessAddressValid
        )
        #expect(header.pduType == 2 && header.direction == .centralToPeripheral)
        #expect(header.crcChecked && header.crcValid && !header.micChecked && header.phy == .le1M)
        #expect(split.packetOffset == 10)
    }

    @Test(arguments: [272 as Int32, 256])
    func everyTruncatedPseudoHeaderThrows(_ linkType: Int32) {
        let record =
            linkType == 272
            ? nordicRecord(version: 3, flags: 1, air: Self.advInd)
            : packet("00 00 00 00 d6 be 89 8e 00 00") + Self.advInd
        let header = linkType == 272 ? 17 : 10
        for cut in 0..<header {
            #expect(throws: DecodeError.self, "cut to \(cut)") {
                try withBytes(Array(record[..<cut])) { try SnifferHeader.decode($0, linkType: linkType) }
            }
        }
    }

    @Test func anNRFPayloadLengthBeyondTheRecordIsNamed() {
        var record = nordicRecord(version: 2, flags: 1, air: Self.advInd)
        record[1] &+= 20  // the payload length claims 20 more bytes than the record holds
        do {
            _ = try withBytes(record) { try SnifferHeader.decode($0, linkType: 272) }
            Issue.record("no error")
        } catch let error as DecodeError {
            #expect(error.layer == .snifferHeader)
            #expect(error.offset == 1)
            #expect(error.expected.contains("\(record.count + 20) bytes"))
        } catch {
            Issue.record("not a DecodeError: \(error)")
        }
    }
}
