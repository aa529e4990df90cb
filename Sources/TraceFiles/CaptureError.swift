import Wire

/// Why a capture could not be read at all.
///
/// A fault inside a readable file is a ``DecodeError`` (with the file, record index and byte
/// offset) thrown after every good record before it has been yielded.
public enum CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Missing, a directory, unreadable.
    case cannotOpen(path: String, reason: String)
    /// A format or link type bletrace recognises but does not read, with what it is.
    case unsupported(path: String, reason: String)
    /// A live source could not be opened or read.
    case live(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot read: \(reason)"
        case .unsupported(let path, let reason): "\(path): \(reason)"
        case .live(let reason): reason
        }
    }
}
