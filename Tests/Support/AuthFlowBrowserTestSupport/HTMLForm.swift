import Foundation

/// Reads the first `<form>` of a page: its action and its hidden inputs (enough for the form_post and
/// bounce pages).
package struct HTMLForm {
    package var action: String
    package var fields: [(String, String)]

    package init?(_ html: String) {
        guard let formStart = html.range(of: "<form") else { return nil }
        let form = html[formStart.lowerBound...]
        guard let action = Self.attribute("action", in: form.prefix { $0 != ">" }) else { return nil }
        self.action = action
        var fields: [(String, String)] = []
        var rest = form[...]
        while let input = rest.range(of: "<input") {
            let tag = rest[input.lowerBound...].prefix { $0 != ">" }
            if let name = Self.attribute("name", in: tag), let value = Self.attribute("value", in: tag) {
                fields.append((name, value))
            }
            rest = rest[input.upperBound...]
        }
        self.fields = fields
    }

    package func value(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return unescape(String(value))
    }

    static func unescape(_ text: String) -> String {
        var result = text
        for (entity, character) in [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&amp;", "&"),
        ] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}
