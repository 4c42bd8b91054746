/// HTML text helpers for the few pages the server, the sandbox and the capability matrix render.
public enum HTML {
    /// `text` with `& < > " '` replaced by character references; safe in element content and quoted attribute
    /// values.
    public static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A complete UTF-8 page: `title` (escaped here), an inline style sheet and `body` (inserted as given).
    package static func page(title: String, style: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// The Content-Security-Policy of pages without scripts: inline styles, forms to the same origin, no
    /// external resources and no framing.
    package static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; "
        + "frame-ancestors 'none'"
}
