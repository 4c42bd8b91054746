/// HTML escaping for the server's few pages (demo home, bounce page, error page).
enum HTML {
    /// `text` with `& < > " '` replaced by character references; safe in element content and quoted attributes.
    static func escape(_ text: String) -> String {
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

    /// A complete page with the shared minimal style.
    static func page(title: String, body: String) -> String {
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

    static let style = """
        body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}\
        h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}\
        dt{font-weight:600}dd{margin:0;font-family:ui-monospace,monospace;word-break:break-all}\
        a.signin{display:block;margin:.5rem 0;padding:.6rem 1rem;border:1px solid #888;border-radius:.4rem;\
        text-decoration:none;color:#222;max-width:18rem}ol#trace li{margin:.4rem 0}\
        .checks,.detail{color:#555;font-size:.9rem}.error{color:#a00}code{font-family:ui-monospace,monospace}
        """

    /// The Content-Security-Policy of pages without scripts: no external resources at all.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; "
        + "frame-ancestors 'none'"
}
