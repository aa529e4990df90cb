import HCI
import Lifecycle
import LinkLayer
import TestSupport
import Testing
import TraceFiles
import Wire

/// Advertising chains followed through their AuxPtrs (Captures/linklayer/synthetic.py's
/// `chain.pcap`, link type 256, whose header does not say which auxiliary PDU a packet is, and
/// `chain-nordic.pcap`, 272 with the nRF Sniffer's AUX type flags): each PDU named, linked to the
/// one before it and to its head, the data joined on the last PDU, the lost chain found; and the
/// central host's view, LE Extended Advertising Reports with the Data_Status a controller gives.
@Suite struct AdvertisingChainTests {
    static let captures = ["chain.pcap", "chain-nordic.pcap"]

    struct Decoded {
        var name: String?
        var chain: AdvertisingChainLink?
        var joinedName: String?
        var joinedCount: Int?
        var lost: [Int]
        var fault: DecodeError?
    }

    static func decode(_ name: String) throws -> [Decoded] {
        let path = Fixtures.capture("linklayer/synthetic/\(name)")
        let reader = try CaptureReader(path: path, linkLayer: true)
        var decoder = LinkLayerDecoder(linkType: name.contains("nordic") ? 272 : 256)
        var out: [Decoded] = []
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            var item = Decoded(lost: decoded.lostChains.map(\.head), fault: decoded.fault)
            if case .advertising(let pdu)? = decoded.packet?.pdu { item.name = pdu.name }
            item.chain = decoded.chain
            if let data = decoded.chainData, let list = try? data.structures() {
                item.joinedName = list.localName
                item.joinedCount = list.reduce(0) { count, _ in count + 1 }
            }
            out.append(item)
        }
        return out
    }

    @Test(arguments: captures) func chainsAreFollowed(_ name: String) throws {
        let records = try Self.decode(name)
        #expect(records.count == 20)
        let names = records.map { $0.name ?? "" }
        let event = ["ADV_EXT_IND", "AUX_ADV_IND", "AUX_CHAIN_IND", "AUX_CHAIN_IND", "ADV_IND"]
        #expect(Array(names[0..<5]) == event)
        #expect(Array(names[5..<9]) == ["ADV_EXT_IND", "AUX_ADV_IND", "AUX_CHAIN_IND", "ADV_IND"])
        #expect(Array(names[9..<14]) == event)
        #expect(
            Array(names[14...]) == [
                "ADV_EXT_IND", "AUX_ADV_IND", "AUX_SCAN_REQ", "AUX_SCAN_RSP", "AUX_CHAIN_IND", "ADV_IND",
            ])
        // Links: each AUX_CHAIN_IND after the PDU whose AuxPtr announced it, with its head's advertiser.
        let advertiser = BluetoothAddress(rawValue: 0xC0_1122_3344_55)
        #expect(records[1].chain?.previous == 0 && records[1].chain?.part == 0 && records[1].chain?.continues == true)
        #expect(records[2].chain?.previous == 1 && records[2].chain?.head == 1 && records[2].chain?.part == 1)
        #expect(records[3].chain?.previous == 2 && records[3].chain?.head == 1 && records[3].chain?.part == 2)
        #expect(records[3].chain?.continues == false && records[3].chain?.advertiser == advertiser)
        #expect(records[3].chain?.setID == 3 && records[3].chain?.dataID == 0x017 && records[11].chain?.dataID == 0x018)
        // The name straddles the two AUX_CHAIN_INDs: found in the joined data, not in a part.
        #expect(records[3].joinedName == "bletrace chained advertiser" && records[3].joinedCount == 4)
        #expect(records[12].joinedName == "bletrace chained advertiser")
        #expect(records[1].joinedName == nil && records[2].joinedName == nil)
        // Parts cut AD structures: not a fault.
        #expect(records.allSatisfy { $0.fault == nil })
        // The second event's last AUX_CHAIN_IND is missing: the chain is lost once its time has passed.
        #expect(records[7].chain?.continues == true)
        #expect(records[8].lost == [6])
        #expect(records.enumerated().allSatisfy { $0.offset == 8 || $0.element.lost.isEmpty })
        // The scan response: AUX_SCAN_RSP one inter-frame space after the AUX_SCAN_REQ, then its chain.
        #expect(records[17].chain?.headKind == .scanResponse && records[17].chain?.previous == nil)
        #expect(records[18].chain?.head == 17 && records[18].chain?.headKind == .scanResponse)
        #expect(records[18].joinedName == "bletrace scan response that is chained" && records[18].joinedCount == 2)
    }

    /// The central host's HCI: one LE Extended Advertising Report per PDU with data, Data_Status
    /// 1 (more to come) but on a chain's last, 0 (complete) there, 2 (truncated, no data) for the
    /// lost chain; the scan finds both names, which no single report holds whole.
    @Test(arguments: captures) func reportsAreAController(_ name: String) throws {
        let path = Fixtures.capture("linklayer/synthetic/\(name)")
        let reader = try AnalysisReader(path: path)
        var reports: [(address: UInt64, status: UInt8, length: Int, scanResponse: Bool)] = []
        while let record = try reader.next() {
            guard case .le(.extendedAdvertisingReport(let list))? = try? HCIEventParameters.decode(record.bytes) else {
                continue
            }
            for report in list {
                reports.append(
                    (
                        report.address.rawValue, report.eventType.dataStatus, report.data.bytes.count,
                        report.eventType.isScanResponse
                    ))
            }
        }
        let first = reports.filter { $0.address == 0xC0_1122_3344_55 }
        #expect(first.map(\.status) == [1, 1, 0, 1, 1, 2, 1, 1, 0])
        #expect(first.map(\.length) == [200, 60, 17, 200, 60, 0, 200, 60, 17])
        let second = reports.filter { $0.address == 0xC0_6677_8899_AA }
        #expect(second.map(\.status) == [0, 1, 0])
        #expect(second.map(\.scanResponse) == [false, true, true])

        let analysis = try TraceAnalysis(path: path, air: AirOptions())
        let devices = analysis.lifecycle.scans.flatMap(\.devices)
        let chained = devices.first { $0.address.rawValue == 0xC0_1122_3344_55 }
        #expect(chained?.name == "bletrace chained advertiser")
        #expect(chained?.serviceUUIDs.map { "\($0)" } == ["180F"])
        #expect(chained?.reports == 9)
        #expect(
            devices.first { $0.address.rawValue == 0xC0_6677_8899_AA }?.name == "bletrace scan response that is chained"
        )
    }

    /// AuxPtrs that nothing answers (noise, or a sniffer on other channels) are kept 16 at most
    /// and each expires: the decoder's state stays bounded, and no chain is reported lost that
    /// never had data.
    @Test func unansweredPointersStayBounded() {
        var decoder = LinkLayerDecoder(linkType: 251)
        var lost = 0
        for index in 0..<1000 {
            // ADV_EXT_IND: extended header ADI + AuxPtr (channel 5, 300 µs units, offset 8191).
            let payload: [UInt8] = [0x06, 0x18, 0x17, 0x30, 0x85, 0xFF, 0x1F]
            let pdu = [0x07, UInt8(payload.count)] + payload
            let crc = pdu.withUnsafeBytes { LinkLayerPacket.crc(of: $0, initial: 0x55_5555) }
            let bytes = packet("d6 be 89 8e") + pdu + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16)]
            let decoded = bytes.withUnsafeBytes {
                decoder.decode($0, time: Timestamp(microseconds: Int64(index) * 100), index: index)
            }
            lost += decoded.lostChains.count
            #expect(decoded.crcOK == true && decoded.fault == nil)
        }
        #expect(lost == 0)
    }

    /// A periodic advertising train (Captures/linklayer/synthetic.py's `periodic.pcap`): its
    /// AUX_SYNC_INDs, on the access address the AUX_ADV_IND's SyncInfo gave and with its CRCInit,
    /// are advertising PDUs with their AD structures and their train's advertiser, not data
    /// channel PDUs of an unknown connection; the analyses report none of them (a scan does not
    /// show periodic advertising) and make no connection of them.
    @Test(arguments: ["periodic.pcap", "periodic-nordic.pcap"]) func periodicTrainsAreAdvertising(_ name: String) throws
    {
        let path = Fixtures.capture("linklayer/synthetic/\(name)")
        let reader = try CaptureReader(path: path, linkLayer: true)
        var decoder = LinkLayerDecoder(linkType: name.contains("nordic") ? 272 : 256)
        var names: [String] = []
        var counters: [UInt8] = []
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            #expect(decoded.connection == nil && decoded.crcOK == true && decoded.fault == nil)
            guard case .advertising(let pdu)? = decoded.packet?.pdu else { continue }
            names.append(pdu.name)
            if pdu.auxiliaryKind == .sync, case .extended(let payload) = pdu.content {
                #expect(decoded.packet?.accessAddress == 0x5A3C_9E17)
                #expect(decoded.chain?.advertiser == BluetoothAddress(rawValue: 0xC0_1122_3344_77))
                let list = try payload.data.structures()
                #expect(list.localName == "bletrace periodic")
                for structure in list where structure.type.rawValue == 0xFF {
                    counters.append(structure.data.last ?? 0xFF)
                }
            }
        }
        #expect(names == ["ADV_EXT_IND", "AUX_ADV_IND", "AUX_SYNC_IND", "AUX_SYNC_IND", "AUX_SYNC_IND", "ADV_IND"])
        #expect(counters == [0, 1, 2])
        let analysis = try TraceAnalysis(path: path, air: AirOptions())
        #expect(analysis.lifecycle.connections.isEmpty)
        #expect(analysis.lifecycle.scans.flatMap(\.devices).map(\.reports).reduce(0, +) == 2)
    }
}
