import HCI
import Wire

/// Where an auxiliary advertising PDU stands in its chain: the PDUs an advertiser links with
/// AuxPtr fields (Core 6.0, Vol 6, Part B, §2.3.4.5) to send more data than one PDU holds
/// (ADV_EXT_IND → AUX_ADV_IND → AUX_CHAIN_IND → …, or AUX_SCAN_RSP → AUX_CHAIN_IND → …), with what
/// the chain's first PDU with data said of the advertiser (an AUX_CHAIN_IND carries no AdvA).
package struct AdvertisingChainLink: Hashable, Sendable {
    /// The record (0-based) whose AuxPtr led to this PDU; nil for a head the capture reached
    /// without one (an AUX_SCAN_RSP, or an AUX_ADV_IND whose ADV_EXT_IND was not heard).
    package var previous: Int?
    /// The record of the chain's head: its AUX_ADV_IND, AUX_SCAN_RSP or AUX_SYNC_IND.
    package var head: Int
    /// 0 for the head, 1 for the first AUX_CHAIN_IND after it, and so on.
    package var part: Int
    package var headKind: AuxiliaryKind
    package var advertiser: BluetoothAddress?
    package var advertiserRandom = false
    package var target: BluetoothAddress?
    package var targetRandom = false
    /// The head's AdvMode: 0 neither, 1 connectable, 2 scannable.
    package var advMode: UInt8 = 0
    package var setID: UInt8?
    package var dataID: UInt16?
    package var txPower: Int8?
    /// This PDU has an AuxPtr: more of the chain follows.
    package var continues = false

    package init(
        previous: Int? = nil, head: Int, part: Int, headKind: AuxiliaryKind, advertiser: BluetoothAddress?,
        advertiserRandom: Bool = false, target: BluetoothAddress? = nil, targetRandom: Bool = false, advMode: UInt8 = 0,
        setID: UInt8? = nil, dataID: UInt16? = nil, txPower: Int8? = nil, continues: Bool = false
    ) {
        (self.previous, self.head, self.part, self.headKind, self.advertiser) = (
            previous, head, part, headKind, advertiser
        )
        (self.advertiserRandom, self.target, self.targetRandom, self.advMode) = (
            advertiserRandom, target, targetRandom, advMode
        )
        (self.setID, self.dataID, self.txPower, self.continues) = (setID, dataID, txPower, continues)
    }
}

/// What ``LinkLayerDecoder`` keeps to follow advertising chains: the AuxPtrs not yet answered,
/// the last AUX_SCAN_REQ (an AUX_SCAN_RSP answers it one inter-frame space later), and a buffer
/// per chain in flight to join its data in.
///
/// Bounded: at most ``maximumPointers`` pointers wait at a time (the oldest goes first), and a
/// chain's data stops growing at ``maximumData`` bytes (Core 6.0, Vol 4, Part E, §7.8.54: the
/// largest advertising data a host may set). The buffers are allocated once and reused.
struct AdvertisingChains {
    static let maximumPointers = 16
    static let maximumData = 1650
    /// How far from the time an AuxPtr gives the PDU may start and still be the one it points
    /// to, past the offset unit's rounding: the sniffer's clock (as for the inter-frame space).
    static let tolerance: Int64 = 300

    struct Pointer {
        var earliest: Int64
        var latest: Int64
        var channel: UInt8
        var dataInfo: UInt16?
        var record: Int
        /// The chain so far; nil for an ADV_EXT_IND's pointer (its AUX_ADV_IND is the head).
        var chain: AdvertisingChainLink?
        var buffer: Int?
    }

    private(set) var pointers: [Pointer] = []
    private var scanRequest: (advertiser: BluetoothAddress, end: Int64)?
    private let buffers = ChainBuffers()

    /// The chains whose next PDU was due before `now` and not heard: their last link.
    mutating func expire(before now: Int64) -> [AdvertisingChainLink] {
        guard !pointers.isEmpty else { return [] }
        var lost: [AdvertisingChainLink] = []
        var index = 0
        while index < pointers.count {
            if pointers[index].latest < now {
                let pointer = pointers.remove(at: index)
                if let chain = pointer.chain { lost.append(chain) }
                if let buffer = pointer.buffer { buffers.release(buffer) }
            } else {
                index += 1
            }
        }
        return lost
    }

