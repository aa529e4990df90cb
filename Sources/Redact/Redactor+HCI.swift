import Wire

/// HCI commands, events and their return parameters, field by field (Core 6.0, Vol 4, Part E,
/// §7): where the addresses, keys and names are. A packet shorter than its layout has its cut
/// fields zeroed as far as they go.
extension RedactorCore {
    /// An HCI command: opcode (2), parameter length (1), parameters.
    mutating func command(_ packet: UnsafeMutableRawBufferPointer) -> String? {
        guard packet.count >= 3 else { return packet.isEmpty ? nil : "an HCI command shorter than its 3-byte header" }
        let opcode = UInt16(packet[0]) | UInt16(packet[1]) << 8
        let p = UnsafeMutableRawBufferPointer(rebasing: packet[3..<min(packet.count, 3 + Int(packet[2]))])
        switch opcode {
        case 0x0405, 0x0408, 0x0409, 0x040A, 0x040C, 0x040E, 0x0419, 0x041A, 0x0429, 0x042A, 0x042B, 0x042C, 0x042D,
            0x042F, 0x0433, 0x0434, 0x043E, 0x080B, 0x0C0D, 0x0C12:
            address(p, 0)
        case 0x040B:  // Link Key Request Reply
            address(p, 0)
            secret(.linkKey, p, 6, 16)
        case 0x040D:  // PIN Code Request Reply
            address(p, 0)
            secret(.passkey, p, 7, 16)
        case 0x042E:  // User Passkey Request Reply
            address(p, 0)
            secret(.passkey, p, 6, 4)
        case 0x0430:  // Remote OOB Data Request Reply: C, R
            address(p, 0)
            secret(.passkey, p, 6, 32)
        case 0x0445:  // Remote OOB Extended Data Request Reply: C192, R192, C256, R256
            address(p, 0)
            secret(.passkey, p, 6, 64)
        case 0x0C11:  // Write Stored Link Key: Num_Keys, BD_ADDR[i], Link_Key[i]
            guard !p.isEmpty else { break }
            let count = Int(p[0])
            addresses(p, 1, count: count)
            for index in 0..<count { secret(.linkKey, p, 1 + 6 * count + 16 * index, 16) }
        case 0x0C13:  // Write Local Name
            name(p, 0, 248)
        case 0x0C52:  // Write Extended Inquiry Response: FEC_Required, EIR
            advertisingData(p, from: 1, to: p.count, carry: nil)
        case 0x2005:  // LE Set Random Address
            address(p, 0)
        case 0x2006:  // LE Set Advertising Parameters: Peer_Address at 7
            address(p, 7)
        case 0x2008, 0x2009:  // LE Set Advertising / Scan Response Data
            if !p.isEmpty { advertisingData(p, from: 1, to: min(p.count, 1 + Int(p[0])), carry: nil) }
        case 0x200D:  // LE Create Connection: Peer_Address at 6
            address(p, 6)
        case 0x2011, 0x2012, 0x2028, 0x202B, 0x202C, 0x2035, 0x2047, 0x2048, 0x204E:
            address(p, 1)
        case 0x2017:  // LE Encrypt: Key, Plaintext_Data
            secret(.controllerCrypto, p, 0, 32)
        case 0x2019:  // LE Start Encryption: Connection_Handle, Random_Number, Encrypted_Diversifier, Long_Term_Key
            secret(.centralIdentification, p, 2, 10)
            secret(.longTermKey, p, 12, 16)
        case 0x201A:  // LE Long Term Key Request Reply
            secret(.longTermKey, p, 2, 16)
        case 0x2026, 0x205E:  // LE Generate DHKey [v2]: the peer's public key
            secret(.publicKey, p, 0, 64)
        case 0x2027:  // LE Add Device To Resolving List: type, address, Peer_IRK, Local_IRK
            address(p, 1)
            secret(.identityResolvingKey, p, 7, 16)
            secret(.identityResolvingKey, p, 23, 16)
        case 0x2036, 0x207F:  // LE Set Extended Advertising Parameters [v2]: Peer_Address at 12
            address(p, 12)
        case 0x2037, 0x2038:  // LE Set Extended Advertising / Scan Response Data
            guard p.count >= 4 else { break }
            var carry = carries[0x1_0000 | UInt64(p[0])] ?? ADCarry()
            // Operation 0x01 first fragment, 0x03 complete: a new set of data.
            if p[1] == 0x01 || p[1] == 0x03 { carry = ADCarry() }
            advertisingData(p, from: 4, to: min(p.count, 4 + Int(p[3])), carry: &carry)
            carries[0x1_0000 | UInt64(p[0])] = carry
        case 0x203F:  // LE Set Periodic Advertising Data
            guard p.count >= 3 else { break }
            var carry = carries[0x2_0000 | UInt64(p[0])] ?? ADCarry()
            if p[1] == 0x01 || p[1] == 0x03 { carry = ADCarry() }
            advertisingData(p, from: 3, to: min(p.count, 3 + Int(p[2])), carry: &carry)
            carries[0x2_0000 | UInt64(p[0])] = carry
        case 0x2043, 0x2044:  // LE Extended Create Connection, LE Periodic Advertising Create Sync
            address(p, 3)
        case 0x2085:  // LE Extended Create Connection v2
            address(p, 5)
        default:
            if opcode >> 10 == 0x3F { tally.searchedOnly += 1 }
            searchKnown(p)
        }
        return nil
    }

