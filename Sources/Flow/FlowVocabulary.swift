import CoreBluetoothCodes
import Wire

/// The words a flow may use: every actor and the events each one has (Formats/flow.md, "Actors
/// and events"). A line of a flow read for `bletrace diff` whose actor or event is not here is bad
/// input, with a suggestion for a near miss.
///
/// The words are ``FlowRecord``'s enums: the one place to add a word, and what the replay engine
/// records compiles only with words that are there.
package enum FlowVocabulary {
    /// Each actor and its events. `central` and `peripheralManager` stand for their numbered
    /// siblings too (`central2`, `peripheralManager3`: a second manager of the same app).
    package static let events: [String: Set<String>] = [
        "system": Set(FlowRecord.System.allCases.map(\.rawValue)),
        "app": Set(FlowRecord.App.allCases.map(\.rawValue)),
        "central": Set(FlowRecord.Central.allCases.map(\.rawValue)),
        "peripheral": Set(FlowRecord.Peripheral.allCases.map(\.rawValue)),
        "peripheralManager": Set(FlowRecord.PeripheralManager.allCases.map(\.rawValue)),
    ]

    /// Every argument key an event may carry (`peripheral=`, `error=` …).
    package static let keys: Set<String> = Set(FlowRecord.Key.allCases.map(\.rawValue))

    /// The error types a flow names, with their case names (`CBError.connectionTimeout`).
    static let errorNames: [String: Set<String>] = [
        "CBError": Set(CBError.Code.allCases.compactMap(\.name)),
        "CBATTError": Set(CBATTError.Code.allCases.compactMap(\.name)),
        "CBInternalError": Set(CBInternalError.Code.allCases.map { "\($0)" }),
    ]

    /// Actors that may carry a number for a second, third … manager of the same app.
    static let numbered: Set<String> = ["central", "peripheralManager"]

    /// The actor of the table that `actor` is (`central2` is `central`); nil when it is none.
    package static func kind(of actor: String) -> String? {
        if events[actor] != nil { return actor }
        for base in numbered where actor.hasPrefix(base) {
            let number = actor.dropFirst(base.count)
            if let value = Int(number), value >= 2, number.first != "0", number.allSatisfy(\.isASCII) { return base }
        }
        return nil
    }

    /// Whether `event`'s actor and name are in the table.
    package static func contains(_ event: FlowEvent) -> Bool {
        guard let kind = kind(of: event.actor) else { return false }
        return events[kind]?.contains(event.name) == true
    }

    /// Checks an event read from line `lineNumber` of `source` (whose text is `line`, to point at
    /// the word at fault): an actor or event name not in the table is a ``FlowError`` that says
    /// what was expected and, for a near miss, which word was probably meant.
    package static func check(_ event: FlowEvent, line: String, source: String, lineNumber: Int) throws(FlowError) {
        try checkActorAndName(event, line: line, source: source, lineNumber: lineNumber)
        // `@<=`/`@>=` are an expectation's timing assertions (FlowExpectation checks them).
        for argument in event.arguments where !argument.key.hasPrefix("@") {
            guard keys.contains(argument.key) else {
                var expected = "an argument key of a flow event, not `\(argument.key)`"
                if let near = nearest(argument.key, among: keys.sorted()) { expected += "; did you mean `\(near)`?" }
                throw FlowError(
                    source: source, line: lineNumber, column: column(of: " \(argument.key)=", in: line),
                    expected: expected)
            }
            if argument.key == "error", let message = errorNameFault(argument.value) {
                throw FlowError(
                    source: source, line: lineNumber, column: column(of: "=\(argument.value)", in: line),
                    expected: message)
            }
        }
    }

    /// What is wrong with an error value naming a case its type lacks (`CBError.connectionTimout`);
    /// nil for a known case, a `Code(N)`, `nil`, a pattern (`CBError.*`) or a value of another form.
    static func errorNameFault(_ value: String) -> String? {
        guard !value.contains("*"), let dot = value.firstIndex(of: "."), let names = errorNames[String(value[..<dot])]
        else { return nil }
        let type = String(value[..<dot])
        let name = String(value[value.index(after: dot)...])
        if names.contains(name) || name.hasPrefix("Code(") { return nil }
        var expected = "a case of `\(type)`, not `\(name)`"
        if let near = nearest(name, among: names.sorted()) { expected += "; did you mean `\(type).\(near)`?" }
        return expected
    }

    /// The 1-based column (in characters) of the character after the first of `text` in `line`
    /// (`text` leads with the separator before the word meant), if `text` is there.
    private static func column(of text: String, in line: String) -> Int? {
        guard let range = line.range(of: text) else { return nil }
        return line.distance(from: line.startIndex, to: range.lowerBound) + 2
    }

    private static func checkActorAndName(_ event: FlowEvent, line: String, source: String, lineNumber: Int)
        throws(FlowError)
    {
        // The fast way first: most events are in the table.
        if let names = events[event.actor], names.contains(event.name) { return }
        let (actorColumn, nameColumn) = columns(of: line)
        guard let kind = kind(of: event.actor) else {
            let actors = events.keys.sorted()
            var expected = "an actor (\(actors.map { "`\($0)`" }.joined(separator: ", "))), not `\(event.actor)`"
            if let near = nearest(event.actor, among: actors) { expected += "; did you mean `\(near)`?" }
            throw FlowError(source: source, line: lineNumber, column: actorColumn, expected: expected)
        }
        let names = events[kind]!
        guard names.contains(event.name) else {
            var expected = "an event of `\(event.actor)`, not `\(event.name)`"
            if let owner = events.keys.sorted().first(where: { events[$0]!.contains(event.name) }) {
                expected += "; `\(event.name)` is an event of `\(owner)`"
            } else if let near = nearest(event.name, among: names.sorted()) {
                expected += "; did you mean `\(near)`?"
            }
            throw FlowError(source: source, line: lineNumber, column: nameColumn, expected: expected)
        }
    }

    /// The 1-based columns (in characters) of the actor and the event name in an event line.
    static func columns(of line: String) -> (Int, Int) {
        var columns: [Int] = []
        var column = 0
        var inWord = false
        for character in line {
            column += 1
            let space = character == " " || character == "\t"
            if !space, !inWord { columns.append(column) }
            inWord = !space
            if columns.count == 3 { break }
        }
        // A leading time (`+1.25`) comes before the actor.
        let timed = line.drop { $0 == " " || $0 == "\t" }.first.map { $0 == "+" || $0 == "-" } ?? false
        let words = timed ? Array(columns.dropFirst()) : columns
        return (words.first ?? 1, words.dropFirst().first ?? 1)
    }

    /// The word of `candidates` closest to `word`, when it is close enough to be a slip
    /// (``Suggestions``, as the command line suggests subcommands).
    static func nearest(_ word: String, among candidates: [String]) -> String? {
        Suggestions.nearest(to: word, among: candidates).first
    }
}
