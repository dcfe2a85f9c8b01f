#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// An HTTP-date (RFC 9110, section 5.6.7) as seconds since the Unix epoch, in any of the three forms a recipient
/// must accept:
///
/// | form | example |
/// |---|---|
/// | IMF-fixdate | `Sun, 06 Nov 1994 08:49:37 GMT` |
/// | RFC 850 (obsolete) | `Sunday, 06-Nov-94 08:49:37 GMT` |
/// | asctime (obsolete) | `Sun Nov  6 08:49:37 1994` |
///
/// A two-digit year is the most recent year with those digits that is not more than 50 years after `now`. Every
/// number is digits only, of the form's own length (4DIGIT, 2DIGIT): a sign (`-999`, `+6`) makes the text no
/// HTTP-date (SPEC 4.3.1), so a date is always in years 0000 to 9999 and no arithmetic on it overflows.
enum HTTPDate {
  static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

  /// The date's seconds since the epoch, or `nil` if `text` is none of the three forms.
  static func seconds(_ text: String, now: Int64) -> Int64? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
    // IMF-fixdate: day-name "," SP day SP month SP year SP time SP "GMT".
    if words.count == 6, words[0].hasSuffix(","), words[5] == "gmt" {
      return date(day: words[1], month: words[2], year: words[3], time: words[4])
    }
    // RFC 850: day-name-l "," SP day "-" month "-" 2DIGIT SP time SP "GMT".
    if words.count == 4, words[0].hasSuffix(","), words[3] == "gmt" {
      let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 3, parts[2].utf8.count == 2, let short = number(parts[2]) else { return nil }
      let currentYear = civil(fromDays: now / 86_400).year
      var year = currentYear - currentYear % 100 + short
      if year > currentYear + 50 { year -= 100 }
      return date(day: parts[0], month: parts[1], year: String(year), time: words[2])
    }
    // asctime: day-name SP month SP ( 2DIGIT / SP 1DIGIT ) SP time SP year.
    if words.count == 5 {
      return date(day: words[2], month: words[1], year: words[4], time: words[3])
    }
    return nil
  }

  private static func date(day: String, month: String, year: String, time: String) -> Int64? {
    guard (1...2).contains(day.utf8.count), let day = number(day), (1...31).contains(day),
      let month = months.firstIndex(of: month), year.utf8.count == 4, let year = number(year)
    else { return nil }
    let clock = time.split(separator: ":", omittingEmptySubsequences: false)
    guard clock.count == 3, clock.allSatisfy({ $0.utf8.count == 2 }),
      let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
    else { return nil }
    return days(year: year, month: Int64(month + 1), day: day) * 86_400 + hour * 3_600 + minute * 60 + second
  }

  /// A short run of ASCII digits (at most 4, as every number of an HTTP-date) as a number; `nil` for anything
  /// else, a sign included (`Int64("-999")` and `Int64("+6")` parse).
  private static func number(_ text: some StringProtocol) -> Int64? {
    guard (1...4).contains(text.utf8.count) else { return nil }
    var value: Int64 = 0
    for byte in text.utf8 {
      guard (0x30...0x39).contains(byte) else { return nil }
      value = value * 10 + Int64(byte - 0x30)
    }
    return value
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let year = month <= 2 ? year - 1 : year
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The year of a day since 1970-01-01 (Howard Hinnant's `civil_from_days`, the year only, and the month to
  /// correct it).
  static func civil(fromDays days: Int64) -> (year: Int64, month: Int64) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month)
  }

  /// The system's wall clock, in whole seconds since the epoch.
  static func wallClock() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec)
  }
}
