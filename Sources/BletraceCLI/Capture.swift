#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import ArgumentParser
import BLETrace
import Dispatch
import Foundation

/// `bletrace capture`: record HCI traffic live, writing as it goes.
struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture HCI traffic live into a file, writing each record as it arrives.",
        discussion: """
            Sources (-i): bluetooth-monitor (libpcap, all controllers), hciN (libpcap, one controller), hci-monitor (BlueZ's monitor channel directly), tcp:HOST:PORT, unix:PATH or a serial/pty path (an H4 stream, as Bumble, Zephyr native_sim and the Android emulator offer), relay:HOST:PORT,CONTROLLER (sits between a host and a controller and records both ways). Formats/live.md says what each needs.

            The file stays valid if bletrace is killed: each record is flushed as it is written. Ctrl-C (or SIGTERM) ends the capture cleanly.
            """)

    @Option(
        name: .short, help: ArgumentHelp("The source to capture from (see below).", valueName: "source"),
        completion: .liveSources)
    var interface: String?
    @Flag(
        help: "Capture every controller through libpcap's Bluetooth monitor device (the same as -i bluetooth-monitor).")
    var monitor = false
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The file to write (- is standard output, with --to); its format comes from the extension (.btsnoop, .log, .pcap, .pcapng, .pklg) unless --to says.",
            valueName: "file"),
        completion: .path)
    var output: String?
    /// `-w FILE`, the spelling before `-o`: kept for the scripts that use it.
    @Option(
        name: .customShort("w"), help: ArgumentHelp("The same as -o.", valueName: "file", visibility: .hidden),
        completion: .path)
    var writeAlias: String?

    /// The file to write: -o, or -w.
    var write: String { output ?? writeAlias ?? "" }
    @Option(help: "btsnoop, pcap, pcapng or pklg.") var to: Convert.Family?
    @Option(help: "Stop after this many records.") var count: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double?

    func validate() throws {
        guard (interface != nil) != monitor else { throw ValidationError("give one source: -i SOURCE or --monitor") }
        guard (output == nil) != (writeAlias == nil) else {
            throw ValidationError(
                output == nil ? "missing the file to write: -o FILE" : "give the file to write once: -o or -w, not both"
            )
        }
        if let count, count <= 0 { throw ValidationError("--count must be positive") }
        if let duration, !(duration > 0 && duration <= 1e9) {
            throw ValidationError("--duration must be positive and at most 1e9 seconds")
        }
        guard to != nil || Convert.Family(extensionOf: write) != nil else {
            throw ValidationError(
                "cannot tell the format from '\(write)'; name it .btsnoop, .pcap, .pcapng or .pklg, or give --to")
        }
    }

    func run() throws {
        let source: LiveSource
        let named = monitor ? "bluetooth-monitor" : interface!
        do {
            source = try LiveSource(parsing: named)
        } catch {
            Output.error(Self.message(error, source: named))
            throw Exit.finding
        }
        // The monitor link types keep controller indexes and notes; H4 ones keep directions.
        let monitorLink = source.linkType == 254
        let format: CaptureFormat
        switch to ?? Convert.Family(extensionOf: write)! {
        case .btsnoop: format = .btsnoop(datalink: monitorLink ? 2001 : 1002)
        case .pcap: format = .pcap(linkType: monitorLink ? 254 : 201)
        case .pcapng: format = .pcapng(linkType: monitorLink ? 254 : 201)
        case .pklg: format = .packetLogger
        }
        let writer: CaptureWriter
        do {
            // Written in place, not renamed at the end: the file is readable while it grows.
            let file = try OutputFile.prepare(write, inputs: [], mode: .inPlace)
            writer = try CaptureWriter(path: file.writePath, format: format)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }

        // Ctrl-C and SIGTERM stop the source; the loop below then closes the file.
        let stopper = source.stopper
        var handlers: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let handler = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            handler.setEventHandler { stopper.stop() }
            handler.resume()
            handlers.append(handler)
        }
        defer { handlers.forEach { $0.cancel() } }

        let deadline = duration.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        let interactive = isatty(STDERR_FILENO) == 1
        var fault: (any Error)?
        do {
            while count.map({ writer.recordsWritten + writer.recordsNotWritten < $0 }) ?? true,
                let record = try source.next(until: deadline)
            {
                _ = try writer.write(record)
                try writer.flush()
                if interactive, writer.recordsWritten % 100 == 0 {
                    Output.standardError("\r\(writer.recordsWritten) records")
                }
            }
        } catch { fault = error }
        try writer.close()
        if interactive { Output.standardError("\r") }
        var summary = "\(writer.recordsWritten) records written to \(write) (\(format))"
        if writer.recordsNotWritten > 0 { summary += "; \(writer.recordsNotWritten) could not be carried" }
        Output.standardError(summary + "\n")
        // Bytes that started no packet were skipped, the records around them kept: said, and a
        // finding (exit 1), not a failure.
        if source.framingErrorCount > 0, let first = source.framingErrors.first {
            let count = source.framingErrorCount
            Output.error(
                "\(Wording.count(count, "framing error")) in the H4 stream, \(Wording.count(source.skippedBytes, "byte")) skipped; the first: \(first)"
            )
        }
        if let fault { Output.error(Self.message(fault, source: named)) }
        try finish(nil)
        if fault != nil || source.framingErrorCount > 0 { throw Exit.finding }
    }

    /// The message of `error` with the source as the user named it: libpcap calls controller N
    /// `bluetoothN`, which `-i hciN` names.
    static func message(_ error: any Error, source named: String) -> String {
        let text = "\(error)"
        guard let device = try? LiveDevice(parsing: named) else { return text }
        let libpcapName = device.description
        guard libpcapName != named, text.hasPrefix(libpcapName + ":") else { return text }
        return "\(named) (libpcap's \(libpcapName))" + text.dropFirst(libpcapName.count)
    }
}
#endif
