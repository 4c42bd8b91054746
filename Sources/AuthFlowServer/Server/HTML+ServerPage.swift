import AuthFlowHTTP

extension HTML {
    /// A page of the server's own (error page, form_post bounce page) with the shared minimal style.
    static func serverPage(title: String, body: String) -> String {
        page(title: title, style: serverStyle, body: body)
    }

    static let serverStyle = """
        body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}\
        h1{font-size:1.4rem}.error{color:#a00}code{font-family:ui-monospace,monospace}
        """
}
