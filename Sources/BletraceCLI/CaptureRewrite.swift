import BLETrace

/// A capture read whole and written again, record by record: `convert` and `redact`.
enum CaptureRewrite {
    /// Writes every record `reader` has from here on to `out` (`-`: standard output) as `format`,
    /// each as `transform` makes it (nil: not written). The file is written beside `out` and
    /// renamed over it at the end; a file that cannot be written is exit 2, said. Returns the
    /// writer (its counts and losses) and the fault that ended the reading, if the source is
    /// damaged.
    static func write(
        _ reader: CaptureReader, source: String, input: String, to out: String, as format: CaptureFormat,
        transform: (CaptureRecord) -> CaptureRecord?
    ) throws -> (writer: CaptureWriter, fault: (any Error)?) {
        let file: OutputFile
        let writer: CaptureWriter
        do {
            file = try OutputFile.prepare(out, inputs: [input])
            let options = format == reader.format ? CaptureWriter.Options.matching(source) : CaptureWriter.Options()
            do {
                writer = try CaptureWriter(path: file.writePath, format: format, options: options)
            } catch {
                file.discard()
                throw error
            }
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        var fault: (any Error)?
        while true {
            let record: CaptureRecord?
            do { record = try reader.next() } catch {
                fault = error
                break
            }
            guard let record else { break }
            guard let made = transform(record) else { continue }
            do { try writer.write(made) } catch {
                try? writer.close()
                file.discard()
                Output.error("\(error)")
                throw Exit.badInput
            }
        }
        do {
            try writer.close()
            try file.commit()
        } catch {
            file.discard()
            Output.error("\(error)")
            throw Exit.badInput
        }
        return (writer, fault)
    }

    /// A line of summary: on standard output, or beside the messages when the capture went there.
    static func summary(_ line: String, to out: String) {
        if out == "-" { Output.standardError(line + "\n") } else { Output.line(line) }
    }

    /// What the target format could not hold, by reason, on standard error.
    static func reportLosses(_ writer: CaptureWriter, out: String, format: CaptureFormat) {
        guard !writer.losses.isEmpty else { return }
        var report = "\(out): what \(format) cannot hold, by reason"
        if writer.recordsNotWritten > 0 {
            report += " (\(Wording.count(writer.recordsNotWritten, "record")) not written)"
        }
        report += ":"
        let sorted = writer.losses.sorted { $0.value != $1.value ? $0.value > $1.value : "\($0.key)" < "\($1.key)" }
        for (loss, count) in sorted {
            report += "\n  \(Wording.count(count, "record")): \(loss)"
        }
        Output.error(report)
    }
}
