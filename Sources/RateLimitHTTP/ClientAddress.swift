/// The client's address behind `trustedProxies` reverse proxies, each of which appends the address it saw to
/// `X-Forwarded-For`: the `trustedProxies`-th entry from the right (the peer itself when 0, or when fewer).
///
/// ```
/// client 203.0.113.7 → proxy A → proxy B → server (peer: B)
/// X-Forwarded-For: <whatever the client sent>, 203.0.113.7, A
/// trustedProxies 0 → B (the peer; the header is never read)
/// trustedProxies 1 → A
/// trustedProxies 2 → 203.0.113.7
/// ```
///
/// Entries left of those your proxies appended are whatever the client sent: never trust more proxies than you
/// run, or a client picks its own key. An entry at the trusted position that is not an address (`unknown`, an
/// obfuscated `_hidden`, `for=…`) gives the peer: such a request is limited as the proxy's. Only the
/// `trustedProxies` entries on the right are read, whatever the header's length. A server reachable both
/// directly and through its proxy must not trust forwarding headers: a client that connects directly chooses
/// its own entry. (Vapor's `Request.peerAddress` returns the *first* entry, which the client
/// chooses; the middlewares never use it.)
///
/// - Parameters:
///   - peer: The address of the connection's other end.
///   - forwardedFor: Every `X-Forwarded-For` field value in order; each may list several entries, separated by
///     commas.
///   - trustedProxies: How many proxies in front of the server append to `X-Forwarded-For`; 0 (or less) reads
///     nothing.
public func clientAddress(peer: String, forwardedFor: [String], trustedProxies: Int) -> String {
  guard trustedProxies > 0 else { return peer }
  // From the right, and no further than the entry wanted: the cost does not grow with what a client sends.
  var skipped = 0
  for value in forwardedFor.reversed() {
    var end = value.endIndex
    while true {
      let start = value[..<end].lastIndex(of: ",").map(value.index(after:)) ?? value.startIndex
      skipped += 1
      if skipped == trustedProxies {
        // Not an address (`unknown`, an obfuscated `_id`, `for=…`): the peer, never an unlimited request.
        let entry = value[start..<end].trimmingSpaces
        return clientKey(address: String(entry)) == nil ? peer : String(entry)
      }
      guard start > value.startIndex else { break }
      end = value.index(before: start)
    }
  }
  return peer
}

extension Substring {
  /// Without leading and trailing spaces and tabs (optional whitespace of HTTP).
  var trimmingSpaces: Substring {
    var slice = self
    while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
    while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
    return slice
  }
}
