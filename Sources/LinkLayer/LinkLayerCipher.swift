import Crypto
import _CryptoExtras

/// The encryption of one LE connection's data channel, Core 6.0, Vol 6, Part E: AES-CCM (RFC 3610
/// with a 13-byte nonce, 2-byte length field and 4-byte MIC) under a session key made from the
/// long-term key and the diversifiers of LL_ENC_REQ and LL_ENC_RSP.
///
/// - Session key (§1): SK = e(LTK, SKD), SKD = SKDs ‖ SKDm (SKDs the most significant half), with
///   e the AES-128 of Vol 3, Part H, §2.2.1 (key and data most significant octet first).
/// - IV (§1): IVm (LL_ENC_REQ) then IVs (LL_ENC_RSP), each least significant octet first, as they
///   are sent.
/// - Nonce (§2.1): the 39-bit packet counter least significant octet first, the direction bit as
///   bit 7 of its fifth octet (1 central to peripheral), then the IV.
/// - Additional authenticated data (§2.2): the PDU header's first octet with NESN, SN and MD
///   cleared; the payload length is not authenticated.
///
/// swift-crypto has no CCM: it is built here over its raw AES block (`_CryptoExtras`'s
/// `AES.permute`). Only a capture decoded with a key (`--ltk`) makes one of these.
package struct LinkLayerCipher: Sendable {
    /// The session key, most significant octet first (the AES key's octets in order).
    package let sessionKey: [UInt8]
    /// IVm ‖ IVs as sent (8 octets).
    package let iv: [UInt8]

    /// The MIC's length, Core 6.0, Vol 6, Part E, §2.
    package static let micLength = 4

    /// `ltk`: the long-term key's 16 octets least significant first, as SMP's Encryption
    /// Information and HCI's LE Enable Encryption carry it.
    package init(ltk: [UInt8], skdCentral: UInt64, skdPeripheral: UInt64, ivCentral: UInt32, ivPeripheral: UInt32) {
        precondition(ltk.count == 16, "an LTK has 16 octets")
        var block = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            block[index] = UInt8(truncatingIfNeeded: skdPeripheral >> UInt64(56 - 8 * index))
            block[8 + index] = UInt8(truncatingIfNeeded: skdCentral >> UInt64(56 - 8 * index))
        }
        Self.encryptBlock(&block, key: SymmetricKey(data: Array(ltk.reversed())))
        sessionKey = block
        var iv = [UInt8](repeating: 0, count: 8)
        for index in 0..<4 {
            iv[index] = UInt8(truncatingIfNeeded: ivCentral >> UInt32(8 * index))
            iv[4 + index] = UInt8(truncatingIfNeeded: ivPeripheral >> UInt32(8 * index))
        }
        self.iv = iv
    }

    /// Decrypts `ciphertext` (payload then MIC) of a PDU whose header's first octet is `header`,
    /// sent with packet counter `counter` in `direction`, into `plaintext` (at least
    /// `ciphertext.count - 4` bytes). Returns whether the MIC checks out; false too when the
    /// ciphertext is shorter than a MIC.
    package func decrypt(
        _ ciphertext: UnsafeRawBufferPointer, header: UInt8, counter: UInt64, direction: LinkLayerDirection,
        into plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard ciphertext.count >= Self.micLength, plaintext.count >= ciphertext.count - Self.micLength else {
            return false
        }
        let length = ciphertext.count - Self.micLength
        let key = SymmetricKey(data: sessionKey)
        let nonce = nonce(counter: counter, direction: direction)
        var stream = [UInt8](repeating: 0, count: 16)
        for start in stride(from: 0, to: length, by: 16) {
            counterBlock(&stream, nonce: nonce, index: UInt16(start / 16 + 1), key: key)
            for offset in start..<min(start + 16, length) {
                plaintext[offset] = ciphertext[offset] ^ stream[offset - start]
            }
        }
        let tag = mac(UnsafeRawBufferPointer(rebasing: plaintext[0..<length]), header: header, nonce: nonce, key: key)
        counterBlock(&stream, nonce: nonce, index: 0, key: key)
        var same: UInt8 = 0
        for index in 0..<Self.micLength { same |= ciphertext[length + index] ^ tag[index] ^ stream[index] }
        return same == 0
    }

    /// Encrypts `plaintext`: the payload then its MIC (for tests, and a converter's captures).
    package func encrypt(_ plaintext: [UInt8], header: UInt8, counter: UInt64, direction: LinkLayerDirection) -> [UInt8]
    {
        let key = SymmetricKey(data: sessionKey)
        let nonce = nonce(counter: counter, direction: direction)
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.micLength)
        var stream = [UInt8](repeating: 0, count: 16)
        for start in stride(from: 0, to: plaintext.count, by: 16) {
            counterBlock(&stream, nonce: nonce, index: UInt16(start / 16 + 1), key: key)
            for offset in start..<min(start + 16, plaintext.count) {
                out[offset] = plaintext[offset] ^ stream[offset - start]
            }
        }
        let tag = plaintext.withUnsafeBytes { mac($0, header: header, nonce: nonce, key: key) }
        counterBlock(&stream, nonce: nonce, index: 0, key: key)
        for index in 0..<Self.micLength { out[plaintext.count + index] = tag[index] ^ stream[index] }
        return out
    }

    private func nonce(counter: UInt64, direction: LinkLayerDirection) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 13)
        for index in 0..<5 { nonce[index] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * index)) }
        nonce[4] &= 0x7F
        if direction == .centralToPeripheral { nonce[4] |= 0x80 }
        for index in 0..<8 { nonce[5 + index] = iv[index] }
        return nonce
    }

    /// A_i encrypted: flags 0x01 (L = 2), the nonce, the block index big-endian.
    private func counterBlock(_ block: inout [UInt8], nonce: [UInt8], index: UInt16, key: SymmetricKey) {
        block[0] = 0x01
        for offset in 0..<13 { block[1 + offset] = nonce[offset] }
        block[14] = UInt8(index >> 8)
        block[15] = UInt8(index & 0xFF)
        Self.encryptBlock(&block, key: key)
    }

    /// CBC-MAC over B0 (flags 0x49: authenticated data present, M = 4, L = 2; the nonce; the
    /// length), the one-octet authenticated data with its 2-octet length, and the payload padded
    /// with zeros to whole blocks.
    private func mac(_ payload: UnsafeRawBufferPointer, header: UInt8, nonce: [UInt8], key: SymmetricKey) -> [UInt8] {
        var x = [UInt8](repeating: 0, count: 16)
        x[0] = 0x49
        for offset in 0..<13 { x[1 + offset] = nonce[offset] }
        x[14] = UInt8(payload.count >> 8)
        x[15] = UInt8(payload.count & 0xFF)
        Self.encryptBlock(&x, key: key)
        x[1] ^= 0x01
        x[2] ^= header & 0xE3
        Self.encryptBlock(&x, key: key)
        for start in stride(from: 0, to: payload.count, by: 16) {
            for offset in start..<min(start + 16, payload.count) { x[offset - start] ^= payload[offset] }
            Self.encryptBlock(&x, key: key)
        }
        return x
    }

    /// One AES-128 block, in place. (`AES.permute` throws only for a block that is not 16 bytes
    /// or a key that is not an AES key; both are fixed here.)
    private static func encryptBlock(_ block: inout [UInt8], key: SymmetricKey) {
        try! AES.permute(&block, key: key)
    }
}
