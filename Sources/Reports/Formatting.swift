import Wire

// The ways the reports write times, durations and codes for people. The command-line tool uses
// the same functions, so its other outputs (decode lines, stats) read the same way.

/// ISO 8601 in UTC with microseconds: `2026-11-22T03:10:00.123456Z`. Any time a capture holds
/// is shown as it is, in the proleptic Gregorian calendar: years before 1 and after 9999 in
/// ISO 8601's expanded form with a sign (`-0001-12-31T…`, `+292277-…`).
public func isoTime(_ timestamp: Timestamp) -> String {
    let (seconds, micros) = timestamp.microseconds.quotientAndRemainderFloored(dividingBy: 1_000_000)
    let (days, secondOfDay) = seconds.quotientAndRemainderFloored(dividingBy: 86_400)
    // Days to a civil date (H. Hinnant's algorithm), with eras of 400 years: exact for any Int64.
    let shifted = days + 719_468
    let era = shifted.quotientAndRemainderFloored(dividingBy: 146_097).quotient
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func padded(_ value: Int64, _ width: Int) -> String {
        let text = String(value.magnitude)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let yearText = (0...9999).contains(year) ? padded(year, 4) : (year < 0 ? "-" : "+") + padded(year, 4)
    return yearText + "-" + padded(month, 2) + "-" + padded(day, 2) + "T" + padded(secondOfDay / 3_600, 2) + ":"
        + padded(secondOfDay % 3_600 / 60, 2) + ":" + padded(secondOfDay % 60, 2) + "." + padded(micros, 6) + "Z"
}

/// Seconds since `origin`, six decimals, with a sign: `+1.250000`. Exact for any two times
/// (a capture's clock may jump by centuries or go backwards).
public func relativeTime(_ timestamp: Timestamp, since origin: Timestamp) -> String {
    let (negative, magnitude) = timestamp.offset(since: origin)
    // Written digit by digit into the string's own storage: one allocation, for every line of a
    // story.
    var whole = magnitude / 1_000_000
    var wholeDigits = 1
    while whole >= 10 {
        whole /= 10
        wholeDigits += 1
    }
    return String(unsafeUninitializedCapacity: wholeDigits + 8) { buffer in
        buffer[0] = negative ? UInt8(ascii: "-") : UInt8(ascii: "+")
        var value = magnitude / 1_000_000
        for index in stride(from: wholeDigits, through: 1, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        buffer[wholeDigits + 1] = UInt8(ascii: ".")
        var fraction = magnitude % 1_000_000
        for index in stride(from: wholeDigits + 7, through: wholeDigits + 2, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        return wholeDigits + 8
    }
}

/// A duration for people: `0.416 s`, `12.5 s`, `3 min 20 s`.
func seconds(_ value: Double) -> String {
    if value < 60 { return String(Double(Int((value * 1000).rounded())) / 1000) + " s" }
    let whole = Int(value.rounded())
    return "\(whole / 60) min \(whole % 60) s"
}

/// `12` units of 1.25 ms → `15 ms`.
func milliseconds(_ value: UInt16, _ unit: Double) -> String {
    let ms = Double(value) * unit
    return (ms == ms.rounded() ? String(Int(ms)) : String(ms)) + " ms"
}

extension Int64 {
    func quotientAndRemainderFloored(dividingBy divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPadded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
