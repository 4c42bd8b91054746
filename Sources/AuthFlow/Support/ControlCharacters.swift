/// The characters that change how the text around them is read rather than being read themselves: the C0
/// controls (U+0000–U+001F, among them CR, LF, ESC and BEL), DEL, the C1 controls (U+0080–U+009F, among them NEL
/// and CSI), the line and paragraph separators (U+2028, U+2029) and the bidirectional formatting controls (U+061C,
/// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
///
/// One definition for every seam where a provider's value meets a reader: a subject holding one is refused at
/// sign-in (`AccountRules.subjectRefusal(_:)`), an identity header never carries one, and `authflow` prints each
/// escaped.
package enum ControlCharacters {
    /// Whether `scalar` is one of them.
    package static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            true
        default:
            false
        }
    }

    /// Whether `text` holds one of them; ASCII text is checked in one pass over its bytes.
    package static func appear(in text: String) -> Bool {
        var ascii = true
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return true }
            if byte >= 0x80 { ascii = false }
        }
        return !ascii && text.unicodeScalars.contains(where: contains)
    }
}
