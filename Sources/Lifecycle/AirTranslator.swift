import HCI
import LinkLayer
import TraceFiles
import Wire

/// Turns an over-the-air capture's decoded records into the HCI records this host's HCI would have
/// carried for the same session, so that the analyses (lifecycles, errors, GATT, diagnosis, the
/// replay's cassette) read the air through the same code as an HCI trace; and keeps per
/// connection what only the air shows (``AirLink``).
///
/// From this host's side (``AirHost``; Formats/link-layer.md, "Lifecycles"):
/// - CONNECT_IND → LE Connection Complete (this host's role, the other side's address, the
///   link's parameters);
/// - each data PDU with a payload that is neither a retransmission nor damaged → an ACL packet,
///   sent when this host sent it, received otherwise (LLID 0b10 a start, 0b01 a continuation), so
///   that L2CAP, ATT and SMP go through ``TraceDecoder``'s reassembly;
/// - LL_CONNECTION_UPDATE_IND → LE Connection Update Complete, LL_PHY_UPDATE_IND → LE PHY Update
///   Complete, both when the capture reaches their instant;
/// - LL_LENGTH_RSP → LE Data Length Change (each way, the smaller of the sender's and the
///   receiver's);
/// - the encryption start (LL_START_ENC_REQ, then the peripheral's first encrypted PDU) →
///   Encryption Change (or Encryption Key Refresh Complete when the link was encrypted already);
///   LL_REJECT_IND or LL_REJECT_EXT_IND in answer to LL_ENC_REQ → Encryption Change with its error;
/// - LL_TERMINATE_IND sent by this host → HCI Disconnect (its reason), then Disconnection Complete
///   with reason 0x16 (terminated by local host); by the other side → Disconnection Complete with
///   its reason;
/// - silence longer than the supervision timeout while the capture goes on → Disconnection
///   Complete with reason 0x08 (connection timeout), at the end of the timeout;
/// - for a central host, each advertisement heard undamaged (ADV_IND, ADV_DIRECT_IND,
///   ADV_SCAN_IND, ADV_NONCONN_IND, SCAN_RSP) → an LE Advertising Report, and each AUX_ADV_IND
///   or AUX_SCAN_RSP that names its advertiser → an LE Extended Advertising Report, with the
///   sniffer's RSSI: what the host's HCI shows while it scans (the air shows every advertiser in
///   range, whether the host scanned or not); each AUX_CHAIN_IND of their chains → the next
///   report, with Data_Status "more to come" until the last, "truncated" when the chain is lost.
///
/// Every made record has the index, file offset and time of the air record it came from.
struct AirTranslator {
    let host: AirHost
    private(set) var decoder: LinkLayerDecoder
    /// Per link-layer connection (by its index): what the air showed, and the state of the
    /// translation.
    private(set) var links: [AirLink] = []
    private var states: [State] = []
    /// The records made from the last air record, in order.
    private(set) var made: [Made] = []
    private(set) var bytes = ByteStore()

    struct Made {
        var kind: PacketKind
        var direction: Direction
        var start: Int
        var count: Int
        var time: Timestamp
    }

    private struct State {
        var open = false
        var seen = false
        var connectTime: Int64?
        var lastHeard: Int64 = 0
        var interval: UInt16 = 0
        var latency: UInt16 = 0
        var timeout: UInt16 = 0
        /// The event counter of the last event heard and when it began (µs).
        var eventCounter = 0
        var eventStart: Int64?
        /// The connection event counter the sniffer gave the last packet heard (the nRF
        /// Sniffer's header carries it): where it does, it says which events went unheard.
        var snifferCounter: UInt16?
        /// The end (µs) of the last packet heard, to tell a packet that answers it within the
        /// event from one that opens the next.
        var lastEnd: Int64 = 0
        /// Updates waiting for their instant (indices into the link's ``AirLink/updates``).
        var waiting: [Int] = []
        /// The last LL control PDU heard that could not be read (encrypted): its record and sender.
        var unreadControl: (record: Int, sender: AirHost)?
        /// LL_START_ENC_REQ seen, and the peripheral has not yet sent its first encrypted PDU.
        var encryptionStarting = false
        var wasEncrypted = false
        var encryptionRequested = false
        /// Each side's LL_LENGTH_REQ or RSP: its (maxRxOctets, maxRxTime, maxTxOctets, maxTxTime).
        var length: [AirHost: (UInt16, UInt16, UInt16, UInt16)] = [:]
    }

