import ATT
import HCI
import Wire

/// Decodes the records of an over-the-air capture (pcap link types 251, 256, 272): the sniffer
/// header, the link-layer packet, and on each connection its LL control PDUs and the L2CAP
/// frames its data PDUs carry (reassembled across PDUs, LLID 0b10 starting one and 0b01
/// continuing it), with ATT and SMP on top.
///
/// It keeps what decoding needs across records: the connections by access address (from the
/// CONNECT_IND that made them, or from their first data PDU when the capture joined late), each
/// side's last sequence number (to recognise retransmissions), the timing that tells the central's
/// packets from the peripheral's where the sniffer does not say, the ATT request each side has
/// outstanding, and the reassembly buffers. Decoding a record allocates nothing once its
/// connection is known and its direction has reassembled a frame once; faults build their
/// message only when they happen.
package struct LinkLayerDecoder {
    package let linkType: Int32
    private var connections: [State] = []
    private var reassembler = ACLReassembler()
    /// The long-term keys to try on encrypted connections (`--ltk`), each 16 octets least
    /// significant first; the first whose MIC checks out on a connection's first encrypted PDU
    /// decrypts that connection.
    private let keys: [[UInt8]]
    /// Where a decrypted payload is written: valid, as the record's other views, until the next
    /// record is decoded.
    private let plaintext = PlaintextBuffer()
    /// The AuxPtrs waiting for their PDU, and the chains being joined.
    private var chains = AdvertisingChains()
    /// The periodic advertising trains announced by a SyncInfo: their access address and
    /// CRCInit, the latest ``maximumTrains`` of them.
    private var periodicTrains: [(accessAddress: UInt32, crcInit: UInt32, advertiser: (BluetoothAddress, Bool)?)] = []
    static let maximumTrains = 16
    /// The access addresses of the CISes LL_CIS_INDs established (Core 6.0, Vol 6, Part B,
    /// §2.4.2.31), the latest ``maximumTrains`` of them.
    private var cisAccessAddresses: [UInt32] = []

    /// Whether a packet on the data channels is an isochronous one: the LE RF header's PDU type
    /// says so (4, 5 CIS; 6 BIS), or its access address is a CIS's.
    private func isochronousKind(_ accessAddress: UInt32, _ header: SnifferHeader?) -> IsochronousPDU.Kind? {
        if case .rf(let rf) = header {
            switch rf.pduType {
            case 4, 5: return .connected
            case 6: return .broadcast
            default: break
            }
        }
        return cisAccessAddresses.contains(accessAddress) ? .connected : nil
    }

    /// What the decoder keeps per connection.
    private struct State {
        var info: LinkLayerConnection
        /// Start time (µs) and air time (µs) of the last packet heard on the connection, and who sent it.
        var lastStart: Int64?
        var lastAirTime: Int64 = 0
        var lastDirection: LinkLayerDirection?
        /// Per side (0 central to peripheral, 1 peripheral to central): the last SN and NESN
        /// heard (-1: none yet), and a hash of that PDU's LLID and payload.
        var lastSN: (Int8, Int8) = (-1, -1)
        var lastNESN: (Int8, Int8) = (-1, -1)
        var lastContent: (UInt64, UInt64) = (0, 0)
        /// Per side: the record of the first copy of that PDU.
        var lastRecord: (Int, Int) = (0, 0)
        /// An LL_START_ENC_REQ has been seen: from then on, payloads are encrypted (Core 6.0,
        /// Vol 6, Part B, §5.1.3.1; an Empty PDU never is, §5.1.3).
        var encrypted = false
        /// Per side (the central's end is ``ATTEnd/one``): the ATT request and the indication it
        /// sent that have not been answered.
        var transactions = ATTTransactions<LinkLayerATTRequest>()
        /// LL_ENC_REQ's SKDm and IVm, until LL_ENC_RSP completes the session's inputs.
        var encryptionRequest: (skd: UInt64, iv: UInt32)?
        /// With keys given: one cipher per key for the encryption under way, and which of them
        /// decrypts it once one has (nil: none has yet).
        var ciphers: [LinkLayerCipher] = []
        var cipher: Int?
        /// Per side: the packet counter of its next new encrypted PDU (Core 6.0, Vol 6, Part E,
        /// §2.1; a retransmission repeats the one before).
        var nextCounter: (UInt64, UInt64) = (0, 0)
    }

    /// The inter-frame space, Core 6.0, Vol 6, Part B, §4.1.1, and how far from it a sniffer's
    /// clock may put the answer to a packet. Measured on the public Ubertooth capture
    /// (mikeryan-crackle-le-sc.pcapng, in the shared folder's captures/public/): answers come
    /// 150 µs ± 260 µs after the packet they answer ends; with a
    /// tolerance of 100 µs, 8 of its 18 ATT responses came out as the central's, with 300 µs 2,
    /// and every SMP command on the side its pairing procedure puts it.
    static let interFrameSpace: Int64 = 150
    /// Core 6.0, Vol 6, Part B, §3.1.1: the CRCInit of the primary advertising channels.
    static let advertisingCRCInit: UInt32 = 0x55_5555
    static let timingTolerance: Int64 = 300
    /// How many encrypted PDUs of one side the sniffer may have missed in a row and decryption
    /// still find the packet counter: a counter is tried up to this far past the expected one.
    static let missedPDUs = 8

    /// `keys`: long-term keys (16 octets each, least significant first) to decrypt encrypted
    /// connections with; none by default, and then no cipher is ever made.
    package init(linkType: Int32, keys: [[UInt8]] = []) {
        self.linkType = linkType
        self.keys = keys
    }

    /// The connections seen so far, in the order they were first seen.
    package var knownConnections: [LinkLayerConnection] { connections.map(\.info) }

    /// Decodes the record `index` whose bytes (pseudo-header included) are `bytes`, heard at `time`.
    package mutating func decode(_ bytes: UnsafeRawBufferPointer, time: Timestamp, index: Int) -> LinkLayerRecord {
        var record = LinkLayerRecord()
        let packetOffset: Int
        do throws(DecodeError) {
            let split = try SnifferHeader.decode(bytes, linkType: linkType)
            record.snifferHeader = split.header
            packetOffset = split.packetOffset
        } catch {
            record.fault = located(error, index: index)
            return record
        }
        let header = record.snifferHeader
        let packetBytes = UnsafeRawBufferPointer(rebasing: bytes[packetOffset...])
        // A periodic advertising train's PDUs (AUX_SYNC_IND, and its AUX_CHAIN_INDs) go on the
        // access address its SyncInfo gave, on a secondary channel.
        var periodic: UInt32?
        var trainAdvertiser: (BluetoothAddress, Bool)?
        if !periodicTrains.isEmpty, packetBytes.count >= 4 {
            let accessAddress = packetBytes.loadUnaligned(as: UInt32.self).littleEndian
            if let train = periodicTrains.first(where: { $0.accessAddress == accessAddress }) {
                periodic = train.crcInit
                trainAdvertiser = train.advertiser
            }
        }
        let packet: LinkLayerPacket
        do throws(DecodeError) {
            packet = try LinkLayerPacket.decode(
                packetBytes, isAdvertising: periodic != nil ? true : header?.saysAdvertising, phy: header?.phy ?? .le1M,
                channel: header?.channelIndex ?? (periodic != nil ? 0 : nil))
        } catch {
            record.fault = located(error, index: index, plus: packetOffset)
            return record
        }
        record.packet = packet
        if let said = header?.crcOK {
            (record.crcOK, record.crcCheckedBySniffer) = (said, true)
        } else if case .advertising = packet.pdu {
            record.crcOK = packet.crcMatches(initial: periodic ?? Self.advertisingCRCInit)
        } else if let slot = latestConnection(packet.accessAddress),
            let initial = connections[slot].info.parameters?.crcInit
        {
            record.crcOK = packet.crcMatches(initial: initial)
        }
        let crcBad = record.crcOK == false
        let start = startTime(header, time)
        if !chains.pointers.isEmpty { record.lostChains = chains.expire(before: start) }
        switch packet.pdu {
        case .advertising(var pdu):
            if !crcBad {
                let followed = chains.follow(
                    &pdu, start: start, channel: header?.channelIndex,
                    auxType: header?.auxType ?? (periodic != nil ? 2 : nil),
                    phy: header?.phy ?? .le1M, index: index)
                (record.chain, record.chainData) = followed
                // An AUX_SYNC_IND names no advertiser: the AUX_ADV_IND that announced its train did.
                if let trainAdvertiser, var chain = record.chain, chain.part == 0, chain.advertiser == nil {
                    (chain.advertiser, chain.advertiserRandom) = trainAdvertiser
                    record.chain = chain
                }
                if case .extended(let payload) = pdu.content, let sync = payload.syncInfo {
                    followTrain(sync, advertiser: payload.advertiser.map { ($0, pdu.txRandom) })
                }
                record.packet?.pdu = .advertising(pdu)
            }
            if case .advertisement(_, let data) = pdu.content {
                record.fault = check(data, index: index, plus: packetOffset)
            }
            // A chain's PDUs may cut AD structures anywhere: only data that is whole is checked.
            if case .extended(let payload) = pdu.content, payload.auxPointer == nil || !pdu.isAuxiliary,
                pdu.auxiliaryKind != .chain, record.chain.map({ $0.part == 0 }) ?? true
            {
                record.fault = check(payload.data, index: index, plus: packetOffset)
            }
            if case .connect(let initiator, let advertiser, let parameters) = pdu.content, !crcBad {
                let info = LinkLayerConnection(
                    index: connections.count, accessAddress: parameters.accessAddress, central: initiator,
                    centralRandom: pdu.txRandom, peripheral: advertiser, peripheralRandom: pdu.rxRandom,
                    parameters: parameters, connectRecord: index)
                connections.append(State(info: info))
                record.connection = info
            }
        case .data(let pdu):
            decodeData(
                pdu, packet: packet, header: header, time: time, index: index, packetOffset: packetOffset,
                crcBad: crcBad, into: &record)
        }
        return record
    }

    private mutating func decodeData(
        _ received: DataChannelPDU, packet: LinkLayerPacket, header: SnifferHeader?, time: Timestamp, index: Int,
        packetOffset: Int,
        crcBad: Bool, into record: inout LinkLayerRecord
    ) {
        var pdu = received
        if let kind = isochronousKind(packet.accessAddress, header) {
            record.direction = header?.direction
            record.directionSource = record.direction == nil ? nil : .header
            do throws(DecodeError) {
                record.isochronous = try IsochronousPDU.decode(packet.protectedBytes, kind: kind)
            } catch {
                record.fault = located(error, index: index, plus: packetOffset + packet.pduOffset)
            }
            return
        }
        guard let slot = connectionSlot(for: packet.accessAddress) else {
            // Past the limit of connections joined late: the PDU alone, with no state kept.
            record.direction = header?.direction
            record.directionSource = record.direction == nil ? nil : .header
            if pdu.llid == .control, !crcBad { record.control = try? LLControlPDU.decode(pdu.payload) }
            return
        }
        record.connection = connections[slot].info
        // Who sent it: the sniffer's word, else the timing on this connection.
        let start = startTime(header, time)
        let airTime = Self.airTime(length: pdu.length, phy: header?.phy ?? .le1M)
        if let said = header?.direction {
            record.direction = said
            record.directionSource = .header
        } else {
            var inferred = LinkLayerDirection.centralToPeripheral
            if let last = connections[slot].lastStart, let previous = connections[slot].lastDirection,
                start - last <= connections[slot].lastAirTime + Self.interFrameSpace + Self.timingTolerance,
                start >= last
            {
                inferred = previous.reversed
            } else {
                // A packet that opens an event is the central's, unless the sniffer missed the
                // central's and this is the peripheral's answer. Two signs say so: an L2CAP
                // continuation when only the peripheral has a frame unfinished; and, after a
                // packet of the peripheral, an SN other than that packet's NESN (each side sends
                // the SN the other last asked for, Core 6.0, Vol 6, Part B, §4.5.9, so the central's
                // next packet carries it).
                let centralGathering = reassembler.isGathering(handle: handle(slot), direction: .sent)
                let peripheralGathering = reassembler.isGathering(handle: handle(slot), direction: .received)
                if pdu.llid == .continuation, !pdu.isEmpty, centralGathering != peripheralGathering {
                    if peripheralGathering { inferred = .peripheralToCentral }
                } else if connections[slot].lastDirection == .peripheralToCentral, connections[slot].lastNESN.1 >= 0,
                    Int8(pdu.sn) != connections[slot].lastNESN.1
                {
                    inferred = .peripheralToCentral
                }
            }
            record.direction = inferred
            record.directionSource = .timing
        }
        if crcBad { return }
        connections[slot].lastStart = start
        connections[slot].lastAirTime = airTime
        connections[slot].lastDirection = record.direction
        var side = record.direction == .centralToPeripheral ? 0 : 1
        // A retransmission repeats the sender's last PDU: its SN, LLID and payload. (The SN alone
        // is not enough: a sniffer misses packets, and two new PDUs a packet apart share an SN.)
        let sn = Int8(pdu.sn)
        let content = Self.contentHash(pdu)
        if side == 0 {
            record.isRetransmission = connections[slot].lastSN.0 == sn && connections[slot].lastContent.0 == content
            if record.isRetransmission {
                record.repeats = connections[slot].lastRecord.0
            } else {
                connections[slot].lastRecord.0 = index
            }
            (connections[slot].lastSN.0, connections[slot].lastContent.0) = (sn, content)
            connections[slot].lastNESN.0 = Int8(pdu.nesn)
        } else {
            record.isRetransmission = connections[slot].lastSN.1 == sn && connections[slot].lastContent.1 == content
            if record.isRetransmission {
                record.repeats = connections[slot].lastRecord.1
            } else {
                connections[slot].lastRecord.1 = index
            }
            (connections[slot].lastSN.1, connections[slot].lastContent.1) = (sn, content)
            connections[slot].lastNESN.1 = Int8(pdu.nesn)
        }
        let payloadOffset = packetOffset + pdu.payloadOffset
        // Ciphertext is shown as such: the sniffer's word where it gives one (the nRF Sniffer's
        // encrypted flag with its MIC check; the LE RF header's decrypted flag), else whether
        // encryption has started on the connection.
        // A payload no longer than a MIC cannot be ciphertext (an encrypted PDU carries at least
        // one octet and its 4-octet MIC): the central's unencrypted LL_PAUSE_ENC_RSP of a key
        // refresh, which ends encryption even where the peripheral's encrypted one could not be
        // read.
        if pdu.length > 0 {
            switch header {
            case .nordic(let nordic): record.isEncrypted = nordic.encrypted && nordic.micOK != true
            case .rf(let rf):
                record.isEncrypted =
                    connections[slot].encrypted && !rf.decrypted && pdu.length > LinkLayerCipher.micLength
            case nil: record.isEncrypted = connections[slot].encrypted && pdu.length > LinkLayerCipher.micLength
            }
        }
        if record.isEncrypted, !keys.isEmpty { side = decrypt(&pdu, slot: slot, side: side, into: &record) }
        if record.isEncrypted { return }
        switch pdu.llid {
        case .control:
            do throws(DecodeError) {
                record.control = try LLControlPDU.decode(pdu.payload)
            } catch {
                record.fault = located(error, index: index, plus: payloadOffset)
            }
            switch record.control {
            case .terminate: reassembler.reset(handle: handle(slot))
            case .cisIndication(let accessAddress, _, _, _, _):
                if !cisAccessAddresses.contains(accessAddress) {
                    if cisAccessAddresses.count >= Self.maximumTrains { cisAccessAddresses.removeFirst() }
                    cisAccessAddresses.append(accessAddress)
                }
            case .startEncryptionRequest:
                connections[slot].encrypted = true
                connections[slot].nextCounter = (0, 0)
            // The encryption pause of a key refresh (Core 6.0, Vol 6, Part B, §5.1.3.2): after
            // the peripheral's LL_PAUSE_ENC_RSP (encrypted) the link is unencrypted, the central's
            // LL_PAUSE_ENC_RSP included, until the next LL_START_ENC_REQ; LL_ENC_REQ and
            // LL_ENC_RSP then give the new session key's inputs.
            case .pauseEncryptionResponse:
                connections[slot].encrypted = false
            // (Only the central sends LL_ENC_REQ and only the peripheral LL_ENC_RSP: their
            // direction need not be known.)
            case .encryptionRequest(_, _, let skd, let iv):
                connections[slot].encryptionRequest = (skd, iv)
            case .encryptionResponse(let skd, let iv):
                if let request = connections[slot].encryptionRequest, !keys.isEmpty {
                    connections[slot].ciphers = keys.map {
                        LinkLayerCipher(
                            ltk: $0, skdCentral: request.skd, skdPeripheral: skd, ivCentral: request.iv,
                            ivPeripheral: iv)
                    }
                    connections[slot].cipher = nil
                }
            default: break
            }
        case .start, .continuation:
            guard !pdu.isEmpty, !record.isRetransmission else { return }
            let fragment = ACLPacket(
                handle: handle(slot), packetBoundary: pdu.llid == .start ? 0b10 : 0b01, data: pdu.payload)
            let outcome = reassembler.push(fragment, direction: side == 0 ? .sent : .received)
            if let lost = outcome.fault {
                record.lostFragments = Self.lost(lost, connection: slot, index: index, offset: payloadOffset)
            }
            guard let frame = outcome.frame else { return }
            frameLayers(frame, slot: slot, side: side, index: index, payloadOffset: payloadOffset, into: &record)
        default:
            break
        }
    }

    /// Keeps the train a SyncInfo announces (Core 6.0, Vol 6, Part B, §2.3.4.6: Sync Packet
    /// Offset and units (2 octets), Interval (2), ChM and SCA (5), AA (4), CRCInit (3), Event
    /// Counter (2)).
    private mutating func followTrain(_ sync: UnsafeRawBufferPointer, advertiser: (BluetoothAddress, Bool)?) {
        guard sync.count >= 16 else { return }
        let accessAddress = UInt32(sync[9]) | UInt32(sync[10]) << 8 | UInt32(sync[11]) << 16 | UInt32(sync[12]) << 24
        let crcInit = UInt32(sync[13]) | UInt32(sync[14]) << 8 | UInt32(sync[15]) << 16
        guard !periodicTrains.contains(where: { $0.accessAddress == accessAddress }) else { return }
        if periodicTrains.count >= Self.maximumTrains { periodicTrains.removeFirst() }
        periodicTrains.append((accessAddress, crcInit, advertiser))
    }

    /// Decrypts an encrypted PDU with the connection's cipher (the first that checks out, on its
    /// first encrypted PDU): on success `pdu` becomes the plaintext and the record is marked
    /// decrypted; on a MIC failure the record says so and stays encrypted. Returns the side that
    /// sent it (0 central, 1 peripheral): where the direction was only inferred from timing, the
    /// MIC, which covers the direction, decides it.
    ///
    /// The packet counter tried is the side's next one (a new PDU), the side's last one (a
    /// retransmission, or one the retransmission check could not recognise; Core 6.0, Vol 6,
    /// Part E, §2.1), then up to ``missedPDUs`` beyond the next (PDUs the sniffer missed).
    private mutating func decrypt(_ pdu: inout DataChannelPDU, slot: Int, side: Int, into record: inout LinkLayerRecord)
        -> Int
    {
        guard !connections[slot].ciphers.isEmpty else { return side }
        let out = plaintext.bytes
        let sides = record.directionSource == .timing ? [side, 1 - side] : [side]
        for candidate in sides {
            let next = candidate == 0 ? connections[slot].nextCounter.0 : connections[slot].nextCounter.1
            var counters: [UInt64] = record.isRetransmission && candidate == side ? [max(next, 1) - 1] : [next]
            if next > 0 { counters.append(next - 1) }
            counters += (1...Self.missedPDUs).map { next + UInt64($0) }
            let direction: LinkLayerDirection = candidate == 0 ? .centralToPeripheral : .peripheralToCentral
            for counter in counters where tryCiphers(pdu, slot: slot, counter: counter, direction: direction, into: out)
            {
                if counter >= next {
                    if candidate == 0 {
                        connections[slot].nextCounter.0 = counter + 1
                    } else {
                        connections[slot].nextCounter.1 = counter + 1
                    }
                }
                pdu.length -= LinkLayerCipher.micLength
                pdu.payload = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(out)[0..<pdu.length])
                record.packet?.pdu = .data(pdu)
                record.isEncrypted = false
                record.decrypted = true
                record.direction = direction
                return candidate
            }
        }
        // Not decrypted: counted as the new PDU of the side it seemed to come from.
        if !record.isRetransmission {
            if side == 0 { connections[slot].nextCounter.0 += 1 } else { connections[slot].nextCounter.1 += 1 }
        }
        record.micFailed = true
        return side
    }

    /// Whether the connection's cipher (or, before one has worked, any of its ciphers) decrypts
    /// `pdu` with this counter and direction into `out`.
    private mutating func tryCiphers(
        _ pdu: DataChannelPDU, slot: Int, counter: UInt64, direction: LinkLayerDirection,
        into out: UnsafeMutableRawBufferPointer
    ) -> Bool {
        if let chosen = connections[slot].cipher, chosen >= 0 {
            return connections[slot].ciphers[chosen].decrypt(
                pdu.payload, header: pdu.header, counter: counter, direction: direction, into: out)
        }
        for (index, cipher) in connections[slot].ciphers.enumerated()
        where cipher.decrypt(pdu.payload, header: pdu.header, counter: counter, direction: direction, into: out) {
            connections[slot].cipher = index
            return true
        }
        return false
    }

    /// L2CAP, then ATT or SMP, of a complete frame.
    private mutating func frameLayers(
        _ frame: UnsafeRawBufferPointer, slot: Int, side: Int, index: Int, payloadOffset: Int,
        into record: inout LinkLayerRecord
    ) {
        do throws(DecodeError) {
            let l2cap = try L2CAPFrame.decode(frame)
            record.l2cap = l2cap
            if l2cap.channel == .att {
                let pdu = try ATTPDU.decode(l2cap.payload)
                record.att = pdu
                track(pdu, slot: slot, side: side, index: index, into: &record)
            } else if l2cap.channel == .smp {
                record.smp = try SMPPDU.decode(l2cap.payload)
            }
        } catch {
            record.fault = located(error, index: index, plus: error.layer == .l2cap ? payloadOffset : payloadOffset + 4)
        }
    }

    /// Pairs ATT answers with the requests and indications they answer (``ATTTransactions``).
    private mutating func track(_ pdu: ATTPDU, slot: Int, side: Int, index: Int, into record: inout LinkLayerRecord) {
        let method = pdu.opcode.method
        let end: ATTEnd = side == 0 ? .one : .other
        switch method {
        case .request, .indication:
            let request = LinkLayerATTRequest(opcode: pdu.opcode, handle: pdu.handle, record: index)
            connections[slot].transactions.begin(request, method, from: end)
        case .response, .confirmation:
            record.answering = connections[slot].transactions.answer(method, from: end)
        default:
            break
        }
    }

    /// FNV-1a over a data PDU's LLID and payload.
    static func contentHash(_ pdu: DataChannelPDU) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        hash = (hash ^ UInt64(pdu.llid.rawValue)) &* 0x100_0000_01B3
        for byte in pdu.payload { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    /// The reassembly handle of a connection: its index, in the 12 bits a handle has.
    private func handle(_ slot: Int) -> UInt16 { UInt16(slot & 0x0FFF) }

    /// How many connections with no CONNECT_IND (joined late, or noise on an unknown access
    /// address) are tracked; past it, such PDUs are decoded alone. It bounds what garbage can
    /// make the decoder keep (each connection may hold two 64 KiB reassembly buffers). A
    /// CONNECT_IND always makes one.
    package static let maximumLateConnections = 64
    private var lateConnections = 0

    /// The latest connection with `accessAddress` (an address may be reused later). A plain
    /// loop: a few connections, searched once a packet, with no closure to allocate.
    private func latestConnection(_ accessAddress: UInt32) -> Int? {
        var slot = connections.count - 1
        while slot >= 0 {
            if connections[slot].info.accessAddress == accessAddress { return slot }
            slot -= 1
        }
        return nil
    }

    private mutating func connectionSlot(for accessAddress: UInt32) -> Int? {
        if let slot = latestConnection(accessAddress) { return slot }
        guard lateConnections < Self.maximumLateConnections else { return nil }
        lateConnections += 1
        connections.append(State(info: LinkLayerConnection(index: connections.count, accessAddress: accessAddress)))
        return connections.count - 1
    }

    /// The packet's start in µs: the nRF Sniffer's own timestamp (version 3) where there is one,
    /// the record's time otherwise.
    private func startTime(_ header: SnifferHeader?, _ time: Timestamp) -> Int64 {
        if case .nordic(let nordic) = header, nordic.protocolVersion >= 3 { return Int64(nordic.time) }
        return time.microseconds
    }

    /// How long a data PDU of `length` payload bytes is on the air, in µs (preamble, access
    /// address, header, payload, CRC; Core 6.0, Vol 6, Part B, §2.1). The coded PHY's is taken as
    /// S=8's.
    static func airTime(length: Int, phy: LinkLayerPHY) -> Int64 {
        switch phy {
        case .le2M: Int64(2 + 4 + 2 + length + 3) * 4
        case .leCoded: 80 + 256 + 16 + 24 + Int64(2 + length + 3) * 64 + 24
        default: Int64(1 + 4 + 2 + length + 3) * 8
        }
    }

    /// The reassembler's loss, told for a connection rather than an HCI handle.
    @inline(never)
    private static func lost(_ fault: DecodeError, connection: Int, index: Int, offset: Int) -> DecodeError {
        let continuation = fault.expected.hasPrefix("a start")
        return DecodeError(
            layer: .linkLayer, offset: offset,
            expected: continuation
                ? "an LL data start (LLID 0b10) before this continuation on connection \(connection) (the start was lost, or came before the capture began)"
                : "the rest of the L2CAP frame started earlier on connection \(connection) (it was lost)",
            recordIndex: index)
    }

    private func located(_ error: DecodeError, index: Int, plus offset: Int = 0) -> DecodeError {
        var fault = error
        fault.offset += offset
        fault.recordIndex = index
        return fault
    }

    private func check(_ data: AdvertisingData, index: Int, plus offset: Int) -> DecodeError? {
        do throws(DecodeError) {
            _ = try data.structures()
            return nil
        } catch {
            return located(error, index: index, plus: offset)
        }
    }
}

/// The decoder's plaintext buffer: one data PDU's largest payload (251 octets), allocated once.
private final class PlaintextBuffer {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
    deinit { bytes.deallocate() }
}