    /// Follows an advertising PDU heard undamaged at `start` (µs) on `channel`: names a type 7
    /// PDU on a secondary channel by the pointer that led to it (or the sniffer's `auxType`),
    /// links it into its chain, and keeps its own AuxPtr. Returns its link and, on a chain's last
    /// PDU after a head that continued, the chain's whole data (a view valid until the next call).
    mutating func follow(
        _ pdu: inout AdvertisingPDU, start: Int64, channel: UInt8?, auxType: UInt8?, phy: LinkLayerPHY, index: Int
    ) -> (link: AdvertisingChainLink?, data: AdvertisingData?) {
        if pdu.type.rawValue == 3, pdu.isAuxiliary, case .scanRequest(_, let advertiser) = pdu.content {
            scanRequest = (advertiser, start + LinkLayerDecoder.airTime(length: pdu.length, phy: phy))
            return (nil, nil)
        }
        guard pdu.type.rawValue == 7, case .extended(let payload) = pdu.content else { return (nil, nil) }
        guard pdu.isAuxiliary else {
            // ADV_EXT_IND: its AuxPtr leads to the AUX_ADV_IND, the head.
            if let aux = payload.auxPointer {
                point(aux, from: start, length: pdu.length, phy: phy, payload, index, chain: nil, buffer: nil)
            }
            return (nil, nil)
        }
        let matched = match(start: start, channel: channel, dataInfo: payload.dataInfo)
        var kind = auxType.flatMap(AuxiliaryKind.init(rawValue:))
        if kind == nil, let matched {
            kind = matched.chain == nil ? .advertising : .chain
        }
        if kind == nil, let request = scanRequest, payload.advertiser == request.advertiser,
            start >= request.end, start - request.end <= LinkLayerDecoder.interFrameSpace + Self.tolerance
        {
            kind = .scanResponse
        }
        scanRequest = nil
        pdu.auxiliaryKind = kind
        var link: AdvertisingChainLink
        var buffer: Int?
        var whole: AdvertisingData?
        if kind == .chain {
            guard let matched, var chain = matched.chain else {
                if let buffer = matched?.buffer { buffers.release(buffer) }
                return (nil, nil)
            }
            chain.previous = matched.record
            chain.part += 1
            chain.continues = payload.auxPointer != nil
            link = chain
            buffer = matched.buffer
            if let buffer {
                buffers.append(payload.data.bytes, to: buffer)
                if !link.continues {
                    whole = AdvertisingData(buffers.contents(buffer), layer: .linkLayer)
                    buffers.release(buffer)
                }
            }
        } else {
            if let buffer = matched?.buffer { buffers.release(buffer) }
            link = AdvertisingChainLink(
                previous: matched?.record, head: index, part: 0, headKind: kind ?? .advertising,
                advertiser: payload.advertiser,
                advertiserRandom: pdu.txRandom, target: payload.target, targetRandom: pdu.rxRandom,
                advMode: payload.advMode,
                setID: payload.setID, dataID: payload.dataID, txPower: payload.txPower,
                continues: payload.auxPointer != nil)
            if link.continues, let slot = buffers.acquire() {
                buffers.append(payload.data.bytes, to: slot)
                buffer = slot
            }
        }
        if let aux = payload.auxPointer, link.continues {
            point(aux, from: start, length: pdu.length, phy: phy, payload, index, chain: link, buffer: buffer)
        }
        return (link, whole)
    }

    /// The waiting pointer this PDU answers (removed): the same channel (where the sniffer says
    /// it), the same ADI where both have one, and a start within the pointer's window.
    private mutating func match(start: Int64, channel: UInt8?, dataInfo: UInt16?) -> Pointer? {
        for (index, pointer) in pointers.enumerated()
        where start >= pointer.earliest && start <= pointer.latest && (channel == nil || channel == pointer.channel)
            && (dataInfo == nil || pointer.dataInfo == nil || dataInfo == pointer.dataInfo)
        {
            return pointers.remove(at: index)
        }
        return nil
    }

    /// Keeps a pointer: the PDU it announces starts offset × unit after the start of the PDU
    /// that holds it (§2.3.4.5); the window allows for the unit's rounding, a sniffer that
    /// stamps a packet's end rather than its start, and clock drift (500 ppm at most, §4.2.2).
    private mutating func point(
        _ aux: ExtendedAdvertisingPayload.AuxPointer, from start: Int64, length: Int, phy: LinkLayerPHY,
        _ payload: ExtendedAdvertisingPayload, _ record: Int, chain: AdvertisingChainLink?, buffer: Int?
    ) {
        let unit: Int64 = aux.offsetUnits300 ? 300 : 30
        let offset = Int64(aux.offset) * unit
        let expected = start + offset
        let slack = unit + Self.tolerance + offset / 1000
        if pointers.count >= Self.maximumPointers {
            let dropped = pointers.removeFirst()
            if let buffer = dropped.buffer { buffers.release(buffer) }
        }
        pointers.append(
            Pointer(
                earliest: expected - slack,
                latest: expected + slack + LinkLayerDecoder.airTime(length: length, phy: phy),
                channel: aux.channel, dataInfo: payload.dataInfo, record: record, chain: chain, buffer: buffer))
    }
}

/// The chains' data buffers: ``AdvertisingChains/maximumPointers`` of them at most, each of
/// ``AdvertisingChains/maximumData`` bytes, allocated the first time a chain needs one.
private final class ChainBuffers {
    private var storage: [UnsafeMutableRawBufferPointer] = []
    private var counts: [Int] = []
    private var free: [Int] = []

    func acquire() -> Int? {
        if let slot = free.popLast() {
            counts[slot] = 0
            return slot
        }
        guard storage.count < AdvertisingChains.maximumPointers else { return nil }
        storage.append(.allocate(byteCount: AdvertisingChains.maximumData, alignment: 8))
        counts.append(0)
        return storage.count - 1
    }

    func release(_ slot: Int) {
        if !free.contains(slot) { free.append(slot) }
    }

    func append(_ bytes: UnsafeRawBufferPointer, to slot: Int) {
        let room = min(bytes.count, AdvertisingChains.maximumData - counts[slot])
        guard room > 0, let base = bytes.baseAddress else { return }
        UnsafeMutableRawBufferPointer(rebasing: storage[slot][counts[slot]..<counts[slot] + room])
            .copyMemory(from: UnsafeRawBufferPointer(start: base, count: room))
        counts[slot] += room
    }

    func contents(_ slot: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[slot][0..<counts[slot]])
    }

    deinit { for buffer in storage { buffer.deallocate() } }
}