    init(linkType: Int32, options: AirOptions) {
        host = options.host
        decoder = LinkLayerDecoder(linkType: linkType, keys: options.keys)
        made.reserveCapacity(8)
    }

    /// Decodes `record` (an air record) and makes its HCI records (``made``, their bytes in
    /// ``bytes``), replacing those of the previous one.
    mutating func translate(_ record: borrowing CaptureRecord) -> LinkLayerRecord {
        made.removeAll(keepingCapacity: true)
        bytes.count = 0
        let time = record.timestamp
        let decoded = decoder.decode(record.bytes, time: time, index: record.index)
        timeouts(before: time.microseconds)
        if host == .central {
            for lost in decoded.lostChains { chainLost(lost, rssi: Self.rssi(decoded.snifferHeader), time) }
            if decoded.crcOK != false, case .advertising(let pdu)? = decoded.packet?.pdu {
                advertisingReport(
                    pdu, chain: decoded.chain, rssi: Self.rssi(decoded.snifferHeader), time, record: record.index)
            }
        }
        guard let packet = decoded.packet, let connection = decoded.connection else { return decoded }
        let slot = connection.index
        while links.count <= slot {
            links.append(AirLink(index: links.count, accessAddress: 0, host: host))
            states.append(State())
        }
        if case .advertising(let pdu) = packet.pdu {
            if case .connect(let initiator, let advertiser, let parameters) = pdu.content {
                connect(
                    slot, initiator: initiator, advertiser: advertiser, random: (pdu.txRandom, pdu.rxRandom),
                    parameters, record)
            }
            return decoded
        }
        guard case .data(let pdu) = packet.pdu else { return decoded }
        if links[slot].accessAddress == 0 { join(slot, connection, time, record: record.index) }
        guard states[slot].open else { return decoded }
        guard decoded.crcOK != false else {
            links[slot].crcErrors += 1
            return decoded
        }
        let sender: AirHost = decoded.direction == .peripheralToCentral ? .peripheral : .central
        if sender == .central { links[slot].centralPackets += 1 } else { links[slot].peripheralPackets += 1 }
        if case .nordic(let header)? = decoded.snifferHeader {
            snifferEvent(slot, counter: header.eventCounter, record)
        } else {
            event(slot, sender: sender, start: time.microseconds, length: pdu.length, record)
        }
        states[slot].lastHeard = time.microseconds
        if decoded.isRetransmission {
            links[slot].retransmissions += 1
            return decoded
        }
        if decoded.micFailed { links[slot].micFailures += 1 }
        if decoded.decrypted
            || Self.snifferDecrypted(decoded.snifferHeader, length: pdu.length, encrypted: links[slot].encrypted)
        {
            links[slot].decryptedPackets += 1
        }
        if decoded.isEncrypted {
            links[slot].undecryptedPackets += 1
            if links[slot].firstUndecryptedRecord == nil { links[slot].firstUndecryptedRecord = record.index }
        }
        if decoded.isEncrypted || decoded.decrypted, sender == .peripheral, states[slot].encryptionStarting {
            encryptionStarted(slot, record)
        }
        let direction: Direction = sender == host ? .sent : .received
        if decoded.isEncrypted, pdu.llid == .control { states[slot].unreadControl = (record.index, sender) }
        if let control = decoded.control {
            self.control(control, slot: slot, sender: sender, direction: direction, record)
        } else if !decoded.isEncrypted, !pdu.isEmpty, pdu.llid == .start || pdu.llid == .continuation {
            let start = bytes.count
            bytes.u16(UInt16(slot & 0x0FFF) | (pdu.llid == .start ? 0b10 : 0b01) << 12)
            bytes.u16(UInt16(pdu.payload.count))
            bytes.append(pdu.payload)
            made.append(Made(kind: .acl, direction: direction, start: start, count: bytes.count - start, time: time))
        }
        return decoded
    }

