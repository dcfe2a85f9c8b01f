extension TokenBucket {
  /// Whole permits in the bucket; 0 while a booking is ahead (no request overtakes it).
  func remaining(at now: Int64, in state: State) -> Int {
    if let last = state.ahead.last, last.time > now { return 0 }
    let tokens = self.tokens(at: now, in: state)
    if tokens < .zero { return 0 }
    return Int(Swift.min(tokens.dividedRoundingDown(by: window), Int64(burst)))
  }

  /// With k whole permits in the bucket, taking them leaves what is accrued of the next one: it is whole after
  /// (T − that part) / N, rounded up.
  func effectiveWindow(at now: Int64, in state: State) -> Int64? {
    if let last = state.ahead.last, last.time > now { return nil }
    let tokens = self.tokens(at: now, in: state)
    if tokens < .zero { return nil }
    let whole = Swift.min(tokens.dividedRoundingDown(by: window), Int64(burst))
    guard whole > 0 else { return nil }
    let accrued = tokens - Wide.product(whole, window)
    return (Wide.product(1, window) - accrued).dividedRoundingUp(by: limit)
  }

  /// The three at once, the credit counted once (a decision's hot path).
  func report(at now: Int64, in state: State) -> (remaining: Int, restAt: Int64, effectiveWindow: Int64?) {
    let tokens = self.tokens(at: now, in: state)
    var rest = tokens < full ? Nanoseconds.adding(now, (full - tokens).dividedRoundingUp(by: limit)) : Int64.min
    let ahead = state.ahead.last.map { $0.time }
    if let ahead, ahead >= now { rest = Swift.max(rest, Nanoseconds.adding(ahead, 1)) }
    if let ahead, ahead > now { return (0, rest, nil) }
    if tokens < .zero { return (0, rest, nil) }
    let whole = Swift.min(tokens.dividedRoundingDown(by: window), Int64(burst))
    guard whole > 0 else { return (0, rest, nil) }
    let accrued = tokens - Wide.product(whole, window)
    return (Int(whole), rest, (Wide.product(1, window) - accrued).dividedRoundingUp(by: limit))
  }

  /// At rest once full again with nothing booked at or after now.
  func restAt(at now: Int64, in state: State) -> Int64 {
    let tokens = self.tokens(at: now, in: state)
    var rest = tokens < full ? Nanoseconds.adding(now, (full - tokens).dividedRoundingUp(by: limit)) : Int64.min
    if let last = state.ahead.last, last.time >= now { rest = Swift.max(rest, Nanoseconds.adding(last.time, 1)) }
    return rest
  }
}
