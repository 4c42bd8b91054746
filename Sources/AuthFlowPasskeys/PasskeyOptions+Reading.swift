package import AuthFlow

extension PasskeyOptions {
    /// The keys of `type: passkey` in `options`, each checked for its form; how they fit together (the relying
    /// party id a registrable suffix of every web origin's host) is the plugin's `validate` check.
    ///
    /// - Throws: ``ConfigurationError`` with every key of the wrong type or form, at its position.
    package init(reading options: ProviderOptions) throws(ConfigurationError) {
        var reading = options.reading()
        self.init()
        publicURL = options.publicURL
        if let rpID = reading.string("rp_id") {
            if Self.isHostName(rpID) {
                self.rpID = rpID
            } else {
                reading.refuse(
                    "rp_id",
                    "expected a lowercase host name such as example.com for \(reading.path("rp_id")) (no scheme, "
                        + "port or path), found \(ProviderOptions.Reading.quote(rpID))")
            }
        }
        rpName = reading.string("rp_name")
        origins = Self.origins(&reading)
        userVerification = reading.choice("user_verification", UserVerification.self)
        attestation = reading.choice("attestation", Attestation.self)
        try reading.check()
    }

    /// `origins`: a non-empty list of web origins (`https://host[:port]`, `http://` on a loopback host only) and
    /// Android app origins (`android:apk-key-hash:` and the base64url SHA-256 of the signing certificate).
    private static func origins(_ reading: inout ProviderOptions.Reading) -> [String]? {
        let path = reading.path("origins")
        guard let list = reading.stringItems("origins") else { return nil }
        guard !list.isEmpty else {
            reading.refuse("origins", "expected at least one origin in \(path), found an empty list")
            return nil
        }
        var origins: [String] = []
        for (origin, location) in list {
            if isPasskeyOrigin(origin) {
                origins.append(origin)
                continue
            }
            reading.report(
                .invalidValue,
                "expected an origin such as https://example.com (scheme, host and optional port; no path, no "
                    + "trailing /, lowercase; http:// only on a loopback host) or android:apk-key-hash:… in \(path), "
                    + "found \(ProviderOptions.Reading.quote(origin))", at: location)
        }
        return origins.count == list.count ? origins : nil
    }

    /// Lowercase ASCII labels of letters, digits and `-`, separated by single dots.
    static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
    }

    /// A web origin exactly as a browser serializes it, or an Android app origin.
    static func isPasskeyOrigin(_ text: String) -> Bool {
        let appPrefix = "android:apk-key-hash:"
        if text.hasPrefix(appPrefix) {
            let hash = text.dropFirst(appPrefix.count)
            return !hash.isEmpty
                && hash.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        || $0 == "_"
                }
        }
        guard text == text.lowercased(), let parts = ConfigurationSyntax.url(text), !parts.hasUserInfo,
            parts.path.isEmpty, !parts.hasQuery, !parts.hasFragment
        else { return false }
        return parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
    }
}
