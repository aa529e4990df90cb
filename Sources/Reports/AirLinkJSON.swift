import Lifecycle
import Wire

/// What the air showed of a connection read from an over-the-air capture (``AirLink``), as
/// `bletrace lifecycle --format json` writes it under `air` (Formats/json.md).
struct AirLinkJSON: Encodable {
    struct UpdateJSON: Encodable {
        var frame: Int
        var instant: UInt16
        var applied_ts_us: Int64?
        var kind: String
        var interval_raw: UInt16?
        var latency: UInt16?
        var supervision_timeout_raw: UInt16?
        var channel_map: String?
        var phy_c_to_p: UInt8?
        var phy_p_to_c: UInt8?
    }
    var access_address: String
    var this_host: String
    var central: String?
    var peripheral: String?
    var connect_frame: Int?
    var channel_map: String?
    var used_channels: Int?
    var hop: UInt8?
    var central_packets: Int
    var peripheral_packets: Int
    var crc_errors: Int
    var retransmissions: Int
    var events: Int
    var missed_events: Int
    var encrypted: Bool
    var decrypted_packets: Int
    var undecrypted_packets: Int
    var mic_failures: Int
    var terminated_by: String?
    var terminate_reason: UInt8?
    var supervision_timeout_inferred: Bool
    /// The link's end inferred from a reconnection or connectable advertising: that frame, and
    /// the last encrypted LL control PDU's frame and sender.
    var end_inferred_frame: Int?
    var end_inferred_by: String?
    var last_encrypted_control_frame: Int?
    var last_encrypted_control_from: String?
    var updates: [UpdateJSON]

    init(_ link: AirLink) {
        access_address = hex(link.accessAddress, digits: 8)
        this_host = link.host.rawValue
        central = link.central.map { "\($0)" }
        peripheral = link.peripheral.map { "\($0)" }
        connect_frame = link.connectRecord.map { $0 + 1 }
        channel_map = link.channelMap.map { hex($0, digits: 10) }
        used_channels = link.usedChannels
        hop = link.hop
        central_packets = link.centralPackets
        peripheral_packets = link.peripheralPackets
        crc_errors = link.crcErrors
        retransmissions = link.retransmissions
        events = link.events
        missed_events = link.missedEvents
        encrypted = link.encrypted
        decrypted_packets = link.decryptedPackets
        undecrypted_packets = link.undecryptedPackets
        mic_failures = link.micFailures
        terminated_by = link.terminatedBy?.rawValue
        terminate_reason = link.terminateReason?.rawValue
        supervision_timeout_inferred = link.supervisionTimeoutInferred
        end_inferred_frame = link.endInferred.map { $0.evidenceRecord + 1 }
        end_inferred_by = link.endInferred?.evidence
        last_encrypted_control_frame = link.endInferred?.lastControlRecord.map { $0 + 1 }
        last_encrypted_control_from = link.endInferred?.lastControlSender?.rawValue
        updates = link.updates.map { update in
            var json = UpdateJSON(
                frame: update.record + 1, instant: update.instant, applied_ts_us: update.applied?.microseconds, kind: ""
            )
            switch update.kind {
            case .parameters(let interval, let latency, let timeout):
                (json.kind, json.interval_raw, json.latency, json.supervision_timeout_raw) = (
                    "parameters", interval, latency, timeout
                )
            case .channelMap(let map):
                (json.kind, json.channel_map) = ("channel_map", hex(map, digits: 10))
            case .phy(let toPeripheral, let toCentral):
                (json.kind, json.phy_c_to_p, json.phy_p_to_c) = ("phy", toPeripheral, toCentral)
            }
            return json
        }
    }
}

extension LifecycleStory {
    /// The lines of a connection's story that tell what the air showed of it.
    static func airLines(_ link: AirLink) -> [String] {
        var first = "air: access address \(hex(link.accessAddress, digits: 8))"
        if let central = link.central, let peripheral = link.peripheral {
            first += ", central \(central), peripheral \(peripheral)"
        }
        if let used = link.usedChannels { first += ", \(used) channels" + (link.hop.map { ", hop \($0)" } ?? "") }
        first += "; this host is the \(link.host.rawValue)"
        var second =
            "     packets: \(link.centralPackets) from the central, \(link.peripheralPackets) from the peripheral; "
            + "\(Wording.count(link.crcErrors, "CRC error")), \(Wording.count(link.retransmissions, "retransmission")), "
            + "\(link.missedEvents) of \(link.events + link.missedEvents) connection events missed"
        if link.encrypted {
            second +=
                "; encrypted: \(link.decryptedPackets) decrypted, \(link.undecryptedPackets) not decrypted"
                + (link.micFailures > 0 ? ", \(Wording.count(link.micFailures, "MIC failure"))" : "")
        }
        var lines = [first, second]
        if let side = link.terminatedBy, let reason = link.terminateReason {
            lines.append(
                "     LL_TERMINATE_IND from the \(side.rawValue): \(reason) (\(hex(reason.rawValue, digits: 2)))")
        }
        if let end = link.endInferred {
            var line = "     ended before frame \(end.evidenceRecord + 1) (inferred): the "
            line +=
                end.evidence == "reconnected"
                ? "same peripheral connected again there" : "peripheral advertised connectably there"
            if let control = end.lastControlRecord, let sender = end.lastControlSender {
                line +=
                    "; its last LL control PDU, encrypted, came from the \(sender.rawValue) at frame \(control + 1) (most likely LL_TERMINATE_IND)"
            }
            lines.append(line)
        }
        if link.supervisionTimeoutInferred {
            lines.append(
                "     no packet for longer than the supervision timeout: taken as a supervision timeout (inferred)")
        }
        return lines
    }
}
