import AndroidCodes
import CoreBluetoothCodes
import Foundation
import HCI
import Lifecycle
import Wire

/// The JSON document of `bletrace lifecycle --format json` (its contract: Formats/json.md): the
/// summary, then every connection, scan and advertising set with times in microseconds, frames
/// as Wireshark numbers them, and CoreBluetooth's error for each connection.
///
/// Encode it with ``ReportJSON/encoder(pretty:)`` for the bytes the command-line tool writes.
public struct JSONLifecycle: Encodable {
    struct CBErrorJSON: Encodable {
        var domain: String
        var code: Int
        var name: String?
        var evidence: String
    }
    struct EstablishmentFailureJSON: Encodable {
        var reading: String
        var fail: CBErrorJSON
    }
    struct ATTCounts: Encodable {
        var requests: Int
        var errors: Int
        var notifications: Int
        var indications: Int
        var reads: Int
        var writes: Int
        var write_commands: Int
        var bytes: Int
    }
    /// One connection or connection attempt (its members: Formats/json.md).
    public struct ConnectionJSON: Encodable {
        var id: Int
        var transport: String
        var handle: UInt16?
        var peer: String?
        var peer_address_type: UInt8?
        /// The name the peer advertised, where a scan in the capture heard it.
        var peer_name: String?
        var role: String?
        var attempt_ts_us: Int64?
        var attempt_index: Int?
        var attempt_frame: Int?
        var cancel_ts_us: Int64?
        var connect_ts_us: Int64?
        var connect_index: Int?
        var connect_frame: Int?
        var status: UInt8?
        /// The effective ATT MTU (23 on LE when none was exchanged); absent when unknown.
        var mtu: UInt16?
        var mtu_exchanged: Bool
        var disconnect_ts_us: Int64?
        var disconnect_index: Int?
        var disconnect_frame: Int?
        var duration_ms: Double?
        var reason: UInt8?
        var reason_name: String?
        var initiator: String?
        /// The HCI Disconnect this host sent for the link, where it did.
        var disconnect_request_ts_us: Int64?
        var disconnect_request_frame: Int?
        /// Disconnection Complete events repeating this link's, folded into it.
        var repeated_disconnections: Int
        var outcome: String
        var began_before_capture: Bool
        /// `null` when CoreBluetooth would report no error; absent when there is nothing to report.
        var cb_error: NullOr<CBErrorJSON>?
        /// A connection that failed to be established (0x3E): the reading `cb_error` follows
        /// (`retry`: iOS tries again and tells the app nothing, so `cb_error` is absent) and the
        /// error the other reading (`--establishment-failure fail`) gives. Absent otherwise.
        var cb_establishment_failure: EstablishmentFailureJSON?
        /// What Android's `onConnectionStateChange` would receive; absent when it is told of no
        /// failure.
        var android: AndroidJSON?
        var att: ATTCounts
        var interval_ms: Double?
        var interval_raw: UInt16?
        var latency: UInt16?
        var supervision_timeout_ms: Int?
        var supervision_timeout_raw: UInt16?
        var changes: [ChangeJSON]
        var discovery: DiscoveryJSON?
        var subscriptions: [SubscriptionJSON]
        /// The peer's client subscribing to this host's server.
        var peer_subscriptions: [SubscriptionJSON]
        var pairings: [PairingJSON]
        var unanswered: [UnansweredJSON]
        var service_changed: Int
        /// Over-the-air captures only: what the air showed of the link (Formats/json.md).
        var air: AirLinkJSON? = nil
    }
    struct ChangeJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var kind: String
        var interval_ms: Double?
        var interval_raw: UInt16?
        var latency: UInt16?
        var supervision_timeout_ms: Int?
        var supervision_timeout_raw: UInt16?
        var max_tx_octets: UInt16?
        var max_rx_octets: UInt16?
        var tx_phy: UInt8?
        var rx_phy: UInt8?
        var encrypted: Bool?
        var key_size: UInt8?
        var status: UInt8?
        var start_handle: UInt16?
        var end_handle: UInt16?
    }
    struct DiscoveryJSON: Encodable {
        var start_ts_us: Int64
        var end_ts_us: Int64
        var duration_ms: Double
        var procedures: [ProcedureJSON]
    }
    struct ProcedureJSON: Encodable {
        var kind: String
        var start_ts_us: Int64
        var end_ts_us: Int64
        var duration_ms: Double
        var requests: Int
    }
    struct PairingJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var started_by: String
        var security_request: Bool
        var method: String?
        var secure_connections: Bool?
        var bonding: Bool?
        var outcome: String
        var end_frame: Int?
        var failed_by: String?
        var failure_reason: UInt8?
        var failure_name: String?
        var cause_frame: Int?
        var paired_before_connection: Int?
    }
    struct SubscriptionJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var handle: UInt16?
        var descriptor: UInt16
        var uuid: String?
        var mode: String
    }
    struct UnansweredJSON: Encodable {
        var opcode: UInt8
        var name: String?
        var handle: UInt16?
        var ts_us: Int64
        var index: Int
        var frame: Int
    }
    var version = jsonVersion
    var summary: LifecycleSummary
    var records: Int
    var first_ts_us: Int64?
    var last_ts_us: Int64?
    /// The connections; a writer that streams a long list may take them out and write them one
    /// by one in their place.
    public var connections: [ConnectionJSON]
    var scans: [ScanJSON]
    var advertising: [AdvertisingJSON]
    /// Disconnection Complete events for handles with no link in the capture.
    var stray_disconnections: [StrayJSON]
    struct StrayJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var handle: UInt16
        var reason: UInt8
        var reason_name: String?
        var repeats: Int
    }

    struct DeviceJSON: Encodable {
        var address: String
        var address_type: UInt8
        var name: String?
        var service_uuids: [String]
        var connectable: Bool
        var rssi_min: Int8?
        var rssi_max: Int8?
        var reports: Int
        var first_ts_us: Int64
        var last_ts_us: Int64
    }
    struct ScanJSON: Encodable {
        var id: Int
        var start_ts_us: Int64?
        var stop_ts_us: Int64?
        var began_before_capture: Bool
        var extended: Bool
        var active: Bool?
        var interval_ms: Double?
        var interval_raw: UInt16?
        var window_ms: Double?
        var window_raw: UInt16?
        var filter_duplicates: Bool?
        var reports: Int
        var devices: [DeviceJSON]
    }
    struct AdvertisingJSON: Encodable {
        var id: Int
        var handle: UInt8?
        var start_ts_us: Int64?
        var stop_ts_us: Int64?
        var interval_min_ms: Double?
        var interval_min_raw: UInt32?
        var interval_max_ms: Double?
        var interval_max_raw: UInt32?
        var name: String?
        var data: String
        var scan_response: String
    }

    /// A count of `unit` ms as ms, to the µs.
    static func ms(_ value: some BinaryInteger, _ unit: Double) -> Double {
        ReportJSON.milliseconds(Double(value) * unit)
    }

    static func change(_ change: Connection.Change) -> ChangeJSON {
        var json = ChangeJSON(ts_us: change.time.microseconds, index: change.record, frame: change.record + 1, kind: "")
        switch change.kind {
        case .parameters(let interval, let latency, let timeout):
            (json.kind, json.interval_raw, json.latency, json.supervision_timeout_raw) = (
                "parameters", interval, latency, timeout
            )
            (json.interval_ms, json.supervision_timeout_ms) = (ms(interval, 1.25), Int(timeout) * 10)
        case .dataLength(let tx, let rx): (json.kind, json.max_tx_octets, json.max_rx_octets) = ("data_length", tx, rx)
        case .phy(let tx, let rx): (json.kind, json.tx_phy, json.rx_phy) = ("phy", tx, rx)
        case .encryption(let enabled, let keySize):
            (json.kind, json.encrypted, json.key_size) = ("encryption", enabled, keySize)
        case .keyRefresh: json.kind = "key_refresh"
        case .failed(let what, let status):
            (json.kind, json.status) = (what.replacingOccurrences(of: " ", with: "_") + "_failed", status.rawValue)
        case .serviceChanged(let start, let end):
            (json.kind, json.start_handle, json.end_handle) = ("service_changed", start, end)
        }
        return json
    }

    /// The document of `report`, with its `summary`.
    public init(_ report: LifecycleReport, summary: LifecycleSummary) {
        self.summary = summary
        stray_disconnections = report.strayDisconnections.map {
            StrayJSON(
                ts_us: $0.time.microseconds, index: $0.record, frame: $0.record + 1, handle: $0.handle,
                reason: $0.reason.rawValue,
                reason_name: $0.reason.name, repeats: $0.repeats)
        }
        records = report.records
        first_ts_us = report.firstTime?.microseconds
        last_ts_us = report.lastTime?.microseconds
        scans = report.scans.map { scan in
            ScanJSON(
                id: scan.id + 1, start_ts_us: scan.startTime?.microseconds, stop_ts_us: scan.stopTime?.microseconds,
                began_before_capture: scan.beganBeforeCapture, extended: scan.extended, active: scan.active,
                interval_ms: scan.interval.map { Self.ms($0, 0.625) }, interval_raw: scan.interval,
                window_ms: scan.window.map { Self.ms($0, 0.625) }, window_raw: scan.window,
                filter_duplicates: scan.filterDuplicates, reports: scan.reports,
                devices: scan.devices.map {
                    DeviceJSON(
                        address: "\($0.address)", address_type: $0.addressType, name: $0.name,
                        service_uuids: $0.serviceUUIDs.map { "\($0)" }, connectable: $0.connectable,
                        rssi_min: $0.rssiMin,
                        rssi_max: $0.rssiMax, reports: $0.reports, first_ts_us: $0.firstSeen.microseconds,
                        last_ts_us: $0.lastSeen.microseconds)
                })
        }
        advertising = report.advertising.map {
            AdvertisingJSON(
                id: $0.id + 1, handle: $0.handle, start_ts_us: $0.startTime?.microseconds,
                stop_ts_us: $0.stopTime?.microseconds,
                interval_min_ms: $0.intervalMin.map { Self.ms($0, 0.625) }, interval_min_raw: $0.intervalMin,
                interval_max_ms: $0.intervalMax.map { Self.ms($0, 0.625) }, interval_max_raw: $0.intervalMax,
                name: $0.name,
                data: $0.data.withUnsafeBytes(\.hexString), scan_response: $0.scanResponse.withUnsafeBytes(\.hexString))
        }
        connections = report.connections.map { connection in
            ConnectionJSON(
                id: connection.id + 1, transport: connection.transport.rawValue, handle: connection.handle,
                peer: connection.peer.map { "\($0)" }, peer_address_type: connection.peerAddressType,
                peer_name: connection.peerName,
                role: connection.role?.rawValue, attempt_ts_us: connection.attempt?.time.microseconds,
                attempt_index: connection.attempt?.record, attempt_frame: connection.attempt.map { $0.record + 1 },
                cancel_ts_us: connection.cancelTime?.microseconds,
                connect_ts_us: connection.completion?.status == .success
                    ? connection.completion?.time.microseconds : nil,
                connect_index: connection.completion?.record,
                connect_frame: connection.completion.map { $0.record + 1 },
                status: connection.completion?.status.rawValue, mtu: connection.effectiveMTU,
                mtu_exchanged: connection.mtu != nil,
                disconnect_ts_us: connection.disconnection?.time.microseconds,
                disconnect_index: connection.disconnection?.record,
                disconnect_frame: connection.disconnection.map { $0.record + 1 },
                duration_ms: connection.duration.map { ReportJSON.milliseconds($0 * 1000) },
                reason: connection.disconnection?.reason.rawValue,
                reason_name: connection.disconnection?.reason.name,
                initiator: connection.disconnection?.initiator.rawValue,
                disconnect_request_ts_us: connection.disconnection?.request?.time.microseconds,
                disconnect_request_frame: connection.disconnection?.request.map { $0.record + 1 },
                repeated_disconnections: connection.disconnection?.repeats ?? 0,
                outcome: connection.outcome.rawValue, began_before_capture: connection.beganBeforeCapture,
                cb_error: connection.cbError.map { mapped in
                    NullOr(
                        mapped.value.map { error in
                            CBErrorJSON(
                                domain: error.domain, code: error.errorCode, name: error.name,
                                evidence: mapped.evidence.rawValue)
                        })
                },
                cb_establishment_failure: connection.failedEstablishment.map { _ in
                    let fail = EstablishmentFailure.failError
                    return EstablishmentFailureJSON(
                        reading: EstablishmentFailure.default.rawValue,
                        fail: CBErrorJSON(
                            domain: CBError.errorDomain, code: fail.value.errorCode, name: fail.value.name,
                            evidence: fail.evidence.rawValue))
                },
                android: connection.android.map(AndroidJSON.init),
                att: ATTCounts(
                    requests: connection.att.requests, errors: connection.att.errors,
                    notifications: connection.att.notifications, indications: connection.att.indications,
                    reads: connection.att.reads, writes: connection.att.writes,
                    write_commands: connection.att.writeCommands,
                    bytes: connection.att.bytes),
                interval_ms: connection.interval.map { Self.ms($0, 1.25) }, interval_raw: connection.interval,
                latency: connection.latency,
                supervision_timeout_ms: connection.supervisionTimeout.map { Int($0) * 10 },
                supervision_timeout_raw: connection.supervisionTimeout,
                changes: connection.changes.map(Self.change),
                discovery: connection.discoveryStart.flatMap { start in
                    connection.discoveryEnd.map {
                        DiscoveryJSON(
                            start_ts_us: start.microseconds, end_ts_us: $0.microseconds,
                            duration_ms: ReportJSON.milliseconds(microseconds: $0.microseconds - start.microseconds),
                            procedures: connection.discoveryProcedures.map {
                                ProcedureJSON(
                                    kind: $0.kind.rawValue, start_ts_us: $0.start.microseconds,
                                    end_ts_us: $0.end.microseconds,
                                    duration_ms: ReportJSON.milliseconds(
                                        microseconds: $0.end.microseconds - $0.start.microseconds),
                                    requests: $0.requests)
                            })
                    }
                },
                subscriptions: connection.subscriptions.map(Self.subscription),
                peer_subscriptions: connection.peerSubscriptions.map(Self.subscription),
                pairings: connection.pairings.map {
                    PairingJSON(
                        ts_us: $0.time.microseconds, index: $0.record, frame: $0.record + 1,
                        started_by: $0.startedBy.rawValue,
                        security_request: $0.securityRequested, method: $0.method?.rawValue,
                        secure_connections: $0.secureConnections,
                        bonding: $0.bonding, outcome: $0.outcome.rawValue, end_frame: $0.endRecord.map { $0 + 1 },
                        failed_by: $0.failedBy?.rawValue, failure_reason: $0.failureReason,
                        failure_name: $0.failureName,
                        cause_frame: $0.causeRecord.map { $0 + 1 },
                        paired_before_connection: $0.pairedBeforeOn.map { $0 + 1 })
                },
                unanswered: connection.unansweredRequests.map {
                    UnansweredJSON(
                        opcode: $0.opcode.rawValue, name: $0.opcode.name, handle: $0.attributeHandle,
                        ts_us: $0.time.microseconds,
                        index: $0.record, frame: $0.record + 1)
                },
                service_changed: connection.serviceChangedIndications, air: connection.air.map(AirLinkJSON.init))
        }
    }

    private static func subscription(_ subscription: Connection.Subscription) -> SubscriptionJSON {
        SubscriptionJSON(
            ts_us: subscription.time.microseconds, index: subscription.record, frame: subscription.record + 1,
            handle: subscription.characteristicHandle, descriptor: subscription.descriptorHandle,
            uuid: subscription.uuid.map { "\($0)" }, mode: subscription.mode.rawValue)
    }
}
