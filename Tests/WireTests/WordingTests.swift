import Testing
import Wire

@Suite struct WordingTests {
    @Test(arguments: [
        (0.4164, "0.416 s"), (12.5, "12.5 s"), (2, "2.0 s"), (59.9996, "60.0 s"), (60, "1 min 0 s"),
        (200.4, "3 min 20 s"), (-1.5, "-1.5 s"),
    ])
    func writesADurationToTheMillisecondThenInMinutes(seconds: Double, text: String) {
        #expect(Wording.duration(seconds) == text)
    }

    @Test func writesAHugeOrNonFiniteDurationWithoutTrapping() {
        #expect(Wording.duration(1e300) == "1e+300 s")
        #expect(Wording.duration(.infinity) == "inf s")
        #expect(Wording.decimal(1e300) == "1e+300")
    }

    @Test(arguments: [(15.0, "15"), (7.5, "7.5"), (1.0 / 3, "0.333"), (11.25, "11.25"), (0.0004, "0")])
    func writesAFigureWithAtMostThreeDecimals(value: Double, text: String) {
        #expect(Wording.decimal(value) == text)
    }

    @Test func writesMillisecondsFromUnits() {
        #expect(Wording.milliseconds(UInt16(12), unit: 1.25) == "15 ms")
        #expect(Wording.milliseconds(UInt16(6), unit: 1.25) == "7.5 ms")
        #expect(Wording.milliseconds(UInt16(500), unit: 10) == "5000 ms")
    }

    @Test func writesATimeSinceTheStartWithItsSign() {
        let origin = Timestamp(microseconds: 1_000_000)
        #expect(Wording.sinceStart(Timestamp(microseconds: 2_250_000), origin: origin) == "+1.250000")
        #expect(Wording.sinceStart(Timestamp(microseconds: 999_999), origin: origin) == "-0.000001")
        #expect(Wording.sinceStart(Timestamp(microseconds: 2_250_500), origin: origin, decimals: 3) == "+1.251")
        #expect(Wording.sinceStart(Timestamp(microseconds: 2_250_499), origin: origin, decimals: 3) == "+1.250")
        #expect(Wording.sinceStart(Timestamp(microseconds: 10_999_600), origin: origin, decimals: 3) == "+10.000")
        #expect(Wording.sinceStart(Timestamp(microseconds: 3_600_000), origin: origin, decimals: 0) == "+3")
        #expect(Wording.sinceStart(seconds: 1.5) == "+1.500000")
        #expect(Wording.sinceStart(seconds: -0.25) == "-0.250000")
        #expect(Wording.sinceStart(seconds: -0.0) == "+0.000000")
    }

    @Test func writesTheExtremesOfATimeSinceTheStart() {
        let text = Wording.sinceStart(Timestamp(microseconds: .max), origin: Timestamp(microseconds: .min), decimals: 3)
        #expect(text == "+18446744073709.552")
    }

    @Test func writesSixDecimalsOrAnExponent() {
        #expect(Wording.sixDecimals(1.5) == "1.500000")
        #expect(Wording.sixDecimals(-0.25) == "-0.250000")
        #expect(Wording.sixDecimals(1e300) == "1e+300")
    }

    @Test func putsTheNounInThePluralUnlessTheCountIsOne() {
        #expect(Wording.count(1, "notification") == "1 notification")
        #expect(Wording.count(2, "notification") == "2 notifications")
        #expect(Wording.count(0, "notification") == "0 notifications")
        #expect(Wording.count(UInt16(1), "address", plural: "addresses") == "1 address")
        #expect(Wording.count(3, "address", plural: "addresses") == "3 addresses")
        #expect(Wording.noun("frame", count: 1) == "frame")
        #expect(Wording.noun("frame", count: 2) == "frames")
    }
}
