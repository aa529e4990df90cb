import LinkLayer
import TraceFiles
import Wire

/// The records that are not HCI packets: capture tools' notes and index records, and
/// over-the-air link-layer packets.
extension RedactorCore {
    /// A Linux monitor or PacketLogger record that is not an HCI packet, or an H4 record that
    /// is none (`type` nil).
    mutating func other(_ bytes: UnsafeMutableRawBufferPointer, type: CaptureRecord.SourceType?, note: () -> String?)
        -> String?
    {
        switch type {
        case .linuxMonitor(let opcode):
            switch opcode {
            case 0: address(bytes, 2)  // New Index: type, bus, address, name (the adapter's, "hci0")
            case 10: address(bytes, 0)  // Index Info: address, manufacturer
            case 1, 8, 9, 14, 15: break  // Delete, Open, Close Index; control channel opened, closed
            case 12, 13: textAddresses(bytes)  // system note; user logging
            case 16, 17: management(bytes, event: opcode == 17)
            default:
                tally.searchedOnly += 1
                searchKnown(bytes)
                textAddresses(bytes)
            }
        case .packetLogger(let type):
            switch type {
            case 0xF7...0xFE:
                // Syslog, kernel, kernel debug, error, power, note: text; config, new
                // controller: binary with text in it.
                if type >= 0xFD { tally.searchedOnly += 1 }
                searchKnown(bytes)
                textAddresses(bytes)
            case 0x0A where bytes.count >= 14 && bytes[0] & 0xFE == 0x80:
                linkLayerLog(bytes)
            default:
                // Fewer than 3 bytes hold nothing redact removes (a BR/EDR LAP is 3 bytes, a
                // passkey 4, an address 6): macOS's 0x0A `F0 00` / `F0 01`, iOS's 0x21 `01`.
                guard bytes.count < 3 else {
                    return "a PacketLogger record of type \(hex(type, digits: 1)), whose layout bletrace does not know"
                }
            }
        case nil:
            return "a record that is no HCI packet (\(note() ?? "unknown"))"
        }
        return nil
    }

    /// A BlueZ management command or event on the monitor's control channel: cookie (4),
    /// opcode or event code (2), parameters. The parameters are zeroed whole (they carry
    /// addresses, and keys as they are loaded and made) but a Command Complete or Status event's
    /// command opcode and status.
    mutating func management(_ bytes: UnsafeMutableRawBufferPointer, event: Bool) {
        guard bytes.count > 6 else { return }
        let code = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
        let start = event && (code == 0x0001 || code == 0x0002) ? min(bytes.count, 9) : 6
        let kind: SecretKind
        switch (event, code) {
        case (true, 0x0009), (false, 0x0012): kind = .linkKey  // New Link Key, Load Link Keys
        case (true, 0x000A), (false, 0x0013): kind = .longTermKey  // New Long Term Key, Load Long Term Keys
        case (true, 0x0018), (false, 0x0030): kind = .identityResolvingKey  // New IRK, Load IRKs
        case (true, 0x0019): kind = .signatureKey  // New CSRK
        default:
            secret(.management, bytes, start, bytes.count - start, found: false)
            return
        }
        secret(kind, bytes, start, bytes.count - start)
    }

    /// A PacketLogger 0x0A record of the layout iOS writes in sysdiagnose logs: a
    /// link-layer control PDU a connection sent (0x80) or received (0x81), as the controller
    /// logged it. Type (1), clock (4), the peer's address most significant byte first (6), the
    /// connection handle's low byte (1), a byte (0x04 in every record seen), the control PDU
    /// (opcode, parameters), a last byte. Formats/pklg.md, "Quirks met in the wild", gives the
    /// evidence.
    mutating func linkLayerLog(_ bytes: UnsafeMutableRawBufferPointer) {
        address(bytes, 5, mostSignificantFirst: true)
        linkLayerControl(UnsafeMutableRawBufferPointer(rebasing: bytes[13...]))
    }

    /// A link-layer control PDU, its opcode first (Core 6.0, Vol 6, Part B, §2.4.2): LL_ENC_REQ's
    /// Rand and EDIV zeroed (its SKDm and IVm, and LL_ENC_RSP's, go in the clear and make no key
    /// without the LTK); the known addresses looked for in the others (LL_PERIODIC_SYNC_IND
    /// carries the advertiser's).
    mutating func linkLayerControl(_ pdu: UnsafeMutableRawBufferPointer) {
        if pdu.first == 0x03 {
            secret(.centralIdentification, pdu, 1, 10)
        } else {
            searchKnown(pdu)
        }
    }

