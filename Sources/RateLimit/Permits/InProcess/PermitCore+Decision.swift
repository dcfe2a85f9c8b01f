extension PermitCore {
  /// ``RateLimiter/decide(_:)``: one lock, one clock read.
  func decide(_ permits: Int) -> PermitVerdict {
    withNow { book, state, now in
      guard permits <= book.rule.capacity else {
        return book.verdict(permits, granted: false, at: now, blockedUntil: blockedUntil, in: state)
      }
      return book.decide(permits, at: now, blockedUntil: blockedUntil, in: &state).0
    }
  }
}

extension KeyedPermitStore {
  /// ``KeyedRateLimiter/decide(_:for:)``: one lock, one clock read. With `undoable`, a grant comes back with
  /// its booking, for `undo(_:for:permits:)`.
  func decide(_ count: Int, for key: Key, undoable: Bool = false) -> (PermitVerdict, Booking?) {
    withNow { permits, now in
      // More than the capacity, or a blocked key: refused, read without changing the key.
      let blockedUntil = permits.blockedUntil(key)
      guard count <= permits.rule.capacity, now >= blockedUntil else {
        return (
          permits.peek(key, at: now) { book, state in
            book.verdict(count, granted: false, at: now, blockedUntil: blockedUntil, in: state)
          }, nil
        )
      }
      return permits.update(key, at: now) { book, state in
        book.decide(count, at: now, undoable: undoable, in: &state)
      }
    }
  }

  /// Takes back a grant `decide(_:for:undoable:)` made, and reports the key after it as refused.
  func undo(_ booking: Booking, for key: Key, permits count: Int) -> PermitVerdict {
    withNow { permits, now in
      let verdict = permits.update(key, at: now) { book, state in
        book.undo(booking, at: now, in: &state)
        var verdict = book.verdict(count, granted: false, at: now, in: state)
        verdict.retryAfter = nil
        return verdict
      }
      permits.forgetIfFresh(key, at: now)
      return verdict
    }
  }
}
