#if Hummingbird
  public import Hummingbird
  public import NIOCore

  /// A request context that carries the client's address: what the address initializers of
  /// ``RateLimitMiddleware`` need, ready to use.
  ///
  /// ```swift
  /// let router = Router(context: RateLimitRequestContext.self)
  /// router.add(middleware: RateLimitMiddleware(
  ///   RateLimitPolicy("api", perClient), trustedProxies: 1))
  /// let app = Application(router: router)
  /// ```
  ///
  /// An app with a context of its own conforms it to `RemoteAddressRequestContext` the same way: store
  /// `source.channel.remoteAddress` in `init(source:)`.
  public struct RateLimitRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer: the client, or the last proxy in front.
    public let remoteAddress: SocketAddress?

    /// The context of a request that arrived on `source`'s channel.
    public init(source: Source) {
      coreContext = .init(source: source)
      remoteAddress = source.channel.remoteAddress
    }
  }
#endif
