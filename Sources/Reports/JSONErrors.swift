import AndroidCodes
import CoreBluetoothCodes
import Lifecycle

/// The JSON document of `bletrace errors --format json` (its contract: Formats/json.md): the
/// errors, and how many there are.
public struct JSONErrors: Encodable {
    var version = jsonVersion
    var total: Int
    var unexpected: Int
    var errors: [JSONError]

    /// The counts of `errors`, with `all` as the list (empty when a writer streams the list
    /// in its place).
    public init(_ errors: [TraceError], all: [JSONError]) {
        total = errors.count
        unexpected = errors.count { !$0.expected }
        self.errors = all
    }
}

/// One error of `bletrace errors --format json` and one line of `--format jsonl`.
public struct JSONError: Encodable {
    /// On each line of `--format jsonl` only: in `--format json` the document carries it.
    public var version: Int?
    struct CB: Encodable {
        var domain: String
        var code: Int
        var name: String?
        var evidence: String
        var callback: String
    }
    var index: Int
    var frame: Int
    var ts_us: Int64
    var handle: UInt16?
    var peer: String?
    /// `le` or `classic` (BR/EDR), where known.
    var transport: String?
    var layer: String
    var code: UInt8
    var name: String
    var request_opcode: UInt16?
    var request_name: String?
    var attribute_handle: UInt16?
    var attribute_uuid: String?
    var attribute_name: String?
    /// The discovery procedure the failed request belonged to; `attribute_handle` is then the
    /// start of the range searched.
    var procedure: String?
    /// The attribute type the search asked for.
    var searched_uuid: String?
    var expected: Bool
    /// `host` (this host sent it: its server's Error Response, or its Pairing Failed) or `peer`,
    /// where the capture records directions.
    var sent_by: String?
    /// For ATT: `peer` (the peer's server refused this host's client, the app) or `local` (this
    /// host's server refused the peer's client: no app callback carries it).
    var server: String?
    /// A refusal for security that iOS pairs on and sends again: the frame of the retry's answer
    /// (the app gets that answer instead).
    var retry_frame: Int?
    /// A refusal for security, or Pairing Failed: the frame of the Pairing Failed that ended the
    /// pairing it led to.
    var pairing_failed_frame: Int?
    /// Always present: `null` when CoreBluetooth has no equivalent.
    var cb: NullOr<CB>
    /// Always present: what Android's callback would receive, `null` when an Android app is told
    /// nothing.
    var android: NullOr<AndroidJSON>

    /// The JSON form of `error`, without a version.
    public init(_ error: TraceError) {
        index = error.record
        frame = error.record + 1
        ts_us = error.time.microseconds
        handle = error.connection
        peer = error.peer.map { "\($0)" }
        transport = error.transport?.rawValue
        layer = error.layer.rawValue
        code = error.code
        name = error.name
        request_opcode = error.requestOpcode
        request_name = error.requestName
        attribute_handle = error.attributeHandle
        attribute_uuid = error.attribute.map { "\($0.uuid)" }
        attribute_name = error.attribute?.name
        procedure = error.procedure?.rawValue
        searched_uuid = error.searchedType.map { "\($0)" }
        expected = error.expected
        sent_by = error.sentBy?.rawValue
        server = error.server?.rawValue
        retry_frame = error.retryRecord.map { $0 + 1 }
        pairing_failed_frame = error.pairingFailedRecord.map { $0 + 1 }
        cb = NullOr(
            error.coreBluetooth.map {
                CB(
                    domain: $0.domain, code: $0.code, name: $0.name, evidence: $0.evidence.rawValue,
                    callback: $0.callback)
            })
        android = NullOr(error.android.map(AndroidJSON.init))
    }
}
