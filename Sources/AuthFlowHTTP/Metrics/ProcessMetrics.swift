import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_*` metrics of the running process, read from `/proc` when `/metrics` is rendered:
/// `process_resident_memory_bytes`, `process_open_fds`, `process_cpu_seconds_total` and
/// `process_start_time_seconds`. Where `/proc` is missing (not Linux) they are left out.
package enum ProcessMetrics {
    /// Registers the four process metrics in `registry`.
    ///
    /// - Parameters:
    ///   - registry: where the metrics are registered.
    ///   - procRoot: the proc file system of the process (`/proc/self`; a test may pass a copy).
    /// - Throws: ``MetricsError`` `duplicate_name` when they are already registered.
    package static func register(in registry: MetricsRegistry, procRoot: String = "/proc") throws(MetricsError) {
        let ticks = Double(max(sysconf(Int32(_SC_CLK_TCK)), 1))
        let pageSize = Double(max(sysconf(Int32(_SC_PAGESIZE)), 1))
        try registry.sampled(
            "process_resident_memory_bytes", help: "Resident memory size in bytes.", type: .gauge
        ) {
            statFields(procRoot).flatMap { $0.count > 21 ? Double($0[21]) : nil }.map { $0 * pageSize }
        }
        try registry.sampled("process_open_fds", help: "Number of open file descriptors.", type: .gauge) {
            (try? FileManager.default.contentsOfDirectory(atPath: procRoot + "/self/fd")).map { Double($0.count) }
        }
        try registry.sampled(
            "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", type: .counter
        ) {
            guard let fields = statFields(procRoot), fields.count > 12, let user = Double(fields[11]),
                let system = Double(fields[12])
            else { return nil }
            return (user + system) / ticks
        }
        try registry.sampled(
            "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.",
            type: .gauge
        ) {
            guard let fields = statFields(procRoot), fields.count > 19, let start = Double(fields[19]),
                let boot = bootTime(procRoot)
            else { return nil }
            return boot + start / ticks
        }
    }

    /// The fields of `/proc/self/stat` after the command name: index 0 is field 3 (`state`) of proc(5).
    static func statFields(_ procRoot: String) -> [Substring]? {
        guard let text = try? String(contentsOfFile: procRoot + "/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
    }

    /// `btime` of `/proc/stat`: when the system booted, in seconds since the epoch.
    static func bootTime(_ procRoot: String) -> Double? {
        guard let text = try? String(contentsOfFile: procRoot + "/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
