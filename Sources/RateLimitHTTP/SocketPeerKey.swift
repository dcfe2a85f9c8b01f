#if canImport(Darwin)
  package import Darwin
#elseif canImport(Glibc)
  package import Glibc
#elseif canImport(Musl)
  package import Musl
#endif

/// ``clientKey(address:)`` of an IPv4 socket peer, from its `sockaddr_in` (what NIO's `SocketAddress.v4` holds):
/// the same key, read from the address's bits instead of printed and parsed. Both middlewares key an IPv4 peer
/// with no proxy to read this way.
package func clientKey(ipv4 address: sockaddr_in) -> String {
  // `sin_addr` is in network byte order.
  clientKey(ipv4: UInt32(bigEndian: address.sin_addr.s_addr))
}
