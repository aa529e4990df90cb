import ATT
import Foundation
import HCI
import Lifecycle
import LinkLayer
import TraceFiles
import Wire

// `bletrace decode` of an over-the-air capture (pcap/pcapng link types 251, 256, 272), a record
// at a time: its line, its `-v` lines, its JSON object (Formats/json.md, "Link-layer records").
// Built with the straightforward writers: sniffer captures are small next to HCI logs, and the
// decoding itself allocates nothing.

/// One line for a person: index, time, direction on the connection, channel type, then what the
/// packet says.
package func describeLinkLayer(_ record: CaptureRecord, _ decoded: LinkLayerRecord, origin: Timestamp) -> String {
    var line = "\(record.index + 1)".leftPadded(6) + " " + Wording.sinceStart(record.timestamp, origin: origin)
    line +=
        " "
        + (decoded.direction.map { "\($0)" + (decoded.directionSource == .timing ? "?" : "") } ?? "-").rightPadded(8)
    guard let packet = decoded.packet else {
        line += " ll     "
        if let fault = decoded.fault {
            line += " [\(fault.layer.rawValue): expected \(fault.expected) at byte \(fault.offset)]"
        }
        return line
    }
    switch packet.pdu {
    case .advertising(let pdu):
        line += " adv     " + describe(pdu)
        if let chain = decoded.chain, chain.part > 0 {
            line += " (chain part \(chain.part + 1) of \(chain.advertiser.map { "\($0)" } ?? "frame \(chain.head + 1)")"
            line += (chain.previous.map { ", after frame \($0 + 1)" } ?? "") + ")"
        }
        if let data = decoded.chainData {
            line += "; chain's data: \(data.bytes.count) bytes" + summary(data)
        }
    case .data where decoded.isochronous != nil:
        line += " iso     " + describe(decoded.isochronous!)
    case .data(let pdu):
        line += " data    conn \((decoded.connection?.index ?? 0) + 1) "
        if decoded.isEncrypted {
            line += "encrypted \(pdu.llid == .control ? "LL control" : "L2CAP"), \(pdu.length) bytes"
            if decoded.micFailed { line += " [MIC failed: no key given decrypts it]" }
        } else if let control = decoded.control {
            line += describe(control)
        } else if pdu.isEmpty {
            line += "Empty PDU"
        } else if let att = decoded.att {
            line += "ATT " + describe(att)
            if let request = decoded.answering, att.opcode != .errorResponse {
                line +=
                    " (answers \(request.opcode)" + (request.handle.map { " of \(hex($0, digits: 4))" } ?? "")
                    + ", frame \(request.record + 1))"
            }
        } else if let smp = decoded.smp {
            line += "SMP " + describe(smp)
        } else if let l2cap = decoded.l2cap {
            line += "L2CAP \(l2cap.channel), \(l2cap.payload.count) bytes"
        } else {
            line +=
                "\(pdu.llid == .start ? "L2CAP start" : pdu.llid == .continuation ? "L2CAP continuation" : "\(pdu.llid)"), \(pdu.length) bytes"
        }
        if decoded.isRetransmission {
            line += " (retransmission" + (decoded.repeats.map { " of frame \($0 + 1)" } ?? "") + ")"
        }
        if decoded.decrypted { line += " (decrypted)" }
    }
    for lost in decoded.lostChains {
        line +=
            " [chain of frame \(lost.head + 1) lost: the PDU the AuxPtr of frame \((lost.previous ?? lost.head) + 1) announced was not heard]"
    }
    if decoded.snifferHeader?.crcOK == false { line += " [CRC bad]" }
    if let fault = decoded.fault ?? decoded.lostFragments {
        line += "  [\(fault.layer.rawValue): expected \(fault.expected) at byte \(fault.offset)]"
    }
    return line
}

private func address(_ value: BluetoothAddress, random: Bool) -> String {
    "\(value)" + (random ? " (random)" : "")
}

