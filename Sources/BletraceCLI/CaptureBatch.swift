import ArgumentParser
import BLETrace
import Foundation
import SystemPackage

/// A command that reads captures: given several files or a directory, it runs on each file in a
/// worker of its own (``CaptureBatch``).
protocol ReadsCaptures {
    var capture: CaptureOptions { get }
    var output: OutputOptions { get }
    /// What the command writes: text, JSON lines, or one JSON document per capture.
    var shape: OutputShape { get }
    /// True when the command's JSON already names its file: every JSON document does, not the
    /// JSON lines of records (decode, errors, diagnose), to which the batch adds it.
    var namesItsFile: Bool { get }
    /// Whether the command reads over-the-air captures (all but `stats`): in a directory, one
    /// that does not passes over them with a note, as over files that are no capture.
    var readsOverTheAir: Bool { get }
}

extension ReadsCaptures {
    var namesItsFile: Bool { shape == .jsonDocument }
    var readsOverTheAir: Bool { true }
}

enum OutputShape {
    case text, jsonLines, jsonDocument
    /// A picture (lifecycle --format svg or html): one capture at a time.
    case picture

    init(_ format: OutputFormat) {
        self =
            switch format {
            case .text: .text
            case .jsonl: .jsonLines
            case .json: .jsonDocument
            }
    }
}

extension Decode: ReadsCaptures { var shape: OutputShape { OutputShape(format) } }
extension Stats: ReadsCaptures {
    var shape: OutputShape { OutputShape(format) }
    var namesItsFile: Bool { true }
    var readsOverTheAir: Bool { false }
}
extension Errors: ReadsCaptures { var shape: OutputShape { OutputShape(format) } }
extension Diagnose: ReadsCaptures { var shape: OutputShape { OutputShape(format) } }
extension GATT: ReadsCaptures {
    var shape: OutputShape { OutputShape(format) }
    var namesItsFile: Bool { true }
}
extension Info: ReadsCaptures {
    var shape: OutputShape { OutputShape(format) }
    var namesItsFile: Bool { true }
}
extension LifecycleCommand: ReadsCaptures {
    var namesItsFile: Bool { true }
    var shape: OutputShape {
        switch format {
        case .text: .text
        case .jsonl: .jsonLines
        case .json: .jsonDocument
        case .svg, .html: .picture
        }
    }
}

/// Many captures at once: `bletrace errors --format jsonl logs/` (several files, directories, or
/// both).
///
/// Each capture is analysed by a worker of its own, the same bletrace command run on that one
/// file (the map step a cluster would run per file), as many at a time as there are processors
/// (`--jobs`). Their outputs are written in the order of the files, whichever finishes first:
/// text under a `==> FILE <==` line; JSON lines and documents with `"file"` added to each object
/// (a document per capture in one JSON array for `--format json`). A capture that fails is
/// reported on standard error, as on its own, and the others go on; the exit code is the worst
/// of theirs (2 bad input, 1 a finding such as a damaged capture, 0).
///
/// Each worker writes into a temporary file, copied to the output when its turn comes, so that
/// memory stays flat however large the outputs.
struct CaptureBatch {
    let files: [String]
    let jobs: Int
    let shape: OutputShape
    let addsFile: Bool
    /// The command line of a worker, less its capture.
    let arguments: [String]
    let quiet: Bool

    /// Capture files inside a directory: these name endings (Android writes `btsnoop_hci.log`;
    /// `.cfa` is its bug-report name). A file named on the command line is read whatever its
    /// name.
    static let extensions = [".btsnoop", ".log", ".cfa", ".pcap", ".pcapng", ".cap", ".pklg", ".zip", ".gz", ".tgz"]

