/// How bletrace writes durations, times and counts for people: one place, so that every report,
/// note and message shows the same fact the same way (`2.0 s` in each, `1 notification`).
///
/// It sits in Wire, the module every other one imports (the analysis, the reports, the flows, the
/// replay, the command-line tool), next to ``hex(_:digits:uppercase:)``.
public enum Wording {
    /// A duration in seconds, as the reports show it: to the millisecond under a minute (`0.416 s`,
    /// `12.5 s`, `2.0 s`), then minutes and whole seconds (`3 min 20 s`).
    public static func duration(_ seconds: Double) -> String {
        guard seconds.magnitude < 1e12 else { return String(seconds) + " s" }
        if seconds < 60 { return String(Double(Int((seconds * 1000).rounded())) / 1000) + " s" }
        let whole = Int(seconds.rounded())
        return "\(whole / 60) min \(whole % 60) s"
    }

    /// A figure with at most three decimals and no trailing zeros: `15`, `7.5`, `0.333`.
    public static func decimal(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        guard rounded.magnitude < 1e15 else { return String(rounded) }
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Milliseconds: `15 ms`, `7.5 ms`.
    public static func milliseconds(_ value: Double) -> String { decimal(value) + " ms" }

    /// A field counted in units of `unit` milliseconds, in milliseconds: `12` units of 1.25 ms →
    /// `15 ms`.
    public static func milliseconds(_ value: some BinaryInteger, unit: Double) -> String {
        milliseconds(Double(value) * unit)
    }

    /// Seconds with six decimals and no sign before a positive value: `1.250000`, `-0.250000`
    /// (a flow line's time, after its `+`). Any value shows without trapping: beyond
    /// 9,000,000,000,000 s (past what six decimals of a Double can hold) in exponent form
    /// (`1e+300`), which reads back.
    public static func sixDecimals(_ seconds: Double) -> String {
        let sign = seconds.sign == .minus && seconds != 0 ? "-" : ""
        let magnitude = seconds.magnitude
        guard magnitude < 9e12 else { return sign + "\(magnitude)" }
        let micros = UInt64((magnitude * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return sign + "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// A time as seconds since the capture's start, with its sign: `+1.250000`, `-0.000001`.
    public static func sinceStart(seconds: Double) -> String {
        (seconds.sign == .minus && seconds != 0 ? "" : "+") + sixDecimals(seconds)
    }

    /// `timestamp` as seconds since `origin` (the capture's first record), with a sign and
    /// `decimals` decimals (at most 6, rounded half up): `+1.250000`, `-0.000001`; `+1.250` with
    /// 3. Exact for any two times (a capture's clock may jump by centuries or go backwards).
    public static func sinceStart(_ timestamp: Timestamp, origin: Timestamp, decimals: Int = 6) -> String {
        let (negative, microseconds) = timestamp.offset(since: origin)
        let decimals = max(0, min(6, decimals))
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        // In units of the last decimal shown, rounded (no overflow: the magnitude is divided first).
        let step = 1_000_000 / scale
        var units = microseconds / step
        if (microseconds % step) * 2 >= step, step > 1 { units += 1 }
        var whole = units / scale
        var wholeDigits = 1
        while whole >= 10 {
            whole /= 10
            wholeDigits += 1
        }
        let length = wholeDigits + 1 + (decimals > 0 ? decimals + 1 : 0)
        // Written digit by digit into the string's own storage: one allocation, for every line of
        // a story.
        return String(unsafeUninitializedCapacity: length) { buffer in
            buffer[0] = negative ? UInt8(ascii: "-") : UInt8(ascii: "+")
            var value = units / scale
            for index in stride(from: wholeDigits, through: 1, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            guard decimals > 0 else { return length }
            buffer[wholeDigits + 1] = UInt8(ascii: ".")
            var fraction = units % scale
            for index in stride(from: length - 1, through: wholeDigits + 2, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            return length
        }
    }

    /// `count` and its noun, in the plural unless the count is one: `1 notification`,
    /// `2 notifications`, `0 notifications`. `plural` for a noun that does not take an `s`
    /// (`address`, `addresses`).
    public static func count(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }

    /// The noun alone, in the plural unless `count` is one (`frame`, `frames`): for a list that
    /// follows it.
    public static func noun(_ noun: String, count: some BinaryInteger, plural: String? = nil) -> String {
        count == 1 ? noun : plural ?? noun + "s"
    }
}