    /// An HCI event: event code (1), parameter length (1), parameters.
    mutating func event(_ packet: UnsafeMutableRawBufferPointer) -> String? {
        guard packet.count >= 2 else { return packet.isEmpty ? nil : "an HCI event shorter than its 2-byte header" }
        let code = packet[0]
        let p = UnsafeMutableRawBufferPointer(rebasing: packet[2..<min(packet.count, 2 + Int(packet[1]))])
        switch code {
        case 0x02, 0x22:  // Inquiry Result [with RSSI]: Num_Responses, BD_ADDR[i], ...
            if !p.isEmpty { addresses(p, 1, count: Int(p[0])) }
        case 0x2F:  // Extended Inquiry Result: Num_Responses (1), BD_ADDR, ..., EIR at 15
            address(p, 1)
            advertisingData(p, from: 15, to: p.count, carry: nil)
        case 0x03, 0x2C:  // Connection Complete, Synchronous Connection Complete
            address(p, 3)
        case 0x04, 0x16, 0x17, 0x20, 0x31, 0x32, 0x34, 0x35, 0x3C, 0x3D:
            address(p, 0)
        case 0x07:  // Remote Name Request Complete
            address(p, 1)
            name(p, 7, 248)
        case 0x12, 0x36:  // Role Change, Simple Pairing Complete
            address(p, 1)
        case 0x15:  // Return Link Keys: Num_Keys, BD_ADDR[i], Link_Key[i]
            guard !p.isEmpty else { break }
            let count = Int(p[0])
            addresses(p, 1, count: count)
            for index in 0..<count { secret(.linkKey, p, 1 + 6 * count + 16 * index, 16) }
        case 0x18:  // Link Key Notification
            address(p, 0)
            secret(.linkKey, p, 6, 16)
        case 0x33, 0x3B:  // User Confirmation Request, User Passkey Notification: the number shown
            address(p, 0)
            secret(.passkey, p, 6, 4)
        case 0x05:  // Disconnection Complete: the connection's L2CAP and GATT state ends
            if p.count >= 3 { forget(handle: UInt16(p[1]) | UInt16(p[2] & 0x0F) << 8) }
        case 0x0E:  // Command Complete: Num_HCI_Command_Packets, Command_Opcode, return parameters
            guard p.count >= 3 else { break }
            returnParameters(UInt16(p[1]) | UInt16(p[2]) << 8, UnsafeMutableRawBufferPointer(rebasing: p[3...]))
        case 0x3E:
            return leMeta(p)
        case 0xFF:
            tally.searchedOnly += 1
            searchKnown(p)
        default:
            searchKnown(p)
        }
        return nil
    }

