import CInflate
import Foundation
import SystemPackage
import ZIPFoundation
import Wire

extension CaptureContainer {
    /// Unpacks members into the container's temporary directory, each as `N-NAME` (never the
    /// member's own path, so that no `../` in an archive reaches outside it), under the limits.
    struct Unpacker {
        let container: String
        let directory: String
        let limits: ContainerLimits
        var members: [Member] = []
        var total: Int64 = 0
        private var created: [String] = []

        init(container: String, directory: String, limits: ContainerLimits) {
            self.container = container
            self.directory = directory
            self.limits = limits
        }

        func removeAll() { for path in created { unlink(path) } }

        /// A new file for member `name`, taking its bytes under the limits.
        private mutating func create(_ name: String) throws -> MemberFile {
            let target = directory + "/\(created.count)-" + CaptureContainer.baseName(name)
            do {
                let file = try FileDescriptor.open(
                    FilePath(target), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                    permissions: [.ownerReadWrite])
                created.append(target)
                return MemberFile(
                    container: container, name: name, target: target, file: file, limits: limits, total: total)
            } catch {
                throw ContainerError(
                    container: container, member: name,
                    expected: "a temporary file to unpack into at \(target) (\(error))")
            }
        }

        /// Lists the member written to `out`, unless `sniff` and its first bytes are no capture's.
        private mutating func keep(_ out: MemberFile, sniff: Bool, summary: Bool = false) {
            if sniff, !CaptureContainer.looksLikeCapture(out.head) {
                unlink(out.target)
                return
            }
            total += out.written
            members.append(Member(path: out.name, extractedPath: out.target, size: out.written, isSummary: summary))
        }

        /// Copies `size` bytes (nil: all that is left) of `stream` to a new member file.
        mutating func unpack(name: String, from stream: ByteStream, size: Int64?, sniff: Bool) throws {
            let out = try create(name)
            defer { out.close() }
            if let size {
                try stream.pass(size, what: name) { piece in try piece.withUnsafeBytes { try out.write($0) } }
            } else {
                while try stream.fill(1) > 0 {
                    try stream.take(stream.available) { piece in try piece.withUnsafeBytes { try out.write($0) } }
                }
            }
            keep(out, sniff: sniff)
        }

        /// Every capture member of a zip, through ZIPFoundation; a bug report's summary when no
        /// snoop log file is in it.
        mutating func unpackZip() throws {
            let archive: Archive
            do {
                archive = try Archive(url: URL(fileURLWithPath: container), accessMode: .read)
            } catch {
                throw ContainerError(
                    container: container,
                    expected: "a zip archive whose central directory can be read (ZIPFoundation: \(error))")
            }
            var reports: [Entry] = []
            var info = stat()
            let archiveSize = stat(container, &info) == 0 ? UInt64(info.st_size) : UInt64.max
            for entry in archive where entry.type == .file {
                let name = entry.path
                // A compressed size past the end of the archive is a damaged entry: ZIPFoundation
                // would read (empty) chunks up to it, which for a huge size does not end.
                guard entry.compressedSize <= archiveSize else {
                    throw ContainerError(
                        container: container, member: name,
                        expected:
                            "a compressed size within the archive's \(archiveSize) bytes; the entry declares \(entry.compressedSize)"
                    )
                }
                if CaptureContainer.isCandidate(name) {
                    try unpackZipEntry(entry, of: archive)
                } else if !name.contains("/"), name.hasPrefix("bugreport"), name.hasSuffix(".txt") {
                    reports.append(entry)
                }
            }
            guard members.isEmpty else { return }
            for report in reports {
                try summaryFromZipEntry(report, of: archive)
            }
        }

        private mutating func unpackZipEntry(_ entry: Entry, of archive: Archive) throws {
            let name = entry.path
            let out = try create(name)
            defer { out.close() }
            do {
                let checksum: UInt32
                if let start = try Self.deflateData(of: entry, in: container) {
                    checksum = try Self.inflate(entry, at: start, of: container, into: out)
                } else {
                    checksum = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { data in
                        try data.withUnsafeBytes { try out.write($0) }
                    }
                }
                guard checksum == entry.checksum else {
                    throw ContainerError(
                        container: container, member: name,
                        expected:
                            "data whose CRC-32 is the one the zip declares (\(hex(entry.checksum, digits: 1))); it is \(hex(checksum, digits: 1)): the member is damaged"
                    )
                }
            } catch let error as ContainerError {
                throw error
            } catch {
                throw ContainerError(
                    container: container, member: name, offset: out.written,
                    expected:
                        "intact compressed data (ZIPFoundation: \(error)); the fault is after \(out.written) unpacked bytes of the member"
                )
            }
            keep(out, sniff: true)
        }