    /// What the capture's end leaves: nothing to make (an open link at the end is open, as on
    /// HCI), but updates never reached stay unapplied.
    private mutating func connect(
        _ slot: Int, initiator: BluetoothAddress, advertiser: BluetoothAddress, random: (Bool, Bool),
        _ parameters: ConnectionData,
        _ record: borrowing CaptureRecord
    ) {
        // A link of the same peripheral still open has ended: the peripheral connects again.
        endLinks(of: advertiser, record.index, evidence: "reconnected")
        var link = AirLink(index: slot, accessAddress: parameters.accessAddress, host: host)
        link.central = initiator
        link.peripheral = advertiser
        link.connectRecord = record.index
        link.channelMap = parameters.channelMap
        link.hop = parameters.hop
        link.windowSize = parameters.windowSize
        link.windowOffset = parameters.windowOffset
        links[slot] = link
        var state = State()
        state.open = true
        state.connectTime = record.timestamp.microseconds
        state.lastHeard = record.timestamp.microseconds
        (state.interval, state.latency, state.timeout) = (parameters.interval, parameters.latency, parameters.timeout)
        states[slot] = state
        // LE Connection Complete (Core 6.0, Vol 4, Part E, §7.7.65.1): status, handle, role,
        // peer address type and address, interval, latency, supervision timeout, clock accuracy.
        let peer = host == .central ? advertiser : initiator
        let peerRandom = host == .central ? random.1 : random.0
        let start = beginEvent(0x3E, 19)
        bytes.u8(0x01)
        bytes.u8(0x00)
        bytes.u16(UInt16(slot & 0x0FFF))
        bytes.u8(host == .central ? 0 : 1)
        bytes.u8(peerRandom ? 1 : 0)
        for byte in peer.littleEndianBytes { bytes.u8(byte) }
        bytes.u16(parameters.interval)
        bytes.u16(parameters.latency)
        bytes.u16(parameters.timeout)
        bytes.u8(0)
        endEvent(start, record.timestamp)
    }

    /// A link the capture joined after its CONNECT_IND: open from its first packet, with no
    /// completion (the analyses take it as a connection that began before the capture).
    private mutating func join(_ slot: Int, _ connection: LinkLayerConnection, _ time: Timestamp, record: Int) {
        links[slot] = AirLink(index: slot, accessAddress: connection.accessAddress, host: host)
        links[slot].joinedRecord = record
        states[slot] = State()
        states[slot].open = true
        states[slot].lastHeard = time.microseconds
    }

    /// Counts connection events: a central's packet that does not answer the packet before it
    /// within the inter-frame space opens an event; the time since the last event opened, in
    /// connection intervals, says how many were missed. Updates whose instant is reached apply.
    private mutating func event(
        _ slot: Int, sender: AirHost, start: Int64, length: Int, _ record: borrowing CaptureRecord
    ) {
        let answers = start - states[slot].lastEnd <= 150 + 300 && start >= states[slot].lastEnd - 300
        states[slot].lastEnd = start + Int64(1 + 4 + 2 + length + 3) * 8
        guard sender == .central, !answers || states[slot].eventStart == nil else { return }
        let interval = Int64(states[slot].interval) * 1250
        var elapsed = 0
        if let last = states[slot].eventStart, interval > 0 {
            elapsed = max(1, Int((Double(start - last) / Double(interval)).rounded()))
            links[slot].missedEvents += elapsed - 1
        } else if let connect = states[slot].connectTime, interval > 0 {
            // The first event: 1.25 ms and the transmit window offset after the CONNECT_IND's end
            // (its 44 bytes take 352 µs on LE 1M).
            let first = connect + 352 + 1250 + Int64(links[slot].windowOffset ?? 0) * 1250
            elapsed = max(0, Int((Double(start - first) / Double(interval)).rounded()))
            links[slot].missedEvents += elapsed
        }
        links[slot].events += 1
        states[slot].eventCounter += elapsed
        states[slot].eventStart = start
        instants(slot, record)
    }

    /// Counts connection events by the counter the sniffer gives each packet (the nRF Sniffer's
    /// header: the link layer's own connEventCounter): a packet of a new event opens it, and the
    /// counters between the last event heard and it are the events missed. Before the first
    /// event heard, a link whose CONNECT_IND the capture holds missed every event from 0.
    private mutating func snifferEvent(_ slot: Int, counter: UInt16, _ record: borrowing CaptureRecord) {
        let elapsed: Int
        if let last = states[slot].snifferCounter {
            guard counter != last else { return }
            // (Modulo 65536, as the counter wraps; a counter going back is a new event too.)
            elapsed = Int(counter &- last)
            links[slot].missedEvents += max(0, elapsed - 1)
        } else {
            elapsed = states[slot].connectTime == nil ? 0 : Int(counter)
            links[slot].missedEvents += elapsed
        }
        states[slot].snifferCounter = counter
        links[slot].events += 1
        states[slot].eventCounter += elapsed
        instants(slot, record)
    }