    /// Command Complete's return parameters, by the command's opcode.
    mutating func returnParameters(_ opcode: UInt16, _ r: UnsafeMutableRawBufferPointer) {
        switch opcode {
        case 0x1009, 0x0408, 0x040B, 0x040C, 0x040D, 0x040E, 0x041A, 0x042B, 0x042C, 0x042D, 0x042E, 0x042F, 0x0430,
            0x0433, 0x0434, 0x0445, 0x202B, 0x202C:
            // Read BD_ADDR, the replies and cancels that echo the address, LE Read Peer/Local
            // Resolvable Address: Status, BD_ADDR.
            address(r, 1)
        case 0x0C14:  // Read Local Name
            name(r, 1, 248)
        case 0x2017:  // LE Encrypt: Status, Encrypted_Data
            secret(.controllerCrypto, r, 1, 16)
        case 0x2018:  // LE Rand: Status, Random_Number
            secret(.controllerCrypto, r, 1, 8)
        case 0x0C57:  // Read Local OOB Data: C, R
            secret(.passkey, r, 1, 32)
        case 0x0C7D:  // Read Local OOB Extended Data
            secret(.passkey, r, 1, 64)
        default:
            searchKnown(r)
        }
    }

    /// An LE Meta event's parameters (Core 6.0, Vol 4, Part E, §7.7.65), the subevent code first.
    mutating func leMeta(_ p: UnsafeMutableRawBufferPointer) -> String? {
        guard !p.isEmpty else { return nil }
        switch p[0] {
        case 0x01:  // Connection Complete: Peer_Address at 6
            address(p, 6)
        case 0x0A, 0x29:  // Enhanced Connection Complete [v2]: peer, local RPA, peer RPA
            address(p, 6)
            address(p, 12)
            address(p, 18)
        case 0x02:  // Advertising Report
            return advertisingReports(p)
        case 0x0B:  // Directed Advertising Report: 16 bytes a report
            guard p.count >= 2 else { break }
            let count = Int(p[1])
            guard p.count >= 2 + 16 * count else {
                return "an LE Directed Advertising Report shorter than its \(count) reports"
            }
            for index in 0..<count {
                address(p, 2 + 16 * index + 2)
                address(p, 2 + 16 * index + 9)
            }
        case 0x0D:  // Extended Advertising Report
            return extendedAdvertisingReports(p)
        case 0x05:  // Long Term Key Request: Connection_Handle, Random_Number, Encrypted_Diversifier
            secret(.centralIdentification, p, 3, 10)
        case 0x08:  // Read Local P-256 Public Key Complete
            secret(.publicKey, p, 2, 64)
        case 0x09:  // Generate DHKey Complete
            secret(.publicKey, p, 2, 32)
        case 0x0E, 0x24:  // Periodic Advertising Sync Established [v2]: Advertiser_Address at 6
            address(p, 6)
        case 0x0F, 0x25:  // Periodic Advertising Report [v2]
            let (statusAt, lengthAt) = p[0] == 0x0F ? (6, 7) : (9, 10)
            guard p.count > lengthAt else { break }
            let key = 0x3_0000 | UInt64(p[1]) | UInt64(p[2]) << 8
            var carry = carries[key] ?? ADCarry()
            advertisingData(p, from: lengthAt + 1, to: min(p.count, lengthAt + 1 + Int(p[lengthAt])), carry: &carry)
            // Data_Status 0x01: more to come; anything else ends the data.
            carries[key] = p[statusAt] == 0x01 ? carry : nil
        case 0x13:  // Scan Request Received: Scanner_Address at 3
            address(p, 3)
        case 0x18, 0x26:  // Periodic Advertising Sync Transfer Received [v2]: Advertiser_Address at 10
            address(p, 10)
        default:
            searchKnown(p)
        }
        return nil
    }

