import ATT
import HCI
import Lifecycle
import LinkLayer
import TraceFiles
import Wire

/// The filter language of `--filter` (Formats/commands.md, "Filters"): tests joined with `and`, `or`, `not`
/// and parentheses, as in Wireshark's display filters, with Wireshark's field names accepted
/// beside bletrace's where Wireshark has one.
///
/// A test is a field alone (`att.error`: the record has one) or a field, an operator (`==`, `!=`,
/// `>`, `>=`, `<`, `<=`, `===`, `!==`; `=` is `==`) and a value: a number (decimal or 0x-hex), an
/// address, or a name in quotes. Several `--filter` options must all match.
///
/// Comparisons follow Wireshark's display filters (4.0): a record without the field fails every
/// comparison, `!=` included (`bthci_evt.status != 0` is not `!(bthci_evt.status == 0)`). A field
/// a record holds several times (Wireshark's lists: btatt.handle in a discovery response,
/// bthci_evt.connection_handle in Number of Completed Packets) matches `==`, `>`, `>=`, `<`, `<=`
/// and `!==` when any of its values does, `!=` and `===` when all of them do.
package struct RecordFilter {
    /// Why a filter's text is refused: what is wrong, the text, and a caret under the column.
    package struct SyntaxError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    indirect enum Node {
        case and(Node, Node), or(Node, Node), not(Node)
        case test(Test)
    }

    struct Test {
        var field: Field
        var op: Operator?
        var value: Value?
    }

    enum Operator: String {
        case eq = "==", ne = "!=", gt = ">", ge = ">=", lt = "<", le = "<="
        /// Wireshark's `===` (all_eq) and `!==` (any_ne).
        case allEq = "===", anyNe = "!=="
    }

    enum Value {
        case number(Double)
        case text(String)
    }

    /// The fields, by bletrace's name; `aliases` are Wireshark's (and bletrace's older) names.
    package enum Field: String, CaseIterable, Sendable {
        case command, event, acl, sco, iso, other, l2cap, att, smp, error
        case frame, time
        case hciHandle = "hci.handle", hciOpcode = "hci.opcode", hciEvent = "hci.event", hciSubevent = "hci.subevent"
        case hciStatus = "hci.status", hciReason = "hci.reason"
        case attOpcode = "att.opcode", attHandle = "att.handle", attError = "att.error"
        case l2capCID = "l2cap.cid", smpOpcode = "smp.opcode"
        case peer, direction, transport
        // Wireshark's fields that are narrower than bletrace's: each is exactly where Wireshark
        // puts it (bthci_acl.chandle on ACL data only, bthci_evt.opcode on Command Complete and
        // Command Status only, …).
        case aclHandle = "bthci_acl.chandle"
        case commandOpcode = "bthci_cmd.opcode", eventOpcode = "bthci_evt.opcode"
        case eventReason = "bthci_evt.reason", commandReason = "bthci_cmd.reason"
        // Wireshark's fields whose values are where Wireshark 4.0 puts them (WiresharkFields):
        // the status of every event that has one, and of the Command Completes Wireshark decodes;
        // every connection handle of an event, with its reserved bits; every handle of an ATT
        // list. btl2cap, btatt, btsmp and their fields are on the record that completes a frame,
        // and on Android's debug records (handle 0x0EDC), which Wireshark dissects as L2CAP.
        case eventStatus = "bthci_evt.status", eventConnectionHandle = "bthci_evt.connection_handle"
        case btl2cap, btatt, btsmp
        case btl2capCID = "btl2cap.cid", btattOpcode = "btatt.opcode", btattHandle = "btatt.handle"
        case btsmpOpcode = "btsmp.opcode"
        /// Seconds since the first record, compared to the nanosecond as Wireshark compares it.
        case timeRelative = "frame.time_relative"

        /// Wireshark's names (and bletrace's older ones) for the fields above that are the same.
        /// Each Wireshark name selects the frames tshark -Y selects (FilterCrossCheckTests).
        package static let aliases: [String: Field] = [
            "handle": .hciHandle, "bthci_cmd": .command, "bthci_evt": .event, "bthci_acl": .acl,
            "bthci_evt.code": .hciEvent, "bthci_evt.le_meta_subevent": .hciSubevent, "btatt.error_code": .attError,
            "frame.number": .frame,
        ]

        /// Every name a filter accepts, for the message that refuses another.
        static var names: String {
            func isWireshark(_ name: String) -> Bool { name.hasPrefix("bt") || name.hasPrefix("frame.") }
            let own =
                allCases.map(\.rawValue).filter { !isWireshark($0) } + aliases.keys.filter { !isWireshark($0) }.sorted()
            let wireshark = (allCases.map(\.rawValue) + aliases.keys).filter(isWireshark)
            return own.joined(separator: ", ") + "; Wireshark's " + wireshark.sorted().joined(separator: ", ")
        }

        /// Fields that are a kind of record or a layer: no operator.
        var isFlag: Bool {
            switch self {
            case .command, .event, .acl, .sco, .iso, .other, .l2cap, .att, .smp, .error, .btl2cap, .btatt, .btsmp: true
            default: false
            }
        }

        var takesText: Bool { self == .peer || self == .direction || self == .transport }

        /// The largest value the field can hold, to refuse a value it can never have.
        var maximum: Double? {
            switch self {
            case .hciHandle: 0x0FFF
            case .hciOpcode, .attHandle, .aclHandle, .commandOpcode, .eventOpcode, .l2capCID,
                .eventConnectionHandle, .btl2capCID, .btattHandle:
                0xFFFF
            case .hciEvent, .hciSubevent, .hciStatus, .hciReason, .attOpcode, .attError, .smpOpcode,
                .eventReason, .commandReason, .eventStatus, .btattOpcode, .btsmpOpcode:
                0xFF
            default: nil
            }
        }
    }

    var root: Node

    init(_ root: Node) { self.root = root }

    /// The records `selection` keeps (--peer, --transport, --from, --to), as a filter; nil when it
    /// keeps them all.
    package init?(_ selection: TraceSelection) {
        var tests: [Node] = []
        if let peer = selection.peer { tests.append(.test(Test(field: .peer, op: .eq, value: .text(peer)))) }
        if let transport = selection.transport {
            tests.append(.test(Test(field: .transport, op: .eq, value: .text(transport == .le ? "le" : "br-edr"))))
        }
        if let from = selection.from { tests.append(.test(Test(field: .time, op: .ge, value: .number(from)))) }
        if let to = selection.to { tests.append(.test(Test(field: .time, op: .le, value: .number(to)))) }
        guard let first = tests.first else { return nil }
        root = tests.dropFirst().reduce(first) { .and($0, $1) }
    }

    /// Parses `text`, or throws a message that points at the column of the fault.
    package init(parsing text: String) throws {
        var parser = Parser(text: text)
        root = try parser.parse()
    }

    // MARK: - Matching

    /// What a filter looks at for one record, beyond the record itself.
    package struct Context {
        var analyzer: LifecycleAnalyzer
        var origin: Timestamp

        /// `analyzer` has seen the records up to the one to match; `origin` is the first
        /// record's time.
        package init(analyzer: LifecycleAnalyzer, origin: Timestamp) {
            (self.analyzer, self.origin) = (analyzer, origin)
        }
    }

    package func matches(_ record: CaptureRecord, _ decoded: DecodedRecord, _ context: Context) -> Bool {
        evaluate(root, record, decoded, context)
    }

    private func evaluate(_ node: Node, _ record: CaptureRecord, _ decoded: DecodedRecord, _ context: Context) -> Bool {
        switch node {
        case .and(let a, let b): evaluate(a, record, decoded, context) && evaluate(b, record, decoded, context)
        case .or(let a, let b): evaluate(a, record, decoded, context) || evaluate(b, record, decoded, context)
        case .not(let a): !evaluate(a, record, decoded, context)
        case .test(let test): Self.check(test, record, decoded, context)
        }
    }

    private static func check(_ test: Test, _ record: CaptureRecord, _ decoded: DecodedRecord, _ context: Context)
        -> Bool
    {
        func number(_ value: (some BinaryInteger)?) -> Bool { compare(value.map { [Double($0)] } ?? [], test) }
        switch test.field {
        case .command: return record.kind == .command
        case .event: return record.kind == .event
        case .acl: return record.kind == .acl
        case .sco: return record.kind == .sco
        case .iso: return record.kind == .iso
        case .other: return record.kind == .other
        case .l2cap: return decoded.l2cap != nil
        case .att: return decoded.att != nil
        case .smp: return decoded.smp != nil
        case .error: return isFailure(decoded)
        case .frame: return number(record.index + 1)
        case .time:
            return compare([Double(record.timestamp.microseconds - context.origin.microseconds) / 1_000_000], test)
        case .hciHandle: return number(decoded.handle)
        case .hciOpcode:
            switch decoded.packet {
            case .command(let command): return number(command.opcode.rawValue)
            case .event(.commandComplete(_, let opcode, _)), .event(.commandStatus(_, _, let opcode)):
                return number(opcode.rawValue)
            default: return number(UInt16?.none)
            }
        case .commandOpcode:
            if case .command(let command) = decoded.packet { return number(command.opcode.rawValue) }
            return number(UInt16?.none)
        case .eventOpcode:
            switch decoded.packet {
            case .event(.commandComplete(_, let opcode, _)), .event(.commandStatus(_, _, let opcode)):
                return number(opcode.rawValue)
            default: return number(UInt16?.none)
            }
        case .hciEvent:
            if case .event(let event) = decoded.packet { return number(event.code.rawValue) }
            return number(UInt8?.none)
        case .hciSubevent:
            if case .event(.le(let meta)) = decoded.packet { return number(meta.subevent.rawValue) }
            return number(UInt8?.none)
        case .hciStatus:
            if case .event(let event) = decoded.packet { return number(event.status?.rawValue) }
            return number(UInt8?.none)
        case .hciReason:
            switch decoded.packet {
            case .command(.disconnect(_, let reason)): return number(reason.rawValue)
            case .event(.disconnectionComplete(_, _, let reason)): return number(reason.rawValue)
            default: return number(UInt8?.none)
            }
        case .eventReason:
            if case .event(.disconnectionComplete(_, _, let reason)) = decoded.packet { return number(reason.rawValue) }
            return number(UInt8?.none)
        case .commandReason:
            switch decoded.packet {
            case .command(.disconnect(_, let reason)): return number(reason.rawValue)
            // LE Remote Connection Parameter Request Negative Reply (0x2021): handle, reason.
            case .command(.unknown(let opcode, let parameters))
            where opcode.rawValue == 0x2021 && parameters.count >= 3:
                return number(parameters[2])
            default: return number(UInt8?.none)
            }
        case .aclHandle:
            if case .acl(let acl) = decoded.packet { return number(acl.handle) }
            return number(UInt16?.none)
        case .l2capCID: return number(decoded.l2cap?.channel.rawValue)
        case .smpOpcode: return number(decoded.smp?.code.rawValue)
        case .attOpcode: return number(decoded.att?.opcode.rawValue)
        case .attHandle:
            guard let pdu = decoded.att else { return number(UInt16?.none) }
            return number(attributeHandle(pdu, answering: context.analyzer.lastAnswered))
        case .attError:
            if case .errorResponse(_, _, let code)? = decoded.att { return number(code.rawValue) }
            return number(UInt8?.none)
        case .eventStatus:
            return record.kind == .event ? number(WiresharkFields.status(record.bytes)) : number(UInt8?.none)
        case .eventConnectionHandle:
            return compare(
                record.kind == .event ? WiresharkFields.connectionHandles(record.bytes).map(Double.init) : [], test)
        case .btl2cap: return WiresharkFields.layers(decoded).l2cap != nil
        case .btatt: return WiresharkFields.layers(decoded).att != nil
        case .btsmp: return WiresharkFields.layers(decoded).smp != nil
        case .btl2capCID: return number(WiresharkFields.layers(decoded).l2cap?.channel.rawValue)
        case .btattOpcode: return number(WiresharkFields.layers(decoded).att?.opcode.rawValue)
        case .btsmpOpcode: return number(WiresharkFields.layers(decoded).smp?.code.rawValue)
        case .btattHandle:
            guard let pdu = WiresharkFields.layers(decoded).att else { return number(UInt16?.none) }
            // (On the debug handle no request is answered: those PDUs are no link's.)
            let request = decoded.att == nil ? nil : context.analyzer.lastAnswered
            return compare(WiresharkFields.attributeHandles(pdu, answering: request).map(Double.init), test)
        case .timeRelative:
            // In nanoseconds, as the value was read (Parser.nanoseconds).
            return compare([Double((record.timestamp.microseconds - context.origin.microseconds) * 1_000)], test)
        case .direction:
            return compareText(record.direction.map { "\($0)" }, test)
        case .transport:
            return compareText(transport(of: decoded, context.analyzer).map { $0 == .le ? "le" : "br-edr" }, test)
        case .peer:
            let peer = peer(of: decoded, context.analyzer)
            guard case .text(let wanted)? = test.value else { return peer != nil }
            // As every comparison: a record with no peer fails `!=` too.
            guard let peer else { return false }
            let same = matchesPeer(peer, wanted, context.analyzer)
            return test.op == .ne || test.op == .anyNe ? !same : same
        }
    }

    /// A field alone tests that the record has it; with an operator, that its values compare so:
    /// none compares (a record without the field fails every comparison), `!=` and `===` when
    /// all of them do, the others when any does.
    static func compare(_ values: [Double], _ test: Test) -> Bool {
        guard let op = test.op, case .number(let wanted)? = test.value else { return !values.isEmpty }
        guard !values.isEmpty else { return false }
        return switch op {
        case .eq: values.contains { $0 == wanted }
        case .ne: values.allSatisfy { $0 != wanted }
        case .allEq: values.allSatisfy { $0 == wanted }
        case .anyNe: values.contains { $0 != wanted }
        case .gt: values.contains { $0 > wanted }
        case .ge: values.contains { $0 >= wanted }
        case .lt: values.contains { $0 < wanted }
        case .le: values.contains { $0 <= wanted }
        }
    }

    /// A field with a word for its value (direction, transport): present, equal or not.
    private static func compareText(_ value: String?, _ test: Test) -> Bool {
        guard case .text(let wanted)? = test.value else { return value != nil }
        guard let value else { return false }
        let same = value == wanted.lowercased()
        return test.op == .ne || test.op == .anyNe ? !same : same
    }

    /// The peer of the connection a record belongs to, where the capture names it (also for the
    /// Disconnection Complete that has just closed it).
    private static func peer(of decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer) -> BluetoothAddress? {
        guard let handle = decoded.handle else {
            if case .event(.le(.connectionComplete(let complete))) = decoded.packet { return complete.peerAddress }
            if case .event(.connectionComplete(_, _, let address, _)) = decoded.packet { return address }
            return nil
        }
        if let id = analyzer.connectionID(on: handle) { return analyzer.connections[id].peer }
        return analyzer.connections.last { $0.handle == handle }?.peer
    }

    /// `wanted` is an address, or a name the peer advertised (or its beginning).
    private static func matchesPeer(_ peer: BluetoothAddress, _ wanted: String, _ analyzer: LifecycleAnalyzer) -> Bool {
        TraceSelection.peer(wanted, names: peer, advertising: analyzer.scanning.name(of: peer))
    }

    /// The transport of the connection a record belongs to.
    private static func transport(of decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer) -> Connection.Transport? {
        switch decoded.packet {
        case .event(.le(.connectionComplete)): return .le
        case .event(.connectionComplete): return .classic
        default: break
        }
        guard let handle = decoded.handle else { return nil }
        if let id = analyzer.connectionID(on: handle) { return analyzer.connections[id].transport }
        return analyzer.connections.last { $0.handle == handle }?.transport
    }

    package static func isFailure(_ decoded: DecodedRecord) -> Bool {
        if case .errorResponse? = decoded.att { return true }
        if decoded.smp?.pairingFailedReason != nil { return true }
        if case .event(let event) = decoded.packet {
            if case .disconnectionComplete = event { return true }
            if let status = event.status, status != .success { return true }
        }
        return false
    }
}