    /// The batch for a parsed command, or nil when it reads one capture file (then it runs as
    /// always, in this process).
    init?(_ command: any ParsableCommand) throws {
        guard let reader = command as? any ReadsCaptures else { return nil }
        let operands = reader.capture.files
        guard operands.count > 1 || operands.contains(where: Self.isDirectory) else { return nil }
        guard reader.shape != .picture else {
            Output.error("a timeline picture (svg, html) shows one capture: give one file")
            throw Exit.badInput
        }
        guard !operands.contains("-") else {
            Output.error("- (standard input) is read alone, not with other captures")
            throw Exit.badInput
        }
        var files: [String] = []
        for operand in operands {
            if Self.isDirectory(operand) {
                let found = Self.captures(in: operand)
                if found.isEmpty {
                    Output.error("\(operand): no capture files in it (\(Self.extensions.joined(separator: ", ")))")
                }
                // A file found in a directory that is no HCI capture (another link type, not a
                // capture at all) is passed over with a note; named on its own it is bad input.
                var read = 0
                for file in found {
                    if let reason = Self.notACapture(file, overTheAir: reader.readsOverTheAir) {
                        Output.error("note: \(file) skipped: \(reason)")
                    } else {
                        files.append(file)
                        read += 1
                    }
                }
                if !found.isEmpty, read == 0 { Output.error("\(operand): no capture to read in it") }
            } else {
                files.append(operand)
            }
        }
        if files.isEmpty { throw Exit.badInput }
        self.files = files
        jobs = reader.capture.jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
        shape = reader.shape
        addsFile = !reader.namesItsFile
        quiet = reader.output.quiet
        arguments = Self.workerArguments(CommandLine.arguments.dropFirst(), operands: Set(operands))
        if let path = reader.output.outputFile { try Output.redirect(to: path, inputs: files) }
    }

    /// Why `path` is no capture the command reads (its header names no HCI link, or an
    /// over-the-air one when `overTheAir` is false; it is no known format or container); nil when
    /// it is one. Only the header is read.
    static func notACapture(_ path: String, overTheAir: Bool = true) -> String? {
        do {
            if try CaptureContainer.kind(of: path) != nil { return nil }
            _ = try CaptureReader(path: path, linkLayer: overTheAir)
            return nil
        } catch {
            let text = "\(error)"
            return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The capture files under `directory`, at any depth, in path order; hidden ones left out.
    static func captures(in directory: String) -> [String] {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        // A directory named through a symbolic link is walked where it leads (the enumerator does
        // not follow a link), its files named under the name given.
        let target = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: target) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let name = FilePath(relative).lastComponent?.string ?? relative
            if name.hasPrefix(".") {
                if isDirectory(base + relative) { walker.skipDescendants() }
                continue
            }
            guard Self.extensions.contains(where: { name.lowercased().hasSuffix($0) }) else { continue }
            var info = stat()
            if stat(base + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG { found.append(base + relative) }
        }
        return found.sorted()
    }

    /// The command line less its captures and its `-o`: a worker writes to its own file, and
    /// gets its capture after `--`.
    static func workerArguments(_ arguments: ArraySlice<String>, operands: Set<String>) -> [String] {
        var kept: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            if argument == "-o" || argument == "--output" {
                skipNext = true
                continue
            }
            if argument.hasPrefix("--output=")
                || (argument.hasPrefix("-o") && argument.count > 2 && !argument.hasPrefix("--"))
            {
                continue
            }
            if argument == "--" || operands.contains(argument) { continue }
            kept.append(argument)
        }
        return kept
    }

