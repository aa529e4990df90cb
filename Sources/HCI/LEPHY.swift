import Wire

/// One LE physical layer, as a PHY parameter names it (TX_PHY, RX_PHY, Primary_PHY, ...).
///
/// Core 6.0, Vol 4, Part E, §7.7.65.12 (values 0x01-0x03); in advertising reports 0x00 means "no
/// packets on the secondary channel" (§7.7.65.13). Open: an unassigned value is kept.
public struct LEPHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var le1M: Self { .init(rawValue: 0x01) }
    public static var le2M: Self { .init(rawValue: 0x02) }
    public static var leCoded: Self { .init(rawValue: 0x03) }

    public var name: String? {
        switch rawValue {
        case 0x00: "none"
        case 0x01: "LE 1M"
        case 0x02: "LE 2M"
        case 0x03: "LE Coded"
        default: nil
        }
    }

    public var description: String { name ?? "LEPHY(" + hex(rawValue, digits: 1) + ")" }

    /// The name the reports give it, without "LE": `1M`, `2M`, `Coded`; `PHY 7` for another value.
    public var shortName: String {
        switch rawValue {
        case 0x01: "1M"
        case 0x02: "2M"
        case 0x03: "Coded"
        default: "PHY \(rawValue)"
        }
    }
}

/// A set of LE PHYs as a bit mask (Initiating_PHYs, Scanning_PHYs, TX_PHYs, RX_PHYs): bit 0 LE 1M,
/// bit 1 LE 2M, bit 2 LE Coded. Core 6.0, Vol 4, Part E, §7.8.49. Reserved bits are kept.
public struct LEPHYSet: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var le1M: Self { .init(rawValue: 0x01) }
    public static var le2M: Self { .init(rawValue: 0x02) }
    public static var leCoded: Self { .init(rawValue: 0x04) }

    /// The PHY of the `index`-th set bit among `defined`, lowest bit first: arrayed parameters
    /// indexed by a PHY mask come in that order (Vol 4, Part E, §7.8.64, §7.8.66).
    func phy(ofEntry index: Int, defined: UInt8) -> LEPHY {
        var seen = 0
        for bit in 0..<8 where (rawValue & defined) & (1 << bit) != 0 {
            if seen == index { return LEPHY(rawValue: UInt8(bit + 1)) }
            seen += 1
        }
        return LEPHY(rawValue: 0)
    }
}