extension RecordFilter {
    /// A recursive-descent parser over the filter's tokens; every error names its column.
    struct Parser {
        struct Token {
            enum Kind: Equatable { case word, quoted, op, open, close, and, or, not, end }
            var kind: Kind
            var text: String
            var column: Int
        }

        let text: String
        var tokens: [Token] = []
        var position = 0

        init(text: String) { self.text = text }

        mutating func parse() throws -> Node {
            tokens = try tokenize()
            guard tokens.count > 1 else { throw fault(at: 0, "the filter is empty") }
            let node = try parseOr()
            guard current.kind == .end else {
                throw fault(
                    at: current.column,
                    current.kind == .close ? "unbalanced )" : "expected and, or, or the end after a test")
            }
            return node
        }

        var current: Token { tokens[position] }

        mutating func parseOr() throws -> Node {
            var node = try parseAnd()
            while current.kind == .or {
                position += 1
                node = .or(node, try parseAnd())
            }
            return node
        }

        mutating func parseAnd() throws -> Node {
            var node = try parseNot()
            while current.kind == .and {
                position += 1
                node = .and(node, try parseNot())
            }
            return node
        }

        mutating func parseNot() throws -> Node {
            if current.kind == .not {
                position += 1
                return .not(try parseNot())
            }
            return try parsePrimary()
        }

