/// Operating a key of a ``KeyedRateLimiter`` (SPEC 4.2): one lock, one clock read, the key found once.
extension KeyedPermitStore {
  /// ``KeyedRateLimiter/peek(_:for:)``: a key without state stays without.
  func peek(_ count: Int, for key: Key) -> PermitVerdict {
    withNow { permits, now in
      let blockedUntil = permits.blockedUntil(key)
      return permits.peek(key, at: now) { book, state in
        book.peek(count, at: now, blockedUntil: blockedUntil, in: state)
      }
    }
  }

  /// ``KeyedRateLimiter/charge(_:for:)``.
  func charge(_ count: Int, for key: Key) -> PermitVerdict {
    withNow { permits, now in
      let blockedUntil = permits.blockedUntil(key)
      return permits.update(key, at: now) { book, state in
        book.charge(count, at: now, blockedUntil: blockedUntil, in: &state)
      }
    }
  }

  /// ``KeyedRateLimiter/refund(_:for:)``: a forgotten key stays forgotten.
  func refund(_ count: Int, for key: Key) -> PermitVerdict {
    withNow { permits, now in
      let blockedUntil = permits.blockedUntil(key)
      guard permits.holds(key) else {
        return permits.peek(key, at: now) { book, state in
          book.reported(at: now, blockedUntil: blockedUntil, in: state)
        }
      }
      let verdict = permits.update(key, at: now) { book, state in
        book.refund(count, at: now, blockedUntil: blockedUntil, in: &state)
      }
      permits.forgetIfFresh(key, at: now)
      return verdict
    }
  }

  /// ``KeyedRateLimiter/reset(_:)``: the block lifted too; a key left fresh is forgotten.
  func reset(_ key: Key) {
    withNow { permits, now in
      permits.unblock(key)
      guard permits.holds(key) else { return }
      permits.update(key, at: now) { book, state in book.reset(at: now, in: &state) }
      permits.forgetIfFresh(key, at: now)
    }
  }

  /// ``KeyedRateLimiter/block(_:for:)``.
  func block(_ key: Key, for duration: Duration) {
    withNow { permits, now in
      permits.block(key, until: Nanoseconds.adding(now, Nanoseconds.roundingUp(duration)), at: now)
    }
  }
}

extension KeyedPermitStore {
  /// Whether `key` is blocked now.
  func isBlocked(_ key: Key) -> Bool {
    withNow { permits, now in now < permits.blockedUntil(key) }
  }
}
