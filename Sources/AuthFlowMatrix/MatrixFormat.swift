/// The output formats of the capability matrix (`authflow matrix --format …`).
public enum MatrixFormat: String, Sendable, Hashable, CaseIterable {
    /// An aligned plain-text table for terminals, advisories and a legend below it.
    case text
    /// A Markdown table to paste into documentation, advisories as a list.
    case markdown
    /// The JSON contract (`{"providers": [...]}`, docs/configuration.md), pretty-printed with a stable key order.
    case json
    /// A standalone HTML page (inline CSS, no scripts, no external resources).
    case html

    /// The `Content-Type` to serve the rendering with (e.g. from the demo server's `/matrix`).
    public var contentType: String {
        switch self {
        case .text: "text/plain; charset=utf-8"
        case .markdown: "text/markdown; charset=utf-8"
        case .json: "application/json"
        case .html: "text/html; charset=utf-8"
        }
    }
}