        mutating func parsePrimary() throws -> Node {
            let token = current
            switch token.kind {
            case .open:
                position += 1
                let node = try parseOr()
                guard current.kind == .close else {
                    throw fault(at: current.column, "expected ) to close the ( at column \(token.column + 1)")
                }
                position += 1
                return node
            case .word:
                position += 1
                return .test(try parseTest(token))
            case .end:
                throw fault(
                    at: token.column,
                    "expected a test (a field such as att.error, hci.handle==0x40, peer==AA:BB:CC:DD:EE:FF)")
            default:
                throw fault(at: token.column, "expected a test, found \(token.text)")
            }
        }

        mutating func parseTest(_ name: Token) throws -> Test {
            // The older form `att=0x02` meant the ATT opcode; `command=`/`event=` the HCI codes.
            let legacy: [String: Field] = [
                "att": .attOpcode, "command": .hciOpcode, "event": .hciEvent, "error": .attError,
            ]
            let lowered = name.text.lowercased()
            let hasOperator = current.kind == .op
            guard var field = Field(rawValue: lowered) ?? Field.aliases[lowered] else {
                throw fault(at: name.column, "unknown field \"\(name.text)\"; fields: \(Field.names)")
            }
            if hasOperator, field.isFlag {
                guard let value = legacy[lowered] else {
                    throw fault(at: current.column, "\(name.text) takes no value: it is a kind of record or a layer")
                }
                field = value
            }
            guard hasOperator else { return Test(field: field, op: nil, value: nil) }
            let opToken = current
            position += 1
            guard let op = Operator(rawValue: opToken.text == "=" ? "==" : opToken.text) else {
                throw fault(at: opToken.column, "unknown operator \(opToken.text)")
            }
            let valueToken = current
            guard valueToken.kind == .word || valueToken.kind == .quoted else {
                throw fault(at: valueToken.column, "expected a value after \(opToken.text)")
            }
            position += 1
            if field.takesText {
                guard [.eq, .ne, .allEq, .anyNe].contains(op) else {
                    throw fault(at: opToken.column, "\(field.rawValue) compares with == or != only")
                }
                if field == .direction, !["sent", "received"].contains(valueToken.text.lowercased()) {
                    throw fault(at: valueToken.column, "direction is sent or received")
                }
                if field == .transport, !["le", "br-edr"].contains(valueToken.text.lowercased()) {
                    throw fault(at: valueToken.column, "transport is le or br-edr")
                }
                return Test(field: field, op: op, value: .text(valueToken.text))
            }
            if field == .timeRelative {
                guard let nanoseconds = Self.nanoseconds(valueToken.text) else {
                    throw fault(
                        at: valueToken.column,
                        "\(valueToken.text) is not a valid time (seconds, with at most 9 decimals: 12.5, 0.000105)")
                }
                return Test(field: field, op: op, value: .number(Double(nanoseconds)))
            }
            guard let number = Self.number(valueToken.text) else {
                throw fault(at: valueToken.column, "expected a number (decimal or 0x-hex), found \(valueToken.text)")
            }
            if let maximum = field.maximum, number > maximum || number < 0 {
                throw fault(
                    at: valueToken.column,
                    "\(valueToken.text) is out of range for \(field.rawValue) (0 to \(hex(Int(maximum), digits: 1)))")
            }
            return Test(field: field, op: op, value: .number(number))
        }

