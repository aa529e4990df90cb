import Foundation
import Testing
import TestSupport
import TraceFiles

/// The corrupt-input matrix: for every bundled format, truncation at every byte of the
/// first records, a damaged record in the middle, a wrong datalink, an empty file, a directory, a
/// FIFO and a file that grows while it is read, each with its exit code, its message and the good
/// records before the fault.
@Suite struct CorruptInputMatrixTests {
    /// One capture per format and datalink the repository bundles.
    static let formats = [
        "att-errors.btsnoop", "att-errors.dl1001.btsnoop", "att-errors.dl2001.btsnoop", "att-errors.pcap",
        "att-errors.lt187.pcap", "att-errors.lt254.pcap", "att-errors.lt187.pcapng", "att-errors.lt201.pcapng",
        "att-errors.lt254.pcapng", "att-errors.pklg",
    ]

    /// Where each record ends: the next record's offset (the file's end for the last).
    func recordEnds(_ path: String) throws -> [Int] {
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        let size = try Fixtures.contents(path).count
        return records.indices.map { $0 + 1 < records.count ? Int(records[$0 + 1].fileOffset) : size }
    }

    /// The records a reader yields from `bytes`, and whether it stopped on a fault.
    func read(_ bytes: ArraySlice<UInt8>, directory: String) throws -> (count: Int, fault: Bool) {
        let path = directory + "/prefix"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let (records, fault) = try Fixtures.readAll(path)
            return (records.count, fault != nil)
        } catch {
            return (0, true)
        }
    }

    @Test(arguments: formats)
    func aTruncationAtEveryByteOfTheFirstRecordsKeepsTheRecordsBeforeIt(name: String) throws {
        let path = Fixtures.capture(name)
        let bytes = try Fixtures.contents(path)
        let ends = try recordEnds(path)
        try #require(ends.count >= 4)
        let directory = (try Fixtures.temporaryFile([], name: "x") as NSString).deletingLastPathComponent
        for length in 0...ends[3] {
            let (count, fault) = try read(bytes[..<length], directory: directory)
            let complete = ends.prefix { $0 <= length }.count
            // PacketLogger has no file header: its byte order is told from the first records, so
            // a file cut inside the first one is not recognised at all.
            #expect(count == complete, "\(name) cut at \(length): \(count) records, expected \(complete)")
            let atBoundary = ends.contains(length) || (count == 0 && !fault)
            #expect(fault != atBoundary || length == 0, "\(name) cut at \(length): fault \(fault)")
        }
    }

    @Test(arguments: formats)
    func theCommandsShowTheGoodRecordsThenOneLineAndExitOne(name: String) throws {
        let bytes = try Fixtures.contents(Fixtures.capture(name))
        let ends = try recordEnds(Fixtures.capture(name))
        for cut in [ends[1] + 1, ends[2] + 7, ends[3] - 1] {
            let path = try Fixtures.temporaryFile(Array(bytes[..<cut]), name: "cut-\(name)")
            let decode = try bletrace("decode", path)
            let good = ends.prefix { $0 <= cut }.count
            #expect(decode.status == 1, "\(name) cut at \(cut)")
            #expect(decode.stdout.split(separator: "\n").count == good, "\(name) cut at \(cut)")
            #expect(decode.stderr.hasPrefix("bletrace: \(path)"))
            #expect(decode.stderr.filter { $0 == "\n" }.count == 1, "\(decode.stderr)")
            // The first record not shown, as Wireshark numbers frames.
            #expect(decode.stderr.contains("frame \(good + 1):"), "\(decode.stderr)")
            for command in ["info", "errors", "lifecycle", "stats"] {
                let result = try bletrace(command, path)
                #expect(result.status == 1, "\(command) \(name) cut at \(cut)")
                #expect(result.stderr == decode.stderr, "\(command) \(name)")
            }
        }
    }

    /// The frame an error names is Wireshark's: tshark, reading the same cut file, shows the frames
    /// before it and then says the file was cut short, and the error names the next frame.
    @Test(arguments: ["att-errors.btsnoop", "att-errors.pcap", "att-errors.lt201.pcapng", "att-errors.pklg"])
    func theFrameAnErrorNamesIsTheOneAfterTheFramesTsharkReads(name: String) throws {
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        let bytes = try Fixtures.contents(Fixtures.capture(name))
        let ends = try recordEnds(Fixtures.capture(name))
        for cut in [ends[40] + 3, ends[90] - 2] {
            let path = try Fixtures.temporaryFile(Array(bytes[..<cut]), name: "cut-\(name)")
            let frames = try run(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"]).stdout.split(
                separator: "\n"
            ).compactMap { Int($0) }
            #expect(frames == Array(1...frames.count), "\(name) cut at \(cut)")
            let result = try bletrace("decode", path)
            #expect(result.status == 1)
            #expect(
                result.stderr.hasPrefix("bletrace: \(path): frame \(frames.count + 1): "),
                "\(name) cut at \(cut): \(result.stderr)")
        }
    }

    /// Sets a big-endian or little-endian u32 in `bytes`.
    func put(_ value: UInt32, at offset: Int, bigEndian: Bool, in bytes: inout [UInt8]) {
        for index in 0..<4 {
            bytes[offset + index] = UInt8(
                truncatingIfNeeded: bigEndian ? value >> (24 - 8 * index) : value >> (8 * index))
        }
    }

    @Test(arguments: [
        // file, which record to damage, the byte of its header to overwrite, big-endian.
        ("att-errors.btsnoop", 10, 4, true),  // included length
        ("att-errors.pcap", 10, 8, false),  // captured length
        ("att-errors.lt201.pcapng", 10, 4, false),  // block total length
        ("att-errors.pklg", 10, 0, false),  // record length
    ])
    func aDamagedRecordMidFileEndsTheReadingThereWithTheRecordsBeforeIt(
        name: String, record: Int, field: Int, bigEndian: Bool
    ) throws {
        var bytes = try Fixtures.contents(Fixtures.capture(name))
        let (records, _) = try Fixtures.readAll(Fixtures.capture(name))
        let start = Int(records[record].fileOffset)
        // The pklg test file is little-endian; its length field is then the bytes as given.
        put(0xFFFF_FFF0, at: start + field, bigEndian: bigEndian, in: &bytes)
        let path = try Fixtures.temporaryFile(bytes, name: "damaged-\(name)")
        let result = try bletrace("decode", path)
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n").count == record)
        #expect(result.stderr.contains("frame \(record + 1):"), "\(result.stderr)")
        #expect(result.stderr.contains("offset"), "\(result.stderr)")
    }

    @Test func aWrongDatalinkIsNamedAndExitsTwo() throws {
        var btsnoop = try Fixtures.contents(Fixtures.capture("att-errors.btsnoop"))
        put(9_999, at: 12, bigEndian: true, in: &btsnoop)
        let snoop = try bletrace("decode", try Fixtures.temporaryFile(btsnoop, name: "dl.btsnoop"))
        #expect(snoop.status == 2)
        #expect(snoop.stderr.contains("9999"))
        var pcap = try Fixtures.contents(Fixtures.capture("att-errors.pcap"))
        put(1, at: 20, bigEndian: false, in: &pcap)
        let ethernet = try bletrace("decode", try Fixtures.temporaryFile(pcap, name: "lt1.pcap"))
        #expect(ethernet.status == 2)
        #expect(
            ethernet.stderr.contains(
                "link type 1 (ETHERNET) is not a Bluetooth HCI link type; bletrace reads 187, 201 and 254"))
        put(67_108_863, at: 20, bigEndian: false, in: &pcap)
        let odd = try bletrace("decode", try Fixtures.temporaryFile(pcap, name: "lt-odd.pcap"))
        #expect(odd.status == 2)
        #expect(odd.stderr.contains("link type 67108863 is not a Bluetooth HCI link type"), "\(odd.stderr)")
    }

    @Test func anEmptyFileADirectoryAndAMissingFileExitTwoSayingWhich() throws {
        let empty = try Fixtures.temporaryFile([], name: "empty.btsnoop")
        let directory = (empty as NSString).deletingLastPathComponent
        for command in ["info", "decode", "lifecycle", "replay"] {
            let extra = command == "replay" ? ["--app", "reconnecting"] : []
            let results = [
                (try run(bletracePath, [command, empty] + extra), "the file is empty"),
                // A directory is its captures for the analysis commands (Formats/commands.md, "Many captures
                // at once"): here only the empty one, passed over with a note, which leaves
                // nothing to read; replay reads one file.
                (
                    try run(bletracePath, [command, directory] + extra),
                    command == "replay"
                        ? "it is a directory"
                        : "empty.btsnoop skipped: file at byte offset 0: expected a capture file (btsnoop, pcap, pcapng or PacketLogger); the file is empty\nbletrace: \(directory): no capture to read in it"
                ),
                (try run(bletracePath, [command, directory + "/missing.btsnoop"] + extra), "no such file"),
            ]
            for (result, message) in results {
                #expect(result.status == 2, "\(command): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test func aFIFOWithAWriterIsReadAsAStream() throws {
        let path = try Fixtures.temporaryFile([], name: "x") + ".fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let capture = Fixtures.capture("att-errors.btsnoop")
        // The writer: a shell that copies the capture into the FIFO.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat '\(capture)' > '\(path)'"]
        try writer.run()
        let result = try bletrace("decode", path)
        writer.waitUntilExit()
        #expect(result.status == 0)
        #expect(result.stdout == (try bletrace("decode", capture)).stdout)
    }

    @Test func aPcapFIFOIsRefusedByName() throws {
        let path = try Fixtures.temporaryFile([], name: "x") + ".fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat '\(Fixtures.capture("att-errors.pcap"))' > '\(path)' 2>/dev/null"]
        try writer.run()
        let result = try bletrace("decode", path)
        writer.terminate()
        #expect(result.status == 2)
        #expect(result.stderr.contains("a pcap stream from a FIFO or device cannot be read"))
    }

    @Test func aFIFONoProgramWritesToIsRefusedByName() throws {
        let path = try Fixtures.temporaryFile([], name: "x") + ".fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: CaptureError.self) { try CaptureReader(path: path, streamWait: .milliseconds(200)) }
        do {
            _ = try CaptureReader(path: path, streamWait: .milliseconds(200))
        } catch {
            #expect("\(error)".contains("it is a FIFO, and no program wrote to it within 0.2 seconds"))
        }
    }

    @Test func aFileThatGrowsWhileReadYieldsWhatWasThereAtEachRead() throws {
        let bytes = try Fixtures.contents(Fixtures.capture("att-errors.btsnoop"))
        let ends = try recordEnds(Fixtures.capture("att-errors.btsnoop"))
        let path = try Fixtures.temporaryFile(Array(bytes[..<ends[2]]), name: "growing.btsnoop")
        let reader = try CaptureReader(path: path)
        // Records 0, 1 and 2 are there.
        for _ in 0..<3 { #expect(try reader.next() != nil) }
        #expect(try reader.next() == nil)
        // The writer adds two records and half of a third.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes[ends[2]..<(ends[4] + 5)]))
        try handle.close()
        // A new reader sees them; the half record is a truncation after the good ones.
        let (records, fault) = try Fixtures.readAll(path)
        #expect(records.count == 5)
        #expect("\(fault.map { "\($0)" } ?? "")".contains("truncated"))
    }
}
