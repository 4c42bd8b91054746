internal import AuthFlowYAML

extension ConfigurationReader {
    /// `server.metrics_listen`: `host:port`, or a bare port meaning `127.0.0.1:PORT`. Absent means no metrics
    /// listener. A non-loopback host is taken as the operator's explicit choice.
    mutating func metricsListen(_ node: YAMLNode?) -> ListenAddress? {
        guard let text = text(node, path: "server.metrics_listen", expected: "host:port") else { return nil }
        let value = text.value
        if !value.isEmpty, value.utf8.count <= 5, value.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(value), port <= 65_535
        {
            return ListenAddress(host: "127.0.0.1", port: port)
        }
        guard let address = ListenAddress(parsing: value) else {
            report(
                .invalidValue,
                "expected host:port (e.g. 127.0.0.1:9464) or a port for server.metrics_listen, found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        return address
    }

    /// `server.log_format`: `text` (default) or `json`.
    mutating func logFormat(_ node: YAMLNode?) -> LogFormat {
        guard let text = text(node, path: "server.log_format", expected: "text or json") else { return .text }
        guard let format = LogFormat(rawValue: text.value) else {
            report(
                .invalidValue, "expected text or json for server.log_format, found \(text.shown)", at: text.scalar.mark)
            return .text
        }
        return format
    }

    /// `server.audit_log`: `stderr`, or a file name (relative to the configuration file's directory) the audit
    /// trail is appended to; absent means no audit trail.
    mutating func auditLog(_ node: YAMLNode?) -> AuditDestination? {
        let path = "server.audit_log"
        guard let text = text(node, path: path, expected: "a file name or stderr") else { return nil }
        let value = text.value
        if value == "stderr" { return .standardError }
        guard !value.isEmpty, !value.hasSuffix("/"),
            !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            report(
                .invalidValue,
                "expected a file name (e.g. /var/log/authflow/audit.jsonl) or stderr for \(path), found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        let resolved =
            value.hasPrefix("/") || configurationDirectory == nil ? value : "\(configurationDirectory ?? "")/\(value)"
        return .file(resolved)
    }
}
