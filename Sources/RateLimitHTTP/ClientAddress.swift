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

/// The key of the client that sent a request behind `trustedProxies` reverse proxies, for a `select` closure: the
/// key the middlewares' address initializers give the same request. `nil` when the request has no peer address
/// (a Unix socket, a test without one), which those initializers do not limit.
///
/// It is ``clientKey(address:ipv6Prefix:)`` of ``clientAddress(peer:forwardedFor:trustedProxies:)``, so the same
/// rules hold: with `trustedProxies` 0 (or less) `forwardedFor` is never read and the peer is the key (a client
/// cannot choose its own key); otherwise the `trustedProxies`-th entry from the right, read no further; an entry
/// there that is not an address (`unknown`, an obfuscated `_hidden`, `for=…`) keys the request by the peer, never
/// leaves it unlimited; an IPv6 client is keyed by its first `ipv6Prefix` bits, an IPv4 client (and an IPv6
/// address that carries one: mapped, NAT64, compatible) by its IPv4 address.
///
/// ```swift
/// let forwardedFor = HTTPField.Name("X-Forwarded-For")!
/// RateLimitMiddleware { request, context in
///   guard let key = clientKey(
///     peer: context.remoteAddress?.ipAddress,
///     forwardedFor: request.headers[values: forwardedFor],
///     trustedProxies: 1)
///   else { return .exempt }  // no peer address: not limited
///   return .limit(key, perClient)
/// }
/// ```
///
/// - Parameters:
///   - peer: The address of the connection's other end; `nil` when there is none.
///   - forwardedFor: Every `X-Forwarded-For` field value in order; each may list several entries.
///   - trustedProxies: How many proxies in front of the server append to `X-Forwarded-For`; 0 (or less) reads
///     nothing.
///   - ipv6Prefix: The bits an IPv6 client is keyed by, 48 to 128 (anything else traps, naming the value).
/// - Returns: The key, in one canonical spelling; `nil` without a peer, or when the address chosen is not an IP
///   address (a peer that is none, with no trusted entry to read).
public func clientKey(peer: String?, forwardedFor: [String], trustedProxies: Int, ipv6Prefix: Int = 64) -> String? {
  requireIPv6Prefix(ipv6Prefix)
  guard let peer else { return nil }
  return clientKey(
    address: clientAddress(peer: peer, forwardedFor: forwardedFor, trustedProxies: trustedProxies),
    ipv6Prefix: ipv6Prefix)
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
