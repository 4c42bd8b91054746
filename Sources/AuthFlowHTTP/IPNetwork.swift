#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`; a bare address is a single host), as
/// used by `server.trusted_proxies`.
///
/// IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) are compared as the IPv4 address they carry.
package struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), host bits cleared.
    package let address: [UInt8]
    /// The number of leading bits that identify the network.
    package let prefixLength: Int

    /// Parses `a.b.c.d[/n]` or an IPv6 address with an optional `/n`; `nil` when it is neither or the
    /// prefix is out of range.
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let bytes = Self.bytes(of: String(first)) else { return nil }
        let bits = bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let value = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(value) else {
                return nil
            }
            prefix = value
        }
        self.prefixLength = prefix
        self.address = Self.masked(bytes, prefix: prefix)
    }

    /// Whether the numeric address `text` lies in this network (`false` when it is not an address).
    package func contains(_ text: String) -> Bool {
        guard let bytes = Self.bytes(of: text), bytes.count == address.count else { return false }
        return Self.masked(bytes, prefix: prefixLength) == address
    }

    /// `address/prefix`.
    package var description: String {
        "\(Self.text(of: address) ?? "?")/\(prefixLength)"
    }

    /// Whether the network holds every address of its family (`0.0.0.0/0`, `::/0`).
    package var isEverything: Bool { prefixLength == 0 }

    /// The canonical text of a numeric address (`inet_ntop` of what `inet_pton` read: lower-case, zeros
    /// compressed; an IPv4-mapped IPv6 address as the IPv4 address it carries), or `nil` when `text` is not one.
    package static func canonical(_ text: String) -> String? {
        bytes(of: text).flatMap(Self.text(of:))
    }

    /// The key that groups `text` with the addresses one client may hold: an IPv4 address on its own, an IPv6
    /// address by its network of `ipv6Prefix` bits (`2001:db8:1:2::/64`), since one client usually holds a
    /// whole /64. Text that is not a numeric address is returned as it is.
    package static func clientKey(_ text: String, ipv6Prefix: Int) -> String {
        guard let bytes = bytes(of: text) else { return text }
        guard bytes.count == 16, ipv6Prefix < 128 else { return Self.text(of: bytes) ?? text }
        let prefix = max(0, ipv6Prefix)
        return (Self.text(of: masked(bytes, prefix: prefix)) ?? text) + "/\(prefix)"
    }

    /// `inet_ntop` of 4 or 16 address bytes.
    private static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let shown = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        return shown == nil
            ? nil : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The 4 or 16 bytes of a numeric IPv4 or IPv6 address (IPv4-mapped IPv6 as 4 bytes); `nil` otherwise.
    package static func bytes(of text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count < 64 else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF { return Array(v6[12...]) }
        return v6
    }

    private static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsHere = max(0, min(8, prefix - index * 8))
            result[index] &= bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
        return result
    }
}