/// An advertising PDU for a person.
func describe(_ pdu: AdvertisingPDU) -> String {
    var text = pdu.name
    switch pdu.content {
    case .advertisement(let advertiser, let data):
        text += " " + address(advertiser, random: pdu.txRandom)
        text += summary(data, separator: ",")
    case .directed(let advertiser, let target):
        text += " " + address(advertiser, random: pdu.txRandom) + " to " + address(target, random: pdu.rxRandom)
    case .scanRequest(let scanner, let advertiser):
        text += " from " + address(scanner, random: pdu.txRandom) + " to " + address(advertiser, random: pdu.rxRandom)
    case .connect(let initiator, let advertiser, let parameters):
        text +=
            " central " + address(initiator, random: pdu.txRandom) + " peripheral "
            + address(advertiser, random: pdu.rxRandom)
        text +=
            " access address \(hex(parameters.accessAddress, digits: 8)) interval \(milliseconds(parameters.interval)) ms"
        text += " latency \(parameters.latency) timeout \(Int(parameters.timeout) * 10) ms"
    case .extended(let payload):
        if let advertiser = payload.advertiser { text += " " + address(advertiser, random: pdu.txRandom) }
        if let target = payload.target { text += " to " + address(target, random: pdu.rxRandom) }
        if let did = payload.dataID, let sid = payload.setID { text += " set \(sid) data \(did)" }
        if let aux = payload.auxPointer { text += " aux channel \(aux.channel)" }
        if !payload.data.bytes.isEmpty { text += ", \(payload.data.bytes.count) bytes of data" }
    case .unknown(let payload):
        text += " (\(payload.count) bytes)"
    }
    return text
}

/// An isochronous PDU for a person: its kind, header fields, payload length, and a framed
/// PDU's segments.
func describe(_ pdu: IsochronousPDU) -> String {
    var text = "\(pdu.kind.rawValue) PDU LLID \(pdu.llid)"
    if let nesn = pdu.nesn, let sn = pdu.sn { text += " NESN \(nesn) SN \(sn)" }
    if pdu.cie == true { text += " CIE" }
    if pdu.npi == true { text += " NPI (null)" }
    if let cssn = pdu.cssn { text += " CSSN \(cssn)" + (pdu.cstf == true ? " CSTF" : "") }
    text += ", \(pdu.length) bytes"
    if pdu.isFramed {
        if let segments = try? pdu.segments() {
            text += ", framed: \(Wording.count(segments.count, "segment"))"
            text += segments.map {
                " [\($0.continuation ? "continues" : "starts")\($0.complete ? ", ends" : "") SDU, \($0.length) bytes]"
            }.joined()
        } else {
            text += ", framed: segments do not fit the payload"
        }
    } else if pdu.llid <= 1, pdu.length > 0 {
        text += pdu.llid == 0 ? ", unframed (SDU end or whole)" : ", unframed (SDU start or continuation)"
    }
    return text
}

/// The local name and the number of AD structures of advertising data that decodes whole.
private func summary(_ data: AdvertisingData, separator: String = ",") -> String {
    guard let list = try? data.structures() else { return "" }
    var text = ""
    if let name = list.localName { text += " \"\(name)\"" }
    let count = list.reduce(0) { count, _ in count + 1 }
    return text + "\(separator) \(Wording.count(count, "AD structure"))"
}

/// Connection interval units (1.25 ms) in ms.
private func milliseconds(_ units: UInt16) -> String {
    let hundredths = Int(units) * 125
    let fraction = hundredths % 100
    return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
}