    /// Whether a packet of `length` bytes is one the sniffer decrypted itself: the nRF Sniffer's
    /// encrypted flag with its MIC checked, or the LE RF header's decrypted flag on an encrypted
    /// link (a packet with no payload carries nothing to decrypt).
    static func snifferDecrypted(_ header: SnifferHeader?, length: Int, encrypted: Bool) -> Bool {
        guard length > 0 else { return false }
        switch header {
        case .nordic(let nordic)?: return nordic.encrypted && nordic.micOK == true
        case .rf(let rf)?: return encrypted && rf.decrypted
        case nil: return false
        }
    }

    /// Applies the updates whose instant the event counter has reached (modulo 65536).
    private mutating func instants(_ slot: Int, _ record: borrowing CaptureRecord) {
        guard !states[slot].waiting.isEmpty else { return }
        let counter = UInt16(truncatingIfNeeded: states[slot].eventCounter)
        var still: [Int] = []
        for index in states[slot].waiting {
            let update = links[slot].updates[index]
            guard counter &- update.instant < 0x8000 else {
                still.append(index)
                continue
            }
            links[slot].updates[index].applied = record.timestamp
            switch update.kind {
            case .parameters(let interval, let latency, let timeout):
                (states[slot].interval, states[slot].latency, states[slot].timeout) = (interval, latency, timeout)
                // LE Connection Update Complete (§7.7.65.3).
                let start = beginEvent(0x3E, 10)
                bytes.u8(0x03)
                bytes.u8(0x00)
                bytes.u16(UInt16(slot & 0x0FFF))
                bytes.u16(interval)
                bytes.u16(latency)
                bytes.u16(timeout)
                endEvent(start, record.timestamp)
            case .channelMap(let map):
                links[slot].channelMap = map
            case .phy(let toPeripheral, let toCentral):
                // LE PHY Update Complete (§7.7.65.12): this host's transmitter and receiver PHYs
                // (0 in the PDU: unchanged, written as LE 1M's 1 when never changed before).
                let tx = host == .central ? toPeripheral : toCentral
                let rx = host == .central ? toCentral : toPeripheral
                let start = beginEvent(0x3E, 6)
                bytes.u8(0x0C)
                bytes.u8(0x00)
                bytes.u16(UInt16(slot & 0x0FFF))
                bytes.u8(Self.phyNumber(tx))
                bytes.u8(Self.phyNumber(rx))
                endEvent(start, record.timestamp)
            }
        }
        states[slot].waiting = still
    }

    /// The PHY bit of an LL PDU (bit 0 LE 1M, 1 LE 2M, 2 LE Coded) as HCI numbers PHYs.
    static func phyNumber(_ bits: UInt8) -> UInt8 {
        if bits & 0x02 != 0 { return 2 }
        if bits & 0x04 != 0 { return 3 }
        return 1
    }