        /// Where a deflated entry's data starts, for the entries this reads with zlib itself: nil
        /// for a stored entry or a ZIP64 offset, which ZIPFoundation extracts. ZIPFoundation
        /// 0.9.20 loops without end on a deflate stream that does not end before the archive does
        /// (its reader keeps asking for chunks past the end of the file), so a deflated entry is
        /// inflated here, bounded by its compressed size. The local header's offset is kept
        /// internal by ZIPFoundation and read from its central directory record by reflection.
        static func deflateData(of entry: Entry, in container: String) throws -> UInt64? {
            guard entry.isCompressed,
                let offset = Mirror(reflecting: entry).descendant(
                    "centralDirectoryStructure", "relativeOffsetOfLocalHeader") as? UInt32,
                offset != UInt32.max
            else { return nil }
            let header = try read(container, at: UInt64(offset), count: 30)
            guard header.count == 30, header[0] == 0x50, header[1] == 0x4B, header[2] == 3, header[3] == 4 else {
                throw ContainerError(
                    container: container, member: entry.path, offset: Int64(offset),
                    expected: "a zip local file header (PK 03 04)")
            }
            let nameLength = UInt64(header[26]) | UInt64(header[27]) << 8
            let extraLength = UInt64(header[28]) | UInt64(header[29]) << 8
            return UInt64(offset) + 30 + nameLength + extraLength
        }

        /// Inflates `entry`'s `compressedSize` bytes from `start` into `out`; returns their CRC-32.
        static func inflate(_ entry: Entry, at start: UInt64, of container: String, into out: MemberFile) throws
            -> UInt32
        {
            let inflater = try Inflater(raw: true)
            var checksum: uLong = crc32(0, nil, 0)
            var position = start
            let end = start + entry.compressedSize
            while position < end {
                let piece = try read(container, at: position, count: Int(min(64 << 10, end - position)))
                guard !piece.isEmpty else { break }
                do {
                    try piece.withUnsafeBytes { raw in
                        try inflater.feed(raw) { bytes in
                            checksum = crc32(
                                checksum, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
                            try out.write(bytes)
                        }
                    }
                } catch let fault as InflateFault {
                    throw ContainerError(
                        container: container, member: entry.path, offset: Int64(start) + fault.offset,
                        expected: fault.reason)
                }
                position += UInt64(piece.count)
            }
            guard inflater.streamEnded else {
                throw ContainerError(
                    container: container, member: entry.path, offset: Int64(position),
                    expected:
                        "a deflate stream that ends within the entry's \(entry.compressedSize) compressed bytes; it does not (the member is damaged or cut short)"
                )
            }
            return UInt32(truncatingIfNeeded: checksum)
        }

        /// Up to `count` bytes of `path` from `offset`.
        static func read(_ path: String, at offset: UInt64, count: Int) throws -> [UInt8] {
            do {
                let file = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
                defer { try? file.close() }
                var bytes = [UInt8](repeating: 0, count: count)
                let have = try bytes.withUnsafeMutableBytes {
                    try file.read(fromAbsoluteOffset: Int64(offset), into: $0)
                }
                return Array(bytes.prefix(have))
            } catch {
                throw ContainerError(container: path, offset: Int64(offset), expected: "readable bytes (\(error))")
            }
        }

        private mutating func summaryFromZipEntry(_ entry: Entry, of archive: Archive) throws {
            var scanner = SummaryScanner(limit: limits.summaryTextBytes)
            let name = entry.path
            let container = self.container
            do {
                _ = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { data in
                    try scanner.scan(data, container: container, member: name)
                }
            } catch let error as ContainerError {
                throw error
            } catch {
                throw ContainerError(
                    container: container, member: name, expected: "intact compressed data (ZIPFoundation: \(error))")
            }
            if let text = scanner.text { try decodeSummary(text, of: name) }
        }

        /// The btsnooz summary of a bug report's text read from `stream`; an error when it has none.
        mutating func summary(named name: String, from stream: ByteStream) throws {
            var scanner = SummaryScanner(limit: limits.summaryTextBytes)
            while try stream.fill(1) > 0 {
                try stream.take(stream.available) { try scanner.scan($0, container: container, member: name) }
            }
            guard let text = scanner.text else {
                throw ContainerError(
                    container: container,
                    expected:
                        "a capture: btsnoop, pcap, pcapng or PacketLogger, a zip, tar or gzip holding one, or a bug report's text with a BTSNOOP_LOG_SUMMARY section; this is text without that section"
                )
            }
            try decodeSummary(text, of: name)
        }

        private mutating func decodeSummary(_ text: [UInt8], of report: String) throws {
            let name = report + "#BTSNOOP_LOG_SUMMARY"
            let out = try create(name)
            out.close()
            _ = try BTSnoozSummary.decode(
                text: text, to: out.target, name: name, container: container, limit: min(limits.memberBytes, 256 << 20))
            var info = stat()
            _ = stat(out.target, &info)
            out.written = Int64(info.st_size)
            keep(out, sniff: false, summary: true)
        }
    }

