/// The hosts on which plain `http://` is allowed (the sandbox, local test providers, `token verify --jwks`):
/// exactly `localhost`, an IPv4 literal in `127.0.0.0/8`, or the IPv6 literal `::1`.
///
/// The test is on the parsed host, never a prefix of it: `127.attacker.example` and `localhost.example` are
/// ordinary names that anyone can point anywhere.
package enum LoopbackHost {
    /// Whether `host` (as written in a URL; IPv6 with or without brackets, any ASCII case) is a loopback host.
    package static func contains(_ host: some StringProtocol) -> Bool {
        var lowered = String(host).lowercased()
        if lowered.hasPrefix("["), lowered.hasSuffix("]") { lowered = String(lowered.dropFirst().dropLast()) }
        if lowered == "localhost" || lowered == "::1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                && (Int(octet) ?? 256) <= 255
        }
    }
}
