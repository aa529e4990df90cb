/// What an app did and was told during a replay, one event per line (Formats/flow.md).
///
/// ```
/// # bletrace flow 1
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

    public static let header = "bletrace flow 1"

    /// The text form: the header, the comments, then one line per event.
    public var text: String {
        var lines = ["# " + Self.header]
        lines += comments.map { "# " + $0 }
        lines += events.map(\.line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the text form. Blank lines and `#` comments are skipped; the time is optional.
    public init(parsing text: String, source: String = "flow") throws(FlowError) {
        var events: [FlowEvent] = []
        var comments: [String] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let comment = line.dropFirst().trimmingCharacters(in: " ")
                if comment != Self.header { comments.append(comment) }
                continue
            }
            events.append(try FlowEvent(parsing: line, source: source, lineNumber: number + 1))
        }
        self.init(events: events, comments: comments)
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
        return formatSeconds(time) + " " + signature
    }

    public func argument(_ key: String) -> String? { arguments.first { $0.key == key }?.value }

    init(parsing line: String, source: String, lineNumber: Int) throws(FlowError) {
        var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var time: Double?
        if let first = words.first, first.hasPrefix("+") {
            guard let seconds = Double(first.dropFirst()), seconds.isFinite, seconds >= 0 else {
                throw FlowError(source: source, line: lineNumber, expected: "a time such as +1.250000, not \(first)")
            }
            time = seconds
            words.removeFirst()
        }
        guard words.count >= 2 else {
            throw FlowError(source: source, line: lineNumber, expected: "an actor and an event name, as in `central didConnect peripheral=…`")
        }
        var arguments: [Argument] = []
        for word in words.dropFirst(2) {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw FlowError(source: source, line: lineNumber, expected: "key=value, not \(word)")
            }
            arguments.append(Argument(String(word[..<equals]), String(word[word.index(after: equals)...])))
        }
        self.init(time: time, actor: words[0], name: words[1], arguments: arguments)
        self.lineNumber = lineNumber
    }
}

/// A flow file that could not be read.
public struct FlowError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var line: Int
    public var expected: String
    public var description: String { "\(source):\(line): expected \(expected)" }
}

/// A flow time with its sign and six decimals, no Foundation: 1.5 → "+1.500000", -0.25 →
/// "-0.250000". Any value shows without trapping: beyond 9,000,000,000,000 s (past what six
/// decimals of a Double can hold) it is written in exponent form ("+1e+300"), which reads back.
func formatSeconds(_ seconds: Double) -> String {
    let sign = seconds.sign == .minus && seconds != 0 ? "-" : "+"
    let magnitude = seconds.magnitude
    guard magnitude < 9e12 else { return sign + "\(magnitude)" }
    let micros = UInt64((magnitude * 1_000_000).rounded())
    let fraction = String(micros % 1_000_000)
    return sign + "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
