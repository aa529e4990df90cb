// Formats/porting.md, "CommonCrypto": CryptoKit's API, from swift-crypto where CryptoKit is missing.
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

/// The digest a firmware-update protocol sends before the image.
func imageDigest(_ image: Data) -> Data {
    Data(SHA256.hash(data: image))
}

/// A challenge answered with the device's shared key.
func answer(challenge: Data, key: SymmetricKey) -> Data {
    Data(HMAC<SHA256>.authenticationCode(for: challenge, using: key))
}

@Suite struct CryptoWithoutCommonCryptoTests {
    @Test func digestsAreTheStandardOnes() {
        let digest = imageDigest(Data("abc".utf8))
        #expect(
            digest.map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let key = SymmetricKey(data: Data(repeating: 0x0B, count: 20))
        // RFC 4231, test case 1.
        #expect(answer(challenge: Data("Hi There".utf8), key: key).prefix(4) == Data([0xB0, 0x34, 0x4C, 0x61]))
    }
}