/// An LL control PDU for a person.
func describe(_ control: LLControlPDU) -> String {
    var text = "\(control.opcode)"
    switch control {
    case .connectionUpdate(let size, let offset, let interval, let latency, let timeout, let instant):
        text +=
            " interval \(milliseconds(interval)) ms latency \(latency) timeout \(Int(timeout) * 10) ms window \(size)/\(offset) instant \(instant)"
    case .channelMap(let map, let instant):
        text += " \(map.nonzeroBitCount) channels (\(hex(map, digits: 10))) instant \(instant)"
    case .terminate(let reason), .reject(let reason):
        text += " \(reason) (\(hex(reason.rawValue, digits: 2)))"
    case .rejectExtended(let opcode, let reason):
        text += " \(opcode): \(reason) (\(hex(reason.rawValue, digits: 2)))"
    case .cisTerminate(let cig, let cis, let reason):
        text += " CIG \(cig) CIS \(cis): \(reason) (\(hex(reason.rawValue, digits: 2)))"
    case .unknownResponse(let opcode):
        text += " \(opcode)"
    case .featureRequest(let features), .featureResponse(let features), .peripheralFeatureRequest(let features):
        text += " features \(hex(features, digits: 16))"
    case .version(let version, let company, let subversion):
        text +=
            " version \(hex(version, digits: 2)) company \(hex(company, digits: 4)) subversion \(hex(subversion, digits: 4))"
    case .lengthRequest(let rxOctets, let rxTime, let txOctets, let txTime),
        .lengthResponse(let rxOctets, let rxTime, let txOctets, let txTime):
        text += " rx \(rxOctets) bytes \(rxTime) µs, tx \(txOctets) bytes \(txTime) µs"
    case .phyRequest(let tx, let rx), .phyResponse(let tx, let rx):
        text += " tx \(hex(tx, digits: 2)) rx \(hex(rx, digits: 2))"
    case .phyUpdate(let toPeripheral, let toCentral, let instant):
        text += " C->P \(hex(toPeripheral, digits: 2)) P->C \(hex(toCentral, digits: 2)) instant \(instant)"
    case .connectionParameterRequest(let parameters), .connectionParameterResponse(let parameters):
        text +=
            " interval \(milliseconds(parameters.intervalMin))-\(milliseconds(parameters.intervalMax)) ms latency \(parameters.latency) timeout \(Int(parameters.timeout) * 10) ms"
    case .other(_, let parameters), .unknown(_, let parameters):
        text += parameters.isEmpty ? "" : " \(parameters.hexString)"
    default:
        break
    }
    return text
}

/// Every field of every layer, for `decode -v`.
package func linkLayerDetail(_ record: CaptureRecord, _ decoded: LinkLayerRecord) -> [String] {
    var lines: [String] = []
    switch decoded.snifferHeader {
    case .nordic(let header):
        lines += FieldPrinter.lines(header, label: "nRF Sniffer")
        lines.append(
            "        nRF Sniffer flags: CRC \(header.crcOK ? "ok" : "bad"), \(header.phy)"
                + (header.direction.map { ", \($0)" } ?? "")
                + (header.encrypted ? ", encrypted, MIC \(header.micOK == true ? "ok" : "bad")" : ""))
    case .rf(let header):
        lines += FieldPrinter.lines(header, label: "LE RF")
        lines.append(
            "        LE RF flags: channel index \(header.channelIndex), PDU type \(header.pduType), \(header.phy)"
                + (header.dewhitened ? ", dewhitened" : "")
                + (header.crcChecked ? ", CRC \(header.crcValid ? "valid" : "invalid")" : "")
                + (header.micChecked ? ", MIC \(header.micValid ? "valid" : "invalid")" : "")
                + (header.decrypted ? ", decrypted" : ""))
    case nil:
        break
    }
    if let packet = decoded.packet {
        lines.append(
            "        access address: \(hex(packet.accessAddress, digits: 8))"
                + (packet.crc.map { ", CRC \(hex($0, digits: 6))" } ?? ""))
        switch packet.pdu {
        case .advertising(let pdu):
            lines.append(
                "        advertising PDU: \(pdu.name) (type \(pdu.type.rawValue)), length \(pdu.length)"
                    + ", ChSel \(pdu.channelSelection2 ? 2 : 1), TxAdd \(pdu.txRandom ? "random" : "public"), RxAdd \(pdu.rxRandom ? "random" : "public")"
            )
            lines += FieldPrinter.lines(pdu.content, label: "payload")
            if let chain = decoded.chain {
                lines.append(
                    "        chain: part \(chain.part + 1), head frame \(chain.head + 1) (\(chain.headKind.name))"
                        + (chain.previous.map { ", after frame \($0 + 1)" } ?? "")
                        + (chain.continues ? ", continues" : ", ends")
                        + (chain.advertiser.map { ", advertiser \($0)" } ?? ""))
            }
            if let data = decoded.chainData { lines += FieldPrinter.lines(data, label: "chain's data") }
        case .data where decoded.isochronous != nil:
            let iso = decoded.isochronous!
            lines.append("        isochronous PDU: " + describe(iso))
            lines.append("        payload: \(iso.payload.hexString)")
        case .data(let pdu):
            lines.append(
                "        data PDU: \(pdu.llid), NESN \(pdu.nesn), SN \(pdu.sn), MD \(pdu.moreData ? 1 : 0), length \(pdu.length)"
                    + (pdu.cteInfo.map { ", CTEInfo \(hex($0, digits: 2))" } ?? ""))
        }
    }
    if let connection = decoded.connection {
        lines.append(
            "        connection \(connection.index + 1): access address \(hex(connection.accessAddress, digits: 8))"
                + (connection.central.map { ", central \($0)" } ?? "")
                + (connection.peripheral.map { ", peripheral \($0)" } ?? "")
                + (decoded.direction.map {
                    ", \($0.rawValue)" + (decoded.directionSource == .timing ? " (from timing)" : "")
                } ?? ""))
    }
    if let control = decoded.control { lines += FieldPrinter.lines(control, label: "LL control") }
    if let l2cap = decoded.l2cap {
        lines.append("        L2CAP: channel \(l2cap.channel), \(l2cap.payload.count) bytes")
        if l2cap.channel == .leSignaling, let pdu = try? LESignalingPDU.decode(l2cap.payload) {
            lines += FieldPrinter.lines(pdu, label: "LE signaling")
        }
    }
    if let pdu = decoded.att { lines += FieldPrinter.lines(pdu, label: "ATT") }
    if let smp = decoded.smp { lines += FieldPrinter.lines(smp.command, label: "SMP") }
    for lost in decoded.lostChains {
        lines.append("        lost chain: head frame \(lost.head + 1), its part \(lost.part + 2) not heard")
    }
    if let fault = decoded.fault ?? decoded.lostFragments { lines.append("        fault: \(fault)") }
    return lines
}

