/// Which address a request comes from when reverse proxies may stand in between.
package enum ForwardedClient {
    /// The client address of a request from `peer` carrying `forwardedFor` (every `X-Forwarded-For` header
    /// value, in order).
    ///
    /// Only a peer in `trusted` is believed: walking `X-Forwarded-For` from the right, trusted hops are
    /// skipped and the first untrusted address is the client. A malformed entry stops the walk at the last
    /// trusted hop, and so does a list made only of trusted hops, so a client can never pick its own address.
    ///
    /// The address returned is canonical (``IPNetwork/canonical(_:)``), so that `2001:DB8::1` and
    /// `2001:0db8::1` are one client.
    package static func address(peer: String, forwardedFor: [String], trusted: [IPNetwork]) -> String {
        let peer = IPNetwork.canonical(peer) ?? peer
        guard !trusted.isEmpty, isTrusted(peer, trusted) else { return peer }
        var candidate = peer
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.suffix(64)
        for hop in hops.reversed() {
            guard let address = IPNetwork.canonical(hop.trimmingASCIISpaces()) else { return candidate }
            guard isTrusted(address, trusted) else { return address }
            candidate = address
        }
        return candidate
    }

    /// Whether `address` lies in one of `trusted`.
    package static func isTrusted(_ address: String, _ trusted: [IPNetwork]) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}