    /// LE Advertising Report: Num_Reports, then each report's Event_Type, Address_Type, Address,
    /// Data_Length, Data, RSSI.
    mutating func advertisingReports(_ p: UnsafeMutableRawBufferPointer) -> String? {
        guard p.count >= 2 else { return "an LE Advertising Report with no Num_Reports" }
        var at = 2
        for index in 0..<Int(p[1]) {
            guard at + 9 <= p.count, at + 9 + Int(p[at + 8]) + 1 <= p.count else {
                return "an LE Advertising Report whose report \(index) runs past the event"
            }
            address(p, at + 2)
            let length = Int(p[at + 8])
            advertisingData(p, from: at + 9, to: at + 9 + length, carry: nil)
            at += 9 + length + 1
        }
        return nil
    }

    /// LE Extended Advertising Report: Num_Reports, then each report's Event_Type (2),
    /// Address_Type, Address, Primary_PHY, Secondary_PHY, Advertising_SID, TX_Power, RSSI,
    /// Periodic_Advertising_Interval (2), Direct_Address_Type, Direct_Address, Data_Length, Data.
    mutating func extendedAdvertisingReports(_ p: UnsafeMutableRawBufferPointer) -> String? {
        guard p.count >= 2 else { return "an LE Extended Advertising Report with no Num_Reports" }
        var at = 2
        for index in 0..<Int(p[1]) {
            guard at + 24 <= p.count, at + 24 + Int(p[at + 23]) <= p.count else {
                return "an LE Extended Advertising Report whose report \(index) runs past the event"
            }
            // The data of one advertiser's set may come in several reports (Data_Status 0b01).
            var original: UInt64 = 0
            for byte in 0..<6 { original |= UInt64(p[at + 3 + byte]) << (8 * UInt64(byte)) }
            let key = UInt64(4) << 60 | original << 8 | UInt64(p[at + 11])
            let status = (p[at + 1] >> 5) & 0x03
            var carry = carries[key] ?? ADCarry()
            address(p, at + 3)
            address(p, at + 17)
            let length = Int(p[at + 23])
            advertisingData(p, from: at + 24, to: at + 24 + length, carry: &carry)
            carries[key] = status == 0x01 ? carry : nil
            at += 24 + length
        }
        return nil
    }

    /// ISO data: with `values`, the SDU zeroed after its headers (Core 6.0, Vol 4, Part E, §5.4.5).
    mutating func iso(_ packet: UnsafeMutableRawBufferPointer) -> String? {
        guard options.values, packet.count >= 4 else { return nil }
        let timestamped = packet[1] & 0x40 != 0
        let boundary = (packet[1] >> 4) & 0x03
        // A first or complete fragment has the ISO data load header: [timestamp,] sequence, SDU length.
        let header = 4 + (boundary == 0 || boundary == 2 ? (timestamped ? 8 : 4) : 0)
        zeroValue(packet, from: header, to: packet.count)
        return nil
    }

    /// An ACL packet: handle and flags (2), data length (2), then a fragment of an L2CAP frame.
    mutating func acl(_ packet: UnsafeMutableRawBufferPointer, direction: Direction?) -> String? {
        guard packet.count >= 4 else { return packet.isEmpty ? nil : "an ACL packet shorter than its 4-byte header" }
        let handle = UInt16(packet[0]) | UInt16(packet[1] & 0x0F) << 8
        let boundary = (packet[1] >> 4) & 0x03
        let end = min(packet.count, 4 + (Int(packet[2]) | Int(packet[3]) << 8))
        // Bytes past the length the header gives belong to no frame: zeroed.
        if end < packet.count { zero(packet, from: end, to: packet.count) }
        let fragment = UnsafeMutableRawBufferPointer(rebasing: packet[4..<end])
        let side: UInt64 = direction == .sent ? 0 : direction == .received ? 1 : 2
        return l2capFragment(
            fragment, start: boundary != 0x01, stream: UInt64(handle) | side << 16, connection: UInt64(handle),
            side: side)
    }
}
