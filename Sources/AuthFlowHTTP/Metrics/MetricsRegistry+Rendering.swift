extension MetricsRegistry {
    static func render(_ family: CounterFamily, into text: inout String) {
        header(family.name, help: family.help, type: "counter", into: &text)
        for (values, counter) in family.table.all() {
            text += family.name + labelText(family.labelNames, values) + " " + String(counter.value) + "\n"
        }
    }

    static func render(_ family: HistogramFamily, into text: inout String) {
        header(family.name, help: family.help, type: "histogram", into: &text)
        let bounds = family.upperBounds.map(number) + ["+Inf"]
        for (values, histogram) in family.table.all() {
            let snapshot = histogram.snapshot
            for (bound, count) in zip(bounds, snapshot.cumulativeCounts) {
                text +=
                    family.name + "_bucket"
                    + labelText(family.labelNames + ["le"], values + [bound]) + " " + String(count) + "\n"
            }
            let labels = labelText(family.labelNames, values)
            text += family.name + "_sum" + labels + " " + number(snapshot.sum) + "\n"
            text += family.name + "_count" + labels + " " + String(snapshot.count) + "\n"
        }
    }

    static func render(_ metric: SampledMetric, into text: inout String) {
        guard let value = metric.read() else { return }
        header(metric.name, help: metric.help, type: metric.kind.rawValue, into: &text)
        text += metric.name + " " + number(value) + "\n"
    }

    static func header(_ name: String, help: String, type: String, into text: inout String) {
        text += "# HELP \(name) \(escape(help, quotes: false))\n# TYPE \(name) \(type)\n"
    }

    static func labelText(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { "\($0)=\"\(escape($1, quotes: true))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A sample value: integers without a fraction, `+Inf`/`-Inf`/`NaN` spelled as Prometheus reads them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Escapes `\`, newline and (in label values) `"`, as the text format requires.
    static func escape(_ text: String, quotes: Bool) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quotes: escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