    /// Runs every capture and writes their outputs in file order; returns the exit code.
    func run() throws -> Int32 {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bletrace-batch-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

        var pids: [pid_t: Int] = [:]
        var status = [Int32?](repeating: nil, count: files.count)
        var next = 0
        var emitted = 0
        var worst: Int32 = 0
        // Captures whose output was written: the separators go between them.
        var written = 0
        let showProgress = !quiet && isatty(STDERR_FILENO) == 1 && (Output.writesToFile || isatty(STDOUT_FILENO) == 0)
        if shape == .jsonDocument { Output.text("[\n") }
        while emitted < files.count {
            while pids.count < jobs, next < files.count {
                let out = directory.appendingPathComponent("\(next).out").path
                let err = directory.appendingPathComponent("\(next).err").path
                pids[try spawn(executable, arguments + ["--", files[next]], stdout: out, stderr: err)] = next
                next += 1
            }
            if let code = status[emitted] {
                if showProgress { Output.standardError("\r\u{1B}[K") }
                try emit(emitted, code: code, directory: directory, texts: &written)
                worst = max(worst, code)
                emitted += 1
                if showProgress, emitted < files.count {
                    Output.standardError("\r\u{1B}[K\(emitted) of \(files.count) captures done")
                }
                continue
            }
            var raw: Int32 = 0
            let pid = waitpid(-1, &raw, 0)
            if pid < 0 {
                if errno == EINTR { continue }
                Output.error("waiting for the workers: \(String(cString: strerror(errno)))")
                return 2
            }
            guard let index = pids.removeValue(forKey: pid) else { continue }
            // A worker that died by a signal is a failure of its capture: code 2, said below.
            status[index] = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        }
        if shape == .jsonDocument { Output.line("]") }
        return min(worst, 2)
    }

    private func spawn(_ executable: String, _ arguments: [String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else {
            Output.error("cannot start a worker: \(String(cString: strerror(result)))")
            throw Exit.badInput
        }
        return pid
    }

    /// Writes capture `index`'s output (with its file named) and its messages.
    private func emit(_ index: Int, code: Int32, directory: URL, texts: inout Int) throws {
        let file = files[index]
        let output = try Data(contentsOf: directory.appendingPathComponent("\(index).out"), options: .alwaysMapped)
        let messages = (try? Data(contentsOf: directory.appendingPathComponent("\(index).err"))) ?? Data()
        let key = addsFile ? Self.fileMember(file) : nil
        switch shape {
        case .text, .picture:
            // A capture that failed before writing anything has its message only.
            guard !output.isEmpty else { break }
            if texts > 0 { Output.line("") }
            texts += 1
            Output.line("==> \(file) <==")
            Output.bytes(output)
        case .jsonLines:
            // Each line is an object: `"file"` goes first in it. Lines are copied through one
            // reused buffer (a capture can have millions).
            guard let key else {
                Output.bytes(output)
                break
            }
            var lines = LineBuffer()
            output.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var start = 0
                while start < bytes.count {
                    let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start)
                    let end = found.map { UnsafeRawPointer($0) - bytes.baseAddress! } ?? bytes.count
                    let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    if line.first == UInt8(ascii: "{") {
                        lines.text("{\"file\":")
                        lines.string(key)
                        if line.count > 2 { lines.byte(UInt8(ascii: ",")) }
                        lines.raw(UnsafeRawBufferPointer(rebasing: line[1...]))
                    } else {
                        lines.raw(line)
                    }
                    lines.byte(0x0A)
                    if lines.count >= 1 << 16 { Output.write(&lines) }
                    start = end + 1
                }
            }
            Output.write(&lines)
        case .jsonDocument:
            guard !output.isEmpty else { break }
            if texts > 0 { Output.text(",\n") }
            texts += 1
            var body = output
            while body.last == 0x0A { body.removeLast() }
            if let key, body.first == UInt8(ascii: "{") {
                // Pretty documents (a line break after the brace) and compact ones (decode's).
                let pretty = body.dropFirst().first == 0x0A
                Output.bytes(Data((pretty ? "{\n  \"file\" : \(key)," : "{\"file\":\(key),").utf8))
                Output.bytes(body.dropFirst())
            } else {
                Output.bytes(body)
            }
            Output.text("\n")
        }
        if !messages.isEmpty {
            Output.flush()
            Output.standardError(String(decoding: messages, as: UTF8.self))
        }
        if code > 2 {
            Output.error("\(file): the worker ended with \(code > 128 ? "signal \(code - 128)" : "code \(code)")")
        }
    }

    /// `"path"` as JSON.
    static func fileMember(_ file: String) -> String {
        var buffer = LineBuffer(capacity: file.utf8.count + 8)
        buffer.jsonString(file)
        return String(decoding: buffer.buffer, as: UTF8.self)
    }
}
