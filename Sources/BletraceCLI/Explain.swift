import ArgumentParser
import BLETrace

/// `bletrace explain CODE|TEXT`: what an error code or a pasted log line is on Android and iOS,
/// the HCI and ATT causes that produce it, what each leaves in a trace, and how to capture one.
struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain an error code or a pasted log line on Android and iOS, with no capture.",
        discussion: """
            Takes a number (133, 0x3e, Error 62 (0x3e)), an Android status or logcat line (status=133, \
            GATT_ERROR, a BluetoothGatt onClientConnectionState line with status=133), an iOS error \
            (CBErrorDomain Code=6, CBATTErrorDomain Code=15, an Xcode console line) or bluetoothd's \
            reason 722. Every reading of it is given, with its causes on the wire, both platforms' \
            views and how to capture the trace that tells them apart (Formats/android-mapping.md). \
            Exit code 2 when nothing in it is a code bletrace knows.
            """)

    @Argument(help: "The code or the log line (quote it).") var text: [String]
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var destination: DestinationOptions

    func run() throws {
        try destination.apply(inputs: [])
        let input = text.joined(separator: " ")
        guard let explanation = Explainer.explain(input) else {
            Output.error(
                "explain: \"\(input)\" is no code bletrace knows: give a number (133, 0x3e), a name (GATT_ERROR, CBError.connectionTimeout), a domain and code (CBErrorDomain Code=6), a logcat line with status=N or reason N"
            )
            throw Exit.badInput
        }
        guard !explanation.readings.isEmpty else {
            Output.error(
                "explain: \"\(input)\" names nothing on either platform; readings considered: "
                    + explanation.considered.joined(separator: "; "))
            throw Exit.badInput
        }
        if format != .text {
            try Output.json(explanation.json(version: jsonVersion), pretty: format == .json)
        } else {
            // With colour, each reading's heading is bold.
            explanation.write { line in Output.line(line.first?.isNumber == true ? Style.bold(line) : line) }
        }
        Output.flush()
    }
}
