import CInflate

/// zlib's inflate over chunks: gzip (RFC 1952; several members one after another too, as
/// `cat a.gz b.gz` makes) or zlib (RFC 1950) streams, told apart by their header (`windowBits`
/// 15 + 32, zlib's automatic detection). The decompression is zlib's own; this only feeds it
/// and hands on what it produces, one output buffer at a time, so memory stays flat.
final class Inflater {
    private var stream = z_stream()
    private let output: UnsafeMutableRawBufferPointer
    /// Bytes of input consumed so far (for error offsets).
    private(set) var consumed: Int64 = 0
    /// Bytes produced so far.
    private(set) var produced: Int64 = 0
    /// The current stream reached its end marker (and no other member has started since).
    private(set) var streamEnded = false
    /// Bytes after the end that start no gzip member: ignored, as gzip ignores them.
    private var ignoring = false

    /// `raw`: a bare deflate stream (RFC 1951), as a zip entry holds, instead of gzip or zlib.
    init(chunk: Int = 256 << 10, raw: Bool = false) throws(InflateFault) {
        output = .allocate(byteCount: chunk, alignment: 1)
        let status = inflateInit2_(&stream, raw ? -15 : 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            output.deallocate()
            throw InflateFault(offset: 0, reason: "zlib could not start (status \(status))")
        }
    }

    deinit {
        inflateEnd(&stream)
        output.deallocate()
    }

    /// Decompresses `input` whole, handing each piece of output to `sink`.
    func feed(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var rest = input
        while !rest.isEmpty, !ignoring {
            if streamEnded {
                guard rest.count >= 2, rest[0] == 0x1F, rest[1] == 0x8B else {
                    ignoring = true
                    break
                }
                inflateReset(&stream)
                streamEnded = false
            }
            stream.next_in = UnsafeMutablePointer(mutating: rest.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = UInt32(rest.count)
            var status: Int32
            repeat {
                stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(output.count)
                let before = stream.avail_in
                status = inflate(&stream, Z_NO_FLUSH)
                consumed += Int64(before - stream.avail_in)
                let made = output.count - Int(stream.avail_out)
                if made > 0 {
                    produced += Int64(made)
                    try sink(UnsafeRawBufferPointer(rebasing: output[0..<made]))
                }
                switch status {
                case Z_OK, Z_STREAM_END: break
                case Z_BUF_ERROR where stream.avail_in == 0: break  // all input used; more may come
                case Z_NEED_DICT:
                    throw InflateFault(offset: consumed, reason: "a zlib stream that needs a preset dictionary")
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw InflateFault(offset: consumed, reason: "damaged compressed data (zlib: \(message))")
                }
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
            let used = rest.count - Int(stream.avail_in)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            if status == Z_STREAM_END { streamEnded = true }
        }
    }

    /// After the last input: throws unless the stream reached its end marker.
    func finish() throws(InflateFault) {
        guard streamEnded else {
            throw InflateFault(
                offset: consumed, reason: "the compressed data ends before its end marker (the file is cut short)")
        }
    }
}

/// A fault inside compressed data, `offset` bytes into the compressed input.
struct InflateFault: Error {
    var offset: Int64
    var reason: String
}