    private mutating func control(
        _ control: LLControlPDU, slot: Int, sender: AirHost, direction: Direction, _ record: borrowing CaptureRecord
    ) {
        let handle = UInt16(slot & 0x0FFF)
        switch control {
        case .connectionUpdate(_, _, let interval, let latency, let timeout, let instant):
            wait(
                slot,
                AirLink.Update(
                    record: record.index, instant: instant,
                    kind: .parameters(interval: interval, latency: latency, timeout: timeout)))
        case .channelMap(let map, let instant):
            wait(slot, AirLink.Update(record: record.index, instant: instant, kind: .channelMap(map)))
        case .phyUpdate(let toPeripheral, let toCentral, let instant):
            wait(
                slot,
                AirLink.Update(
                    record: record.index, instant: instant,
                    kind: .phy(centralToPeripheral: toPeripheral, peripheralToCentral: toCentral)))
        case .terminate(let reason):
            links[slot].terminatedBy = sender
            links[slot].terminateReason = reason
            if sender == host {
                // HCI Disconnect (§7.1.6): handle, reason.
                let start = bytes.count
                bytes.u16(0x0406)
                bytes.u8(3)
                bytes.u16(handle)
                bytes.u8(reason.rawValue)
                made.append(
                    Made(
                        kind: .command, direction: .sent, start: start, count: bytes.count - start,
                        time: record.timestamp))
                disconnect(slot, reason: .connectionTerminatedByLocalHost, record.timestamp)
            } else {
                disconnect(slot, reason: reason, record.timestamp)
            }
        case .encryptionRequest:
            states[slot].encryptionRequested = true
        case .startEncryptionRequest:
            states[slot].encryptionStarting = true
            links[slot].encrypted = true
        case .reject(let error), .rejectExtended(_, let error):
            if states[slot].encryptionRequested, !states[slot].encryptionStarting {
                if case .rejectExtended(let opcode, _) = control, opcode != .encReq { break }
                states[slot].encryptionRequested = false
                encryptionChange(slot, status: error, record.timestamp)
            }
        case .lengthRequest(let rxOctets, let rxTime, let txOctets, let txTime):
            states[slot].length[sender] = (rxOctets, rxTime, txOctets, txTime)
        case .lengthResponse(let rxOctets, let rxTime, let txOctets, let txTime):
            states[slot].length[sender] = (rxOctets, rxTime, txOctets, txTime)
            let other: AirHost = sender == .central ? .peripheral : .central
            guard let mine = states[slot].length[host],
                let theirs = states[slot].length[host == sender ? other : sender]
            else { break }
            // LE Data Length Change (§7.7.65.7): what this host may send (its Tx, the other's
            // Rx) and receive.
            let start = beginEvent(0x3E, 11)
            bytes.u8(0x07)
            bytes.u16(handle)
            bytes.u16(min(mine.2, theirs.0))
            bytes.u16(min(mine.3, theirs.1))
            bytes.u16(min(mine.0, theirs.2))
            bytes.u16(min(mine.1, theirs.3))
            endEvent(start, record.timestamp)
        default:
            break
        }
    }

    private mutating func wait(_ slot: Int, _ update: AirLink.Update) {
        links[slot].updates.append(update)
        states[slot].waiting.append(links[slot].updates.count - 1)
    }

    /// The peripheral's first encrypted PDU after LL_START_ENC_REQ (its LL_START_ENC_RSP): the
    /// encryption is on both ways.
    private mutating func encryptionStarted(_ slot: Int, _ record: borrowing CaptureRecord) {
        states[slot].encryptionStarting = false
        states[slot].encryptionRequested = false
        if states[slot].wasEncrypted {
            // Encryption Key Refresh Complete (§7.7.39): status, handle.
            let start = beginEvent(0x30, 3)
            bytes.u8(0x00)
            bytes.u16(UInt16(slot & 0x0FFF))
            endEvent(start, record.timestamp)
        } else {
            encryptionChange(slot, status: .success, record.timestamp)
        }
        states[slot].wasEncrypted = true
    }

    /// The sniffer's signal strength in dBm, 127 (not available, as HCI says it) without one.
    static func rssi(_ header: SnifferHeader?) -> Int8 {
        switch header {
        case .nordic(let header)?: Int8(clamping: header.rssi)
        case .rf(let header)? where header.signalPowerValid: header.signalPower
        default: 127
        }
    }

