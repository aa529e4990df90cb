/// Per-connection state looked up by connection handle, without hashing.
///
/// A Connection_Handle is 12 bits (Core 6.0, Vol 4, Part E, §5.4.2; every decoder here masks the
/// top 4 bits off), so a table of at most 4,096 entries indexed by the handle holds any
/// connection. The table grows only to the largest handle stored, and a lookup is an index: the
/// per-record path of a whole-file decode does several of these for every ACL packet.
public struct HandleTable<Value> {
    @usableFromInline var entries: [Value?] = []

    /// Handles are 12 bits; the table never grows beyond this.
    public static var capacity: Int { 0x1000 }

    @inlinable public init() {}

    @inlinable @inline(__always)
    static func index(_ handle: UInt16) -> Int { Int(handle & 0x0FFF) }

    @inlinable public subscript(handle: UInt16) -> Value? {
        @inline(__always) get {
            let index = Self.index(handle)
            return index < entries.count ? entries[index] : nil
        }
        set {
            let index = Self.index(handle)
            guard newValue != nil || index < entries.count else { return }
            makeRoom(for: index)
            entries[index] = newValue
        }
    }

    /// Changes the value stored for `handle` in place, if there is one.
    @inlinable @inline(__always)
    public mutating func modify<Result>(_ handle: UInt16, _ body: (inout Value) -> Result) -> Result? {
        let index = Self.index(handle)
        guard index < entries.count, entries[index] != nil else { return nil }
        return body(&entries[index]!)
    }

    /// Changes the value stored for `handle` in place, storing `initial` first if there is none.
    @inlinable @inline(__always)
    public mutating func update<Result>(
        _ handle: UInt16, default initial: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        let index = Self.index(handle)
        makeRoom(for: index)
        if entries[index] == nil { entries[index] = initial() }
        return body(&entries[index]!)
    }

    /// Grows the table, with empty entries, to hold `index`.
    @inlinable
    mutating func makeRoom(for index: Int) {
        if index >= entries.count {
            entries.append(contentsOf: repeatElement(nil, count: index + 1 - entries.count))
        }
    }

    /// Every handle with a value, in handle order.
    public var handles: [UInt16] {
        entries.indices.filter { entries[$0] != nil }.map { UInt16($0) }
    }
}

extension HandleTable: Sendable where Value: Sendable {}
