import Wire

/// What an app did and was told during a replay, one event per line (Formats/flow.md).
///
/// ```
/// # bletrace flow 2
/// +0.000000 central didUpdateState state=poweredOn
/// +0.000000 app connect peripheral=F0:F1:F2:F3:F4:05
/// +0.104312 central didConnect peripheral=F0:F1:F2:F3:F4:05
/// ```
public struct Flow: Hashable, Sendable {
    public var events: [FlowEvent]
    /// Comment lines (without `# `), kept for people; they never take part in a comparison.
    public var comments: [String]

    public init(events: [FlowEvent] = [], comments: [String] = []) {
        self.events = events
        self.comments = comments
    }

    /// Version 2: the GATT, scan and peripheral-manager vocabulary (Formats/flow.md). Version 1
    /// flows (connections only) are read as they are: their lines mean the same in version 2.
    public static let header = "bletrace flow 2"
    static let readableVersions: Set<Substring> = ["1", "2"]

    /// The text form: the header, the comments, then one line per event.
    public var text: String {
        var lines = ["# " + Self.header]
        lines += comments.map { "# " + $0 }
        lines += events.map(\.line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the text form (``FlowReader`` reads a file the same way, a line at a time).
    /// Lines end with LF, CRLF or CR; blank lines and `#` comments are skipped; the time is
    /// optional.
    public init(parsing text: String, source: String = "flow") throws(FlowError) {
        var events: [FlowEvent] = []
        var comments: [String] = []
        var number = 0
        var rest = Substring(text)
        while !rest.isEmpty || number == 0 {
            number += 1
            // Swift treats CRLF as one Character, so one search finds any of the three ends.
            let end = rest.firstIndex { $0 == "\n" || $0 == "\r" || $0 == "\r\n" } ?? rest.endIndex
            switch try Self.interpret(String(rest[..<end]), source: source, lineNumber: number) {
            case .blank: break
            case .comment(let comment): comments.append(comment)
            case .event(let event): events.append(event)
            }
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            if rest.isEmpty { break }
        }
        self.init(events: events, comments: comments)
    }

    /// What one line is.
    enum Line {
        case blank
        /// A comment other than the format header, without `# `.
        case comment(String)
        case event(FlowEvent)
    }

    /// Reads one line (without its end). The header `# bletrace flow N` is checked: a version
    /// other than 1 or 2 is bad input, since its lines might mean something else.
    static func interpret(_ raw: String, source: String, lineNumber: Int) throws(FlowError) -> Line {
        // The first byte that is not a space or tab (in UTF-8, so no Character is formed).
        guard let first = raw.utf8.first(where: { $0 != 0x20 && $0 != 0x09 }) else { return .blank }
        guard first == UInt8(ascii: "#") else {
            return .event(try FlowEvent(parsing: raw, source: source, lineNumber: lineNumber))
        }
        let line = raw.trimmingCharacters(in: " \t")
        let comment = line.dropFirst().trimmingCharacters(in: " \t")
        let words = comment.split(separator: " ", omittingEmptySubsequences: true)
        if words.count >= 2, words[0] == "bletrace", words[1] == "flow" {
            guard words.count == 3, readableVersions.contains(words[2]) else {
                let version = words.dropFirst(2).joined(separator: " ")
                let column =
                    (raw.firstRange(of: "flow")?.upperBound).map { raw.distance(from: raw.startIndex, to: $0) + 2 } ?? 1
                throw FlowError(
                    source: source, line: lineNumber, column: column,
                    expected:
                        "the flow format version 2 (`# bletrace flow 2`) or 1, not `\(version.isEmpty ? "(none)" : version)`; this bletrace reads versions 1 and 2"
                )
            }
            return .blank
        }
        return .comment(comment)
    }
}

/// One flow line: who, what, and the arguments, at a time after the capture's start.
public struct FlowEvent: Hashable, Sendable {
    /// Seconds since the capture's first record; nil in hand-written flows that leave it out.
    /// Never compared.
    public var time: Double?
    /// `app` for what the app asked, `central` for central manager delegate callbacks, `system`
    /// for what happened to the app (launch, termination).
    public var actor: String
    public var name: String
    public var arguments: [Argument]
    /// Where the event was read from, when parsed.
    public var lineNumber: Int?

    /// One argument of an event, written `key=value` in its line.
    public struct Argument: Hashable, Sendable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(time: Double?, actor: String, name: String, arguments: [Argument] = []) {
        self.time = time
        self.actor = actor
        self.name = name
        self.arguments = arguments
    }

    /// The part that comparisons use: actor, name and arguments.
    public var signature: String {
        ([actor, name] + arguments.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }

    public var line: String {
        guard let time else { return signature }
        return Wording.sinceStart(seconds: time) + " " + signature
    }

    public func argument(_ key: String) -> String? { arguments.first { $0.key == key }?.value }

    /// Parses one event line. Errors give the 1-based column (in characters) of the word at fault.
    init(parsing line: String, source: String, lineNumber: Int) throws(FlowError) {
        // The words, found in the UTF-8 bytes (spaces and tabs are single bytes there); a word's
        // column in characters is counted only for a message.
        var words: [Substring] = []
        let utf8 = line.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            while index < utf8.endIndex, utf8[index] == 0x20 || utf8[index] == 0x09 { index = utf8.index(after: index) }
            let start = index
            while index < utf8.endIndex, utf8[index] != 0x20, utf8[index] != 0x09 { index = utf8.index(after: index) }
            if start < index { words.append(line[start..<index]) }
        }
        func fault(_ word: Substring?, _ expected: String) -> FlowError {
            let column = word.map { line[..<$0.startIndex].count + 1 } ?? line.count + 1
            return FlowError(source: source, line: lineNumber, column: column, expected: expected)
        }
        var time: Double?
        if let first = words.first, first.utf8.first == UInt8(ascii: "+") || first.utf8.first == UInt8(ascii: "-") {
            let number = first.dropFirst()
            guard let seconds = Double(number), seconds.isFinite, !number.hasPrefix("-"), !number.hasPrefix("+") else {
                throw fault(first, "a time in seconds such as +1.250000 or -0.500000, not `\(first)`")
            }
            time = first.hasPrefix("-") ? -seconds : seconds
            words.removeFirst()
        }
        guard words.count >= 2 else {
            throw fault(
                words.first,
                words.isEmpty
                    ? "an actor and an event name after the time, as in `+1.250000 central didConnect peripheral=…`"
                    : "an event name after the actor `\(words[0])`, as in `central didConnect peripheral=…`")
        }
        for word in words[0...1] where word.utf8.contains(UInt8(ascii: "=")) {
            throw fault(
                word,
                "an actor and an event name before the arguments, as in `central didConnect peripheral=…`, not `\(word)`"
            )
        }
        var arguments: [Argument] = []
        arguments.reserveCapacity(words.count - 2)
        for word in words.dropFirst(2) {
            guard let equals = word.utf8.firstIndex(of: UInt8(ascii: "=")), equals != word.startIndex else {
                throw fault(word, "an argument KEY=VALUE after the event name `\(words[1])`, not `\(word)`")
            }
            arguments.append(Argument(String(word[..<equals]), String(word[word.utf8.index(after: equals)...])))
        }
        self.init(time: time, actor: String(words[0]), name: String(words[1]), arguments: arguments)
        self.lineNumber = lineNumber
    }

    /// True when the two events compare equal (actor, name and arguments in order).
    public func hasSameSignature(as other: FlowEvent) -> Bool {
        actor == other.actor && name == other.name && arguments == other.arguments
    }
}

/// A flow file that could not be read: where, and what was expected there (or why the file
/// could not be read at all).
public struct FlowError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    /// 1-based; 0 when the file could not be read at all.
    public var line: Int
    /// 1-based, in characters, when one place in the line is at fault.
    public var column: Int?
    public var expected: String
    /// Why the file could not be read (not a flow, not there), when that is the fault.
    public var reason: String?

    public init(source: String, line: Int, column: Int? = nil, expected: String, reason: String? = nil) {
        self.source = source
        self.line = line
        self.column = column
        self.expected = expected
        self.reason = reason
    }

    public var description: String {
        if let reason {
            return line == 0 ? "\(source): cannot read: \(reason)" : "\(source):\(line): cannot read: \(reason)"
        }
        return "\(source):\(line):" + (column.map { "\($0):" } ?? "") + " expected \(expected)"
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