    /// LE Advertising Report (§7.7.65.2) for a legacy advertisement; LE Extended Advertising
    /// Report (§7.7.65.13) for an auxiliary one with data (AUX_ADV_IND, AUX_SCAN_RSP) and for each
    /// AUX_CHAIN_IND of its chain, as a controller reports a chain: Data_Status "incomplete, more
    /// data to come" on all but the last, "complete" on the last (data longer than one report
    /// holds, 229 bytes, is cut into several the same way).
    private mutating func advertisingReport(
        _ pdu: AdvertisingPDU, chain: AdvertisingChainLink?, rssi: Int8, _ time: Timestamp, record: Int
    ) {
        switch pdu.content {
        case .advertisement(let advertiser, _) where pdu.type.rawValue == 0, .directed(let advertiser, _):
            // Connectable advertising (ADV_IND, ADV_DIRECT_IND): a peripheral advertises so only
            // with no link to its central (legacy advertising is of one set).
            endLinks(of: advertiser, record, evidence: "advertised")
        default:
            break
        }
        switch pdu.content {
        case .advertisement(let advertiser, let data):
            // Event type: 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
            let eventType: UInt8
            switch pdu.type.rawValue {
            case 0: eventType = 0
            case 2: eventType = 3
            case 6: eventType = 2
            case 4: eventType = 4
            default: return
            }
            legacyReport(eventType, advertiser, random: pdu.txRandom, data.bytes, rssi: rssi, time)
        case .directed(let advertiser, _):
            legacyReport(
                1, advertiser, random: pdu.txRandom, UnsafeRawBufferPointer(start: nil, count: 0), rssi: rssi, time)
        case .extended(let payload):
            // AUX_ADV_IND, AUX_SCAN_RSP and AUX_CHAIN_IND carry data; ADV_EXT_IND only points to
            // them, AUX_SYNC_IND is periodic advertising, which a scan does not report, and
            // AUX_CONNECT_RSP (type 8) answers a connection request.
            guard pdu.isAuxiliary, pdu.type.rawValue == 7, pdu.auxiliaryKind != .sync else { return }
            var link: AdvertisingChainLink
            if let chain, chain.headKind != .sync {
                link = chain
            } else if pdu.auxiliaryKind != .chain {
                link = AdvertisingChainLink(
                    head: 0, part: 0, headKind: pdu.auxiliaryKind ?? .advertising, advertiser: payload.advertiser,
                    advertiserRandom: pdu.txRandom, target: payload.target, targetRandom: pdu.rxRandom,
                    advMode: payload.advMode,
                    setID: payload.setID, dataID: payload.dataID, txPower: payload.txPower, continues: false)
            } else {
                return  // a chain's PDU with nothing heard of its head
            }
            guard link.advertiser != nil else { return }
            let data = payload.data.bytes
            var offset = 0
            repeat {
                let count = min(229, data.count - offset)
                let more = offset + count < data.count || link.continues
                extendedReport(
                    link, status: more ? 1 : 0, UnsafeRawBufferPointer(rebasing: data[offset..<offset + count]),
                    rssi: rssi, time)
                offset += count
            } while offset < data.count
        default:
            break
        }
    }

    /// A chain whose next PDU did not come: the controller ends it with a report of no data and
    /// Data_Status "incomplete, data truncated, no more to come".
    private mutating func chainLost(_ link: AdvertisingChainLink, rssi: Int8, _ time: Timestamp) {
        guard link.headKind != .sync, link.advertiser != nil else { return }
        extendedReport(link, status: 2, UnsafeRawBufferPointer(start: nil, count: 0), rssi: rssi, time)
    }

    /// One LE Extended Advertising Report (§7.7.65.13) for the chain of `link`, with `data` and
    /// Data_Status `status` (0 complete, 1 more to come, 2 truncated).
    private mutating func extendedReport(
        _ link: AdvertisingChainLink, status: UInt16, _ data: UnsafeRawBufferPointer, rssi: Int8, _ time: Timestamp
    ) {
        guard let advertiser = link.advertiser else { return }
        var eventType = UInt16(link.advMode & 0b11)  // connectable, scannable
        if link.target != nil { eventType |= 0b100 }
        if link.headKind == .scanResponse { eventType |= 0b1000 }
        eventType |= status << 5
        let start = beginEvent(0x3E, UInt8(26 + data.count))
        bytes.u8(0x0D)
        bytes.u8(1)
        bytes.u16(eventType)
        bytes.u8(link.advertiserRandom ? 1 : 0)
        for byte in advertiser.littleEndianBytes { bytes.u8(byte) }
        bytes.u8(1)  // primary PHY: not in the auxiliary PDU; LE 1M
        bytes.u8(1)  // secondary PHY: the sniffer's, LE 1M when it does not say
        bytes.u8(link.setID ?? 0xFF)
        bytes.u8(link.txPower.map { UInt8(bitPattern: $0) } ?? 0x7F)
        bytes.u8(UInt8(bitPattern: rssi))
        bytes.u16(0)  // no periodic advertising
        bytes.u8(link.targetRandom ? 1 : 0)
        for byte in (link.target ?? BluetoothAddress(rawValue: 0)).littleEndianBytes { bytes.u8(byte) }
        bytes.u8(UInt8(data.count))
        bytes.append(data)
        endEvent(start, time)
    }

