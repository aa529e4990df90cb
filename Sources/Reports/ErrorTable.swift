import ATT
import AndroidCodes
import CoreBluetoothCodes
import Lifecycle
import Wire

/// The errors of a capture for people (`bletrace errors`): each ATT error, HCI failure and SMP
/// failure with its time, frame, connection, peer, what it answered, and what CoreBluetooth would
/// have reported; then a count by code. Expected errors (a discovery's end, a cancelled attempt)
/// are left out unless `all` is set.
public struct ErrorTable {
    /// The errors, in capture order.
    public var errors: [TraceError]
    /// The first record's time, from which times are counted; nil counts each from itself.
    public var origin: Timestamp?
    /// The names peers advertised, shown beside their addresses.
    public var names: [BluetoothAddress: String]
    /// Also list the expected errors.
    public var all: Bool
    /// A line per error instead of two or three.
    public var brief: Bool
    /// Colour for a terminal, or plain text.
    public var style: TextStyle

    /// A table of `errors`, times counted from `origin`.
    public init(
        errors: [TraceError], origin: Timestamp?, names: [BluetoothAddress: String] = [:], all: Bool = false,
        brief: Bool = false, style: TextStyle = .plain
    ) {
        self.errors = errors
        self.origin = origin
        self.names = names
        self.all = all
        self.brief = brief
        self.style = style
    }

    /// The whole table, each line ended by a line feed.
    public var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    /// Writes the table, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        let shown = errors.filter { all || !$0.expected }
        let hidden = errors.count - shown.count
        if shown.isEmpty {
            emit(errors.isEmpty ? "no errors" : "no unexpected errors")
        }
        for error in shown {
            var line = Wording.sinceStart(error.time, origin: origin ?? error.time) + "  frame \(error.record + 1)"
            if let connection = error.connection { line += "  handle \(hex(connection, digits: 4))" }
            if let peer = error.peer { line += "  \(peer)" + (names[peer].map { " \"\($0)\"" } ?? "") }
            if error.transport == .classic { line += "  BR/EDR" }
            var what = "  \(error.layer.rawValue.uppercased()) \(error.name) (\(hex(error.code, digits: 2)))"
            if error.layer == .att, let request = error.requestName ?? error.requestOpcode.map({ hex($0, digits: 2) }) {
                what += " answering \(request)"
            } else if let command = error.requestName ?? error.requestOpcode.map({ hex($0, digits: 4) }) {
                what += " for \(command)"
            }
            if let procedure = error.procedure, let handle = error.attributeHandle {
                what += ", ending \(procedure == .includedServices ? "an" : "a") \(procedure.rawValue)"
                if let type = error.searchedType, procedure == .valueSearch {
                    what += " for \(type)" + (GATTNames.name(for: type).map { " \($0)" } ?? "")
                }
                what += " from \(hex(handle, digits: 4))"
            } else if let handle = error.attributeHandle {
                what += " on attribute \(hex(handle, digits: 4))"
                if let attribute = error.attribute {
                    what += " (\(attribute.role.rawValue) \(attribute.uuid)\(attribute.name.map { " \($0)" } ?? ""))"
                }
            }
            if error.server == .local { what += ", sent by this host's server to the peer's client" }
            if error.layer == .smp, let side = error.sentBy {
                what += side == .host ? ", sent by this host" : ", sent by the peer"
            }
            if let retry = error.retryRecord { what += "; paired, sent again, answered in frame \(retry + 1)" }
            if let failed = error.pairingFailedRecord { what += "; the pairing it led to failed (frame \(failed + 1))" }
            if error.expected { what += " [expected]" }
            if brief {
                let short = String(what.drop { $0 == " " })
                emit(line + "  " + (error.expected ? style.dim(short) : style.red(short)))
                continue
            }
            emit(line)
            emit(error.expected ? style.dim(what) : style.red(what))
            if error.transport == .classic {
                emit("  CoreBluetooth: does not apply (BR/EDR: CoreBluetooth makes LE connections only)")
            } else if let cb = error.coreBluetooth {
                let name =
                    cb.name.map { "\(cb.typeName).\($0) (\(cb.code))" }
                    ?? "\(cb.domain) code \(cb.code), no named case"
                let carrier = cb.callback.hasPrefix("no ") ? ", \(cb.callback)" : " in \(cb.callback)"
                emit("  CoreBluetooth: \(name)\(carrier) [\(cb.evidence.rawValue)]")
            }
            if let android = error.android { emit("  Android: \(android)") }
        }
        emit("")
        emit(
            "summary: \(Wording.count(errors.count, "error")), \(errors.count { !$0.expected }) unexpected"
                + (hidden > 0 && !all ? " (\(hidden) expected, not shown: --all)" : ""))
        var counts: [String: Int] = [:]
        for error in shown {
            counts["\(error.layer.rawValue.uppercased()) \(hex(error.code, digits: 2)) \(error.name)", default: 0] += 1
        }
        for (key, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            emit("  \(String(count).leftPadded(6))  \(key)")
        }
    }
}