        /// A time as Wireshark reads one: seconds, optionally signed, with a fraction of at most
        /// nanoseconds (further digits only zeros); no exponent, no hex.
        static func nanoseconds(_ text: String) -> Int64? {
            var digits = Substring(text)
            let negative = digits.first == "-"
            if negative { digits = digits.dropFirst() }
            let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
                whole.count <= 9, let seconds = Int64(whole)
            else { return nil }
            var fraction = parts.count > 1 ? parts[1] : ""
            guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }), parts.count == 1 || !fraction.isEmpty else {
                return nil
            }
            while fraction.count > 9, fraction.last == "0" { fraction = fraction.dropLast() }
            guard fraction.count <= 9 else { return nil }
            let nanoseconds =
                seconds * 1_000_000_000 + (Int64(fraction + String(repeating: "0", count: 9 - fraction.count)) ?? 0)
            return negative ? -nanoseconds : nanoseconds
        }

        static func number(_ text: String) -> Double? {
            let lowered = text.lowercased()
            if lowered.hasPrefix("0x") { return UInt64(lowered.dropFirst(2), radix: 16).map { Double($0) } }
            return Double(lowered).flatMap { $0.isFinite ? $0 : nil }
        }

        func tokenize() throws -> [Token] {
            var tokens: [Token] = []
            let characters = Array(text)
            var i = 0
            func isWordCharacter(_ c: Character) -> Bool { !c.isWhitespace && !"()=!<>&|\"".contains(c) }
            while i < characters.count {
                let c = characters[i]
                if c.isWhitespace { i += 1; continue }
                let start = i
                switch c {
                case "(": tokens.append(Token(kind: .open, text: "(", column: i)); i += 1
                case ")": tokens.append(Token(kind: .close, text: ")", column: i)); i += 1
                case "&", "|":
                    guard i + 1 < characters.count, characters[i + 1] == c else {
                        throw fault(at: i, "expected \(c)\(c)")
                    }
                    tokens.append(Token(kind: c == "&" ? .and : .or, text: "\(c)\(c)", column: i)); i += 2
                case "=", "<", ">", "!":
                    if c == "=" || c == "!", i + 2 < characters.count, characters[i + 1] == "=",
                        characters[i + 2] == "="
                    {
                        tokens.append(Token(kind: .op, text: String(characters[i...i + 2]), column: i)); i += 3
                    } else if i + 1 < characters.count, characters[i + 1] == "=" {
                        tokens.append(Token(kind: .op, text: String(characters[i...i + 1]), column: i)); i += 2
                    } else if c == "!" {
                        tokens.append(Token(kind: .not, text: "!", column: i)); i += 1
                    } else {
                        tokens.append(Token(kind: .op, text: String(c), column: i)); i += 1
                    }
                case "\"":
                    guard let close = characters[(i + 1)...].firstIndex(of: "\"") else {
                        throw fault(at: i, "unterminated \"")
                    }
                    tokens.append(Token(kind: .quoted, text: String(characters[(i + 1)..<close]), column: i));
                    i = close + 1
                default:
                    while i < characters.count, isWordCharacter(characters[i]) { i += 1 }
                    let word = String(characters[start..<i])
                    switch word.lowercased() {
                    case "and": tokens.append(Token(kind: .and, text: word, column: start))
                    case "or": tokens.append(Token(kind: .or, text: word, column: start))
                    case "not": tokens.append(Token(kind: .not, text: word, column: start))
                    default: tokens.append(Token(kind: .word, text: word, column: start))
                    }
                }
            }
            tokens.append(Token(kind: .end, text: "", column: characters.count))
            return tokens
        }

        /// The filter, a caret under `column`, and what is wrong there.
        func fault(at column: Int, _ message: String) -> SyntaxError {
            SyntaxError(
                message:
                    "bad filter: \(message)\n  \(text)\n  \(String(repeating: " ", count: column))^ column \(column + 1)"
            )
        }
    }
}

