import Crypto
import Wire

/// The replacement of every Bluetooth address of a capture by another, the same one each time.
///
/// A replacement is the keyed hash (HMAC-SHA256) of the original address under a key made for the
/// run: the same address always gets the same replacement within a run, and without the key
/// nobody can go back from a replacement to the address (46 bits of an HMAC whose key is 256
/// random bits). The key is random unless a seed is given (``init(seed:)``): a seed makes the
/// output reproducible, for tests, and anyone who knows it can test a guessed address, so it is
/// never the default.
///
/// The two most significant bits are kept: for a random address they say its kind (0b11 static,
/// 0b01 resolvable private, 0b00 non-resolvable private; Core 6.0, Vol 6, Part B, §1.3.2), so the
/// replacement has the same kind, and the context (address type fields) that says public or
/// random is left as it was. 00:00:00:00:00:00 and FF:FF:FF:FF:FF:FF name no device (they fill
/// unused fields) and stay. Two addresses never get the same replacement: a collision is hashed
/// again with a counter.
public struct AddressMap {
    private let key: SymmetricKey
    private var forward: [UInt64: UInt64] = [:]
    private var taken: Set<UInt64> = []
    /// The original addresses in the order they were first replaced, for the manifest.
    public private(set) var order: [UInt64] = []

    /// A random key (the default): the replacements cannot be tied to the addresses by anyone.
    public init() {
        var generator = SystemRandomNumberGenerator()
        key = SymmetricKey(data: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A key derived from `seed`: the same input and seed give the same output.
    public init(seed: UInt64) {
        key = SymmetricKey(
            data: SHA256.hash(
                data: (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * UInt64($0))) }
                    + Array("bletrace redact".utf8)))
    }

    /// How many different addresses have been replaced.
    public var count: Int { forward.count }

    /// Whether `address` (48 bits) is one this map has replaced.
    public func contains(_ address: UInt64) -> Bool { forward[address] != nil }

    /// The replacement of `address`, in the low 48 bits.
    public mutating func map(_ address: UInt64) -> UInt64 {
        if address == 0 || address == 0xFFFF_FFFF_FFFF { return address }
        if let known = forward[address] { return known }
        var counter: UInt8 = 0
        while true {
            var message = (0..<6).map { UInt8(truncatingIfNeeded: address >> (8 * UInt64($0))) }
            message.append(counter)
            let code = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            var value: UInt64 = 0
            for index in 0..<6 { value |= UInt64(code[index]) << (8 * UInt64(index)) }
            value = (address & 0xC000_0000_0000) | (value & 0x3FFF_FFFF_FFFF)
            // The random part of a random address may be neither all zeros nor all ones.
            let random = value & 0x3FFF_FFFF_FFFF
            if random != 0, random != 0x3FFF_FFFF_FFFF, !taken.contains(value) {
                forward[address] = value
                taken.insert(value)
                order.append(address)
                return value
            }
            counter &+= 1
        }
    }

    /// The replacement of the address whose six bytes, least significant first, are at `offset`.
    public mutating func mapInPlace(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        var address: UInt64 = 0
        for index in 0..<6 { address |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        let replaced = map(address)
        for index in 0..<6 { bytes[offset + index] = UInt8(truncatingIfNeeded: replaced >> (8 * UInt64(index))) }
    }

    /// Each original address with its replacement, in the order they were first met.
    public var pairs: [(original: BluetoothAddress, replacement: BluetoothAddress)] {
        order.map { (BluetoothAddress(rawValue: $0), BluetoothAddress(rawValue: forward[$0]!)) }
    }

    /// A same-length replacement for a name, keyed as the addresses are: letters and digits,
    /// each byte from the hash of the name up to it, so that a shortened name (a prefix of the
    /// complete one, as advertising sends it) becomes the prefix of the complete one's.
    func replaceName(_ name: UnsafeRawBufferPointer) -> [UInt8] {
        let stream = nameStream()
        return name.map { stream.next($0) }
    }

    /// A name replaced a byte at a time, for names cut across fragments.
    func nameStream() -> NameStream { NameStream(key: key) }

    /// See ``replaceName(_:)``. A class: the L2CAP state that holds one, made for each frame,
    /// stays small (an HMAC's state is some 200 bytes).
    final class NameStream {
        private var hasher: HMAC<SHA256>
        private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

        init(key: SymmetricKey) {
            hasher = HMAC<SHA256>(key: key)
            hasher.update(data: Array("name".utf8))
        }

        func next(_ byte: UInt8) -> UInt8 {
            hasher.update(data: [byte])
            let code = hasher.finalize()
            return Self.alphabet[Int(code.withUnsafeBytes { $0[0] }) % Self.alphabet.count]
        }
    }
}
