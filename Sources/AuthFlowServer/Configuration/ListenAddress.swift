package import AuthFlow
package import AuthFlowYAML

/// A `host:port` to listen on (`127.0.0.1:8080`, `[::1]:8080`, `localhost:0` for any free port).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host or IP address, without IPv6 brackets.
    public let host: String
    /// The port, 0 meaning any free port.
    public let port: Int

    /// Creates an address.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`; `nil` when the text is not of that form or the port is outside 0…65535.
    package init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.isEmpty,
                host.unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "."
                        || $0 == "-"
                })
            else { return nil }
        }
        guard (1...5).contains(portText.count), portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), port <= 65_535
        else { return nil }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension ConfigurationReader {
    /// A `host:port` (see ``ListenAddress/init(parsing:)``).
    package mutating func listenAddress(_ node: YAMLNode?, path: String) -> ListenAddress? {
        guard let text = text(node, path: path, expected: "host:port") else { return nil }
        guard let address = ListenAddress(parsing: text.value) else {
            report(
                .invalidValue, "expected host:port for \(path) (e.g. 127.0.0.1:8080), found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        return address
    }
}
