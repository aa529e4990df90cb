import Wire

/// The opcode of an LL control PDU. Core 6.0, Vol 6, Part B, §2.4.2.
///
/// Open: an unassigned opcode is kept with its parameters. ``table`` is the one declaration of
/// every opcode's name and parameter length (CtrData), read by the decoder and the printers.
package struct LLControlOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt8
    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Name and CtrData length, indexed by opcode (0x00-0x29).
    static let table: [(name: String, length: Int)] = [
        ("LL_CONNECTION_UPDATE_IND", 11), ("LL_CHANNEL_MAP_IND", 7), ("LL_TERMINATE_IND", 1),
        ("LL_ENC_REQ", 22), ("LL_ENC_RSP", 12), ("LL_START_ENC_REQ", 0), ("LL_START_ENC_RSP", 0),
        ("LL_UNKNOWN_RSP", 1), ("LL_FEATURE_REQ", 8), ("LL_FEATURE_RSP", 8), ("LL_PAUSE_ENC_REQ", 0),
        ("LL_PAUSE_ENC_RSP", 0), ("LL_VERSION_IND", 5), ("LL_REJECT_IND", 1), ("LL_PERIPHERAL_FEATURE_REQ", 8),
        ("LL_CONNECTION_PARAM_REQ", 23), ("LL_CONNECTION_PARAM_RSP", 23), ("LL_REJECT_EXT_IND", 2),
        ("LL_PING_REQ", 0), ("LL_PING_RSP", 0), ("LL_LENGTH_REQ", 8), ("LL_LENGTH_RSP", 8), ("LL_PHY_REQ", 2),
        ("LL_PHY_RSP", 2), ("LL_PHY_UPDATE_IND", 4), ("LL_MIN_USED_CHANNELS_IND", 2), ("LL_CTE_REQ", 1),
        ("LL_CTE_RSP", 0), ("LL_PERIODIC_SYNC_IND", 34), ("LL_CLOCK_ACCURACY_REQ", 1),
        ("LL_CLOCK_ACCURACY_RSP", 1), ("LL_CIS_REQ", 35), ("LL_CIS_RSP", 8), ("LL_CIS_IND", 15),
        ("LL_CIS_TERMINATE_IND", 3), ("LL_POWER_CONTROL_REQ", 3), ("LL_POWER_CONTROL_RSP", 4),
        ("LL_POWER_CHANGE_IND", 4), ("LL_SUBRATE_REQ", 10), ("LL_SUBRATE_IND", 10),
        ("LL_CHANNEL_REPORTING_IND", 3), ("LL_CHANNEL_STATUS_IND", 10),
    ]

    package static var connectionUpdateInd: Self { .init(rawValue: 0x00) }
    package static var channelMapInd: Self { .init(rawValue: 0x01) }
    package static var terminateInd: Self { .init(rawValue: 0x02) }
    package static var encReq: Self { .init(rawValue: 0x03) }
    package static var encRsp: Self { .init(rawValue: 0x04) }
    package static var startEncReq: Self { .init(rawValue: 0x05) }
    package static var startEncRsp: Self { .init(rawValue: 0x06) }
    package static var unknownRsp: Self { .init(rawValue: 0x07) }
    package static var featureReq: Self { .init(rawValue: 0x08) }
    package static var featureRsp: Self { .init(rawValue: 0x09) }
    package static var pauseEncReq: Self { .init(rawValue: 0x0A) }
    package static var pauseEncRsp: Self { .init(rawValue: 0x0B) }
    package static var versionInd: Self { .init(rawValue: 0x0C) }
    package static var rejectInd: Self { .init(rawValue: 0x0D) }
    package static var peripheralFeatureReq: Self { .init(rawValue: 0x0E) }
    package static var connectionParamReq: Self { .init(rawValue: 0x0F) }
    package static var connectionParamRsp: Self { .init(rawValue: 0x10) }
    package static var rejectExtInd: Self { .init(rawValue: 0x11) }
    package static var pingReq: Self { .init(rawValue: 0x12) }
    package static var pingRsp: Self { .init(rawValue: 0x13) }
    package static var lengthReq: Self { .init(rawValue: 0x14) }
    package static var lengthRsp: Self { .init(rawValue: 0x15) }
    package static var phyReq: Self { .init(rawValue: 0x16) }
    package static var phyRsp: Self { .init(rawValue: 0x17) }
    package static var phyUpdateInd: Self { .init(rawValue: 0x18) }
    package static var minUsedChannelsInd: Self { .init(rawValue: 0x19) }
    package static var cisReq: Self { .init(rawValue: 0x1F) }
    package static var cisRsp: Self { .init(rawValue: 0x20) }
    package static var cisInd: Self { .init(rawValue: 0x21) }
    package static var cisTerminateInd: Self { .init(rawValue: 0x22) }

    /// The opcode's name, or nil for an unassigned one.
    package var name: String? { Int(rawValue) < Self.table.count ? Self.table[Int(rawValue)].name : nil }

    /// The length of the opcode's parameters (CtrData), or nil for an unassigned one.
    package var parameterLength: Int? { Int(rawValue) < Self.table.count ? Self.table[Int(rawValue)].length : nil }

    package var description: String { name ?? "LLControlOpcode(" + hex(rawValue, digits: 1) + ")" }
}
