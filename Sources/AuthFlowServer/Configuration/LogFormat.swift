/// How `authflow serve` writes its log lines (`server.log_format`).
package enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `authflow: LEVEL event key=value …`, one line per event (the default).
    case text
    /// One JSON object per line (`time`, `level`, `event`, `request_id`, `provider`, `route`, `status`,
    /// `duration_ms`, and `code` where there is one).
    case json
}