    /// An over-the-air packet: its sniffer header and link-layer packet read by the LinkLayer
    /// decoder from the bytes as they were (`original`), the fields changed in `bytes`, the CRC
    /// computed again.
    mutating func airPacket(
        _ bytes: UnsafeMutableRawBufferPointer, original: UnsafeRawBufferPointer, record: CaptureRecord
    )
        -> String?
    {
        let decoded = air!.decode(original, time: record.timestamp, index: record.index)
        guard let packet = decoded.packet, let base = original.baseAddress,
            let protectedStart = packet.protectedBytes.baseAddress
        else {
            return
                "an over-the-air packet that does not decode (\(decoded.fault.map { "\($0.expected)" } ?? "no link-layer packet"))"
        }
        let pduStart = protectedStart - base
        let pduEnd = pduStart + packet.protectedBytes.count
        let pdu = UnsafeMutableRawBufferPointer(rebasing: bytes[pduStart..<pduEnd])
        switch packet.pdu {
        case .advertising(let advertising):
            advertisingPDU(pdu, type: advertising.header & 0x0F, auxiliary: advertising.isAuxiliary)
        case .data(let data):
            if decoded.isochronous != nil || data.length == 0 || (decoded.isEncrypted && !decoded.decrypted) { break }
            guard let payloadStart = data.payload.baseAddress.map({ $0 - base }) else { break }
            let payload = UnsafeMutableRawBufferPointer(
                rebasing: bytes[payloadStart..<payloadStart + data.payload.count])
            let side: UInt64 =
                decoded.direction == .centralToPeripheral ? 0 : decoded.direction == .peripheralToCentral ? 1 : 2
            let key = UInt64(packet.accessAddress) | side << 32 | 1 << 40
            if decoded.isRetransmission, let last = lastAirPayload[key], last.original.elementsEqual(data.payload) {
                payload.copyBytes(from: last.written)
            } else {
                switch data.llid {
                case .control:
                    linkLayerControl(payload)
                case .start, .continuation:
                    if let reason = l2capFragment(
                        payload, start: data.llid == .start, stream: key,
                        connection: UInt64(packet.accessAddress) | 1 << 40, side: side)
                    {
                        return reason
                    }
                default:
                    break
                }
                lastAirPayload[key] = (Array(data.payload), Array(payload))
            }
        }
        crc(bytes, original: original, pdu: pduStart..<pduEnd, packet: packet, decoded: decoded)
        return nil
    }

    /// An advertising physical channel PDU (Core 6.0, Vol 6, Part B, §2.3): header (2), payload.
    mutating func advertisingPDU(_ pdu: UnsafeMutableRawBufferPointer, type: UInt8, auxiliary: Bool) {
        guard pdu.count > 2 else { return }
        let payload = UnsafeMutableRawBufferPointer(rebasing: pdu[2...])
        switch type {
        case 0x00, 0x02, 0x04, 0x06:  // ADV_IND, ADV_NONCONN_IND, SCAN_RSP, ADV_SCAN_IND: AdvA, AdvData
            address(payload, 0)
            advertisingData(payload, from: 6, to: payload.count, carry: nil)
        case 0x01, 0x03, 0x05:  // ADV_DIRECT_IND, (AUX_)SCAN_REQ, CONNECT_IND / AUX_CONNECT_REQ: two addresses
            address(payload, 0)
            address(payload, 6)
        case 0x07, 0x08:  // the common extended advertising payload (§2.3.4)
            guard !payload.isEmpty else { return }
            let headerLength = Int(payload[0] & 0x3F)
            var at = 2
            if headerLength >= 1, payload.count > 1 {
                let flags = payload[1]
                if flags & 0x01 != 0 {
                    address(payload, at)
                    at += 6
                }
                if flags & 0x02 != 0 { address(payload, at) }
            }
            advertisingData(payload, from: 1 + headerLength, to: payload.count, carry: nil)
        default:
            searchKnown(payload)
        }
    }

    /// The CRC after a changed PDU, computed again with the CRCInit it was made with: 0x555555
    /// on the advertising channels, the connection's (from its CONNECT_IND) on the data
    /// channels. A CRC that was wrong, or whose CRCInit the capture does not have, is left.
    mutating func crc(
        _ bytes: UnsafeMutableRawBufferPointer, original: UnsafeRawBufferPointer, pdu: Range<Int>,
        packet: LinkLayerPacket,
        decoded: LinkLayerRecord
    ) {
        guard packet.crcField != nil, pdu.upperBound + 3 <= bytes.count,
            !bytes[pdu].elementsEqual(original[pdu])
        else { return }
        let initials: [UInt32] = [0x55_5555] + (decoded.connection?.parameters.map { [$0.crcInit] } ?? [])
        guard let initial = initials.first(where: { packet.crcMatches(initial: $0) == true }) else {
            tally.crcLeft += 1
            return
        }
        let value = LinkLayerPacket.crc(of: UnsafeRawBufferPointer(rebasing: bytes[pdu]), initial: initial)
        for index in 0..<3 { bytes[pdu.upperBound + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        tally.crcRecomputed += 1
    }
}
