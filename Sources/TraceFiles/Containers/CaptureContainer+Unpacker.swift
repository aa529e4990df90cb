import Foundation
import SystemPackage
import ZIPFoundation

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

        /// A new file for member `name`.
        private mutating func create(_ name: String) throws -> (String, FileDescriptor) {
            let target = directory + "/\(created.count)-" + CaptureContainer.baseName(name)
            do {
                let file = try FileDescriptor.open(
                    FilePath(target), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                    permissions: [.ownerReadWrite])
                created.append(target)
                return (target, file)
            } catch {
                throw ContainerError(container: container, member: name, expected: "a temporary file to unpack into at \(target) (\(error))")
            }
        }

        /// Checks the limits before `count` more bytes of member `name` (holding `sofar`) are written.
        private static func admit(
            _ count: Int, sofar: Int64, name: String, total: Int64, limits: ContainerLimits, container: String
        ) throws {
            if sofar + Int64(count) > limits.memberBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected: "a member of at most \(limits.memberBytes) bytes once unpacked; it is larger (a damaged size or a compression bomb; BLETRACE_MAX_MEMBER_BYTES raises the limit)")
            }
            if total + sofar + Int64(count) > limits.totalBytes {
                throw ContainerError(
                    container: container, member: name,
                    expected: "capture members adding up to at most \(limits.totalBytes) bytes once unpacked; they are larger")
            }
        }

        private mutating func keep(_ name: String, _ target: String, size: Int64, sniffed head: [UInt8]?, summary: Bool = false) {
            if let head, !CaptureContainer.looksLikeCapture(head) {
                unlink(target)
                return
            }
            total += size
            members.append(Member(path: name, extractedPath: target, size: size, isSummary: summary))
        }

        /// Copies `size` bytes (nil: all that is left) of `stream` to a new member file.
        mutating func unpack(name: String, from stream: ByteStream, size: Int64?, sniff: Bool) throws {
            let (target, file) = try create(name)
            defer { try? file.close() }
            var written: Int64 = 0
            var head: [UInt8] = []
            let (total, limits, container) = (self.total, self.limits, self.container)
            let write: (ArraySlice<UInt8>) throws -> Void = { piece in
                try Self.admit(piece.count, sofar: written, name: name, total: total, limits: limits, container: container)
                if head.count < 64 { head += piece.prefix(64 - head.count) }
                do {
                    _ = try piece.withUnsafeBytes { try file.writeAll($0) }
                } catch {
                    throw ContainerError(container: container, member: name, expected: "room to unpack it in \(target) (\(error))")
                }
                written += Int64(piece.count)
            }
            if let size {
                try stream.pass(size, what: name, to: write)
            } else {
                while try stream.fill(1) > 0 {
                    try stream.take(stream.available) { try write($0) }
                }
            }
            keep(name, target, size: written, sniffed: sniff ? head : nil)
        }

        /// Every capture member of a zip, through ZIPFoundation; a bug report's summary when no
        /// snoop log file is in it.
        mutating func unpackZip() throws {
            let archive: Archive
            do {
                archive = try Archive(url: URL(fileURLWithPath: container), accessMode: .read)
            } catch {
                throw ContainerError(container: container, expected: "a zip archive whose central directory can be read (ZIPFoundation: \(error))")
            }
            var reports: [Entry] = []
            for entry in archive where entry.type == .file {
                let name = entry.path
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
            let (target, file) = try create(name)
            defer { try? file.close() }
            var written: Int64 = 0
            var head: [UInt8] = []
            let (total, limits, container) = (self.total, self.limits, self.container)
            do {
                let checksum = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { data in
                    try Self.admit(data.count, sofar: written, name: name, total: total, limits: limits, container: container)
                    if head.count < 64 { head += data.prefix(64 - head.count) }
                    do {
                        _ = try data.withUnsafeBytes { try file.writeAll($0) }
                    } catch {
                        throw ContainerError(container: container, member: name, expected: "room to unpack it in \(target) (\(error))")
                    }
                    written += Int64(data.count)
                }
                guard checksum == entry.checksum else {
                    throw ContainerError(
                        container: container, member: name,
                        expected: "data whose CRC-32 is the one the zip declares (0x\(String(entry.checksum, radix: 16))); it is 0x\(String(checksum, radix: 16)): the member is damaged")
                }
            } catch let error as ContainerError {
                throw error
            } catch {
                throw ContainerError(
                    container: container, member: name, offset: written,
                    expected: "intact compressed data (ZIPFoundation: \(error)); the fault is after \(written) unpacked bytes of the member")
            }
            keep(name, target, size: written, sniffed: head)
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
                throw ContainerError(container: container, member: name, expected: "intact compressed data (ZIPFoundation: \(error))")
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
                    expected: "a capture: btsnoop, pcap, pcapng or PacketLogger, a zip, tar or gzip holding one, or a bug report's text with a BTSNOOP_LOG_SUMMARY section; this is text without that section")
            }
            try decodeSummary(text, of: name)
        }

        private mutating func decodeSummary(_ text: [UInt8], of report: String) throws {
            let name = report + "#BTSNOOP_LOG_SUMMARY"
            let (target, file) = try create("btsnooz-summary.btsnoop")
            try? file.close()
            _ = try BTSnoozSummary.decode(text: text, to: target, name: name, container: container, limit: min(limits.memberBytes, 256 << 20))
            var info = stat()
            _ = stat(target, &info)
            keep(name, target, size: Int64(info.st_size), sniffed: nil, summary: true)
        }
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
                    throw ContainerError(container: container, member: member, expected: "a BTSNOOP_LOG_SUMMARY section of at most \(limit) bytes of text; it is longer")
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