    private mutating func legacyReport(
        _ eventType: UInt8, _ advertiser: BluetoothAddress, random: Bool, _ data: UnsafeRawBufferPointer, rssi: Int8,
        _ time: Timestamp
    ) {
        guard data.count <= 31 else { return }
        let start = beginEvent(0x3E, UInt8(12 + data.count))
        bytes.u8(0x02)
        bytes.u8(1)
        bytes.u8(eventType)
        bytes.u8(random ? 1 : 0)
        for byte in advertiser.littleEndianBytes { bytes.u8(byte) }
        bytes.u8(UInt8(data.count))
        bytes.append(data)
        bytes.u8(UInt8(bitPattern: rssi))
        endEvent(start, time)
    }

    /// Encryption Change (§7.7.8): status, handle, on (1, AES-CCM) or off.
    private mutating func encryptionChange(_ slot: Int, status: HCIStatus, _ time: Timestamp) {
        let start = beginEvent(0x08, 4)
        bytes.u8(status.rawValue)
        bytes.u16(UInt16(slot & 0x0FFF))
        bytes.u8(status == .success ? 1 : 0)
        endEvent(start, time)
    }

    /// Disconnection Complete (§7.7.5): status, handle, reason. The link is closed.
    private mutating func disconnect(_ slot: Int, reason: HCIStatus, _ time: Timestamp) {
        states[slot].open = false
        let start = beginEvent(0x05, 4)
        bytes.u8(0x00)
        bytes.u16(UInt16(slot & 0x0FFF))
        bytes.u8(reason.rawValue)
        endEvent(start, time)
    }

    /// Ends every open link of `peripheral`, which something at `record` shows over (an
    /// inference, ``AirLink/endInferred``): at its last packet heard, as this host's HCI would have
    /// told it, with the reason of the terminate that most likely ended it (its last encrypted
    /// control PDU: Remote User Terminated from the peer, Connection Terminated By Local Host
    /// from this host; Remote User Terminated when none was heard).
    private mutating func endLinks(of peripheral: BluetoothAddress, _ record: Int, evidence: String) {
        for slot in states.indices where states[slot].open && links[slot].peripheral == peripheral {
            let control = states[slot].unreadControl
            links[slot].endInferred = AirLink.InferredEnd(
                evidenceRecord: record, evidence: evidence, lastControlRecord: control?.record,
                lastControlSender: control?.sender)
            let reason: UInt8 = control?.sender == host ? 0x16 : 0x13
            disconnect(slot, reason: HCIStatus(rawValue: reason), Timestamp(microseconds: states[slot].lastHeard))
        }
    }

    /// Closes, with a supervision timeout, every open link silent for longer than its
    /// supervision timeout before `now`.
    private mutating func timeouts(before now: Int64) {
        for slot in states.indices where states[slot].open && states[slot].timeout > 0 {
            let end = states[slot].lastHeard + Int64(states[slot].timeout) * 10_000
            if now > end {
                links[slot].supervisionTimeoutInferred = true
                disconnect(slot, reason: HCIStatus(rawValue: 0x08), Timestamp(microseconds: end))
            }
        }
    }

    private mutating func beginEvent(_ code: UInt8, _ length: UInt8) -> Int {
        let start = bytes.count
        bytes.u8(code)
        bytes.u8(length)
        return start
    }

    private mutating func endEvent(_ start: Int, _ time: Timestamp) {
        made.append(Made(kind: .event, direction: .received, start: start, count: bytes.count - start, time: time))
    }
}

/// A growable byte buffer that keeps its storage across records (`AirTranslator`'s records'
/// bytes): it allocates only when a record needs more than any before it.
struct ByteStore {
    private final class Storage {
        var bytes: UnsafeMutableRawBufferPointer
        init(_ capacity: Int) { bytes = .allocate(byteCount: capacity, alignment: 8) }
        deinit { bytes.deallocate() }
    }
    private let storage = Storage(1024)
    var count = 0

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(storage.bytes) }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > storage.bytes.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(storage.bytes.count * 2, count + extra), alignment: 8)
        grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage.bytes[0..<count]))
        storage.bytes.deallocate()
        storage.bytes = grown
    }

    mutating func u8(_ value: UInt8) {
        reserve(1)
        storage.bytes[count] = value
        count += 1
    }

    mutating func u16(_ value: UInt16) {
        u8(UInt8(value & 0xFF))
        u8(UInt8(value >> 8))
    }

    mutating func append(_ data: UnsafeRawBufferPointer) {
        reserve(data.count)
        for byte in data {
            storage.bytes[count] = byte
            count += 1
        }
    }
}
