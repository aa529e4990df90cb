import Wire

// The ways the reports write dates for people. Durations, times since the capture's start and
// counts are written by Wire's `Wording`, as everywhere else.

/// ISO 8601 in UTC with microseconds: `2026-11-22T03:10:00.123456Z`. Any time a capture holds
/// is shown as it is, in the proleptic Gregorian calendar: years before 1 and after 9999 in
/// ISO 8601's expanded form with a sign (`-0001-12-31T…`, `+292277-…`).
package func isoTime(_ timestamp: Timestamp) -> String {
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
