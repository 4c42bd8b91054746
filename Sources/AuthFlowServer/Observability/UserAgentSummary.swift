/// A short, fixed-vocabulary summary of a `User-Agent` (`Chrome on Linux`), kept with a session so its user can
/// tell their sessions apart. Only words of this vocabulary are ever returned: the raw header, with whatever a
/// client put in it, is never stored or shown.
enum UserAgentSummary {
    /// The most bytes of the header looked at.
    static let scannedBytes = 512

    /// `"<browser> on <system>"`, either alone when only one is known, or `nil` when neither is.
    static func summary(_ userAgent: String?) -> String? {
        guard let userAgent, !userAgent.isEmpty else { return nil }
        let text = String(decoding: userAgent.utf8.prefix(scannedBytes), as: UTF8.self)
        let browser = Self.browser(text)
        let system = Self.system(text)
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        case (nil, nil): return nil
        }
    }

    /// The browser or client, most specific token first (Edge and Opera also say Chrome; Chrome also says Safari).
    static func browser(_ text: String) -> String? {
        let rules: [(String, String)] = [
            ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"),
            ("FxiOS/", "Firefox"), ("SamsungBrowser/", "Samsung Internet"), ("CriOS/", "Chrome"),
            ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Version/", "Safari"), ("curl/", "curl"),
            ("python-requests/", "Python"), ("CFNetwork/", "iOS app"), ("okhttp/", "Android app"),
        ]
        for (token, name) in rules where text.contains(token) { return name }
        return nil
    }

    /// The operating system (iOS and Android before macOS and Linux, which their headers also name).
    static func system(_ text: String) -> String? {
        let rules: [(String, String)] = [
            ("iPhone", "iOS"), ("iPad", "iPadOS"), ("Android", "Android"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Macintosh", "macOS"), ("Mac OS X", "macOS"), ("Linux", "Linux"),
        ]
        for (token, name) in rules where text.contains(token) { return name }
        return nil
    }
}