extension RecordFilter {
    /// The frame numbers each of `filters` selects in the capture at `path`, which is read once and
    /// decoded as `decode --filter` decodes it; for checking many filters against one capture.
    static func frames(in path: String, selectedBy filters: [RecordFilter]) throws -> [[Int]] {
        var pass = AnalysisPass(
            reader: try AnalysisReader(path: path, linkLayer: false),
            analysis: CaptureAnalyzer(diagnosing: false, wholeRecords: true))
        var selection = Selected(filters: filters)
        pass.run(&selection)
        if let fault = pass.fault { throw fault }
        return selection.frames
    }

    /// The frames each filter selects, record by record.
    private struct Selected: RecordCollector {
        let filters: [RecordFilter]
        var frames: [[Int]]

        init(filters: [RecordFilter]) {
            self.filters = filters
            frames = Array(repeating: [], count: filters.count)
        }

        mutating func add(
            _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
        ) {
            let context = Context(analyzer: analysis.lifecycle, origin: analysis.origin!)
            for (index, filter) in filters.enumerated() where filter.matches(record, analysis.decoded, context) {
                frames[index].append(record.index + 1)
            }
        }
    }
}

extension RecordFilter {
    /// What `--brief` leaves out: controller flow control, vendor commands and events, and
    /// Android's debug records.
    package static func isNoise(_ decoded: DecodedRecord) -> Bool {
        switch decoded.packet {
        case .command(let command): return command.opcode.ogf == 0x3F
        case .event(.commandComplete(_, let opcode, _)), .event(.commandStatus(_, _, let opcode)):
            return opcode.ogf == 0x3F
        case .event(let event): return event.code == .numberOfCompletedPackets || event.code == .vendorSpecific
        case .acl(let acl): return acl.handle == ACLPacket.androidDebugHandle
        default: return false
        }
    }
}