/// The JSON of a link-layer record (`decode --format json/jsonl`, Formats/json.md). Field names
/// follow Wireshark's (`nordic_ble.*`, `btle_rf.*`, `btle.*`) where it has the field.
package struct JSONLinkLayerRecord: Encodable {
    struct Nordic: Encodable {
        var board_id: UInt8?
        var protover: UInt8
        var packet_counter: UInt16
        var packet_id: UInt8
        var flags: UInt8
        var crcok: Bool
        var direction: String?
        var encrypted: Bool?
        var micok: Bool?
        var phy: UInt8
        var aux_type: UInt8?
        var channel: UInt8
        var rssi: Int
        var event_counter: UInt16
        var time_us: UInt32
    }
    struct RF: Encodable {
        var channel: UInt8
        var channel_index: UInt8
        var signal_dbm: Int8?
        var noise_dbm: Int8?
        var access_address_offenses: UInt8?
        var reference_access_address: UInt32?
        var flags: UInt16
        var pdu_type: UInt8
        var crc_checked: Bool
        var crc_valid: Bool
        var mic_checked: Bool
        var mic_valid: Bool
        var phy: UInt8
    }
    struct Connect: Encodable {
        var access_address: UInt32
        var crc_init: UInt32
        var window_size_raw: UInt8
        var window_offset_raw: UInt16
        var interval_raw: UInt16
        var latency: UInt16
        var timeout_raw: UInt16
        var channel_map: String
        var hop: UInt8
        var sleep_clock_accuracy: UInt8
    }
    struct Extended: Encodable {
        var mode: UInt8
        var length: Int
        var flags: UInt8
        var advertiser: String?
        var target: String?
        var cte_info: UInt8?
        var did: UInt16?
        var sid: UInt8?
        var aux_channel: UInt8?
        var aux_offset_raw: UInt16?
        var aux_phy: UInt8?
        var tx_power: Int8?
    }
    struct AD: Encodable {
        var type: UInt8
        var length: Int
    }
    struct Control: Encodable {
        var opcode: UInt8
        var name: String?
        var error_code: UInt8?
        var reject_opcode: UInt8?
        var unknown_type: UInt8?
        var version_number: UInt8?
        var company_id: UInt16?
        var subversion_number: UInt16?
        var feature_set: UInt64?
        var window_size_raw: UInt8?
        var window_offset_raw: UInt16?
        var interval_raw: UInt16?
        var interval_min_raw: UInt16?
        var interval_max_raw: UInt16?
        var latency: UInt16?
        var timeout_raw: UInt16?
        var instant: UInt16?
        var channel_map: String?
        var max_rx_octets: UInt16?
        var max_rx_time_us: UInt16?
        var max_tx_octets: UInt16?
        var max_tx_time_us: UInt16?
        var tx_phys: UInt8?
        var rx_phys: UInt8?
        var c_to_p_phy: UInt8?
        var p_to_c_phy: UInt8?
        var random_number: UInt64?
        var encrypted_diversifier: UInt16?
        var cig_id: UInt8?
        var cis_id: UInt8?
        var parameters: String?
        /// Bytes after the opcode's parameters (the length field said more).
        var extra: Int?
    }
    struct LL: Encodable {
        var access_address: UInt32
        var crc: UInt32?
        var pdu: String
        // Advertising channel PDUs.
        var pdu_type: UInt8?
        var ch_sel: Bool?
        var tx_random: Bool?
        var rx_random: Bool?
        var length: Int?
        var advertiser: String?
        var target: String?
        var scanner: String?
        var initiator: String?
        var ad: [AD]?
        var connect: Connect?
        var extended: Extended?
        // Data channel PDUs.
        var llid: UInt8?
        var nesn: UInt8?
        var sn: UInt8?
        var md: Bool?
        var control: Control?
    }
    struct ISO: Encodable {
        var kind: String
        var llid: UInt8
        var nesn: UInt8?
        var sn: UInt8?
        var cie: Bool?
        var npi: Bool?
        var cssn: UInt8?
        var cstf: Bool?
        var length: Int
        var payload: String
        /// Framed PDUs: each segment's `continuation` (SC), `complete` (CMPLT), `time_offset_us` (µs), `length`.
        var segments: [Segment]?
        struct Segment: Encodable {
            var continuation: Bool
            var complete: Bool
            var time_offset_us: UInt32?
            var length: Int
        }
    }
    struct Chain: Encodable {
        var part: Int
        var head_frame: Int
        var head_pdu: String
        var previous_frame: Int?
        var continues: Bool
        var advertiser: String?
        var did: UInt16?
        var sid: UInt8?
    }
    struct L2CAP: Encodable {
        var cid: UInt16
        var length: Int
    }
    var version: Int?
    var index: Int
    var frame: Int
    var ts_us: Int64
    var kind = "ll"
    var nordic_ble: Nordic?
    var btle_rf: RF?
    var ll: LL?
    var connection: Int?
    var direction: String?
    var direction_source: String?
    var retransmission: Bool?
    /// A payload that is ciphertext (not decoded).
    var encrypted: Bool?
    /// Decrypted with a key given (`--ltk`): the fields below are the plaintext's.
    var decrypted: Bool?
    /// Keys were given and none decrypts this encrypted payload.
    var mic_failed: Bool?
    /// For a retransmission, the frame (1-based) it repeats.
    var repeats_frame: Int?
    /// A CIS or BIS PDU's header fields (in place of `ll`'s data PDU fields).
    var iso: ISO?
    /// An auxiliary advertising PDU's place in its chain.
    var chain: Chain?
    /// On a chain's last PDU: the AD structures of the chain's data joined.
    var chain_ad: [AD]?
    /// The chains (by their head's frame) whose next PDU was due before this record and not heard.
    var lost_chains: [Int]?
    var l2cap: L2CAP?
    var att: JSONATTFields?
    var smp: JSONSMPFields?
    var fault: String?

    package init(_ record: CaptureRecord, _ decoded: LinkLayerRecord, version: Int?) {
        self.version = version
        index = record.index
        frame = record.index + 1
        ts_us = record.timestamp.microseconds
        switch decoded.snifferHeader {
        case .nordic(let header):
            nordic_ble = Nordic(
                board_id: header.boardID, protover: header.protocolVersion, packet_counter: header.packetCounter,
                packet_id: header.packetID, flags: header.flags, crcok: header.crcOK,
                direction: header.direction?.rawValue,
                encrypted: header.isData ? header.encrypted : nil, micok: header.micOK, phy: header.phy.rawValue,
                aux_type: header.auxType, channel: header.channel, rssi: header.rssi,
                event_counter: header.eventCounter,
                time_us: header.time)
        case .rf(let header):
            btle_rf = RF(
                channel: header.rfChannel, channel_index: header.channelIndex,
                signal_dbm: header.signalPowerValid ? header.signalPower : nil,
                noise_dbm: header.noisePowerValid ? header.noisePower : nil,
                access_address_offenses: header.accessAddressOffensesValid ? header.accessAddressOffenses : nil,
                reference_access_address: header.referenceAccessAddressValid ? header.referenceAccessAddress : nil,
                flags: header.flags, pdu_type: header.pduType, crc_checked: header.crcChecked,
                crc_valid: header.crcValid,
                mic_checked: header.micChecked, mic_valid: header.micValid, phy: header.phy.rawValue)
        case nil:
            break
        }
        if let packet = decoded.packet { ll = Self.linkLayer(packet, decoded.control) }
        if let pdu = decoded.isochronous, var fields = ll {
            fields.pdu = "\(pdu.kind.rawValue) PDU"
            (fields.llid, fields.nesn, fields.sn, fields.md) = (nil, nil, nil, nil)
            ll = fields
            iso = ISO(
                kind: pdu.kind.rawValue, llid: pdu.llid, nesn: pdu.nesn, sn: pdu.sn, cie: pdu.cie, npi: pdu.npi,
                cssn: pdu.cssn,
                cstf: pdu.cstf, length: pdu.length, payload: pdu.payload.hexString,
                segments: (try? pdu.segments())?.map {
                    ISO.Segment(
                        continuation: $0.continuation, complete: $0.complete, time_offset_us: $0.timeOffset,
                        length: $0.length)
                })
        }
        connection = decoded.connection.map { $0.index + 1 }
        direction = decoded.direction?.rawValue
        direction_source = decoded.directionSource?.rawValue
        retransmission = decoded.isRetransmission ? true : nil
        encrypted = decoded.isEncrypted ? true : nil
        decrypted = decoded.decrypted ? true : nil
        mic_failed = decoded.micFailed ? true : nil
        repeats_frame = decoded.repeats.map { $0 + 1 }
        chain = decoded.chain.map {
            Chain(
                part: $0.part + 1, head_frame: $0.head + 1, head_pdu: $0.headKind.name,
                previous_frame: $0.previous.map { $0 + 1 },
                continues: $0.continues, advertiser: Self.text($0.advertiser), did: $0.dataID, sid: $0.setID)
        }
        chain_ad = decoded.chainData.flatMap(Self.structures)
        lost_chains = decoded.lostChains.isEmpty ? nil : decoded.lostChains.map { $0.head + 1 }
        if let frame = decoded.l2cap { l2cap = L2CAP(cid: frame.channel.rawValue, length: frame.payload.count) }
        if let pdu = decoded.att {
            att = JSONATTFields(
                pdu, answering: decoded.answering.map { (opcode: $0.opcode, handle: $0.handle, record: $0.record) })
        }
        smp = decoded.smp.map(JSONSMPFields.init)
        fault = (decoded.fault ?? decoded.lostFragments).map { "\($0)" }
    }

    private static func text(_ address: BluetoothAddress?) -> String? { address.map { "\($0)".lowercased() } }

    private static func linkLayer(_ packet: LinkLayerPacket, _ control: LLControlPDU?) -> LL {
        var ll = LL(access_address: packet.accessAddress, crc: packet.crc, pdu: "")
        switch packet.pdu {
        case .advertising(let pdu):
            ll.pdu = pdu.name
            ll.pdu_type = pdu.type.rawValue
            ll.ch_sel = pdu.channelSelection2
            ll.tx_random = pdu.txRandom
            ll.rx_random = pdu.rxRandom
            ll.length = pdu.length
            switch pdu.content {
            case .advertisement(let advertiser, let data):
                ll.advertiser = text(advertiser)
                ll.ad = structures(data)
            case .directed(let advertiser, let target):
                (ll.advertiser, ll.target) = (text(advertiser), text(target))
            case .scanRequest(let scanner, let advertiser):
                (ll.scanner, ll.advertiser) = (text(scanner), text(advertiser))
            case .connect(let initiator, let advertiser, let parameters):
                (ll.initiator, ll.advertiser) = (text(initiator), text(advertiser))
                ll.connect = Connect(
                    access_address: parameters.accessAddress, crc_init: parameters.crcInit,
                    window_size_raw: parameters.windowSize,
                    window_offset_raw: parameters.windowOffset, interval_raw: parameters.interval,
                    latency: parameters.latency,
                    timeout_raw: parameters.timeout, channel_map: channelMap(parameters.channelMap),
                    hop: parameters.hop,
                    sleep_clock_accuracy: parameters.sleepClockAccuracy)
            case .extended(let payload):
                ll.extended = Extended(
                    mode: payload.advMode, length: payload.headerLength, flags: payload.flags,
                    advertiser: text(payload.advertiser),
                    target: text(payload.target), cte_info: payload.cteInfo, did: payload.dataID, sid: payload.setID,
                    aux_channel: payload.auxPointer?.channel, aux_offset_raw: payload.auxPointer?.offset,
                    aux_phy: payload.auxPointer?.phy,
                    tx_power: payload.txPower)
                ll.ad = structures(payload.data)
            case .unknown:
                break
            }
        case .data(let pdu):
            ll.pdu =
                pdu.llid == .control
                ? "LL control"
                : pdu.isEmpty
                    ? "Empty PDU"
                    : pdu.llid == .start ? "L2CAP start" : pdu.llid == .continuation ? "L2CAP continuation" : "reserved"
            ll.llid = pdu.llid.rawValue
            ll.nesn = pdu.nesn
            ll.sn = pdu.sn
            ll.md = pdu.moreData
            ll.length = pdu.length
            if let control { ll.control = Self.control(control, length: pdu.length) }
        }
        return ll
    }

    /// The 5 bytes of a channel map, least significant first, as hex.
    private static func channelMap(_ map: UInt64) -> String {
        (0..<5).map { hex(UInt8(truncatingIfNeeded: map >> (8 * UInt64($0))), digits: 2).dropFirst(2) }.joined()
    }

    private static func structures(_ data: AdvertisingData) -> [AD]? {
        guard let list = try? data.structures() else { return nil }
        return list.map { AD(type: $0.type.rawValue, length: $0.data.count + 1) }
    }

    private static func control(_ pdu: LLControlPDU, length: Int) -> Control {
        var control = Control(opcode: pdu.opcode.rawValue, name: pdu.opcode.name)
        if let expected = pdu.opcode.parameterLength, length - 1 > expected { control.extra = length - 1 - expected }
        control.error_code = pdu.errorCode?.rawValue
        switch pdu {
        case .connectionUpdate(let size, let offset, let interval, let latency, let timeout, let instant):
            (control.window_size_raw, control.window_offset_raw, control.interval_raw) = (size, offset, interval)
            (control.latency, control.timeout_raw, control.instant) = (latency, timeout, instant)
        case .channelMap(let map, let instant):
            (control.channel_map, control.instant) = (channelMap(map), instant)
        case .encryptionRequest(let random, let ediv, _, _):
            (control.random_number, control.encrypted_diversifier) = (random, ediv)
        case .unknownResponse(let opcode):
            control.unknown_type = opcode.rawValue
        case .featureRequest(let features), .featureResponse(let features), .peripheralFeatureRequest(let features):
            control.feature_set = features
        case .version(let version, let company, let subversion):
            (control.version_number, control.company_id, control.subversion_number) = (version, company, subversion)
        case .rejectExtended(let opcode, _):
            control.reject_opcode = opcode.rawValue
        case .connectionParameterRequest(let parameters), .connectionParameterResponse(let parameters):
            (control.interval_min_raw, control.interval_max_raw) = (parameters.intervalMin, parameters.intervalMax)
            (control.latency, control.timeout_raw) = (parameters.latency, parameters.timeout)
        case .lengthRequest(let rxOctets, let rxTime, let txOctets, let txTime),
            .lengthResponse(let rxOctets, let rxTime, let txOctets, let txTime):
            (control.max_rx_octets, control.max_rx_time_us, control.max_tx_octets, control.max_tx_time_us) = (
                rxOctets, rxTime, txOctets, txTime
            )
        case .phyRequest(let tx, let rx), .phyResponse(let tx, let rx):
            (control.tx_phys, control.rx_phys) = (tx, rx)
        case .phyUpdate(let toPeripheral, let toCentral, let instant):
            (control.c_to_p_phy, control.p_to_c_phy, control.instant) = (toPeripheral, toCentral, instant)
        case .cisRequest(let request):
            (control.cig_id, control.cis_id) = (request.cigID, request.cisID)
        case .cisTerminate(let cig, let cis, _):
            (control.cig_id, control.cis_id) = (cig, cis)
        case .other(_, let parameters), .unknown(_, let parameters):
            control.parameters = parameters.hexString
        default:
            break
        }
        return control
    }
}
