import AuthFlow
import AuthFlowJOSE

/// Stored and received values in what `authflow` prints. A subject, email or name comes from a provider, a user id
/// from a shared store and a token's claims from anyone: each may hold characters a terminal acts on (escape
/// sequences, a CR or LF that forges a line, a bidirectional override), so the text output writes every
/// ``ControlCharacters`` character visibly and the JSON output `\u`-escapes it.
enum TerminalText {
    /// `text` with every control, line separator and bidirectional control character written as `\u{1B}` (hex,
    /// at least two digits) and every backslash as `\\`, so the printed value reads back unambiguously.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || ControlCharacters.contains($0) }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out.append(contentsOf: "\\\\".unicodeScalars)
            } else if ControlCharacters.contains(scalar) {
                out.append(contentsOf: "\\u{\(hex(scalar, digits: 2, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `value` as compact JSON in which every such character is written `\u001b` (lowercase, as the serializer
    /// writes its own): the serializer escapes C0 already; DEL, C1, U+2028, U+2029 and the bidirectional
    /// controls, which JSON allows raw, are escaped here (they occur only inside strings, all in the Basic
    /// Multilingual Plane, so the JSON reads back to the same value).
    static func json(_ value: JSONValue) -> String {
        let serialized = value.serialized()
        guard ControlCharacters.appear(in: serialized) else { return serialized }
        var out = String.UnicodeScalarView()
        for scalar in serialized.unicodeScalars {
            if ControlCharacters.contains(scalar) {
                out.append(contentsOf: "\\u\(hex(scalar, digits: 4, uppercase: false))".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The scalar's value in hex, zero-padded to `digits`.
    static func hex(_ scalar: Unicode.Scalar, digits: Int, uppercase: Bool) -> String {
        let text = String(scalar.value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