    /// One member's temporary file: what is written is counted against the limits (never the size
    /// an archive declares), its first 64 bytes kept to tell whether it is a capture.
    final class MemberFile {
        let container: String
        let name: String
        let target: String
        private let file: FileDescriptor
        private let limits: ContainerLimits
        /// What the members kept before this one hold.
        private let total: Int64
        var written: Int64 = 0
        private(set) var head: [UInt8] = []

        init(
            container: String, name: String, target: String, file: FileDescriptor, limits: ContainerLimits, total: Int64
        ) {
            (self.container, self.name, self.target, self.file, self.limits, self.total) = (
                container, name, target, file, limits, total
            )
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            if written + Int64(bytes.count) > limits.memberBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected:
                        "a member of at most \(limits.memberBytes) bytes once unpacked; it is larger (a damaged size or a compression bomb; BLETRACE_MAX_MEMBER_BYTES raises the limit)"
                )
            }
            if total + written + Int64(bytes.count) > limits.totalBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected:
                        "capture members adding up to at most \(limits.totalBytes) bytes once unpacked; they are larger"
                )
            }
            if head.count < 64 { head += bytes.prefix(64 - head.count) }
            do {
                _ = try file.writeAll(bytes)
            } catch {
                throw ContainerError(
                    container: container, member: name, expected: "room to unpack it in \(target) (\(error))")
            }
            written += Int64(bytes.count)
        }

        func close() { try? file.close() }
    }

    /// Finds the btsnooz section in text given in pieces, a line at a time, and keeps its base64
    /// lines (at most `limit` bytes of them). Lines longer than 64 KiB are looked at in part only.
    struct SummaryScanner {
        let limit: Int
        private var line: [UInt8] = []
        private var inside = false
        private var collected: [UInt8] = []
        private(set) var text: [UInt8]?

        init(limit: Int) { self.limit = limit }

        mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes, container: String, member: String) throws {
            guard text == nil else { return }
            for byte in bytes {
                if byte == 0x0A {
                    try endLine(container: container, member: member)
                    if text != nil { return }
                } else if line.count < 64 << 10 {
                    line.append(byte)
                }
            }
        }

        private mutating func endLine(container: String, member: String) throws {
            defer { line.removeAll(keepingCapacity: true) }
            if inside {
                if Self.contains(line, BTSnoozSummary.end) {
                    text = collected
                    collected = []
                    return
                }
                guard collected.count + line.count <= limit else {
                    throw ContainerError(
                        container: container, member: member,
                        expected: "a BTSNOOP_LOG_SUMMARY section of at most \(limit) bytes of text; it is longer")
                }
                collected += line
            } else if Self.contains(line, BTSnoozSummary.begin) {
                inside = true
            }
        }

        static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool {
            guard line.count >= marker.count else { return false }
            for start in 0...(line.count - marker.count) where line[start] == marker[0] {
                if line[start..<start + marker.count].elementsEqual(marker) { return true }
            }
            return false
        }
    }
}
